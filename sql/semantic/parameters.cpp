// Parameters of prepared statements ($1, $2 ...) whose type PREPARE did not declare take the type
// they are converted to where they are used: `id = $1` makes $1 the type of id, `SET qty = $2`
// and `VALUES ($3)` the column's type. The binder treats an unknown parameter like NULL, which
// gets a cast to whatever it meets; here those casts become the parameter's type.
#include "engine/util/stack_depth.hpp"
#include "sql/semantic/binder.hpp"

#include "sql/optimizer/constant_folding.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;

namespace {

void walk(plan::Operator& op, const std::function<void(ExprPtr&)>& fn) {
  std::function<void(ExprPtr&)> rec = [&](ExprPtr& e) {
    checkStackDepth();
    for (auto& a : e->args) rec(a);
    fn(e);
  };
  plan::forEachExpr(op, rec);
  for (auto& c : op.children) walk(*c, fn);
}

bool unknownParameter(const Expr& e) { return e.kind == ExprKind::Parameter && e.type.isNull(); }

}  // namespace

void resolveParameters(plan::QueryPlan& plan) {
  if (plan.parameters.empty()) return;
  auto& types = plan.parameters;
  // The query's tree and those of its WITH queries (bound once, read by CteScans).
  std::vector<plan::Operator*> trees{plan.root.get()};
  for (auto& cte : plan.commonTables)
    if (cte.root) trees.push_back(cte.root.get());
  for (plan::Operator* tree : trees)
    walk(*tree, [&](ExprPtr& e) {
      if (e->kind == ExprKind::Cast && unknownParameter(*e->args[0]) && types[e->args[0]->param].isNull())
        types[e->args[0]->param] = e->type.withNullable(true);
    });
  std::vector<SourcePos> where(types.size());
  // Pre-order: a cast of an unknown parameter to its type is replaced before the parameter below
  // it gets that type.
  std::function<void(ExprPtr&)> settle = [&](ExprPtr& e) {
    checkStackDepth();
    if (e->kind == ExprKind::Cast && unknownParameter(*e->args[0]) && e->type.sameAs(types[e->args[0]->param])) {
      ExprPtr p = std::move(e->args[0]);
      e = std::move(p);
    }
    if (e->kind == ExprKind::Parameter) {
      where[e->param] = e->pos;
      e->type = types[e->param].withNullable(true);
    }
    for (auto& a : e->args) settle(a);
  };
  std::function<void(plan::Operator&)> visit = [&](plan::Operator& op) {
    plan::forEachExpr(op, settle);
    for (auto& c : op.children) visit(*c);
  };
  for (plan::Operator* tree : trees) visit(*tree);
  for (size_t i = 0; i < types.size(); ++i)
    if (types[i].isNull())
      throw Error(sqlstate::IndeterminateDatatype, "could not determine data type of parameter $" + std::to_string(i + 1),
                  where[i]);
}

std::vector<Value> Binder::bindConstants(const std::vector<ast::ExprPtr>& exprs, const std::vector<SqlType>& types) {
  std::vector<Value> values;
  plan::QueryPlan scratch;
  SelectBinder b(catalog_, scratch);
  for (size_t i = 0; i < exprs.size(); ++i) {
    ExprPtr e = b.bindExpr(*exprs[i], Clause::Values);
    if (!castable(e->type, types[i]))
      throw Error(sqlstate::DatatypeMismatch, "parameter $" + std::to_string(i + 1) + " is of type " + types[i].name() +
                                                  " but expression is of type " + e->type.name(), exprs[i]->pos);
    e = foldConstants(castTo(std::move(e), types[i].withNullable(true)));
    if (e->kind != ExprKind::Constant)
      throw Error(sqlstate::FeatureNotSupported, "EXECUTE arguments must be constants", exprs[i]->pos);
    values.push_back(e->value);
  }
  return values;
}

std::vector<Value> Binder::castValues(const std::vector<Value>& values, const std::vector<SqlType>& types) {
  std::vector<Value> out;
  out.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const Value& v = values[i];
    const SqlType to = types[i].withNullable(true);
    if (v.isNull()) {
      out.push_back(Value::null(to));
    } else if (v.type().sameAs(to)) {
      out.push_back(v);
    } else {
      if (!castable(v.type(), to))
        throw Error(sqlstate::CannotCoerce, "parameter $" + std::to_string(i + 1) + " is of type " + to.name() +
                                                " but the value is of type " + v.type().name());
      ExprPtr e = foldConstants(castTo(Expr::constant(v), to));
      if (!e->isConstant()) throw Error(sqlstate::InternalError, "a cast of a constant did not fold");
      out.push_back(e->value);
    }
  }
  return out;
}

}  // namespace hyrax::sql
