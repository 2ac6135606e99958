#include "sql/optimizer/optimizer.hpp"

#include <algorithm>

#include "engine/storage/table.hpp"
#include "sql/optimizer/cardinality.hpp"
#include "sql/optimizer/constant_folding.hpp"

namespace hyrax::sql {

using namespace plan;

void foldPlanConstants(Operator& op, bool deferErrors) {
  forEachExpr(op, [&](ExprPtr& e) { e = foldConstants(std::move(e), deferErrors); });
  for (auto& c : op.children) foldPlanConstants(*c, deferErrors);
}

void chooseBuildSides(Operator& op) {
  for (auto& c : op.children) chooseBuildSides(*c);
  if (op.kind != OpKind::HashJoin) return;
  auto& j = static_cast<HashJoin&>(op);
  auto swapSides = [&] {
    std::swap(op.children[0], op.children[1]);
    for (auto& k : j.keys) std::swap(k.build, k.probe);
  };
  if ((j.kind == JoinKind::Semi || j.kind == JoinKind::Anti) && op.child(0)->estimatedRows > 2 * op.child(1)->estimatedRows) {
    // A big subquery side against few rows: build on the few, mark them from the many.
    swapSides();
    j.kind = j.kind == JoinKind::Semi ? JoinKind::RightSemi : JoinKind::RightAnti;
    return;
  }
  if (j.kind == JoinKind::LeftOuter && !j.singleMatch && op.child(0)->estimatedRows > 2 * op.child(1)->estimatedRows) {
    // Few preserved rows against many: build on the preserved ones, mark those the many match.
    swapSides();
    j.kind = JoinKind::RightOuter;
    return;
  }
  if (j.kind != JoinKind::Inner) return;  // the others must probe with the side they preserve
  // The hash table holds the build side: make it the smaller input.
  if (op.child(0)->estimatedRows > op.child(1)->estimatedRows) swapSides();
}

void limitSorts(Operator& op) {
  for (auto& c : op.children) limitSorts(*c);
  if (op.kind != OpKind::Limit || op.child()->kind != OpKind::Sort) return;
  auto& l = static_cast<Limit&>(op);
  if (l.limit == UINT64_MAX || l.offset > UINT64_MAX - 1 - l.limit) return;
  static_cast<Sort&>(*op.child()).limit = l.limit + l.offset;
}

void optimize(QueryPlan& plan) {
  foldPlanConstants(*plan.root, plan.deferConstantErrors);
  simplifyMarkJoins(plan.root);
  plan.root = pushDownPredicates(std::move(plan.root));
  foldPlanConstants(*plan.root, plan.deferConstantErrors);
  selectIndexes(plan.root);
  pruneColumns(plan);
  CardinalityModel model(*plan.root);
  model.estimate(*plan.root);
  sinkSemiJoins(plan.root, model);
  orderJoins(plan.root, model);
  model.estimate(*plan.root);
  chooseBuildSides(*plan.root);
  selectIndexJoins(plan.root, model);
  limitSorts(*plan.root);
  plan.operatorCount = numberOperators(*plan.root);
}

}  // namespace hyrax::sql
