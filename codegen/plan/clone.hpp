#pragma once
// Deep copies of logical plan trees. The binder's unnesting of correlated subqueries needs a
// second copy of a subquery's outer input (the domain of the outer values, Neumann and Kemper,
// "Unnesting Arbitrary Queries", BTW 2015), and a copy must define IUs of its own: an IU is
// produced by exactly one operator of a plan.
#include <functional>
#include <unordered_map>

#include "codegen/plan/operator.hpp"

namespace hyrax::plan {

using IUMap = std::unordered_map<const IU*, const IU*>;

// Every IU some operator of the tree produces, also those a join does not pass on.
IURefs producedInTree(const Operator& root);

// Does `test` hold for some expression an operator of the tree holds?
bool anyExprInTree(const Operator& root, const std::function<bool(const Expr&)>& test);

// Does an expression of the tree call something that may give another value, or change state,
// each time (nextval/setval, a stored function)? A copy of such a tree computes other rows.
bool hasVolatileCall(const Operator& root);
bool hasVolatileCall(const Expr& e);

// A copy of the tree whose operators produce fresh IUs (made in `ius`, same types and names);
// `map` receives old -> new for each of them. Expressions reading IUs the tree does not produce
// (outer references) keep reading those. Only logical operators (the binder's) are supported.
OperatorPtr cloneWithFreshIUs(const Operator& root, IUSet& ius, IUMap& map);

// A copy of the tree with IUs replaced by `map` where it has them (none: the same IUs; then the
// copy must replace the original, never stand beside it).
OperatorPtr cloneTree(const Operator& root, const IUMap& map = {});

// Replaces, in `e`, each column read of a key of `map` by a read of its value.
void substituteIUs(ExprPtr& e, const IUMap& map);

// The same in every expression of the tree (what its operators produce stays).
void substituteIUsInTree(Operator& root, const IUMap& map);

}  // namespace hyrax::plan
