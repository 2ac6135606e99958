// Arrays in expressions: ARRAY[...] and ARRAY(subquery), a[i], x op ANY/ALL (array) and the
// array functions. Values are canonical text (engine/types/array_text.hpp); every operation is a
// runtime call (plan::ScalarFunc's array functions), so generated code needs no new types.
#include "engine/types/array_text.hpp"
#include "sql/parser/ast_equality.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;
using plan::ScalarFunc;

namespace {

ExprPtr emptyArray(const SqlType& t, SourcePos pos) {
  return Expr::constant(Value::string("{}", t.withNullable(false)), pos);
}

ExprPtr arrayArgument(ExprPtr a, const std::string& function, SourcePos pos) {
  if (a->type.isNull()) return castTo(std::move(a), SqlType::array(TypeId::Text));
  if (a->kind == ExprKind::Constant && a->type.isString()) return makeCast(std::move(a), SqlType::array(TypeId::Text), pos);
  if (!a->type.isArray())
    throw Error(sqlstate::UndefinedFunction, "function " + function + "(" + a->type.name() + ", ...) does not exist", pos);
  return a;
}

// CASE WHEN c THEN v END: NULL otherwise.
ExprPtr when(ExprPtr c, ExprPtr v, SourcePos pos) {
  std::vector<ExprPtr> arms;
  arms.push_back(std::move(c));
  arms.push_back(std::move(v));
  return makeCase(std::move(arms), false, pos);
}

}  // namespace

ExprPtr SelectBinder::bindArray(const ast::Expr& e, Clause clause) {
  if (e.subquery) return bindSubquery(e, clause);
  if (e.args.empty())  // PostgreSQL: ARRAY[] needs a cast to say its type
    throw Error(sqlstate::IndeterminateDatatype, "cannot determine type of empty array", e.pos)
        .withDetail("Explicitly cast to the desired type, for example ARRAY[]::integer[].");
  std::vector<ExprPtr> elements;
  std::optional<SqlType> common = SqlType::null();
  for (auto& a : e.args) {
    if (a->kind == ast::ExprKind::Array)
      throw Error(sqlstate::FeatureNotSupported, "multidimensional arrays are not supported", a->pos);
    elements.push_back(bindExpr(*a, clause));
    common = commonType(*common, elements.back()->type);
    if (!common)
      throw Error(sqlstate::DatatypeMismatch, "ARRAY types " + elements.front()->type.name() + " and " +
                                                  elements.back()->type.name() + " cannot be matched", a->pos);
  }
  const TypeId element = common->isNull() ? TypeId::Text : arrayElementOf(*common, e.pos);
  const SqlType type = SqlType::array(element);
  ExprPtr r = emptyArray(type, e.pos);
  for (auto& x : elements) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(r));
    args.push_back(castTo(castTo(std::move(x), type.elementType()), SqlType::text()));
    r = makeArrayCall(ScalarFunc::ArrayAppend, type.withNullable(false), std::move(args), e.pos);
  }
  return r;
}

plan::OperatorPtr SelectBinder::bindSetFunction(const ast::TableRef& ref) {
  auto x = std::make_unique<plan::Expand>();
  const bool unnest = ref.name == "unnest";
  x->function = unnest ? plan::Expand::Function::Unnest : plan::Expand::Function::GenerateSeries;
  if (ref.args.size() != (unnest ? 1u : 2u))
    throw Error(unnest || ref.args.size() != 3 ? sqlstate::UndefinedFunction : sqlstate::FeatureNotSupported,
                unnest ? "unnest takes one array" : ref.args.size() == 3 ? "generate_series with a step is not supported"
                                                                    : "generate_series takes a start and a stop",
                ref.pos);
  for (auto& a : ref.args) {
    ExprPtr v = bindExpr(*a, Clause::Values);
    std::vector<const plan::IU*> read;
    v->collectIUs(read);
    for (const plan::IU* iu : read)
      if (inScope(iu))
        throw Error(sqlstate::FeatureNotSupported, ref.name + "() of a column of the same FROM (LATERAL) is not supported", a->pos);
    x->args.push_back(std::move(v));
  }
  SqlType type;
  if (unnest) {
    if (!x->args[0]->type.isArray())
      throw Error(sqlstate::UndefinedFunction, "function unnest(" + x->args[0]->type.name() + ") does not exist", ref.pos);
    type = x->args[0]->type.elementType();
  } else {
    for (auto& a : x->args) {
      if (a->type.isNull()) a = castTo(std::move(a), SqlType::int32());
      if (!a->type.isInteger())
        throw Error(sqlstate::UndefinedFunction, "function generate_series(" + a->type.name() + ", ...) does not exist", ref.pos);
    }
    const bool wide = x->args[0]->type.id == TypeId::Int64 || x->args[1]->type.id == TypeId::Int64;
    type = wide ? SqlType::int64(false) : SqlType::int32(false);
  }
  const std::string alias = ref.alias.empty() ? ref.name : ref.alias;
  for (auto& s : scope_)
    if (s.alias == alias)
      throw Error(sqlstate::DuplicateAlias, "table name \"" + alias + "\" specified more than once", ref.pos);
  if (ref.columnAliases.size() > 1)
    throw Error(sqlstate::InvalidColumnReference, "table \"" + alias + "\" has 1 columns available but more were specified", ref.pos);
  // PostgreSQL names the one column by the column alias, else the table alias, else the function.
  const std::string column = !ref.columnAliases.empty() ? ref.columnAliases[0] : alias;
  x->iu = plan_.ius.make(type, column);
  auto one = std::make_unique<plan::Values>();
  one->rows.emplace_back();
  x->children.push_back(std::move(one));
  ScopeEntry entry;
  entry.alias = alias;
  entry.columns.push_back({column, x->iu});
  scope_.push_back(std::move(entry));
  return x;
}

const ast::Expr* setReturningCall(const ast::Expr& e) {
  const ast::Expr* c = e.kind == ast::ExprKind::FieldSelect ? e.args[0].get() : &e;
  if (c->kind != ast::ExprKind::Function || c->window) return nullptr;
  if (c->name == "unnest" && (c->table.empty() || c->table == "pg_catalog")) return c;
  if (c->name == "_pg_expandarray" && (c->table.empty() || c->table == "information_schema")) return c;
  return nullptr;
}

void SelectBinder::expandSelectList(const ast::Select& s, plan::OperatorPtr& op) {
  selectSrf_ = nullptr;
  for (auto& item : s.items) {
    const ast::Expr* c = setReturningCall(*item.expr);
    if (!c) continue;
    if (selectSrf_ && !ast::sameAst(*selectSrf_, *c))
      throw Error(sqlstate::FeatureNotSupported, "several different set-returning functions in a select list are not supported",
                  c->pos);
    selectSrf_ = c;
  }
  if (!selectSrf_) return;
  const ast::Expr& c = *selectSrf_;
  if (aggregate_) throw Error(sqlstate::FeatureNotSupported, c.name + "() in the select list of an aggregating query is not supported", c.pos);
  if (c.args.size() != 1 || c.star || c.distinct)
    throw Error(sqlstate::UndefinedFunction, "function " + c.name + " takes one array", c.pos);
  auto x = std::make_unique<plan::Expand>();
  x->args.push_back(bindExpr(*c.args[0], Clause::Select));
  if (!x->args[0]->type.isArray())
    throw Error(sqlstate::UndefinedFunction, "function " + c.name + "(" + x->args[0]->type.name() + ") does not exist", c.pos);
  x->iu = plan_.ius.make(x->args[0]->type.elementType(), c.name);
  x->ordinality = plan_.ius.make(SqlType::int32(false), "n");
  selectSrfValue_ = x->iu;
  selectSrfOrdinal_ = x->ordinality;
  x->children.push_back(std::move(op));
  op = std::move(x);
}

ExprPtr SelectBinder::bindSetReturningCall(const ast::Expr& e) {
  if (!setReturningCall(e)) return nullptr;
  if (!selectSrf_ || !ast::sameAst(*selectSrf_, e))
    throw Error(sqlstate::FeatureNotSupported, e.name + "() is supported only in FROM or as a select item", e.pos);
  if (e.name == "unnest") return Expr::column(selectSrfValue_, e.pos);
  throw Error(sqlstate::FeatureNotSupported, "a composite value is supported only as a select item or as (...).field", e.pos);
}

ExprPtr SelectBinder::bindFieldSelect(const ast::Expr& e, Clause) {
  const ast::Expr& of = *e.args[0];
  if (of.kind == ast::ExprKind::Function && of.name == "_pg_expandarray" && setReturningCall(of)) {
    if (!selectSrf_ || !ast::sameAst(*selectSrf_, of))
      throw Error(sqlstate::FeatureNotSupported, "_pg_expandarray() is supported only in the select list", e.pos);
    if (e.name == "x") return Expr::column(selectSrfValue_, e.pos);
    if (e.name == "n") return Expr::column(selectSrfOrdinal_, e.pos);
    throw Error(sqlstate::UndefinedColumn, "column \"" + e.name + "\" not found in data type record", e.pos);
  }
  if (of.kind == ast::ExprKind::Column) {  // a composite item of a derived table: its field's column
    ast::Expr field(ast::ExprKind::Column, e.pos);
    field.table = of.table;
    field.name = of.name + "." + e.name;
    return bindColumn(field);
  }
  throw Error(sqlstate::FeatureNotSupported, "field selection (...).field is supported only of _pg_expandarray() here", e.pos);
}

SelectBinder::ArrayOrder SelectBinder::arrayOfSubquery(plan::OperatorPtr& sub, std::vector<const plan::IU*>& out,
                                                       SourcePos pos) {
  if (out.size() != 1) throw Error(sqlstate::SyntaxError, "subquery must return only one column", pos);
  ArrayOrder order;
  plan::Operator* sorted = sub.get();
  if (sorted->kind == plan::OpKind::Limit) sorted = sorted->child();
  if (sorted->kind == plan::OpKind::Sort) {
    // The elements are put in order after array_agg: only an order by the column itself is kept.
    auto& s = static_cast<plan::Sort&>(*sorted);
    if (s.keys.size() != 1 || s.keys[0].expr->kind != ExprKind::Column || s.keys[0].expr->iu != out[0])
      throw Error(sqlstate::FeatureNotSupported, "ARRAY(subquery) ordered by other than its column is not supported", pos);
    order = {true, s.keys[0].descending, s.keys[0].nullsFirst};
    // (one that also drops rows, DISTINCT ON's, stays: the elements are put in order anyway)
    if (sub->kind == plan::OpKind::Sort && s.onlyOrders()) sub = std::move(sub->children[0]);
  }
  const SqlType& t = out[0]->type;
  const TypeId element = t.isNull() ? TypeId::Text : arrayElementOf(t, pos);
  auto agg = std::make_unique<plan::Aggregate>();
  const plan::IU* iu = plan_.ius.make(SqlType::array(element, 0, true), "array");
  agg->aggregates.push_back({plan::AggFunc::ArrayAgg, castTo(Expr::column(out[0], pos), SqlType::array(element).elementType()), iu});
  agg->children.push_back(std::move(sub));
  sub = std::move(agg);
  out = {iu};
  return order;
}

ExprPtr SelectBinder::arrayResult(ExprPtr value, const ArrayOrder& order, SourcePos pos) {
  const SqlType type = value->type;
  if (order.sort) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(value));
    value = makeArrayCall(ScalarFunc::ArraySort, type, std::move(args), pos);
    value->negated = order.descending;
    value->hasElse = order.nullsFirst;
  }
  // No rows: {} (array_agg gave NULL).
  std::vector<ExprPtr> arms;
  arms.push_back(makeIsNull(value->clone(), false, pos));
  arms.push_back(emptyArray(type, pos));
  arms.push_back(std::move(value));
  ExprPtr r = makeCase(std::move(arms), true, pos);
  r->type.nullable = false;
  return r;
}

ExprPtr SelectBinder::bindSubscript(const ast::Expr& e, Clause clause) {
  ExprPtr a = bindExpr(*e.args[0], clause);
  if (!a->type.isArray())
    throw Error(sqlstate::DatatypeMismatch, "cannot subscript type " + a->type.name() + " because it is not an array", e.pos);
  ExprPtr i = bindExpr(*e.args[1], clause);
  if (!i->type.isInteger() && !i->type.isNull())
    throw Error(sqlstate::DatatypeMismatch, "array subscript must have type integer", e.args[1]->pos);
  const SqlType element = a->type.elementType();
  const bool vector = text::isVectorType(a->type);
  std::vector<ExprPtr> args;
  args.push_back(std::move(a));
  i = castTo(std::move(i), SqlType::int64());
  // int2vector and oidvector count from 0 in PostgreSQL (their lower bound), other arrays from 1.
  if (vector) i = makeArith(plan::ArithOp::Add, std::move(i), Expr::constant(Value::int64(1)), e.pos);
  args.push_back(std::move(i));
  return castTo(makeArrayCall(ScalarFunc::ArrayElement, SqlType::text(), std::move(args), e.pos), element);
}

ExprPtr SelectBinder::bindQuantifiedArray(const ast::Expr& e, Clause clause) {
  ExprPtr x = bindExpr(*e.args[0], clause);
  ExprPtr a = bindExpr(*e.args[1], clause);
  auto op = comparisonOperator(e.op);
  if (!op) throw Error(sqlstate::UndefinedFunction, "operator does not exist: " + e.op, e.pos);
  if (a->kind == ExprKind::Constant && a->type.isString())  // x = ANY ('{1,2}'): of x's type
    a = makeCast(std::move(a), SqlType::array(x->type.isNull() ? TypeId::Text : arrayElementOf(x->type, e.pos)), e.pos);
  if (a->type.isNull()) a = castTo(std::move(a), SqlType::array(x->type.isNull() ? TypeId::Text : arrayElementOf(x->type, e.pos)));
  if (!a->type.isArray())
    throw Error(sqlstate::DatatypeMismatch, "op ANY/ALL (array) requires array on right side", e.args[1]->pos);
  const SqlType element = a->type.elementType();
  if (x->kind == ExprKind::Constant && x->type.isString() && !element.isString()) x = makeCast(std::move(x), element, e.pos);
  if (!x->type.isNull() && !(x->type.isInteger() && element.isInteger()) && !(x->type.isString() && element.isString()))
    throw Error(sqlstate::UndefinedFunction,
                "operator does not exist: " + x->type.name() + " " + e.op + " " + element.name(), e.pos);
  std::vector<ExprPtr> args;
  // Integers compare by value in the runtime: x as BIGINT's text, so no narrowing cast can fail.
  args.push_back(castTo(castTo(std::move(x), element.isInteger() ? SqlType::int64() : element), SqlType::text()));
  args.push_back(std::move(a));
  ExprPtr r = makeArrayCall(ScalarFunc::ArrayAny, SqlType::boolean(true), std::move(args), e.pos);
  r->cmp = *op;
  r->negated = e.unit == "all";
  return r;
}

ExprPtr SelectBinder::bindArrayFunction(const ast::Expr& e, Clause clause) {
  const std::string& n = e.name;
  if (n == "generate_series") throw Error(sqlstate::FeatureNotSupported, n + "() is supported only in FROM", e.pos);
  if (n != "array_to_string" && n != "array_length" && n != "cardinality" && n != "array_upper" && n != "array_lower" &&
      n != "array_append" && n != "array_prepend" && n != "array_cat" && n != "array_ndims")
    return nullptr;
  std::vector<ExprPtr> args;
  for (auto& a : e.args) args.push_back(bindExpr(*a, clause));
  auto arity = [&](size_t lo, size_t hi) {
    if (args.size() < lo || args.size() > hi)
      throw Error(sqlstate::UndefinedFunction, "function " + n + " takes " + std::to_string(lo) +
                                                   (hi > lo ? " or " + std::to_string(hi) : "") + " arguments",
                  e.pos);
  };
  if (n == "array_to_string") {
    arity(2, 3);
    args[0] = arrayArgument(std::move(args[0]), n, e.pos);
    for (size_t i = 1; i < args.size(); ++i) args[i] = castTo(std::move(args[i]), SqlType::text());
    const bool nullable = args[0]->type.nullable || args[1]->type.nullable;
    return makeArrayCall(ScalarFunc::ArrayToString, SqlType::text(nullable), std::move(args), e.pos);
  }
  if (n == "array_append" || n == "array_prepend") {
    arity(2, 2);
    size_t arr = n == "array_append" ? 0 : 1;
    if (args[arr]->type.isNull()) args[arr] = castTo(std::move(args[arr]), SqlType::array(args[1 - arr]->type.isNull() ? TypeId::Text : arrayElementOf(args[1 - arr]->type, e.pos)));
    args[arr] = arrayArgument(std::move(args[arr]), n, e.pos);
    const SqlType type = args[arr]->type;
    args[1 - arr] = castTo(castTo(std::move(args[1 - arr]), type.elementType()), SqlType::text());
    return makeArrayCall(n == "array_append" ? ScalarFunc::ArrayAppend : ScalarFunc::ArrayPrepend, type.withNullable(false),
                         std::move(args), e.pos);
  }
  if (n == "array_cat") {
    arity(2, 2);
    if (ExprPtr r = makeArrayConcat(args[0], args[1], e.pos)) return r;
    throw Error(sqlstate::UndefinedFunction, "function array_cat(" + args[0]->type.name() + ", " + args[1]->type.name() + ") does not exist", e.pos);
  }
  // cardinality(a); array_length / array_upper / array_lower (a, dimension): NULL for an empty
  // array or another dimension than 1; array_ndims(a): 1, NULL when empty.
  arity(n == "cardinality" || n == "array_ndims" ? 1 : 2, n == "cardinality" || n == "array_ndims" ? 1 : 2);
  args[0] = arrayArgument(std::move(args[0]), n, e.pos);
  std::vector<ExprPtr> one;
  one.push_back(args[0]->clone());
  ExprPtr count = makeArrayCall(ScalarFunc::Cardinality, SqlType::int32(args[0]->type.nullable), std::move(one), e.pos);
  if (n == "cardinality") return count;
  ExprPtr nonEmpty = makeCompare(plan::CmpOp::Gt, count->clone(), Expr::constant(Value::int32(0)), e.pos);
  if (n != "array_ndims") {
    std::vector<ExprPtr> both;
    both.push_back(std::move(nonEmpty));
    both.push_back(makeCompare(plan::CmpOp::Eq, castTo(std::move(args[1]), SqlType::int32()), Expr::constant(Value::int32(1)), e.pos));
    nonEmpty = makeLogic(ExprKind::And, std::move(both), e.pos);
  }
  // int2vector and oidvector: bounds 0 .. n - 1.
  const bool vector = text::isVectorType(args[0]->type);
  ExprPtr value = n == "array_ndims" ? Expr::constant(Value::int32(1), e.pos)
                  : n == "array_lower" ? Expr::constant(Value::int32(vector ? 0 : 1), e.pos)
                  : n == "array_upper" && vector ? makeArith(plan::ArithOp::Sub, std::move(count), Expr::constant(Value::int32(1)), e.pos)
                                                 : std::move(count);
  return when(std::move(nonEmpty), std::move(value), e.pos);
}

}  // namespace hyrax::sql
