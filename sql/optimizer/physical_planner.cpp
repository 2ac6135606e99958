// The physical planner: how to compute what the optimized logical plan says. Each logical Join
// becomes an index nested-loop join where few rows meet a large table with a fitting index
// (index_selection.cpp weighs that), otherwise a hash join building on the input that pays; a
// Sort under a LIMIT keeps only the rows the LIMIT can return (top-k). It runs last, on the
// estimates of the final join order, bottom-up: a join's inputs are planned before it.
#include <algorithm>

#include "sql/optimizer/cardinality.hpp"
#include "sql/optimizer/optimizer.hpp"

namespace hyrax::sql {

using namespace plan;

namespace {

// x [NOT] IN (S) without correlation: a mark join with no keys tried the comparison on every row
// of S for each row (100K x 21K rows: seconds). Its comparison becomes the hash key instead, with
// NULLs handled as the comparison would (HashJoin::nullAwareKey).
void hashMarkCondition(HashJoin& h) {
  if (h.kind != JoinKind::Mark || !h.keys.empty() || h.residual || !h.markCondition) return;
  Expr& c = *h.markCondition;
  if (c.kind != ExprKind::Compare || c.cmp != CmpOp::Eq) return;
  auto ius = [](const Operator& op) {
    auto v = op.produced();
    return IURefs(v.begin(), v.end());
  };
  const IURefs build = ius(*h.child(0)), probe = ius(*h.child(1));
  int buildArg = readsOnly(*c.args[0], build) && readsAny(*c.args[0], build) && readsOnly(*c.args[1], probe) ? 0
                 : readsOnly(*c.args[1], build) && readsAny(*c.args[1], build) && readsOnly(*c.args[0], probe) ? 1
                                                                                                  : -1;
  if (buildArg < 0 || !c.args[0]->type.sameAs(c.args[1]->type)) return;
  HashJoin::Key key;
  key.build = std::move(c.args[buildArg]);
  key.probe = std::move(c.args[1 - buildArg]);
  h.keys.push_back(std::move(key));
  h.markCondition.reset();
  h.nullAwareKey = true;
}

}  // namespace

OperatorPtr planHashJoin(OperatorPtr logical) {
  auto& j = static_cast<Join&>(*logical);
  auto h = std::make_unique<HashJoin>();
  h->estimatedRows = j.estimatedRows;
  h->kind = j.kind;
  h->residual = std::move(j.residual);
  h->outerColumns = std::move(j.outerColumns);
  h->mark = j.mark;
  h->markCondition = std::move(j.markCondition);
  h->singleMatch = j.singleMatch;
  const double left = j.child(0)->estimatedRows, right = j.child(1)->estimatedRows;
  // The hash table holds the build side. A join that preserves its left input probes with it, so
  // builds on the right one, unless the right one is much the larger: then it builds on the few
  // preserved rows and marks those the many match (the Right kinds). An inner join builds on the
  // smaller input.
  bool buildLeft = false;
  switch (j.kind) {
    case JoinKind::Inner: buildLeft = !(left > right); break;
    case JoinKind::Semi:
    case JoinKind::Anti:
      if (right > 2 * left) {
        buildLeft = true;
        h->kind = j.kind == JoinKind::Semi ? JoinKind::RightSemi : JoinKind::RightAnti;
      }
      break;
    case JoinKind::LeftOuter:
      if (!j.singleMatch && right > 2 * left) {
        buildLeft = true;
        h->kind = JoinKind::RightOuter;
      }
      break;
    default: break;  // FullOuter and Mark build on the right
  }
  for (auto& k : j.keys) {
    HashJoin::Key key;
    key.build = std::move(buildLeft ? k.left : k.right);
    key.probe = std::move(buildLeft ? k.right : k.left);
    h->keys.push_back(std::move(key));
  }
  h->children.push_back(std::move(j.children[buildLeft ? 0 : 1]));
  h->children.push_back(std::move(j.children[buildLeft ? 1 : 0]));
  hashMarkCondition(*h);
  return h;
}

void planJoins(OperatorPtr& op, const CardinalityModel& model) {
  for (auto& c : op->children) planJoins(c, model);
  if (op->kind != OpKind::Join) return;
  if (selectIndexJoin(op, model)) return;
  op = planHashJoin(std::move(op));
  auto& h = static_cast<HashJoin&>(*op);
  if (h.keys.size() == 1) {
    // A probe row finds a partner when its key is among the build side's keys: the build's
    // distinct keys over the probe's (TPC-H Q4: 57,380 orders' keys among lineitem's 1.5M).
    const double build = model.distinct(*h.keys[0].build, h.child(0)->estimatedRows);
    const double probe = model.distinct(*h.keys[0].probe, h.child(1)->estimatedRows);
    h.probeMatchShare = std::min(1.0, build / probe);
  }
}

void limitSorts(Operator& op) {
  for (auto& c : op.children) limitSorts(*c);
  if (op.kind != OpKind::Limit || op.child()->kind != OpKind::Sort) return;
  auto& l = static_cast<Limit&>(op);
  auto& sort = static_cast<Sort&>(*op.child());
  if (l.limit == UINT64_MAX || l.runTimeCount() || l.offset > UINT64_MAX - 1 - l.limit) return;
  // A Sort that keeps only some rows of each partition (DISTINCT ON, an unnested ORDER BY ...
  // LIMIT) must see every row: its first n rows are not the first n it passes on.
  if (sort.partitionOffset != 0 || sort.partitionLimit != UINT64_MAX) return;
  // Window functions too: a partition's last rows decide its first rows' values (last_value, a
  // sum over the partition).
  if (!sort.windows.empty()) return;
  sort.limit = l.limit + l.offset;
}

void planPhysical(QueryPlan& plan, const CardinalityModel& model) {
  planJoins(plan.root, model);
  limitSorts(*plan.root);
  plan.operatorCount = numberOperators(*plan.root);
}

}  // namespace hyrax::sql
