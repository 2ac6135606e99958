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

void optimize(QueryPlan& plan) {
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
