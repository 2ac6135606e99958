// Binding of expressions: names to IUs, literals to typed constants, operators through the
// typing rules, aggregates to the aggregation's output IUs.
#include <algorithm>

#include "engine/catalog/catalog.hpp"
#include "engine/types/datetime_fields.hpp"
#include "engine/types/interval.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"
#include "engine/util/stack_depth.hpp"
#include "sql/parser/ast_equality.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;

bool isAggregateName(const std::string& n) {
  return n == "count" || n == "sum" || n == "avg" || n == "min" || n == "max" || n == "array_agg" || n == "string_agg" ||
         n == "bool_and" || n == "bool_or" || n == "every" || n == "stddev" || n == "stddev_samp" || n == "stddev_pop" ||
         n == "variance" || n == "var_samp" || n == "var_pop";
}

// count(...) OVER (...) is a window function, no aggregate of its SELECT: taken for one, it
// folded the rows into a single one (SELECT sum(v) OVER () FROM t gave one row of the sum).
bool isAggregateCall(const ast::Expr& e) {
  return e.kind == ast::ExprKind::Function && !e.window && isAggregateName(e.name);
}

bool containsAggregate(const ast::Expr& e) {
  checkStackDepth();
  if (isAggregateCall(e)) return true;
  for (auto& a : e.args)
    if (containsAggregate(*a)) return true;
  return false;
}

std::optional<plan::CmpOp> comparisonOperator(const std::string& symbol) {
  static const std::pair<const char*, plan::CmpOp> kOps[] = {{"=", plan::CmpOp::Eq}, {"<>", plan::CmpOp::Ne},
                                                             {"<", plan::CmpOp::Lt}, {"<=", plan::CmpOp::Le},
                                                             {">", plan::CmpOp::Gt}, {">=", plan::CmpOp::Ge}};
  for (auto& [sym, op] : kOps)
    if (symbol == sym) return op;
  return std::nullopt;
}

const char* clauseName(Clause c) {
  switch (c) {
    case Clause::Where: return "WHERE";
    case Clause::On: return "JOIN conditions";
    case Clause::GroupBy: return "GROUP BY";
    case Clause::Having: return "HAVING";
    case Clause::Values: return "VALUES";
    case Clause::Limit: return "LIMIT";
    case Clause::AggregateArg: return "aggregate arguments";
    case Clause::Check: return "check constraints";
    case Clause::Returning: return "RETURNING";
    default: return "this context";
  }
}

ExprPtr SelectBinder::bindExpr(const ast::Expr& e, Clause clause) {
  checkStackDepth();  // a chain of 10,000 terms recurses that deep (stack_depth.hpp)
  if (outer_ && isAggregateCall(e) && (!e.star || e.filter) && clause != Clause::AggregateArg)
    if (SelectBinder* owner = outerAggregateOwner(e)) {
      if (!owner->aggregate_)
        throw Error(sqlstate::GroupingError,
                    "an aggregate of an outer query's columns is not allowed in that query's WHERE, JOIN or GROUP BY",
                    e.pos);
      return owner->bindAggregate(e, Clause::Select);  // in the outer SELECT; read here as an outer column
    }
  bool aboveAggregation = aggregate_ && (clause == Clause::Select || clause == Clause::Having || clause == Clause::OrderBy);
  if (aboveAggregation) {
    if (isAggregateCall(e)) return bindAggregate(e, clause);
    if (auto g = matchGroup(e)) return std::move(*g);
    if (e.kind == ast::ExprKind::Column) {
      ExprPtr c = bindColumn(e);  // reports unknown names first
      // An outer query's column (or a procedure's variable) is one value for all groups.
      if (c->kind != ExprKind::Column || !inScope(c->iu)) return c;
      throw Error(sqlstate::GroupingError,
                  "column \"" + (e.table.empty() ? e.name : e.table + "." + e.name) +
                      "\" must appear in the GROUP BY clause or be used in an aggregate function",
                  e.pos);
    }
  }
  return bindPlain(e, clause);
}

std::optional<ExprPtr> SelectBinder::matchGroup(const ast::Expr& e) {
  for (auto& [source, iu] : groupSources_)
    if (source == &e || (e.kind != ast::ExprKind::Column && ast::sameAst(*source, e))) return Expr::column(iu, e.pos);
  // Probing binds `e`'s whole subtree, and it is tried at every level of a long chain (a + b +
  // c ...): quadratic in the chain's length. Skipped where nothing can match: without GROUP BY,
  // and for a binary operator (it binds to an operator node) when every grouping expression is a
  // plain column, the common case.
  bool onlyColumns = true;
  for (auto& g : aggregate_->groups) onlyColumns = onlyColumns && g.expr->kind == ExprKind::Column;
  if (aggregate_->groups.empty() || (onlyColumns && e.kind == ast::ExprKind::Binary)) return std::nullopt;
  if (containsAggregate(e) || e.kind == ast::ExprKind::Integer || e.kind == ast::ExprKind::String) return std::nullopt;
  ExprPtr probe;
  plan::Aggregate* saved = aggregate_;
  aggregate_ = nullptr;
  bool savedProbing = probing_;
  probing_ = true;
  try {
    probe = bindPlain(e, Clause::GroupBy);
  } catch (const Error&) {
    probe = nullptr;
  }
  aggregate_ = saved;
  probing_ = savedProbing;
  if (!probe) return std::nullopt;
  for (auto& g : aggregate_->groups)
    if (plan::sameExpr(*g.expr, *probe)) return Expr::column(g.iu, e.pos);
  return std::nullopt;
}

ExprPtr SelectBinder::bindAggregate(const ast::Expr& e, Clause clause) {
  if (clause == Clause::AggregateArg)
    throw Error(sqlstate::GroupingError, "aggregate function calls cannot be nested", e.pos);
  if (e.distinct && e.star) throw Error(sqlstate::SyntaxError, "count(DISTINCT *) is not valid", e.pos);
  plan::AggFunc func;
  ExprPtr arg;
  // string_agg(x, separator) is array_to_string(array_agg(x), separator): both leave NULLs out.
  const bool stringAgg = e.name == "string_agg";
  const bool boolAgg = e.name == "bool_and" || e.name == "bool_or" || e.name == "every";
  // ORDER BY's keys follow the args, FILTER's condition is the last.
  const size_t argCount = e.args.size() - (e.filter ? 1 : 0) - e.argumentOrder.size();
  ExprPtr separator;
  if (stringAgg) {
    if (argCount != 2 || e.star) throw Error(sqlstate::UndefinedFunction, "function string_agg takes two arguments", e.pos);
    if (e.args[1]->kind != ast::ExprKind::String)
      throw Error(sqlstate::FeatureNotSupported, "string_agg's separator must be a string literal here", e.args[1]->pos);
    separator = Expr::constant(Value::string(e.args[1]->text), e.args[1]->pos);
  }
  if (e.name == "count" && e.star) {
    func = plan::AggFunc::CountStar;
  } else {
    if (e.star || argCount != (stringAgg ? 2u : 1u))
      throw Error(sqlstate::UndefinedFunction, "function " + e.name + " takes exactly one argument", e.pos);
    plan::Aggregate* saved = aggregate_;
    plan::OperatorPtr* savedInput = input_;
    aggregate_ = nullptr;  // the argument is evaluated below the aggregation, per input row:
    input_ = &saved->children[0];  // its subqueries join onto the aggregation's input
    arg = bindExpr(*e.args[0], Clause::AggregateArg);
    aggregate_ = saved;
    input_ = savedInput;
    func = e.name == "count" ? plan::AggFunc::Count
           : e.name == "sum" ? plan::AggFunc::Sum
           : e.name == "avg" ? plan::AggFunc::Avg
           : e.name == "min" ? plan::AggFunc::Min
           : e.name == "max" ? plan::AggFunc::Max
           : e.name == "variance" || e.name == "var_samp" ? plan::AggFunc::VarSamp
           : e.name == "var_pop" ? plan::AggFunc::VarPop
           : e.name == "stddev" || e.name == "stddev_samp" ? plan::AggFunc::StddevSamp
           : e.name == "stddev_pop" ? plan::AggFunc::StddevPop
                             : plan::AggFunc::ArrayAgg;
    if (boolAgg) {  // bool_and(x) is min of 1 for TRUE and 0 for FALSE (NULL left out) = 1; bool_or max
      if (arg->type.isNull()) arg = castTo(std::move(arg), SqlType::boolean());
      if (arg->type.id != TypeId::Bool)
        throw Error(sqlstate::UndefinedFunction, "function " + e.name + "(" + arg->type.name() + ") does not exist", e.pos);
      func = e.name == "bool_or" ? plan::AggFunc::Max : plan::AggFunc::Min;
      auto asInt = std::make_unique<Expr>(plan::ExprKind::Case, SqlType::int32(true), e.pos);
      std::vector<ExprPtr> operand;
      operand.push_back(arg->clone());
      ExprPtr negated = makeLogic(plan::ExprKind::Not, std::move(operand), e.pos);
      asInt->args.push_back(std::move(arg));
      asInt->args.push_back(Expr::constant(Value::int32(1), e.pos));
      asInt->args.push_back(std::move(negated));
      asInt->args.push_back(Expr::constant(Value::int32(0), e.pos));
      arg = std::move(asInt);
    }
    if (arg->type.isNull()) arg = castTo(std::move(arg), func == plan::AggFunc::Count ? SqlType::int32() : SqlType::int32());
    if ((func == plan::AggFunc::Sum || func == plan::AggFunc::Avg || plan::isVariance(func)) && !arg->type.isNumeric())
      throw Error(sqlstate::UndefinedFunction, "function " + e.name + "(" + arg->type.name() + ") does not exist", e.pos);
    if (func == plan::AggFunc::ArrayAgg) {
      if (e.distinct) throw Error(sqlstate::FeatureNotSupported, e.name + "(DISTINCT x) is not supported", e.pos);
      if (stringAgg && !arg->type.isString() && !arg->type.isNull())
        throw Error(sqlstate::UndefinedFunction, "function string_agg(" + arg->type.name() + ", text) does not exist", e.pos);
      arg = castTo(std::move(arg), SqlType::array(arrayElementOf(arg->type, e.pos)).elementType());
    }
    if ((func == plan::AggFunc::Min || func == plan::AggFunc::Max) && arg->type.isArray())
      throw Error(sqlstate::FeatureNotSupported, "function " + e.name + "(" + arg->type.name() + ") is not supported", e.pos);
    if ((func == plan::AggFunc::Min || func == plan::AggFunc::Max) && arg->type.id == TypeId::Bool)
      throw Error(sqlstate::UndefinedFunction, "function " + e.name + "(BOOLEAN) does not exist", e.pos);
    if (func == plan::AggFunc::Min || func == plan::AggFunc::Max) arg = minMaxArgument(std::move(arg));
  }
  // agg(x ORDER BY ...) matters for array_agg and string_agg only (the others' results do not
  // depend on the order of their input, as in PostgreSQL, which takes it for any aggregate).
  if (!e.argumentOrder.empty() && func == plan::AggFunc::ArrayAgg) orderAggregateInput(e, argCount);
  if (e.filter) {  // agg(x) FILTER (WHERE p) is agg(CASE WHEN p THEN x END): the others leave NULLs out
    if (func == plan::AggFunc::ArrayAgg && !stringAgg)
      throw Error(sqlstate::FeatureNotSupported, "array_agg(...) FILTER (WHERE ...) is not supported yet", e.pos);
    plan::Aggregate* saved = aggregate_;
    plan::OperatorPtr* savedInput = input_;
    aggregate_ = nullptr;
    input_ = &saved->children[0];
    ExprPtr condition = bindExpr(*e.args.back(), Clause::AggregateArg);
    aggregate_ = saved;
    input_ = savedInput;
    if (condition->type.isNull()) condition = castTo(std::move(condition), SqlType::boolean());
    if (condition->type.id != TypeId::Bool)
      throw Error(sqlstate::DatatypeMismatch, "argument of FILTER must be type boolean, not type " + condition->type.name(),
                  e.args.back()->pos);
    if (func == plan::AggFunc::CountStar) {
      func = plan::AggFunc::Count;
      arg = Expr::constant(Value::int32(1), e.pos);
    }
    auto c = std::make_unique<Expr>(plan::ExprKind::Case, arg->type.withNullable(true), e.pos);
    c->args.push_back(std::move(condition));
    c->args.push_back(std::move(arg));
    arg = std::move(c);
  }
  auto result = [&](const plan::IU* iu) -> ExprPtr {
    if (boolAgg) return makeCompare(plan::CmpOp::Eq, Expr::column(iu, e.pos), Expr::constant(Value::int32(1), e.pos), e.pos);
    if (!stringAgg) return Expr::column(iu, e.pos);
    std::vector<ExprPtr> args;
    args.push_back(Expr::column(iu, e.pos));
    args.push_back(std::move(separator));
    return makeArrayCall(plan::ScalarFunc::ArrayToString, SqlType::text(true), std::move(args), e.pos);
  };
  // The same aggregate twice is computed once.
  for (auto& a : aggregate_->aggregates)
    if (a.func == func && a.distinct == e.distinct && a.skipNulls == stringAgg &&
        ((!a.arg && !arg) || (a.arg && arg && plan::sameExpr(*a.arg, *arg))))
      return result(a.iu);
  SqlType t = plan::aggregateResultType(func, arg ? arg->type : SqlType::int64());
  const plan::IU* iu = plan_.ius.make(t, e.name);
  // string_agg leaves NULLs out, and is NULL without a value (array_agg keeps them).
  aggregate_->aggregates.push_back({func, std::move(arg), iu, e.distinct, stringAgg});
  return result(iu);
}

// agg(x ORDER BY keys at args[first...]): the keys go on the aggregation (Aggregate::inputOrder),
// whose input the optimizer then sorts by them. One order serves every aggregate of the SELECT,
// so two different ORDER BYs are refused.
void SelectBinder::orderAggregateInput(const ast::Expr& e, size_t first) {
  plan::Aggregate* agg = aggregate_;
  plan::OperatorPtr* savedInput = input_;
  aggregate_ = nullptr;  // keys are computed per input row, below the aggregation
  input_ = &agg->children[0];
  std::vector<plan::SortKey> keys;
  for (size_t i = 0; i < e.argumentOrder.size(); ++i) {
    ExprPtr k = bindExpr(*e.args[first + i], Clause::AggregateArg);
    if (k->type.isArray()) throw Error(sqlstate::FeatureNotSupported, "ORDER BY an array is not supported", e.args[first + i]->pos);
    // A key of no column of this SELECT (an outer query's, a constant) is one value for all the
    // rows it orders: it orders nothing (and, not an input column, the sort failed with XX000).
    std::vector<const plan::IU*> used;
    k->collectIUs(used);
    if (std::none_of(used.begin(), used.end(), [&](const plan::IU* iu) { return inScope(iu); })) continue;
    auto [descending, nullsFirst] = e.argumentOrder[i];
    keys.push_back({std::move(k), descending, nullsFirst < 0 ? descending : nullsFirst == 1});
  }
  aggregate_ = agg;
  input_ = savedInput;
  if (agg->inputOrder.empty()) {
    agg->inputOrder = std::move(keys);
    return;
  }
  bool same = agg->inputOrder.size() == keys.size();
  for (size_t i = 0; same && i < keys.size(); ++i)
    same = plan::sameExpr(*agg->inputOrder[i].expr, *keys[i].expr) && agg->inputOrder[i].descending == keys[i].descending &&
           agg->inputOrder[i].nullsFirst == keys[i].nullsFirst;
  if (!same) throw Error(sqlstate::FeatureNotSupported, "aggregates with different ORDER BYs in one SELECT are not supported", e.pos);
}

SelectBinder* SelectBinder::outerAggregateOwner(const ast::Expr& e) {
  for (SelectBinder* b = outer_; b; b = b->outer_)
    if (b->outerAggregates_.count(&e)) return b;
  // Bound on trial (probing: a subquery in the argument refuses, and the aggregate stays here),
  // the argument's columns and FILTER's condition's say whose aggregate it is: the innermost
  // SELECT that has one of them (PostgreSQL's check_agg_arguments counts the condition too, so
  // count(*) FILTER (WHERE outer.x > 0) in a subquery is the outer query's aggregate).
  // Its values (string_agg's separator is one, a literal), then ORDER BY's keys and FILTER's
  // condition: all of them decide the level, as in PostgreSQL (string_agg and agg(x ORDER BY k)
  // of outer columns were taken as the subquery's own: a row per outer row instead of one).
  const size_t values = e.args.size() - (e.filter ? 1 : 0) - e.argumentOrder.size();
  if (e.star ? values != 0 : values != (e.name == "string_agg" ? 2u : 1u)) return nullptr;
  std::vector<const plan::IU*> used;
  plan::Aggregate* saved = aggregate_;
  const bool savedProbing = probing_;
  aggregate_ = nullptr;
  probing_ = true;
  bool bound = true;
  for (const auto& a : e.args) {
    try {
      bindPlain(*a, Clause::AggregateArg)->collectIUs(used);
    } catch (const Error&) {
      bound = false;
    }
  }
  aggregate_ = saved;
  probing_ = savedProbing;
  if (!bound || used.empty()) return nullptr;
  for (const plan::IU* iu : used)
    if (inScope(iu)) return nullptr;  // reads this SELECT's columns: its own
  for (SelectBinder* b = outer_; b; b = b->outer_) {
    if (!std::any_of(used.begin(), used.end(), [&](const plan::IU* iu) { return b->inScope(iu); })) continue;
    if (!b->binding_)  // an UPDATE's or DELETE's own columns: no aggregation there
      throw Error(sqlstate::GroupingError, "aggregate functions are not allowed here", e.pos);
    b->outerAggregates_.insert(&e);
    throw RetryBinding{b};
  }
  return nullptr;  // a procedure's variables, or IUs of no scope: this level's
}

bool SelectBinder::containsOwnAggregate(const ast::Expr& e) {
  checkStackDepth();
  if (isAggregateCall(e))
    return !(outer_ && (!e.star || e.filter) && outerAggregateOwner(e));  // (as bindExpr asks)
  for (auto& a : e.args)
    if (containsOwnAggregate(*a)) return true;
  return false;
}

ExprPtr compareRows(plan::CmpOp op, std::vector<ExprPtr> a, std::vector<ExprPtr> b, SourcePos pos) {
  const size_t n = a.size();
  if (op == plan::CmpOp::Eq || op == plan::CmpOp::Ne) {
    std::vector<ExprPtr> parts;
    for (size_t i = 0; i < n; ++i) parts.push_back(makeCompare(op, std::move(a[i]), std::move(b[i]), pos));
    return makeLogic(op == plan::CmpOp::Eq ? ExprKind::And : ExprKind::Or, std::move(parts), pos);
  }
  // a1 < b1 OR (a1 = b1 AND (a2 < b2 OR (a2 = b2 AND ... an op bn))): the first unequal pair
  // decides; a NULL in the pairs up to it makes the answer NULL.
  const plan::CmpOp strict = op == plan::CmpOp::Lt || op == plan::CmpOp::Le ? plan::CmpOp::Lt : plan::CmpOp::Gt;
  ExprPtr r = makeCompare(op, std::move(a[n - 1]), std::move(b[n - 1]), pos);
  for (size_t i = n - 1; i-- > 0;) {
    std::vector<ExprPtr> equalThenRest;
    equalThenRest.push_back(makeCompare(plan::CmpOp::Eq, a[i]->clone(), b[i]->clone(), pos));
    equalThenRest.push_back(std::move(r));
    std::vector<ExprPtr> either;
    either.push_back(makeCompare(strict, std::move(a[i]), std::move(b[i]), pos));
    either.push_back(makeLogic(ExprKind::And, std::move(equalThenRest), pos));
    r = makeLogic(ExprKind::Or, std::move(either), pos);
  }
  return r;
}

// (s1, e1) OVERLAPS (s2, e2), as PostgreSQL's overlaps_timestamp decides it: each period from its
// earlier end to its later (an INTERVAL as the end is s + interval), half-open, so periods that
// only touch do not overlap, and equal starts always do; with NULL ends the answer is NULL
// wherever it would depend on them. A CASE over the four values (each may be read more than once).
ExprPtr SelectBinder::bindOverlaps(const ast::Expr& e, Clause clause) {
  const SourcePos pos = e.pos;
  for (int side = 0; side < 2; ++side)
    if (e.args[side]->kind != ast::ExprKind::Row || e.args[side]->args.size() != 2)
      throw Error(sqlstate::SyntaxError,
                  std::string("wrong number of parameters on ") + (side ? "right" : "left") + " side of OVERLAPS expression",
                  e.args[side]->pos);
  ExprPtr start[2], end[2];
  for (int side = 0; side < 2; ++side) {
    start[side] = bindExpr(*e.args[side]->args[0], clause);
    end[side] = bindExpr(*e.args[side]->args[1], clause);
    const TypeId s = start[side]->type.id;
    if (s != TypeId::Date && s != TypeId::Timestamp && s != TypeId::Time && s != TypeId::Null)
      throw Error(sqlstate::UndefinedFunction, "function overlaps(" + start[side]->type.name() + ", " + end[side]->type.name() +
                                                   ", ...) does not exist", pos);
    if (end[side]->type.id == TypeId::Interval) end[side] = makeArith(plan::ArithOp::Add, start[side]->clone(), std::move(end[side]), pos);
  }
  auto isNull = [&](const ExprPtr& x) { return makeIsNull(x->clone(), false, pos); };
  auto cmp = [&](plan::CmpOp op, const ExprPtr& a, const ExprPtr& b) { return makeCompare(op, a->clone(), b->clone(), pos); };
  auto unknown = [&] { return Expr::constant(Value::null(SqlType::boolean()), pos); };
  auto truth = [&](bool v) { return Expr::constant(Value::boolean(v), pos); };
  auto either = [&](ExprPtr a, ExprPtr b) {
    std::vector<ExprPtr> v;
    v.push_back(std::move(a));
    v.push_back(std::move(b));
    return makeLogic(ExprKind::Or, std::move(v), pos);
  };
  auto caseOf = [&](std::vector<ExprPtr> arms) { return makeCase(std::move(arms), true, pos); };
  // Each period's earlier end (the other one when one is NULL) and its later end (NULL when one is).
  ExprPtr first[2], last[2];
  for (int i = 0; i < 2; ++i) {
    std::vector<ExprPtr> f;
    f.push_back(isNull(start[i]));
    f.push_back(end[i]->clone());
    f.push_back(isNull(end[i]));
    f.push_back(start[i]->clone());
    f.push_back(cmp(plan::CmpOp::Gt, start[i], end[i]));
    f.push_back(end[i]->clone());
    f.push_back(start[i]->clone());
    first[i] = caseOf(std::move(f));
    std::vector<ExprPtr> l;
    l.push_back(either(isNull(start[i]), isNull(end[i])));
    l.push_back(Expr::constant(Value::null(end[i]->type), pos));
    l.push_back(cmp(plan::CmpOp::Gt, start[i], end[i]));
    l.push_back(start[i]->clone());
    l.push_back(end[i]->clone());
    last[i] = caseOf(std::move(l));
  }
  // The later-starting period starts before the other ends: true; unknown if that end is NULL.
  auto startsInside = [&](int later, int earlier) {
    std::vector<ExprPtr> arms;
    arms.push_back(isNull(last[earlier]));
    arms.push_back(unknown());
    arms.push_back(cmp(plan::CmpOp::Lt, first[later], last[earlier]));
    arms.push_back(truth(true));
    arms.push_back(isNull(last[later]));
    arms.push_back(unknown());
    arms.push_back(truth(false));
    return caseOf(std::move(arms));
  };
  std::vector<ExprPtr> arms;
  arms.push_back(either(isNull(first[0]), isNull(first[1])));
  arms.push_back(unknown());
  arms.push_back(cmp(plan::CmpOp::Gt, first[0], first[1]));
  arms.push_back(startsInside(0, 1));
  arms.push_back(cmp(plan::CmpOp::Lt, first[0], first[1]));
  arms.push_back(startsInside(1, 0));
  arms.push_back(either(isNull(last[0]), isNull(last[1])));  // equal starts
  arms.push_back(unknown());
  arms.push_back(truth(true));
  return caseOf(std::move(arms));
}

ExprPtr SelectBinder::bindRowComparison(const ast::Expr& e, Clause clause) {
  return bindRowComparison(*e.args[0], *e.args[1], e.op, clause, e.pos);
}

ExprPtr SelectBinder::bindRowComparison(const ast::Expr& left, const ast::Expr& right, const std::string& op,
                                        Clause clause, SourcePos pos) {
  auto cop = comparisonOperator(op);
  if (!cop) throw Error(sqlstate::UndefinedFunction, "operator " + op + " does not exist for row values", pos);
  // Each side: a row (a, b, ...) or a subquery of as many columns (at most one row, 21000 else).
  auto side = [&](const ast::Expr& s, std::vector<ExprPtr>& values) {
    if (s.kind == ast::ExprKind::Row) {
      for (auto& a : s.args) values.push_back(bindExpr(*a, clause));
    } else if (s.kind == ast::ExprKind::Subquery) {
      bindSubquery(s, clause, &values);
    } else {
      throw Error(sqlstate::FeatureNotSupported, "a row value is compared only with another row value or a subquery", pos);
    }
  };
  std::vector<ExprPtr> a, b;
  side(left, a);
  side(right, b);
  if (a.size() != b.size()) throw Error(sqlstate::SyntaxError, "unequal number of entries in row expressions", pos);
  return compareRows(*cop, std::move(a), std::move(b), pos);
}

bool SelectBinder::inScope(const plan::IU* iu) const {
  for (auto& s : scope_)
    for (auto& c : s.columns)
      if (c.second == iu) return true;
  return false;
}

const plan::IU* SelectBinder::findColumn(const ast::Expr& e, bool innermost) const {
  const plan::IU* found = nullptr;
  if (!e.table.empty()) {
    const ScopeEntry* entry = nullptr;
    for (auto& s : scope_)
      if (s.alias == e.table) entry = &s;
    if (!entry) {
      if (outer_) return outer_->findColumn(e, false);
      if (innermost) throw Error(sqlstate::UndefinedTable, "missing FROM-clause entry for table \"" + e.table + "\"", e.pos);
      return nullptr;
    }
    for (auto& [name, iu] : entry->columns)
      if (name == e.name) found = iu;
    if (!found) throw Error(sqlstate::UndefinedColumn, "column " + e.table + "." + e.name + " does not exist", e.pos);
    return found;
  }
  for (auto& s : scope_) {
    if (s.qualifiedOnly.count(e.name)) continue;  // JOIN ... USING: the bare name is the merged column
    for (auto& [name, iu] : s.columns) {
      if (name != e.name) continue;
      if (found && found != iu) throw Error(sqlstate::AmbiguousColumn, "column reference \"" + e.name + "\" is ambiguous", e.pos);
      found = iu;
    }
  }
  if (!found && outer_) return outer_->findColumn(e, false);  // a correlated reference
  return found;
}

ExprPtr SelectBinder::bindColumn(const ast::Expr& e) {
  // A stored procedure's variable: where no column in scope has the name (PL/pgSQL's
  // variable_conflict = use_column).
  // The last of equal names is the innermost (a FOR loop's variable hides an outer one).
  auto& names = plan_.parameterNames;
  auto variable = std::find(names.rbegin(), names.rend(), e.table.empty() ? e.name : e.table + "." + e.name);
  const plan::IU* found = findColumn(e, variable == names.rend());
  if (!found && variable != names.rend()) {
    uint32_t n = static_cast<uint32_t>(names.rend() - variable - 1);
    auto p = std::make_unique<Expr>(ExprKind::Parameter, plan_.parameters[n].withNullable(true), e.pos);
    p->param = n;
    return p;
  }
  if (!found) {
    if (!e.table.empty())
      throw Error(sqlstate::UndefinedTable, "missing FROM-clause entry for table \"" + e.table + "\"", e.pos);
    throw Error(sqlstate::UndefinedColumn, "column \"" + e.name + "\" does not exist", e.pos);
  }
  return Expr::column(found, e.pos);
}

namespace {

// An integer literal, negated when a minus sign stands right before it (as PostgreSQL's grammar
// reads `-2147483648` as one INTEGER constant): INTEGER when it fits, else BIGINT, else DOUBLE. So
// the least BIGINT can be written, though its magnitude alone is no BIGINT.
ExprPtr integerLiteral(const std::string& text, bool negative, SourcePos pos) {
  std::string digits = text.substr(std::min(text.find_first_not_of('0'), text.size()));
  auto fits = [&](const char* max) {  // magnitude <= max, both plain digits
    size_t n = std::strlen(max);
    return digits.size() < n || (digits.size() == n && digits <= max);
  };
  if (fits(negative ? "2147483648" : "2147483647")) {
    int64_t v = digits.empty() ? 0 : std::stoll(digits);
    return Expr::constant(Value::int32(static_cast<int32_t>(negative ? -v : v)), pos);
  }
  if (fits(negative ? "9223372036854775808" : "9223372036854775807")) {
    if (negative && digits == "9223372036854775808") return Expr::constant(Value::int64(INT64_MIN), pos);
    int64_t v = std::stoll(digits);
    return Expr::constant(Value::int64(negative ? -v : v), pos);
  }
  double d = text::parseDouble(text);
  return Expr::constant(Value::float64(negative ? -d : d), pos);
}

}  // namespace

ExprPtr SelectBinder::bindLiteral(const ast::Expr& e) {
  switch (e.kind) {
    case ast::ExprKind::Integer: return integerLiteral(e.text, false, e.pos);
    case ast::ExprKind::Decimal: {
      size_t dot = e.text.find('.');
      std::string intPart = e.text.substr(0, dot);
      intPart = intPart.substr(std::min(intPart.find_first_not_of('0'), intPart.size()));
      size_t frac = e.text.size() - dot - 1;
      size_t p = std::max<size_t>(1, intPart.size() + frac);
      if (p > SqlType::kMaxDecimalPrecision) return Expr::constant(Value::float64(text::parseDouble(e.text)), e.pos);
      auto prec = static_cast<uint8_t>(p), scale = static_cast<uint8_t>(frac);
      return Expr::constant(Value::decimal(text::parseDecimal(e.text, prec, scale), prec, scale), e.pos);
    }
    case ast::ExprKind::Float: return Expr::constant(Value::float64(text::parseDouble(e.text)), e.pos);
    case ast::ExprKind::String: {
      ExprPtr literal = Expr::constant(Value::string(e.text), e.pos);
      literal->untypedLiteral = true;
      return literal;
    }
    case ast::ExprKind::Boolean: return Expr::constant(Value::boolean(e.boolValue), e.pos);
    case ast::ExprKind::Null: return Expr::constant(Value(), e.pos);
    case ast::ExprKind::TypedLiteral:
      try {
        switch (e.type.id) {
          case TypeId::Date: return Expr::constant(Value::date(text::parseDate(e.text)), e.pos);
          case TypeId::Timestamp: return Expr::constant(Value::timestamp(text::parseTimestamp(e.text)), e.pos);
          case TypeId::Time: return Expr::constant(Value::time(text::parseTime(e.text)), e.pos);
          default: {
            text::Interval iv = text::parseInterval(e.text, e.unit);
            return Expr::constant(Value::interval(iv.micros, iv.high()), e.pos);
          }
        }
      } catch (Error& err) {
        err.setPosIfUnknown(e.pos);
        throw;
      }
    default: break;
  }
  throw Error(sqlstate::InternalError, "not a literal", e.pos);
}

ExprPtr SelectBinder::bindFunction(const ast::Expr& e, Clause clause) {
  if (e.window) return bindWindow(e, clause);
  if (ExprPtr srf = bindSetReturningCall(e)) return srf;
  if (isAggregateName(e.name)) {
    if (!aggregate_ || clause == Clause::AggregateArg) {
      if (clause == Clause::AggregateArg)
        throw Error(sqlstate::GroupingError, "aggregate function calls cannot be nested", e.pos);
      throw Error(sqlstate::GroupingError, std::string("aggregate functions are not allowed in ") + clauseName(clause), e.pos);
    }
    return bindAggregate(e, clause);
  }
  bool datePart = e.name == "date_part" && e.args.size() == 2 && e.args[0]->kind == ast::ExprKind::String;
  if ((e.name == "extract" && !e.unit.empty() && e.args.size() == 1) || datePart) {
    // EXTRACT gives integers for whole fields and DECIMAL(18,6) (or 3) for fractional ones, as
    // PostgreSQL's numeric prints them; date_part gives DOUBLE PRECISION, as PostgreSQL's does.
    const std::string& unit = datePart ? e.args[0]->text : e.unit;
    ExprPtr arg = bindExpr(*e.args.back(), clause);
    if (arg->type.isNull()) arg = castTo(std::move(arg), SqlType::timestamp());  // a NULL literal: NULL
    if (arg->kind == ExprKind::Constant && arg->type.isString()) arg = makeCast(std::move(arg), SqlType::timestamp(), e.pos);
    TypeId t = arg->type.id;
    if (t != TypeId::Date && t != TypeId::Timestamp && t != TypeId::Time && t != TypeId::Interval)
      throw Error(sqlstate::UndefinedFunction, "function " + e.name + "(" + unit + " from " + arg->type.name() + ") does not exist",
                  e.pos);
    plan::DateField field;
    if (!text::dateTimeFieldNamed(unit, field))
      throw Error(sqlstate::InvalidParameter, "unit \"" + unit + "\" not recognized for type " + text::dateTimeTypeName(t),
                  e.pos);
    if (!text::hasDateTimeField(t, field))
      throw Error(sqlstate::FeatureNotSupported, "unit \"" + unit + "\" not supported for type " + text::dateTimeTypeName(t),
                  e.pos);
    int scale = text::extractScale(t, field);
    bool wide = field == plan::DateField::Epoch || field == plan::DateField::Microsecond || t == TypeId::Interval;
    SqlType type = scale ? SqlType::decimal(18, static_cast<uint8_t>(scale)) : wide ? SqlType::int64() : SqlType::int32();
    auto x = std::make_unique<Expr>(ExprKind::Extract, type.withNullable(arg->type.nullable), e.pos);
    x->field = field;
    x->args.push_back(std::move(arg));
    if (datePart) return castTo(std::move(x), SqlType::float64());
    return x;
  }
  // schema.f(...): hyrax's own functions are pg_catalog's, stored routines public's.
  if (!e.table.empty() && e.table != "pg_catalog" && e.table != "public")
    throw Error(sqlstate::InvalidSchemaName, "schema \"" + e.table + "\" does not exist", e.pos);
  if (e.table != "public") {
    if (ExprPtr f = bindArrayFunction(e, clause)) return f;
    if (ExprPtr f = bindScalarFunction(e, clause)) return f;
    if (ExprPtr f = bindDateTimeFunction(e, clause)) return f;
    if (ExprPtr f = bindSequenceFunction(e, clause)) return f;
    if (ExprPtr f = bindCatalogFunction(e, clause)) return f;
  }
  RoutineSignature sig;
  if (catalog_.findRoutine && e.table != "pg_catalog" && catalog_.findRoutine(e.name, sig)) {
    // A stored function: run for each row where it stands, its arguments converted as CALL's are.
    if (sig.procedure)
      throw Error("42809", e.name + " is a procedure", e.pos).withDetail("To call a procedure, use CALL.");
    if (e.star || e.distinct) throw Error(sqlstate::SyntaxError, "DISTINCT or * in a call of " + e.name, e.pos);
    if (e.args.size() != sig.params.size())
      throw Error(sqlstate::UndefinedFunction, "function " + e.name + " takes " + std::to_string(sig.params.size()) +
                                                   " arguments, not " + std::to_string(e.args.size()),
                  e.pos);
    auto call = std::make_unique<Expr>(ExprKind::RoutineCall, sig.result.withNullable(true), e.pos);
    call->name = e.name;
    for (size_t i = 0; i < e.args.size(); ++i) {
      ExprPtr a = bindExpr(*e.args[i], clause);
      if (!castable(a->type, sig.params[i]))
        throw Error(sqlstate::DatatypeMismatch, "argument " + std::to_string(i + 1) + " of " + e.name + " is of type " +
                                                    a->type.name() + ", not " + sig.params[i].name(),
                    e.args[i]->pos);
      call->args.push_back(castTo(std::move(a), sig.params[i].withNullable(true)));
    }
    return call;
  }
  throw Error(sqlstate::UndefinedFunction, "function " + e.name + "() does not exist", e.pos);
}

ExprPtr SelectBinder::bindPlain(const ast::Expr& e, Clause clause) {
  auto sub = [&](size_t i) { return bindExpr(*e.args[i], clause); };
  switch (e.kind) {
    case ast::ExprKind::Column: return bindColumn(e);
    case ast::ExprKind::Star: throw Error(sqlstate::SyntaxError, "\"*\" is not allowed here", e.pos);
    case ast::ExprKind::Integer:
    case ast::ExprKind::Decimal:
    case ast::ExprKind::Float:
    case ast::ExprKind::String:
    case ast::ExprKind::Boolean:
    case ast::ExprKind::Null:
    case ast::ExprKind::TypedLiteral: return bindLiteral(e);
    case ast::ExprKind::Default: throw Error(sqlstate::SyntaxError, "DEFAULT is not allowed in this context", e.pos);
    case ast::ExprKind::Parameter: {
      // Typed as declared by PREPARE, else unknown (like NULL) until resolveParameters() gives
      // it the type of where it is used.
      uint32_t n = static_cast<uint32_t>(std::stoul(e.text)) - 1;
      if (plan_.parameters.size() <= n) plan_.parameters.resize(n + 1, SqlType::null());
      auto p = std::make_unique<Expr>(ExprKind::Parameter, plan_.parameters[n].withNullable(true), e.pos);
      p->param = n;
      return p;
    }
    case ast::ExprKind::Unary: {
      if (e.op == "-" && e.args[0]->kind == ast::ExprKind::Integer) return integerLiteral(e.args[0]->text, true, e.pos);
      ExprPtr a = sub(0);
      if (e.op == "NOT") {
        std::vector<ExprPtr> args;
        args.push_back(std::move(a));
        return makeLogic(ExprKind::Not, std::move(args), e.pos);
      }
      if (e.op == "-") return makeNegate(std::move(a), e.pos);
      if (!a->type.isNumeric()) throw Error(sqlstate::UndefinedFunction, "operator does not exist: + " + a->type.name(), e.pos);
      return a;
    }
    case ast::ExprKind::Binary: {
      const std::string& op = e.op;
      if (op == "AND" || op == "OR") {
        // a OR b OR c ... is parsed left-deep: its operands are taken down the left spine by a
        // loop, not a recursion per term, and bound left to right into one n-ary node.
        std::vector<const ast::Expr*> operands;
        const ast::Expr* x = &e;
        for (; x->kind == ast::ExprKind::Binary && x->op == op; x = x->args[0].get()) operands.push_back(x->args[1].get());
        operands.push_back(x);
        std::vector<ExprPtr> args;
        for (auto it = operands.rbegin(); it != operands.rend(); ++it) args.push_back(bindExpr(**it, clause));
        return makeLogic(op == "AND" ? ExprKind::And : ExprKind::Or, std::move(args), e.pos);
      }
      if (op == "overlaps") return bindOverlaps(e, clause);
      if (e.args[0]->kind == ast::ExprKind::Row || e.args[1]->kind == ast::ExprKind::Row) return bindRowComparison(e, clause);
      ExprPtr a = sub(0), b = sub(1);
      if (op == "is distinct from" || op == "is not distinct from") return makeIsDistinct(std::move(a), std::move(b), op[3] == 'n', e.pos);
      if (op == "||") return makeConcat(std::move(a), std::move(b), e.pos);
      if (op == "~" || op == "~*" || op == "!~" || op == "!~*")
        return makeRegexMatch(std::move(a), std::move(b), op.back() == '*', op[0] == '!', e.pos);
      static const std::pair<const char*, plan::ArithOp> arith[] = {{"+", plan::ArithOp::Add}, {"-", plan::ArithOp::Sub},
                                                                    {"*", plan::ArithOp::Mul}, {"/", plan::ArithOp::Div},
                                                                    {"%", plan::ArithOp::Mod}, {"&", plan::ArithOp::BitAnd}};
      for (auto& [sym, aop] : arith)
        if (op == sym) return makeArith(aop, std::move(a), std::move(b), e.pos);
      if (auto cop = comparisonOperator(op)) return makeCompare(*cop, std::move(a), std::move(b), e.pos);
      throw Error(sqlstate::InternalError, "unknown operator " + op, e.pos);
    }
    case ast::ExprKind::IsNull: return makeIsNull(sub(0), e.negated, e.pos);
    case ast::ExprKind::Between: {
      ExprPtr a = sub(0);
      ExprPtr lo = makeCompare(plan::CmpOp::Ge, a->clone(), sub(1), e.pos);
      ExprPtr hi = makeCompare(plan::CmpOp::Le, std::move(a), sub(2), e.pos);
      std::vector<ExprPtr> both;
      both.push_back(std::move(lo));
      both.push_back(std::move(hi));
      ExprPtr r = makeLogic(ExprKind::And, std::move(both), e.pos);
      if (!e.negated) return r;
      std::vector<ExprPtr> n;
      n.push_back(std::move(r));
      return makeLogic(ExprKind::Not, std::move(n), e.pos);
    }
    case ast::ExprKind::Row:
      throw Error(sqlstate::FeatureNotSupported, "a row value (a, b, ...) is supported only in comparisons with another one and in IN lists of them",
                  e.pos);
    case ast::ExprKind::InList: {
      if (e.args[0]->kind == ast::ExprKind::Row) {
        // (a, b) IN ((1, 2), (3, 4)): one of the rows equal (three-valued, as OR of the equalities).
        std::vector<ExprPtr> any;
        for (size_t i = 1; i < e.args.size(); ++i) any.push_back(bindRowComparison(*e.args[0], *e.args[i], "=", clause, e.pos));
        ExprPtr r = any.size() == 1 ? std::move(any[0]) : makeLogic(ExprKind::Or, std::move(any), e.pos);
        if (!e.negated) return r;
        std::vector<ExprPtr> n;
        n.push_back(std::move(r));
        return makeLogic(ExprKind::Not, std::move(n), e.pos);
      }
      std::vector<ExprPtr> list;
      for (size_t i = 1; i < e.args.size(); ++i) list.push_back(sub(i));
      return makeInList(sub(0), std::move(list), e.negated, e.pos);
    }
    case ast::ExprKind::Like:
      if (e.name == "similar") return makeSimilarTo(sub(0), sub(1), e.args.size() > 2 ? sub(2) : nullptr, e.negated, e.pos);
      return makeLike(sub(0), sub(1), e.args.size() > 2 ? sub(2) : nullptr, e.negated, e.pos, e.name == "ilike");
    case ast::ExprKind::Case: {
      std::vector<ExprPtr> args;
      size_t first = e.hasOperand ? 1 : 0;
      size_t end = e.args.size() - (e.hasElse ? 1 : 0);
      ExprPtr operand = e.hasOperand ? sub(0) : nullptr;
      for (size_t i = first; i + 1 < end + 1 && i < end; i += 2) {
        ExprPtr when = sub(i);
        if (operand) when = makeCompare(plan::CmpOp::Eq, operand->clone(), std::move(when), e.args[i]->pos);
        args.push_back(std::move(when));
        args.push_back(sub(i + 1));
      }
      if (e.hasElse) args.push_back(sub(e.args.size() - 1));
      return makeCase(std::move(args), e.hasElse, e.pos);
    }
    case ast::ExprKind::Cast: {
      // x::regclass::text and its kin: the object's name (catalog_functions.cpp).
      const ast::Expr& arg = *e.args[0];
      if (arg.kind == ast::ExprKind::Array && !arg.subquery && arg.args.empty() && e.type.isArray())  // ARRAY[]::int[]
        return Expr::constant(Value::string("{}", e.type.withNullable(false)), e.pos);
      if (e.type.isString() && arg.kind == ast::ExprKind::Function && arg.table.empty() && arg.args.size() == 1 &&
          (arg.name == "regclass" || arg.name == "regtype" || arg.name == "regnamespace" || arg.name == "regrole"))
        return makeCast(bindRegObject(arg.name, bindExpr(*arg.args[0], clause), true, arg.pos), e.type, e.pos);
      return makeCast(sub(0), e.type, e.pos);
    }
    case ast::ExprKind::Function:
      if (e.filter && !e.window)  // an aggregate's is bound by bindAggregate (a window's by bindWindow)
        throw Error(sqlstate::WrongObjectType, "FILTER specified, but " + e.name + " is not an aggregate function", e.pos);
      return bindFunction(e, clause);
    case ast::ExprKind::Array: return bindArray(e, clause);
    case ast::ExprKind::Subscript: return bindSubscript(e, clause);
    case ast::ExprKind::FieldSelect: return bindFieldSelect(e, clause);
    case ast::ExprKind::Quantified:
      if (!e.subquery) return bindQuantifiedArray(e, clause);
      return bindSubquery(e, clause);
    case ast::ExprKind::InSelect:
    case ast::ExprKind::Exists:
    case ast::ExprKind::Subquery: return bindSubquery(e, clause);
  }
  throw Error(sqlstate::InternalError, "unknown expression", e.pos);
}

}  // namespace hyrax::sql
