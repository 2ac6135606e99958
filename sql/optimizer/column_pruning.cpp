// Column pruning: table scans read only the columns some expression or the result uses, so
// hash tables and sort buffers (which keep every input column) stay narrow; so do the buffers of
// WITH queries computed once (only the columns some reader reads).
#include <algorithm>
#include <unordered_set>

#include "sql/optimizer/optimizer.hpp"

namespace hyrax::sql {

using namespace plan;

namespace {

void collectUsed(Operator& op, std::unordered_set<const IU*>& used) {
  if (op.kind == OpKind::With) {
    // The query first, then each WITH query after all that read it (those after it): a WITH
    // query's outputs are used when a reader's columns are.
    for (size_t i = op.children.size(); i-- > 0;) collectUsed(*op.children[i], used);
    return;
  }
  if (op.kind == OpKind::CteScan)
    for (auto& c : static_cast<CteScan&>(op).columns)
      if (used.count(c.iu)) used.insert(c.source);
  forEachExpr(op, [&](ExprPtr& e) {
    std::vector<const IU*> ius;
    e->collectIUs(ius);
    used.insert(ius.begin(), ius.end());
  });
  if (op.kind == OpKind::UnionAll)  // every column of every input, to keep rows whole
    for (auto& in : static_cast<UnionAll&>(op).inputs) used.insert(in.begin(), in.end());
  // Operators above have been visited: an outer column they read needs its input's column.
  if (op.kind == OpKind::Join)
    for (auto& c : static_cast<Join&>(op).outerColumns)
      if (used.count(c.outer)) used.insert(c.inner);
  for (auto& c : op.children) collectUsed(*c, used);
}

void prune(OperatorPtr& ptr, const std::unordered_set<const IU*>& used) {
  Operator& op = *ptr;
  if (op.kind == OpKind::TableScan) {
    auto& cols = static_cast<TableScan&>(op).columns;
    cols.erase(std::remove_if(cols.begin(), cols.end(), [&](auto& c) { return !used.count(c.iu); }), cols.end());
  }
  if (op.kind == OpKind::CteScan) {
    auto& cols = static_cast<CteScan&>(op).columns;
    cols.erase(std::remove_if(cols.begin(), cols.end(), [&](auto& c) { return !used.count(c.iu); }), cols.end());
  }
  if (op.kind == OpKind::With)  // a WITH query's buffer keeps the columns its readers read
    for (auto& d : static_cast<With&>(op).ctes)
      d.columns.erase(std::remove_if(d.columns.begin(), d.columns.end(), [&](auto* iu) { return !used.count(iu); }),
                      d.columns.end());
  if (op.kind == OpKind::Map) {
    auto& comp = static_cast<Map&>(op).computed;
    comp.erase(std::remove_if(comp.begin(), comp.end(), [&](auto& c) { return !used.count(c.iu); }), comp.end());
  }
  if (op.kind == OpKind::Join) {
    auto& outer = static_cast<Join&>(op).outerColumns;
    outer.erase(std::remove_if(outer.begin(), outer.end(), [&](auto& c) { return !used.count(c.outer); }), outer.end());
  }
  for (auto& c : op.children) prune(c, used);
  if (op.kind == OpKind::Map && static_cast<Map&>(op).computed.empty()) ptr = std::move(op.children[0]);  // nothing left
}

}  // namespace

void pruneColumns(QueryPlan& plan) {
  std::unordered_set<const IU*> used(plan.output.begin(), plan.output.end());
  collectUsed(*plan.root, used);
  prune(plan.root, used);
}

}  // namespace hyrax::sql
