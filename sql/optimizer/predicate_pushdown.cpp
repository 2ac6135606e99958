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
      if (j->residual) splitConjuncts(std::move(j->residual), preds);
      IUSetT left = producedSet(*op->child(0)), right = producedSet(*op->child(1));
      std::vector<ExprPtr> toLeft, toRight, residual;
      for (auto& p : preds) {
        if (coveredBy(*p, left)) {
          toLeft.push_back(std::move(p));
        } else if (coveredBy(*p, right)) {
          toRight.push_back(std::move(p));
        } else if (p->kind == ExprKind::Compare && p->cmp == CmpOp::Eq &&
                   p->args[0]->type.sameAs(p->args[1]->type) &&
                   ((coveredBy(*p->args[0], left) && coveredBy(*p->args[1], right)) ||
                    (coveredBy(*p->args[1], left) && coveredBy(*p->args[0], right)))) {
          bool leftFirst = coveredBy(*p->args[0], left);
          HashJoin::Key k;
          k.build = std::move(p->args[leftFirst ? 0 : 1]);
          k.probe = std::move(p->args[leftFirst ? 1 : 0]);
          j->keys.push_back(std::move(k));
        } else {
          residual.push_back(std::move(p));
        }
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
