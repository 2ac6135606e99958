// Column pruning: table scans read only the columns some expression or the result uses, so
// hash tables and sort buffers (which keep every input column) stay narrow.
#include <algorithm>
#include <unordered_set>

#include "sql/optimizer/optimizer.hpp"

namespace hyrax::sql {

using namespace plan;

namespace {

void collectUsed(const Operator& op, std::unordered_set<const IU*>& used) {
  auto add = [&](const ExprPtr& e) {
    if (!e) return;
    std::vector<const IU*> ius;
    e->collectIUs(ius);
    used.insert(ius.begin(), ius.end());
  };
  switch (op.kind) {
    case OpKind::Filter: add(static_cast<const Filter&>(op).predicate); break;
    case OpKind::Map:
      for (auto& c : static_cast<const Map&>(op).computed) add(c.expr);
      break;
    case OpKind::HashJoin:
      add(static_cast<const HashJoin&>(op).residual);
      for (auto& k : static_cast<const HashJoin&>(op).keys) add(k.build), add(k.probe);
      break;
    case OpKind::Aggregate:
      for (auto& g : static_cast<const Aggregate&>(op).groups) add(g.expr);
      for (auto& a : static_cast<const Aggregate&>(op).aggregates) add(a.arg);
      break;
    case OpKind::Sort:
      for (auto& k : static_cast<const Sort&>(op).keys) add(k.expr);
      break;
    default: break;
  }
  for (auto& c : op.children) collectUsed(*c, used);
}

void prune(Operator& op, const std::unordered_set<const IU*>& used) {
  if (op.kind == OpKind::TableScan) {
    auto& cols = static_cast<TableScan&>(op).columns;
    cols.erase(std::remove_if(cols.begin(), cols.end(), [&](auto& c) { return !used.count(c.iu); }), cols.end());
  }
  if (op.kind == OpKind::Map) {
    auto& comp = static_cast<Map&>(op).computed;
    comp.erase(std::remove_if(comp.begin(), comp.end(), [&](auto& c) { return !used.count(c.iu); }), comp.end());
  }
  for (auto& c : op.children) prune(*c, used);
}

}  // namespace

void pruneColumns(QueryPlan& plan) {
  std::unordered_set<const IU*> used(plan.output.begin(), plan.output.end());
  collectUsed(*plan.root, used);
  prune(*plan.root, used);
}

}  // namespace hyrax::sql
