// Subqueries in expressions, unnested into joins as they are bound, so that no subquery runs once
// per outer row (Neumann and Kemper, "Unnesting Arbitrary Queries", BTW 2015, for the shapes SQL
// users write; the rest say 0A000):
//   EXISTS, IN, op ANY/ALL  -> a mark join of the clause's input (left) with the subquery (right);
//                              the expression reads the mark. The optimizer turns a mark that is a
//                              WHERE conjunct into a semi or anti join.
//   (scalar subquery)       -> a left outer join that outputs the subquery's one column, with a
//                              run-time error when a row finds two values (21000).
// Correlation: conditions of the subquery that read outer columns are pulled out of its filters
// and become the join condition. Under an aggregate (SELECT min(x) FROM t WHERE t.k = outer.k)
// the correlated equalities become grouping keys instead, one group per outer value, and a
// missing group reads as the aggregate of no rows (count 0: the "count bug").
#include "engine/util/stack_depth.hpp"
#include "sql/optimizer/constant_folding.hpp"
#include "sql/optimizer/optimizer.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;
using plan::Join;
using plan::IU;
using plan::readsAny;
using plan::JoinKind;
using plan::OperatorPtr;
using plan::OpKind;

namespace {

using IUSetT = plan::IURefs;

// Every IU some operator of the tree produces (also those a join does not pass on).
IUSetT producedInTree(plan::Operator& root) {
  IUSetT produced;
  auto visit = [&](auto& self, plan::Operator& op) -> void {
    for (auto* iu : op.produced()) produced.insert(iu);
    for (auto& c : op.children) self(self, *c);
  };
  visit(visit, root);
  return produced;
}

// IUs the tree's expressions read that none of its operators produce: its outer references.
IUSetT freeIUs(plan::Operator& root) {
  const IUSetT produced = producedInTree(root);
  IUSetT free;
  auto visit = [&](auto& self, plan::Operator& op) -> void {
    plan::forEachExpr(op, [&](ExprPtr& e) {
      std::vector<const IU*> used;
      e->collectIUs(used);
      for (auto* iu : used)
        if (!produced.count(iu)) free.insert(iu);
    });
    for (auto& c : op.children) self(self, *c);
  };
  visit(visit, root);
  return free;
}

// Moves the conditions that read `outer` IUs out of the filters (and inner-join conditions) at
// the top of the tree into `pulled`. It passes only operators that keep their input's IUs, so the
// pulled conditions can be evaluated on the tree's output.
void pullCorrelated(OperatorPtr& op, const IUSetT& outer, std::vector<ExprPtr>& pulled) {
  auto split = [&](ExprPtr cond) {
    std::vector<ExprPtr> parts, keep;
    splitConjuncts(std::move(cond), parts);
    for (auto& p : parts) (readsAny(*p, outer) ? pulled : keep).push_back(std::move(p));
    return conjunction(std::move(keep));
  };
  switch (op->kind) {
    case OpKind::Filter: {
      auto& f = static_cast<plan::Filter&>(*op);
      f.predicate = split(std::move(f.predicate));
      pullCorrelated(op->children[0], outer, pulled);
      if (!f.predicate) op = std::move(op->children[0]);
      return;
    }
    case OpKind::Map: pullCorrelated(op->children[0], outer, pulled); return;
    case OpKind::Join: {
      auto& j = static_cast<Join&>(*op);
      if (j.kind == JoinKind::Inner && j.residual) j.residual = split(std::move(j.residual));
      if (j.kind != JoinKind::FullOuter)  // the left side's IUs pass every other join
        pullCorrelated(op->children[0], outer, pulled);
      if (j.kind == JoinKind::Inner) pullCorrelated(op->children[1], outer, pulled);
      return;
    }
    default: return;
  }
}

plan::CmpOp inverse(plan::CmpOp op) {  // NOT (a op b) == a inverse(op) b, for non-NULL a, b
  switch (op) {
    case plan::CmpOp::Eq: return plan::CmpOp::Ne;
    case plan::CmpOp::Ne: return plan::CmpOp::Eq;
    case plan::CmpOp::Lt: return plan::CmpOp::Ge;
    case plan::CmpOp::Le: return plan::CmpOp::Gt;
    case plan::CmpOp::Gt: return plan::CmpOp::Le;
    case plan::CmpOp::Ge: return plan::CmpOp::Lt;
  }
  return op;
}

ExprPtr logicNot(ExprPtr e, SourcePos pos) {
  std::vector<ExprPtr> args;
  args.push_back(std::move(e));
  return makeLogic(ExprKind::Not, std::move(args), pos);
}

// What the subquery's value `y` is for a group of no rows: its expression over the aggregate
// with count = 0 and the other aggregates NULL, folded to a constant (nullptr when it is not
// one). Values the maps between the subquery's top and the aggregate compute (also those of
// splitDistinctAggregates, as a count's CASE over its partial counts) are substituted in turn.
ExprPtr emptyGroupValue(plan::Operator& sub, const IU* y, const plan::Aggregate& agg) {
  auto computedBy = [&](const IU* iu) -> const ExprPtr* {
    for (plan::Operator* o = &sub; o->kind == OpKind::Map || o->kind == OpKind::Filter; o = o->child()) {
      if (o->kind != OpKind::Map) continue;
      for (auto& c : static_cast<plan::Map*>(o)->computed)
        if (c.iu == iu) return &c.expr;
    }
    return nullptr;
  };
  auto valueOf = [&](auto& self, const IU* iu) -> ExprPtr {
    for (auto& a : agg.aggregates) {
      if (a.iu != iu) continue;
      if (a.func == plan::AggFunc::Count || a.func == plan::AggFunc::CountStar) return Expr::constant(Value::int64(0));
      auto n = Expr::constant(Value());
      n->type = iu->type;
      return n;
    }
    const ExprPtr* computed = computedBy(iu);
    if (!computed) return nullptr;
    auto substitute = [&](auto& sub_, ExprPtr e) -> ExprPtr {
      checkStackDepth();
      if (e->kind == ExprKind::Column) {
        ExprPtr r = self(self, e->iu);
        return r ? std::move(r) : std::move(e);
      }
      for (auto& a : e->args) a = sub_(sub_, std::move(a));
      return e;
    };
    return substitute(substitute, (*computed)->clone());
  };
  ExprPtr v = valueOf(valueOf, y);
  if (!v) return nullptr;
  v = foldConstants(std::move(v));
  return v->kind == ExprKind::Constant ? std::move(v) : nullptr;
}

}  // namespace

OperatorPtr SelectBinder::bindNested(const ast::Select& s, std::vector<const IU*>& out) {
  SelectBinder inner(catalog_, plan_, this);
  std::vector<std::string> names;
  return inner.bind(s, out, names);
}

ExprPtr SelectBinder::bindSubquery(const ast::Expr& e, Clause clause) {
  if (probing_) throw Error(sqlstate::FeatureNotSupported, "subquery while matching GROUP BY", e.pos);
  if (clause == Clause::Check) throw Error(sqlstate::FeatureNotSupported, "cannot use subquery in check constraint", e.pos);
  if (!input_)
    throw Error(sqlstate::FeatureNotSupported, std::string("subqueries in ") + clauseName(clause) + " are not supported yet",
                e.pos);
  std::vector<const IU*> out;
  OperatorPtr sub = bindNested(*e.subquery, out);
  if (sub->kind == OpKind::Sort) sub = std::move(sub->children[0]);  // order does not matter here
  const bool exists = e.kind == ast::ExprKind::Exists;
  if (!exists && out.size() != 1)
    throw Error(sqlstate::SyntaxError, "subquery must return only one column", e.subquery->pos);
  const IUSetT outer = freeIUs(*sub);
  if (!exists) {
    // A bare outer column as the subquery's value (SELECT (SELECT t.a)) is read by no operator
    // inside, so freeIUs cannot see it.
    IUSetT inside = producedInTree(*sub);
    if (!inside.count(out[0]))
      throw Error(sqlstate::FeatureNotSupported, "a subquery whose value is an outer column is not supported yet", e.pos);
  }

  auto join = std::make_unique<Join>();
  std::vector<ExprPtr> conds;
  ExprPtr result;
  if (e.kind == ast::ExprKind::Subquery) {
    // ---- scalar: a left outer join ----
    bool having = false;
    plan::Operator* o = sub.get();
    for (; o->kind == OpKind::Map || o->kind == OpKind::Filter; o = o->child()) having = having || o->kind == OpKind::Filter;
    auto* agg = o->kind == OpKind::Aggregate && static_cast<plan::Aggregate*>(o)->groups.empty()
                    ? static_cast<plan::Aggregate*>(o)
                    : nullptr;
    join->kind = JoinKind::LeftOuter;
    const IU* value = plan_.ius.make(out[0]->type.withNullable(true), out[0]->name);
    join->outerColumns.push_back({out[0], value});
    result = Expr::column(value, e.pos);
    if (agg && !outer.empty()) {
      // One group per value of the correlated columns: `inner = outer` conditions become keys.
      // f(DISTINCT x) was split into an aggregation over a duplicate-free inner one
      // (splitDistinctAggregates): the correlation sits below the inner one, and its keys must
      // group both (the inner one per key and x, the outer one per key).
      auto* distinct = agg->children[0]->kind == OpKind::Aggregate ? static_cast<plan::Aggregate*>(agg->children[0].get())
                                                                    : nullptr;
      std::vector<ExprPtr> pulled;
      pullCorrelated(distinct ? distinct->children[0] : agg->children[0], outer, pulled);
      for (auto& p : pulled) {
        bool eq = p->kind == ExprKind::Compare && p->cmp == plan::CmpOp::Eq;
        int innerSide = !eq ? -1 : !readsAny(*p->args[0], outer) ? 0 : !readsAny(*p->args[1], outer) ? 1 : -1;
        if (innerSide < 0)
          throw Error(sqlstate::FeatureNotSupported,
                      "a correlated scalar subquery with an aggregate supports only equalities with outer columns", p->pos);
        ExprPtr innerSideExpr = std::move(p->args[innerSide]);
        ExprPtr outerSideExpr = std::move(p->args[1 - innerSide]);
        if (distinct) {
          const IU* innerKey = plan_.ius.make(innerSideExpr->type, "corr");
          distinct->groups.push_back({innerKey, std::move(innerSideExpr)});
          innerSideExpr = Expr::column(innerKey);
        }
        const IU* key = plan_.ius.make(innerSideExpr->type, "corr");
        agg->groups.push_back({key, std::move(innerSideExpr)});
        conds.push_back(makeCompare(plan::CmpOp::Eq, Expr::column(key), std::move(outerSideExpr), p->pos));
      }
      ExprPtr empty = emptyGroupValue(*sub, out[0], *agg);
      if (!empty || !empty->value.isNull()) {
        // Outer rows without a group see the aggregate of no rows, told apart by the NULL key.
        if (having || !empty)
          throw Error(sqlstate::FeatureNotSupported,
                      "this correlated scalar subquery (count with HAVING, or a non-constant value of no rows) is not supported yet",
                      e.pos);
        if (agg->groups.empty())  // no correlated equality became a key: outer columns elsewhere
          throw Error(sqlstate::FeatureNotSupported,
                      "this correlated subquery is not supported yet (an outer column outside the equalities of its WHERE)",
                      e.pos);
        const IU* key = agg->groups.front().iu;
        const IU* keyOut = plan_.ius.make(key->type.withNullable(true), key->name);
        join->outerColumns.push_back({key, keyOut});
        std::vector<ExprPtr> arms;
        arms.push_back(makeIsNull(Expr::column(keyOut), false, e.pos));
        arms.push_back(std::move(empty));
        arms.push_back(std::move(result));
        result = makeCase(std::move(arms), true, e.pos);
      }
    } else {
      if (!outer.empty()) pullCorrelated(sub, outer, conds);
      join->singleMatch = !agg;  // an aggregate without GROUP BY yields at most one row
    }
    join->residual = conjunction(std::move(conds));
  } else {
    // ---- EXISTS / IN / ANY / ALL: a mark join ----
    const IU* y = exists ? nullptr : out[0];
    // DISTINCT changes nothing about whether a row matches.
    if (sub->kind == OpKind::Aggregate) {
      auto& d = static_cast<plan::Aggregate&>(*sub);
      if (d.aggregates.empty() && d.groups.size() == 1 && d.groups[0].expr->kind == ExprKind::Column &&
          (exists || d.groups[0].iu == y)) {
        if (y) y = d.groups[0].expr->iu;
        sub = std::move(sub->children[0]);
      }
    }
    if (!outer.empty()) pullCorrelated(sub, outer, conds);
    bool negate = e.negated;
    if (!exists) {
      ExprPtr x = bindExpr(*e.args[0], clause);
      plan::CmpOp op = plan::CmpOp::Eq;
      if (e.kind == ast::ExprKind::Quantified) {
        op = *comparisonOperator(e.op);  // the parser makes only comparison symbols quantified
        if (e.unit == "all") {  // x op ALL (S) = NOT (x inverse(op) ANY (S))
          op = inverse(op);
          negate = true;
        }
      }
      join->markCondition = makeCompare(op, std::move(x), Expr::column(y, e.pos), e.pos);
    }
    join->kind = JoinKind::Mark;
    join->residual = conjunction(std::move(conds));  // the correlation: the subquery's WHERE
    bool nullable = join->markCondition && join->markCondition->type.nullable;
    join->mark = plan_.ius.make(SqlType::boolean(nullable), exists ? "exists" : "in");
    result = Expr::column(join->mark, e.pos);
    if (negate) result = logicNot(std::move(result), e.pos);
  }

  // Every outer reference must have become part of the join condition, over columns the clause's
  // input has (not, say, a column hidden by GROUP BY).
  if (!freeIUs(*sub).empty())
    throw Error(sqlstate::FeatureNotSupported, "this correlated subquery is not supported yet (outer columns used outside "
                                               "its WHERE, or under an aggregate or LIMIT)", e.pos);
  IUSetT available = (*input_)->producedSet();
  for (auto* iu : sub->produced()) available.insert(iu);
  if (join->residual && !plan::readsOnly(*join->residual, available))
    throw Error(sqlstate::FeatureNotSupported,
                std::string("a correlated subquery in ") + clauseName(clause) + " is not supported yet", e.pos);
  join->children.push_back(std::move(*input_));
  join->children.push_back(std::move(sub));
  *input_ = std::move(join);
  return result;
}

}  // namespace hyrax::sql
