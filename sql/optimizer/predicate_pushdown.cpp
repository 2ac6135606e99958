// Predicate pushdown and equi-join detection. Conjuncts travel down until an operator that must
// see them first (aggregation, sort, limit) or until no child provides all their columns; an
// equality whose sides come from the two inputs of a join becomes a hash key.
#include <algorithm>
#include <unordered_set>

#include "sql/optimizer/optimizer.hpp"

namespace hyrax::sql {

using namespace plan;

void splitConjuncts(ExprPtr e, std::vector<ExprPtr>& out) {
  if (e->kind == ExprKind::And) {
    for (auto& a : e->args) splitConjuncts(std::move(a), out);
  } else {
    out.push_back(std::move(e));
  }
}

ExprPtr conjunction(std::vector<ExprPtr> parts) {
  if (parts.empty()) return nullptr;
  if (parts.size() == 1) return std::move(parts[0]);
  bool nullable = false;
  for (auto& p : parts) nullable = nullable || p->type.nullable;
  auto e = std::make_unique<Expr>(ExprKind::And, SqlType::boolean(nullable), parts[0]->pos);
  e->args = std::move(parts);
  return e;
}

namespace {

using IUSetT = std::unordered_set<const IU*>;

IUSetT producedSet(const Operator& op) {
  auto v = op.produced();
  return IUSetT(v.begin(), v.end());
}

bool coveredBy(const Expr& e, const IUSetT& set) {
  std::vector<const IU*> used;
  e.collectIUs(used);
  return std::all_of(used.begin(), used.end(), [&](const IU* iu) { return set.count(iu) > 0; });
}

OperatorPtr withFilter(OperatorPtr op, std::vector<ExprPtr> preds) {
  if (preds.empty()) return op;
  auto f = std::make_unique<Filter>();
  f->predicate = conjunction(std::move(preds));
  f->children.push_back(std::move(op));
  return f;
}

// An equality between an expression of the build side and one of the probe side becomes a hash
// key of the join (and leaves `p` empty). A Mark join whose mark can be NULL takes only keys that
// cannot be NULL: its NULL comparisons must reach the residual, where they make the mark NULL.
bool takeJoinKey(HashJoin& j, ExprPtr& p, const IUSetT& build, const IUSetT& probe) {
  if (p->kind != ExprKind::Compare || p->cmp != CmpOp::Eq || !p->args[0]->type.sameAs(p->args[1]->type)) return false;
  bool buildFirst = coveredBy(*p->args[0], build) && coveredBy(*p->args[1], probe);
  bool probeFirst = coveredBy(*p->args[1], build) && coveredBy(*p->args[0], probe);
  if (!buildFirst && !probeFirst) return false;
  if (j.kind == JoinKind::Mark && j.mark->type.nullable && (p->args[0]->type.nullable || p->args[1]->type.nullable))
    return false;
  HashJoin::Key k;
  k.build = std::move(p->args[buildFirst ? 0 : 1]);
  k.probe = std::move(p->args[buildFirst ? 1 : 0]);
  j.keys.push_back(std::move(k));
  p.reset();
  return true;
}

OperatorPtr push(OperatorPtr op, std::vector<ExprPtr> preds);

// Joins that preserve their probe side. Conditions from above that read only the probe side go
// below the join; the rest (they read the join's outer columns or mark) stay above. Of the join's
// own condition, parts that read only the build side filter the build input; equalities across
// become keys; everything else, probe-only parts included, stays in the residual, because a
// probe row that fails it must still come out (unmatched, or with its mark).
OperatorPtr pushIntoOuterJoin(OperatorPtr op, std::vector<ExprPtr> preds) {
  auto* j = static_cast<HashJoin*>(op.get());
  IUSetT build = producedSet(*op->child(0)), probe = producedSet(*op->child(1));
  std::vector<ExprPtr> toProbe, above, toBuild, residual;
  for (auto& p : preds) (coveredBy(*p, probe) ? toProbe : above).push_back(std::move(p));
  std::vector<ExprPtr> own;
  if (j->residual) splitConjuncts(std::move(j->residual), own);
  for (auto& p : own) {
    if (coveredBy(*p, build))
      toBuild.push_back(std::move(p));
    else if (j->kind == JoinKind::Semi && coveredBy(*p, probe))
      toProbe.push_back(std::move(p));
    else if (!takeJoinKey(*j, p, build, probe))
      residual.push_back(std::move(p));
  }
  j->residual = conjunction(std::move(residual));
  op->children[0] = push(std::move(op->children[0]), std::move(toBuild));
  op->children[1] = push(std::move(op->children[1]), std::move(toProbe));
  return withFilter(std::move(op), std::move(above));
}

OperatorPtr push(OperatorPtr op, std::vector<ExprPtr> preds) {
  switch (op->kind) {
    case OpKind::Filter: {
      auto* f = static_cast<Filter*>(op.get());
      splitConjuncts(std::move(f->predicate), preds);
      return push(std::move(op->children[0]), std::move(preds));
    }
    case OpKind::Map: {
      // Conditions that do not read the computed columns can go below the Map.
      IUSetT below = producedSet(*op->child());
      std::vector<ExprPtr> down, here;
      for (auto& p : preds) (coveredBy(*p, below) ? down : here).push_back(std::move(p));
      op->children[0] = push(std::move(op->children[0]), std::move(down));
      return withFilter(std::move(op), std::move(here));
    }
    case OpKind::HashJoin: {
      auto* j = static_cast<HashJoin*>(op.get());
      if (j->kind != JoinKind::Inner) return pushIntoOuterJoin(std::move(op), std::move(preds));
      if (j->residual) splitConjuncts(std::move(j->residual), preds);
      IUSetT left = producedSet(*op->child(0)), right = producedSet(*op->child(1));
      std::vector<ExprPtr> toLeft, toRight, residual;
      for (auto& p : preds) {
        if (coveredBy(*p, left))
          toLeft.push_back(std::move(p));
        else if (coveredBy(*p, right))
          toRight.push_back(std::move(p));
        else if (!takeJoinKey(*j, p, left, right))
          residual.push_back(std::move(p));
      }
      j->residual = conjunction(std::move(residual));
      op->children[0] = push(std::move(op->children[0]), std::move(toLeft));
      op->children[1] = push(std::move(op->children[1]), std::move(toRight));
      return op;
    }
    default: {
      // A barrier: its children start afresh, the conditions stay above it.
      for (auto& c : op->children) c = push(std::move(c), {});
      return withFilter(std::move(op), std::move(preds));
    }
  }
}

}  // namespace

OperatorPtr pushDownPredicates(OperatorPtr op) { return push(std::move(op), {}); }

}  // namespace hyrax::sql
