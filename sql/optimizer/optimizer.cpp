#include "sql/optimizer/optimizer.hpp"

#include <algorithm>

#include "engine/storage/table.hpp"
#include "sql/optimizer/constant_folding.hpp"

namespace hyrax::sql {

using namespace plan;

void foldPlanConstants(Operator& op) {
  forEachExpr(op, [](ExprPtr& e) { e = foldConstants(std::move(e)); });
  for (auto& c : op.children) foldPlanConstants(*c);
}

namespace {

// A rough selectivity per condition: equality 10%, range 33%, LIKE 25%, others 50%.
double selectivity(const Expr& e) {
  switch (e.kind) {
    case ExprKind::And: {
      double s = 1;
      for (auto& a : e.args) s *= selectivity(*a);
      return s;
    }
    case ExprKind::Or: {
      double s = 0;
      for (auto& a : e.args) s += selectivity(*a);
      return std::min(1.0, s);
    }
    case ExprKind::Compare: return e.cmp == CmpOp::Eq ? 0.1 : e.cmp == CmpOp::Ne ? 0.9 : 0.33;
    case ExprKind::Like: return e.negated ? 0.75 : 0.25;
    case ExprKind::InList: return std::min(1.0, 0.1 * static_cast<double>(e.args.size() - 1));
    case ExprKind::Constant: return !e.value.isNull() && e.value.asBool() ? 1.0 : 0.0;
    default: return 0.5;
  }
}

}  // namespace

void estimateCardinalities(Operator& op) {
  for (auto& c : op.children) estimateCardinalities(*c);
  switch (op.kind) {
    case OpKind::TableScan: op.estimatedRows = static_cast<double>(static_cast<TableScan&>(op).table->rowCount()); break;
    case OpKind::Values: op.estimatedRows = static_cast<double>(static_cast<Values&>(op).rows.size()); break;
    case OpKind::Filter: op.estimatedRows = op.child()->estimatedRows * selectivity(*static_cast<Filter&>(op).predicate); break;
    case OpKind::Map:
    case OpKind::Sort: op.estimatedRows = op.child()->estimatedRows; break;
    case OpKind::HashJoin: {
      auto& j = static_cast<HashJoin&>(op);
      double l = op.child(0)->estimatedRows, r = op.child(1)->estimatedRows;
      switch (j.kind) {
        case JoinKind::Inner: {
          // With keys: each probe row finds about one partner (key/foreign-key joins); without: all.
          double rows = j.keys.empty() ? l * r : std::max(l, r);
          if (j.residual) rows *= selectivity(*j.residual);
          op.estimatedRows = rows;
          break;
        }
        case JoinKind::LeftOuter:
        case JoinKind::Mark: op.estimatedRows = r; break;  // each probe row once (or about once)
        case JoinKind::Semi:
        case JoinKind::Anti: op.estimatedRows = r * 0.5; break;
      }
      break;
    }
    case OpKind::Aggregate: {
      auto& a = static_cast<Aggregate&>(op);
      double in = op.child()->estimatedRows;
      op.estimatedRows = a.groups.empty() ? 1 : std::max(1.0, std::min(in, in * 0.1 + 1));
      break;
    }
    case OpKind::Limit: {
      auto& l = static_cast<Limit&>(op);
      double in = std::max(0.0, op.child()->estimatedRows - static_cast<double>(l.offset));
      op.estimatedRows = l.limit == UINT64_MAX ? in : std::min(in, static_cast<double>(l.limit));
      break;
    }
  }
}

void chooseBuildSides(Operator& op) {
  for (auto& c : op.children) chooseBuildSides(*c);
  if (op.kind != OpKind::HashJoin) return;
  auto& j = static_cast<HashJoin&>(op);
  if (j.kind != JoinKind::Inner) return;  // the others must probe with the side they preserve
  // The hash table holds the build side: make it the smaller input.
  if (op.child(0)->estimatedRows > op.child(1)->estimatedRows) {
    std::swap(op.children[0], op.children[1]);
    for (auto& k : j.keys) std::swap(k.build, k.probe);
  }
}

void optimize(QueryPlan& plan) {
  foldPlanConstants(*plan.root);
  simplifyMarkJoins(plan.root);
  plan.root = pushDownPredicates(std::move(plan.root));
  foldPlanConstants(*plan.root);
  pruneColumns(plan);
  estimateCardinalities(*plan.root);
  chooseBuildSides(*plan.root);
  plan.operatorCount = numberOperators(*plan.root);
}

}  // namespace hyrax::sql
