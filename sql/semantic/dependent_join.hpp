#pragma once
// General unnesting of a correlated subquery (Neumann and Kemper, "Unnesting Arbitrary Queries",
// BTW 2015). The subquery S reads the outer IUs F; the binder evaluates it as a dependent join
// D ⋈dep S, where D holds the distinct values of F that the outer input has (the domain), and
// joins the result with the outer input on F. The dependent join is pushed down through S's
// operators until nothing below it reads F: there it becomes a plain cross product D × T, or,
// when a filter equates every f of F with an expression e of T, no join at all (f := e, which
// also yields values no outer row has; the join with the outer input drops those).
// Correlation under LIMIT / OFFSET, or in several rows of VALUES, stays 0A000.
#include <vector>

#include "codegen/plan/clone.hpp"

namespace hyrax::sql {

struct DependentJoin {
  plan::OperatorPtr subquery;  // S without correlation to F; its output carries F's values too
  // For each IU of F (in order), the IU of `subquery`'s output holding that outer value.
  std::vector<std::pair<const plan::IU*, const plan::IU*>> correlation;
};

// Unnests `subquery` for the IUs `correlated` (ordered), which `outerInput` produces; the domain
// is computed from a copy of the smallest part of `outerInput` that has them all. Throws 0A000 for the shapes above.
DependentJoin unnestDependentJoin(plan::OperatorPtr subquery, const plan::Operator& outerInput,
                                  const std::vector<const plan::IU*>& correlated, plan::IUSet& ius);

// D for the IUs `correlated` (ordered), which `outerInput` produces: an aggregation, grouped by
// fresh IUs (`d` receives f -> its group IU), over a copy of the smallest part of `outerInput`
// that has them all, so a superset of their distinct values there. 0A000 when that part calls a
// volatile function.
plan::OperatorPtr correlationDomain(const plan::Operator& outerInput, const std::vector<const plan::IU*>& correlated,
                                    plan::IUSet& ius, plan::IUMap& d);

// `a` and `b` are the same value, NULL equal to NULL, written as equalities that cannot be NULL so
// that the optimizer makes hash join keys of them.
plan::ExprPtr nullSafeEquals(const plan::IU* a, const plan::IU* b);

}  // namespace hyrax::sql
