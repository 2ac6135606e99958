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

// An aggregation whose aggregates take their input in an order (array_agg(x ORDER BY k)) gets a
// Sort by it right under it, now that the binder's rewrites are done: its rows come out in order on
// one thread. Keys that are no column are computed by a Map below it (a Sort sorts by columns).
void sortAggregateInputs(OperatorPtr& op, QueryPlan& plan) {
  for (auto& c : op->children) sortAggregateInputs(c, plan);
  if (op->kind != OpKind::Aggregate) return;
  auto& a = static_cast<Aggregate&>(*op);
  if (a.inputOrder.empty()) return;
  auto computed = std::make_unique<Map>();
  auto sort = std::make_unique<Sort>();
  for (auto& k : a.inputOrder) {
    if (k.expr->kind != ExprKind::Column) {
      const IU* iu = plan.ius.make(k.expr->type, "order");
      computed->computed.push_back({iu, std::move(k.expr)});
      k.expr = Expr::column(iu);
    }
    sort->keys.push_back(std::move(k));
  }
  a.inputOrder.clear();
  OperatorPtr input = std::move(a.children[0]);
  if (!computed->computed.empty()) {
    computed->children.push_back(std::move(input));
    input = std::move(computed);
  }
  sort->children.push_back(std::move(input));
  a.children[0] = std::move(sort);
}

void optimize(QueryPlan& plan) {
  sortAggregateInputs(plan.root, plan);
  placeCommonTables(plan);
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
  planPhysical(plan, model);
}

}  // namespace hyrax::sql
