#pragma once
// The optimizer, run on every plan the binder makes. The binder's plan is logical (its joins are
// plan::Join: what to join, not how); the rewrites keep it so:
//   0. WITH queries read more than once are computed once (a plan::With at the root), the
//      others inlined (common_tables.cpp),
//   1. constant folding in every expression,
//   2. mark joins (EXISTS, IN) whose mark is a WHERE conjunct become semi and anti joins,
//   3. predicate pushdown: WHERE/ON conjuncts move down to the operators that can evaluate them;
//      equalities between the two sides of a join become its keys (equi-join detection),
//   4. index lookups and range scans for scans whose filter fixes or bounds an index's key
//      (index_selection.cpp; chosen here, before the estimates that join order weighs),
//   5. column pruning: scans read only the columns the query uses,
//   6. cardinality estimates for each operator from table statistics (cardinality.hpp),
//   7. join order over each region of inner joins (join_order.cpp): exact DP over connected
//      pairs (DPccp) while affordable, linearized DP or greedy for very large regions.
// Then the physical planner (physical_planner.cpp) decides how: each Join becomes an index
// nested-loop join where few rows meet a large table with a fitting index, else a hash join with
// its build side; a Sort under a LIMIT keeps only the rows the LIMIT can return (top-k).
#include "codegen/plan/operator.hpp"

namespace hyrax::sql {

// WITH queries (common_tables.cpp): of the binder's plan::QueryPlan::commonTables, those read
// once are inlined where they are read, those read more often computed once under a plan::With
// at the root; the rewrites then optimize each of them as part of the plan.
void placeCommonTables(plan::QueryPlan& plan);

// The logical rewrites, then the physical planner: the plan codegen takes.
void optimize(plan::QueryPlan& plan);

// Parts, exposed for tests.
plan::OperatorPtr pushDownPredicates(plan::OperatorPtr op);
void foldPlanConstants(plan::Operator& op, bool deferErrors = false);
void pruneColumns(plan::QueryPlan& plan);
void simplifyMarkJoins(plan::OperatorPtr& op);
// Table scans filtered by equalities on an index's columns become index lookups, or range scans
// on an ordered index (index_selection.cpp).
void selectIndexes(plan::OperatorPtr& root);
class CardinalityModel;
// Reorders each tree of inner joins over its join graph (join_order.cpp, join_enumeration.hpp);
// 54001 for more than kMaxJoinLeaves (1,000) leaves in one tree.
void orderJoins(plan::OperatorPtr& op, CardinalityModel& model);
// Moves a selective semi or anti join from above a tree of inner joins onto the input its
// condition reads, so the joins see fewer rows (TPC-H Q18's IN subquery).
void sinkSemiJoins(plan::OperatorPtr& op, CardinalityModel& model);

// The physical planner (physical_planner.cpp): replaces every Join of the optimized plan by a
// physical join, sets Sort limits (top-k) and numbers the operators.
void planPhysical(plan::QueryPlan& plan, const CardinalityModel& model);
// A hash join for a logical Join: its build side, and its kind with the sides swapped where the
// preserved side is much the smaller.
plan::OperatorPtr planHashJoin(plan::OperatorPtr join);
// An index nested-loop join for an inner Join where that pays (index_selection.cpp); false if not.
bool selectIndexJoin(plan::OperatorPtr& join, const CardinalityModel& model);
void limitSorts(plan::Operator& op);

// Splits a condition into its AND-ed parts; joins parts back into one condition.
void splitConjuncts(plan::ExprPtr e, std::vector<plan::ExprPtr>& out);
plan::ExprPtr conjunction(std::vector<plan::ExprPtr> parts);
// (a AND b) OR (a AND c) -> a AND (b OR c), so a join key repeated in every branch of an OR
// (TPC-H Q19) becomes a conjunct the pushdown can use.
plan::ExprPtr factorCommonConjuncts(plan::ExprPtr e);

}  // namespace hyrax::sql
