// Subqueries in expressions, unnested into joins as they are bound, so that no subquery runs once
// per outer row (Neumann and Kemper, "Unnesting Arbitrary Queries", BTW 2015):
//   EXISTS, IN, op ANY/ALL  -> a mark join of the clause's input (left) with the subquery (right);
//                              the expression reads the mark. The optimizer turns a mark that is a
//                              WHERE conjunct into a semi or anti join.
//   (scalar subquery)       -> a left outer join that outputs the subquery's one column, with a
//                              run-time error when a row finds two values (21000).
// Correlation, two ways. The common shapes are pulled up: conditions of the subquery that read
// outer columns leave its filters and become the join condition; under an aggregate (SELECT
// min(x) FROM t WHERE t.k = outer.k) the correlated equalities become grouping keys instead, one
// group per outer value, and a missing group reads as the aggregate of no rows (count 0: the
// "count bug"). Everything else (inequalities under an aggregate, outer columns in the select
// list, HAVING or a join, several levels deep) goes through a dependent join pushed down until
// the correlation disappears (dependent_join.hpp).
#include <algorithm>

#include "engine/util/stack_depth.hpp"
#include "sql/optimizer/constant_folding.hpp"
#include "sql/optimizer/optimizer.hpp"
#include "sql/semantic/dependent_join.hpp"
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
using plan::producedInTree;

namespace {

using IUSetT = plan::IURefs;

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


// The pull-up below does not apply: the subquery is unnested with a dependent join instead.
struct FallBack {};

// What a subquery becomes, whichever way it is unnested: a join of the clause's input with it,
// and the expression that stands for it.
struct Unnested {
  std::unique_ptr<Join> join = std::make_unique<Join>();
  ExprPtr result;
};

// Scalar subquery: a left outer join whose result is the subquery's value `y`, NULL without a match.
void scalarJoin(Unnested& u, const IU* y, plan::IUSet& ius, SourcePos pos) {
  u.join->kind = JoinKind::LeftOuter;
  const IU* value = ius.make(y->type.withNullable(true), y->name);
  u.join->outerColumns.push_back({y, value});
  u.result = Expr::column(value, pos);
}

// EXISTS / IN / op ANY / op ALL: a mark join; `x` is the left operand (none for EXISTS), `y` the
// subquery's column.
void markJoin(Unnested& u, const ast::Expr& e, ExprPtr x, const IU* y, plan::IUSet& ius) {
  bool negate = e.negated;
  if (x) {
    plan::CmpOp op = plan::CmpOp::Eq;
    if (e.kind == ast::ExprKind::Quantified) {
      op = *comparisonOperator(e.op);  // the parser makes only comparison symbols quantified
      if (e.unit == "all") {  // x op ALL (S) = NOT (x inverse(op) ANY (S))
        op = inverse(op);
        negate = true;
      }
    }
    u.join->markCondition = makeCompare(op, std::move(x), Expr::column(y, e.pos), e.pos);
  }
  u.join->kind = JoinKind::Mark;
  bool nullable = u.join->markCondition && u.join->markCondition->type.nullable;
  u.join->mark = ius.make(SqlType::boolean(nullable), x ? "in" : "exists");
  u.result = Expr::column(u.join->mark, e.pos);
  if (negate) u.result = logicNot(std::move(u.result), e.pos);
}

// The common shapes, cheaply: conditions that read outer columns are pulled out of the
// subquery's WHERE into the join condition; under an aggregate, `inner = outer` equalities become
// grouping keys (one group per outer value) and a missing group reads as the aggregate of no rows.
// Throws FallBack where that does not cover the subquery.
Unnested pullUpCorrelation(OperatorPtr& sub, const IUSetT& outer, const ast::Expr& e, ExprPtr x, const IU* y,
                           plan::IUSet& ius, const IUSetT& available) {
  Unnested u;
  std::vector<ExprPtr> conds;
  if (e.kind == ast::ExprKind::Subquery) {
    bool having = false;
    plan::Operator* o = sub.get();
    for (; o->kind == OpKind::Map || o->kind == OpKind::Filter; o = o->child()) having = having || o->kind == OpKind::Filter;
    auto* agg = o->kind == OpKind::Aggregate && static_cast<plan::Aggregate*>(o)->groups.empty()
                    ? static_cast<plan::Aggregate*>(o)
                    : nullptr;
    scalarJoin(u, y, ius, e.pos);
    if (agg && !outer.empty()) {
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
        if (innerSide < 0) throw FallBack{};
        ExprPtr innerSideExpr = std::move(p->args[innerSide]);
        ExprPtr outerSideExpr = std::move(p->args[1 - innerSide]);
        if (distinct) {
          const IU* innerKey = ius.make(innerSideExpr->type, "corr");
          distinct->groups.push_back({innerKey, std::move(innerSideExpr)});
          innerSideExpr = Expr::column(innerKey);
        }
        const IU* key = ius.make(innerSideExpr->type, "corr");
        agg->groups.push_back({key, std::move(innerSideExpr)});
        conds.push_back(makeCompare(plan::CmpOp::Eq, Expr::column(key), std::move(outerSideExpr), p->pos));
      }
      ExprPtr empty = emptyGroupValue(*sub, y, *agg);
      if (!empty || !empty->value.isNull()) {
        // Outer rows without a group see the aggregate of no rows, told apart by the NULL key.
        if (having || !empty || agg->groups.empty()) throw FallBack{};
        const IU* key = agg->groups.front().iu;
        const IU* keyOut = ius.make(key->type.withNullable(true), key->name);
        u.join->outerColumns.push_back({key, keyOut});
        std::vector<ExprPtr> arms;
        arms.push_back(makeIsNull(Expr::column(keyOut), false, e.pos));
        arms.push_back(std::move(empty));
        arms.push_back(std::move(u.result));
        u.result = makeCase(std::move(arms), true, e.pos);
      }
    } else {
      if (!outer.empty()) pullCorrelated(sub, outer, conds);
      u.join->singleMatch = !agg;  // an aggregate without GROUP BY yields at most one row
    }
  } else {
    if (!outer.empty()) pullCorrelated(sub, outer, conds);
    markJoin(u, e, std::move(x), y, ius);
  }
  u.join->residual = conjunction(std::move(conds));  // the correlation: the subquery's WHERE
  // Every outer reference must have become part of the join condition, over columns the
  // clause's input has (not, say, a column hidden by GROUP BY, or one of a SELECT further out).
  if (!freeIUs(*sub).empty()) throw FallBack{};
  IUSetT reachable = available;
  for (auto* iu : sub->produced()) reachable.insert(iu);
  if (u.join->residual && !plan::readsOnly(*u.join->residual, reachable)) throw FallBack{};
  return u;
}

// Any correlation (inequalities, outer columns in the select list or HAVING, under aggregates,
// in joins, several levels deep): a dependent join (dependent_join.hpp) for the outer columns of
// this level. Those of SELECTs further out stay free; the next level up unnests them.
Unnested unnestCorrelation(OperatorPtr& sub, const IUSetT& outer, const ast::Expr& e, ExprPtr x, const IU* y,
                           plan::IUSet& ius, const plan::Operator& input, bool outermost) {
  const IUSetT available = input.producedSet();
  const IUSetT inInput = producedInTree(input);
  std::vector<const IU*> mine;
  for (const IU* iu : outer) {
    if (available.count(iu)) {
      mine.push_back(iu);
    } else if (inInput.count(iu)) {
      throw Error(sqlstate::GroupingError,
                  "subquery uses ungrouped column \"" + iu->name + "\" from outer query", e.pos);
    } else if (outermost) {
      throw Error(sqlstate::FeatureNotSupported, "this correlated subquery is not supported yet", e.pos);
    }
  }
  std::sort(mine.begin(), mine.end(), [](const IU* a, const IU* b) { return a->id < b->id; });
  Unnested u;
  std::vector<ExprPtr> conds;
  if (!mine.empty()) {
    DependentJoin dj = unnestDependentJoin(std::move(sub), input, mine, ius);
    sub = std::move(dj.subquery);
    for (auto& [f, d] : dj.correlation) conds.push_back(nullSafeEquals(f, d));
  }
  if (e.kind == ast::ExprKind::Subquery) {
    scalarJoin(u, y, ius, e.pos);
    u.join->singleMatch = true;  // one row per outer value at most, else 21000
  } else {
    markJoin(u, e, std::move(x), y, ius);
  }
  u.join->residual = conjunction(std::move(conds));
  return u;
}

}  // namespace

// A subquery in the ON of a LEFT (RIGHT) JOIN that reads both inputs, the preserved one P and the
// nullable one N: N becomes D × N, D the distinct values of the IUs Fp of P that it reads, and
// the subquery reads their copies in D instead, so that it can join onto N like one that reads N
// alone. The ON also requires Fp ≡ D's columns (NULL matching NULL): each P row then meets, for
// each N row, exactly the one copy with its own values, and the subquery's value there is the
// one for that pair; a P row without a match is NULL-padded as before. (A FULL JOIN cannot be
// done so: an N row without a match would come out once per value of D.)
void SelectBinder::readBothSides(plan::Operator& sub, const std::vector<ExprPtr*>& operands, const plan::IURefs& reads) {
  const IUSetT preserved = (*outerJoinInputs_[0])->producedSet();
  std::vector<const IU*> fp;
  for (const IU* iu : reads)
    if (preserved.count(iu)) fp.push_back(iu);
  std::sort(fp.begin(), fp.end(), [](const IU* a, const IU* b) { return a->id < b->id; });
  plan::IUMap copies;
  auto cross = std::make_unique<Join>();
  cross->kind = JoinKind::Inner;
  cross->children.push_back(correlationDomain(**outerJoinInputs_[0], fp, plan_.ius, copies));
  cross->children.push_back(std::move(*outerJoinInputs_[1]));
  *outerJoinInputs_[1] = std::move(cross);
  plan::substituteIUsInTree(sub, copies);
  for (ExprPtr* x : operands) plan::substituteIUs(*x, copies);
  for (const IU* f : fp) onConditions_.push_back(nullSafeEquals(f, copies.at(f)));
}

OperatorPtr SelectBinder::fullJoinReadingBoth(std::unique_ptr<Join> join, const std::vector<const IU*>& pCols,
                                              const std::vector<const IU*>& nCols, std::vector<const IU*>& outputs,
                                              SourcePos pos) {
  if (plan::hasVolatileCall(*join))
    throw Error(sqlstate::FeatureNotSupported,
                "a subquery in the ON of a FULL JOIN that reads both inputs over a volatile function (nextval, setval, "
                "a stored function) is not supported",
                pos);
  // The right values that some pair matches: the inner join of copies of both (modified) inputs.
  const plan::IUMap copyOf = std::move(fullRightCopyOf_);
  fullRightCopyOf_.clear();
  plan::IUMap m;
  OperatorPtr matched = plan::cloneWithFreshIUs(*join, plan_.ius, m);
  static_cast<Join&>(*matched).kind = JoinKind::Inner;
  // The right rows (as they were) that none matches: an anti join on all their columns.
  auto unmatched = std::make_unique<Join>();
  unmatched->kind = JoinKind::Anti;
  std::vector<ExprPtr> same;
  for (const IU* n : nCols) same.push_back(nullSafeEquals(copyOf.at(n), m.at(n)));
  unmatched->residual = conjunction(std::move(same));
  unmatched->children.push_back(std::move(fullRightCopy_));
  unmatched->children.push_back(std::move(matched));
  // ... padded with NULL left columns.
  auto pad = std::make_unique<plan::Map>();
  std::vector<const IU*> secondInputs;
  for (const IU* p : pCols) {
    const IU* null = plan_.ius.make(p->type.withNullable(true), p->name);
    pad->computed.push_back({null, castTo(Expr::constant(Value()), p->type.withNullable(true))});
    secondInputs.push_back(null);
  }
  for (const IU* n : nCols) secondInputs.push_back(copyOf.at(n));
  // The left join: every pair and the unmatched left rows, the right columns nullable.
  join->kind = JoinKind::LeftOuter;
  std::vector<const IU*> firstInputs(pCols.begin(), pCols.end());
  for (const IU* n : nCols) {
    const IU* outer = plan_.ius.make(n->type.withNullable(true), n->name);
    join->outerColumns.push_back({n, outer});
    firstInputs.push_back(outer);
  }
  auto u = std::make_unique<plan::UnionAll>();
  for (size_t i = 0; i < pCols.size() + nCols.size(); ++i) {
    const IU* like = i < pCols.size() ? pCols[i] : nCols[i - pCols.size()];
    outputs.push_back(plan_.ius.make(like->type.withNullable(true), like->name));
    u->columns.push_back(outputs.back());
  }
  u->inputs.push_back(std::move(firstInputs));
  u->children.push_back(std::move(join));
  pad->children.push_back(std::move(unmatched));
  u->inputs.push_back(std::move(secondInputs));
  u->children.push_back(std::move(pad));
  return u;
}

OperatorPtr SelectBinder::bindNested(const ast::Select& s, std::vector<const IU*>& out) {
  SelectBinder inner(catalog_, plan_, this);
  std::vector<std::string> names;
  return inner.bind(s, out, names);
}

// A selected value that is an outer column (SELECT (SELECT t.a)) is computed inside, in a Map on
// top: one more outer reference to unnest, and a column the subquery produces.
void SelectBinder::computedInside(OperatorPtr& sub, std::vector<const IU*>& out) {
  const plan::IURefs produced = producedInTree(*sub);
  std::unique_ptr<plan::Map> m;
  for (const IU*& y : out) {
    if (produced.count(y)) continue;
    if (!m) m = std::make_unique<plan::Map>();
    const IU* value = plan_.ius.make(y->type, y->name);
    m->computed.push_back({value, Expr::column(y)});
    y = value;
  }
  if (!m) return;
  m->children.push_back(std::move(sub));
  sub = std::move(m);
}

ExprPtr SelectBinder::bindSubquery(const ast::Expr& arrayOrSubquery, Clause clause, std::vector<ExprPtr>* columns) {
  // ARRAY(subquery) is the scalar subquery of array_agg over it (arrayOfSubquery), unnested as one.
  const bool array = arrayOrSubquery.kind == ast::ExprKind::Array;
  ast::Expr scalar(ast::ExprKind::Subquery, arrayOrSubquery.pos);
  const ast::Expr& e = array ? scalar : arrayOrSubquery;
  const ast::Select& query = *arrayOrSubquery.subquery;
  if (probing_) throw Error(sqlstate::FeatureNotSupported, "subquery while matching GROUP BY", e.pos);
  if (clause == Clause::Check) throw Error(sqlstate::FeatureNotSupported, "cannot use subquery in check constraint", e.pos);
  if (!input_ && !outerJoinInputs_[0])
    throw Error(sqlstate::FeatureNotSupported, std::string("subqueries in ") + clauseName(clause) + " are not supported yet",
                e.pos);
  std::vector<const IU*> out;
  OperatorPtr sub = bindNested(query, out);
  std::optional<ArrayOrder> order;
  if (array) order = arrayOfSubquery(sub, out, arrayOrSubquery.pos);
  auto dropOrder = [&] {  // order does not matter here (what a Sort drops or computes does)
    if (sub->kind == OpKind::Sort && static_cast<const plan::Sort&>(*sub).onlyOrders()) sub = std::move(sub->children[0]);
  };
  dropOrder();
  const bool exists = e.kind == ast::ExprKind::Exists;
  if (exists && sub->kind == OpKind::Limit) {
    // EXISTS (... LIMIT n) with n > 0 and no OFFSET: whether a row exists does not depend on it.
    auto& l = static_cast<plan::Limit&>(*sub);
    if (l.offset == 0 && l.limit > 0 && !l.runTimeCount()) sub = std::move(sub->children[0]);
    dropOrder();
  }
  // (a, b) [NOT] IN (SELECT x, y ...), (a, b) op ANY / ALL (...): a mark join whose condition is
  // the row comparison (three-valued, as IN's), set up below once the subquery is unnested as
  // EXISTS; op ALL is NOT (inverse op ANY).
  std::vector<ExprPtr> rowXs;
  const bool row = !exists && e.kind != ast::ExprKind::Subquery && e.args[0]->kind == ast::ExprKind::Row;
  if (row) {
    if (out.size() != e.args[0]->args.size())
      throw Error(sqlstate::SyntaxError,
                  std::string("subquery has too ") + (out.size() > e.args[0]->args.size() ? "many" : "few") + " columns",
                  query.pos);
    computedInside(sub, out);
    for (auto& a : e.args[0]->args) rowXs.push_back(bindExpr(*a, clause));
  } else if (columns) {
    // (a, b) = (SELECT x, y ...): a scalar subquery of several columns, each read from the join.
    computedInside(sub, out);
  } else if (!exists && out.size() != 1) {
    throw Error(sqlstate::SyntaxError, "subquery must return only one column", query.pos);
  }
  // The left operand of IN / ANY / ALL, bound first: subqueries in it join onto the input too.
  ExprPtr x = !exists && !row && e.kind != ast::ExprKind::Subquery ? bindExpr(*e.args[0], clause) : nullptr;
  const IU* y = exists || row ? nullptr : out[0];
  if (e.kind != ast::ExprKind::Subquery && sub->kind == OpKind::Aggregate) {
    // DISTINCT changes nothing about whether a row matches.
    auto& d = static_cast<plan::Aggregate&>(*sub);
    if (d.aggregates.empty() && d.groups.size() == 1 && d.groups[0].expr->kind == ExprKind::Column &&
        (exists || d.groups[0].iu == y)) {
      if (y) y = d.groups[0].expr->iu;
      sub = std::move(sub->children[0]);
    }
  }
  if (y) {
    std::vector<const IU*> one{y};
    computedInside(sub, one);
    y = one[0];
  }
  IUSetT outer = freeIUs(*sub);
  plan::OperatorPtr* input = input_;
  if (!input) {
    // In the ON of an outer join: the subquery joins onto the input whose columns it (and the
    // IN operand) reads, so each of that input's rows still comes once; the condition reads it.
    // One that reads both joins onto the nullable input, given the preserved one's values.
    IUSetT reads = outer;
    std::vector<const IU*> used;
    if (x) x->collectIUs(used);
    for (auto& r : rowXs) r->collectIUs(used);
    reads.insert(used.begin(), used.end());
    bool side[2];
    for (int i = 0; i < 2; ++i) {
      const IUSetT has = (*outerJoinInputs_[i])->producedSet();
      side[i] = std::any_of(reads.begin(), reads.end(), [&](const IU* iu) { return has.count(iu) > 0; });
    }
    if (side[0] && side[1]) {
      // A FULL JOIN's unmatched right rows come from a copy of that input as it is now
      // (fullJoinReadingBoth refuses copies over volatile calls).
      if (fullJoin_ && !fullRightCopy_)
        fullRightCopy_ = plan::cloneWithFreshIUs(**outerJoinInputs_[1], plan_.ius, fullRightCopyOf_);
      try {
        std::vector<ExprPtr*> operands{&x};
        for (auto& r : rowXs) operands.push_back(&r);
        readBothSides(*sub, operands, reads);
      } catch (Error& err) {
        err.setPosIfUnknown(e.pos);
        throw;
      }
      outer = freeIUs(*sub);
    }
    input = outerJoinInputs_[side[0] && !side[1] ? 0 : 1];
  }
  if (aggregate_) {
    // Above GROUP BY, an outer column that is a grouping key is read from its group.
    const IUSetT available = (*input)->producedSet();
    plan::IUMap toGroup;
    for (auto& g : aggregate_->groups)
      if (g.expr->kind == ExprKind::Column && outer.count(g.expr->iu) && available.count(g.iu)) toGroup[g.expr->iu] = g.iu;
    if (!toGroup.empty()) {
      plan::substituteIUsInTree(*sub, toGroup);
      outer = freeIUs(*sub);
    }
  }
  Unnested u;
  {
    OperatorPtr original = outer.empty() ? nullptr : plan::cloneTree(*sub);  // the pull-up edits sub
    try {
      // A row subquery takes the dependent join: the pull-up's count-bug repair knows one column.
      if (columns) throw FallBack{};
      u = pullUpCorrelation(sub, outer, e, x ? x->clone() : nullptr, y, plan_.ius, (*input)->producedSet());
    } catch (const FallBack&) {
      if (original) sub = std::move(original);
      try {
        u = unnestCorrelation(sub, outer, e, std::move(x), y, plan_.ius, **input, outer_ == nullptr);
      } catch (Error& err) {
        err.setPosIfUnknown(e.pos);  // what is not supported yet: at the subquery
        throw;
      }
    }
  }
  if (columns) {  // the first column is u.result; the others are read from the join the same way
    columns->push_back(std::move(u.result));
    for (size_t i = 1; i < out.size(); ++i) {
      const IU* value = plan_.ius.make(out[i]->type.withNullable(true), out[i]->name);
      u.join->outerColumns.push_back({out[i], value});
      columns->push_back(Expr::column(value, e.pos));
    }
  }
  if (row) {  // unnested as EXISTS; the mark is whether some row compares true
    plan::CmpOp op = e.kind == ast::ExprKind::InSelect ? plan::CmpOp::Eq : *comparisonOperator(e.op);
    const bool all = e.kind == ast::ExprKind::Quantified && e.unit == "all";
    if (all) op = inverse(op);
    std::vector<ExprPtr> ys;
    for (const IU* y : out) ys.push_back(Expr::column(y, e.pos));
    u.join->markCondition = compareRows(op, std::move(rowXs), std::move(ys), e.pos);
    u.join->mark = plan_.ius.make(SqlType::boolean(u.join->markCondition->type.nullable), "in");
    u.result = Expr::column(u.join->mark, e.pos);
    if (e.negated || all) u.result = logicNot(std::move(u.result), e.pos);
  }
  u.join->children.push_back(std::move(*input));
  u.join->children.push_back(std::move(sub));
  *input = std::move(u.join);
  if (array) return arrayResult(std::move(u.result), *order, arrayOrSubquery.pos);
  return columns ? nullptr : std::move(u.result);
}

}  // namespace hyrax::sql
