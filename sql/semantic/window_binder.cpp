// Window functions: row_number() only, which a partitioned Sort's rank gives (plan::Sort::rank,
// the same ranking INTERSECT ALL uses), so neither codegen nor the optimizer needs a window
// operator. The Sort goes on top of the SELECT's input (FROM and WHERE), under its select list;
// a filter above the SELECT cannot be pushed below it (a Sort is a barrier to pushdown).
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprPtr;

ExprPtr SelectBinder::bindWindow(const ast::Expr& e, Clause clause) {
  if (clause == Clause::Returning)  // PostgreSQL's error, whatever the function
    throw Error("42P20", "window functions are not allowed in RETURNING", e.pos);
  if (e.name != "row_number")
    throw Error(sqlstate::FeatureNotSupported, "window function " + e.name + "() is not supported (only row_number())", e.pos);
  if (e.windowArgs != 0 || e.star || e.distinct)
    throw Error(sqlstate::UndefinedFunction, "function row_number takes no arguments", e.pos);
  if (clause != Clause::Select || aggregate_ || !input_)
    throw Error(sqlstate::FeatureNotSupported, "row_number() OVER is supported only in the select list of a query without GROUP BY",
                e.pos);
  auto sort = std::make_unique<plan::Sort>();
  auto computed = std::make_unique<plan::Map>();  // keys that are no column: a Sort sorts by columns
  auto key = [&](ExprPtr k) -> ExprPtr {
    if (k->kind == plan::ExprKind::Column) return k;
    const plan::IU* iu = plan_.ius.make(k->type, "window_key");
    computed->computed.push_back({iu, std::move(k)});
    return Expr::column(iu, e.pos);
  };
  // Without PARTITION BY, one partition: a constant key.
  if (e.windowPartitions == 0) sort->keys.push_back({key(Expr::constant(Value::int32(0), e.pos)), false, false});
  for (size_t i = 0; i < e.windowPartitions; ++i) {
    ExprPtr k = bindExpr(*e.args[e.windowArgs + i], Clause::Where);
    if (k->type.isArray()) throw Error(sqlstate::FeatureNotSupported, "PARTITION BY an array is not supported", e.pos);
    sort->keys.push_back({key(std::move(k)), false, false});
  }
  sort->partitionKeys = sort->keys.size();
  for (size_t i = 0; i < e.windowOrder.size(); ++i) {
    ExprPtr k = bindExpr(*e.args[e.windowArgs + e.windowPartitions + i], Clause::Where);
    if (k->type.isArray()) throw Error(sqlstate::FeatureNotSupported, "ORDER BY an array is not supported", e.pos);
    auto [descending, nullsFirst] = e.windowOrder[i];
    sort->keys.push_back({key(std::move(k)), descending, nullsFirst < 0 ? descending : nullsFirst == 1});
  }
  sort->rank = plan_.ius.make(SqlType::int64(false), "row_number");
  const plan::IU* rank = sort->rank;
  if (!computed->computed.empty()) {
    computed->children.push_back(std::move(*input_));
    *input_ = std::move(computed);
  }
  sort->children.push_back(std::move(*input_));
  *input_ = std::move(sort);
  return makeArith(plan::ArithOp::Add, Expr::column(rank, e.pos), Expr::constant(Value::int64(1), e.pos), e.pos);
}

}  // namespace hyrax::sql
