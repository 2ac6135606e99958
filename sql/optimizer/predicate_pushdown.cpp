// Predicate pushdown and equi-join detection. Conjuncts travel down until an operator that must
// see them first (aggregation, sort, limit) or until no child provides all their columns; an
// equality whose sides come from the two inputs of a join becomes a key of it.
#include <algorithm>

#include "codegen/plan/clone.hpp"
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

ExprPtr factorCommonConjuncts(ExprPtr e) {
  if (e->kind != ExprKind::Or || e->args.size() < 2) return e;
  std::vector<ExprPtr> disjuncts;  // ((a OR b) OR c) as written: a, b, c
  auto flatten = [&](auto& self, ExprPtr x) -> void {
    if (x->kind != ExprKind::Or) return disjuncts.push_back(std::move(x));
    for (auto& a : x->args) self(self, std::move(a));
  };
  flatten(flatten, std::move(e));
  std::vector<std::vector<ExprPtr>> branches;
  for (auto& a : disjuncts) {
    branches.emplace_back();
    splitConjuncts(std::move(a), branches.back());
  }
  auto holds = [](const std::vector<ExprPtr>& branch, const Expr& c) {
    for (auto& x : branch)
      if (x && sameExpr(*x, c)) return true;
    return false;
  };
  std::vector<ExprPtr> common;
  for (auto& c : branches[0]) {
    bool everywhere = true;
    for (size_t b = 1; b < branches.size() && everywhere; ++b) everywhere = holds(branches[b], *c);
    if (!everywhere) continue;
    for (size_t b = 1; b < branches.size(); ++b)  // drop one copy from each other branch
      for (auto& x : branches[b])
        if (x && sameExpr(*x, *c)) {
          x.reset();
          break;
        }
    common.push_back(std::move(c));
  }
  // (a AND b) OR (a AND c) = a AND (b OR c), in three-valued logic too (it distributes). A branch
  // left empty is TRUE, and so is the whole disjunction.
  bool someBranchEmpty = false;
  auto disjunction = std::make_unique<Expr>(ExprKind::Or, SqlType::boolean(false), branches[0][0] ? branches[0][0]->pos : SourcePos{});
  for (auto& branch : branches) {
    std::vector<ExprPtr> rest;
    for (auto& x : branch)
      if (x) rest.push_back(std::move(x));
    if (rest.empty()) {
      someBranchEmpty = true;
      continue;
    }
    ExprPtr c = conjunction(std::move(rest));
    disjunction->type.nullable = disjunction->type.nullable || c->type.nullable;
    disjunction->args.push_back(std::move(c));
  }
  if (!someBranchEmpty) common.push_back(disjunction->args.size() == 1 ? std::move(disjunction->args[0]) : std::move(disjunction));
  return conjunction(std::move(common));
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

OperatorPtr withFilter(OperatorPtr op, std::vector<ExprPtr> preds) {
  if (preds.empty()) return op;
  auto f = std::make_unique<Filter>();
  f->predicate = conjunction(std::move(preds));
  f->children.push_back(std::move(op));
  return f;
}

// An equality between an expression of the left input and one of the right becomes a key of the
// join (and leaves `p` empty).
bool takeJoinKey(Join& j, ExprPtr& p, const IURefs& left, const IURefs& right) {
  if (p->kind != ExprKind::Compare || p->cmp != CmpOp::Eq || !p->args[0]->type.sameAs(p->args[1]->type)) return false;
  bool leftFirst = readsOnly(*p->args[0], left) && readsOnly(*p->args[1], right);
  bool rightFirst = readsOnly(*p->args[1], left) && readsOnly(*p->args[0], right);
  if (!leftFirst && !rightFirst) return false;
  Join::Key k;
  k.left = std::move(p->args[leftFirst ? 0 : 1]);
  k.right = std::move(p->args[leftFirst ? 1 : 0]);
  j.keys.push_back(std::move(k));
  p.reset();
  return true;
}

OperatorPtr push(OperatorPtr op, std::vector<ExprPtr> preds);

// From a disjunction over both inputs of a join, what it implies for one input alone: when each
// disjunct has conjuncts reading only `side`, their OR (TPC-H Q19: the part-only halves of the
// three branches filter part before the join). The original stays in the join's residual.
ExprPtr impliedFor(const Expr& e, const IURefs& side) {
  if (e.kind != ExprKind::Or) return nullptr;
  std::vector<const Expr*> disjuncts;
  auto flatten = [&](auto& self, const Expr& x) -> void {
    if (x.kind != ExprKind::Or) return disjuncts.push_back(&x);
    for (auto& a : x.args) self(self, *a);
  };
  flatten(flatten, e);
  auto result = std::make_unique<Expr>(ExprKind::Or, SqlType::boolean(false), e.pos);
  for (const Expr* d : disjuncts) {
    std::vector<const Expr*> conjuncts;
    auto split = [&](auto& self, const Expr& x) -> void {
      if (x.kind != ExprKind::And) return conjuncts.push_back(&x);
      for (auto& a : x.args) self(self, *a);
    };
    split(split, *d);
    std::vector<ExprPtr> mine;
    for (const Expr* c : conjuncts)
      // (Not a nextval() or a stored function: the copy would be another call, another value.)
      if (readsOnly(*c, side) && !c->isConstant() && !hasVolatileCall(*c)) mine.push_back(c->clone());
    if (mine.empty()) return nullptr;  // this branch says nothing about the side
    ExprPtr branch = conjunction(std::move(mine));
    result->type.nullable = result->type.nullable || branch->type.nullable;
    result->args.push_back(std::move(branch));
  }
  return result;
}

// Joins that preserve their left side (a full join both). Conditions from above that read only
// the left side go below a join that preserves only the left; the rest (they read the join's outer columns or mark) stay above. Of the join's
// own condition, parts that read only the right side filter the right input; equalities across
// become keys; everything else, left-only parts included, stays in the residual, because a left
// row that fails it must still come out (unmatched, or with its mark).
OperatorPtr pushIntoOuterJoin(OperatorPtr op, std::vector<ExprPtr> preds) {
  auto* j = static_cast<Join*>(op.get());
  IURefs left = op->child(0)->producedSet(), right = op->child(1)->producedSet();
  std::vector<ExprPtr> toLeft, above, toRight, residual;
  // A full join preserves both sides: a left row a condition from above removed early would
  // come out anyway, NULL-extended, from the right rows it matched. Nothing goes below it, not
  // even a condition that reads no column (WHERE FALSE must remove the right side's rows too).
  bool keepsRightRows = j->kind == JoinKind::FullOuter;
  for (auto& p : preds) (readsOnly(*p, left) && !keepsRightRows ? toLeft : above).push_back(std::move(p));
  std::vector<ExprPtr> own;
  if (j->residual) splitConjuncts(std::move(j->residual), own);
  // A mark condition that cannot be NULL decides like the rest of the condition: one condition.
  // One that can stays apart: NULL IN (...) is NULL, not FALSE, when the subquery has rows.
  if (j->markCondition && !j->mark->type.nullable) splitConjuncts(std::move(j->markCondition), own);
  for (auto& p : own) {
    if (readsOnly(*p, right) && !keepsRightRows)
      toRight.push_back(std::move(p));
    else if (j->kind == JoinKind::Semi && readsOnly(*p, left))
      toLeft.push_back(std::move(p));
    else if (!takeJoinKey(*j, p, left, right))
      residual.push_back(std::move(p));
  }
  j->residual = conjunction(std::move(residual));
  op->children[1] = push(std::move(op->children[1]), std::move(toRight));
  op->children[0] = push(std::move(op->children[0]), std::move(toLeft));
  return withFilter(std::move(op), std::move(above));
}

OperatorPtr push(OperatorPtr op, std::vector<ExprPtr> preds) {
  switch (op->kind) {
    case OpKind::Filter: {
      auto* f = static_cast<Filter*>(op.get());
      std::vector<ExprPtr> parts;
      splitConjuncts(std::move(f->predicate), parts);
      for (auto& p : parts) splitConjuncts(factorCommonConjuncts(std::move(p)), preds);
      return push(std::move(op->children[0]), std::move(preds));
    }
    case OpKind::Map: {
      // Conditions that do not read the computed columns can go below the Map.
      IURefs below = op->child()->producedSet();
      std::vector<ExprPtr> down, here;
      for (auto& p : preds) (readsOnly(*p, below) ? down : here).push_back(std::move(p));
      op->children[0] = push(std::move(op->children[0]), std::move(down));
      return withFilter(std::move(op), std::move(here));
    }
    case OpKind::Join: {
      auto* j = static_cast<Join*>(op.get());
      if (j->kind != JoinKind::Inner) return pushIntoOuterJoin(std::move(op), std::move(preds));
      if (j->residual) splitConjuncts(std::move(j->residual), preds);
      IURefs left = op->child(0)->producedSet(), right = op->child(1)->producedSet();
      std::vector<ExprPtr> toLeft, toRight, residual;
      for (auto& p : preds) {
        if (readsOnly(*p, left)) {
          toLeft.push_back(std::move(p));
        } else if (readsOnly(*p, right)) {
          toRight.push_back(std::move(p));
        } else if (!takeJoinKey(*j, p, left, right)) {
          if (ExprPtr l = impliedFor(*p, left)) toLeft.push_back(std::move(l));
          if (ExprPtr r = impliedFor(*p, right)) toRight.push_back(std::move(r));
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
