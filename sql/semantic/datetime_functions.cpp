// Binding of PostgreSQL's date/time functions: date_trunc, make_date, make_time, make_timestamp,
// justify_days, justify_hours, justify_interval and age. Each becomes a plan Call computed by
// engine/types/calendar.hpp (per row through the runtime, or by the constant folder). Without
// time zones a DATE argument is its midnight as a TIMESTAMP (PostgreSQL's date_trunc and age of a
// DATE go through TIMESTAMPTZ), and a quoted literal is read as a TIMESTAMP or INTERVAL.
#include "engine/types/calendar.hpp"
#include "sql/optimizer/constant_folding.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;
using plan::ScalarFunc;

ExprPtr SelectBinder::bindDateTimeFunction(const ast::Expr& e, Clause clause) {
  static const char* const kNames[] = {"date_trunc",   "make_date",     "make_time",        "make_timestamp",
                                       "justify_days", "justify_hours", "justify_interval", "age"};
  auto bound = bindArgsIfNamed(e, clause, kNames, std::size(kNames));
  if (!bound) return nullptr;
  std::vector<ExprPtr> args = std::move(*bound);
  auto count = [&](size_t n) {
    if (args.size() != n) noSuchFunction(e.name, args, e.pos);
  };
  // An untyped NULL or a quoted literal as `t`; a DATE as a TIMESTAMP where `t` is one.
  auto as = [&](size_t i, const SqlType& t) {
    ExprPtr& a = args[i];
    const SourcePos pos = a->pos;
    if (a->type.isNull() || (a->type.id == TypeId::Date && t.id == TypeId::Timestamp)) a = castTo(std::move(a), t);
    else if (a->kind == ExprKind::Constant && a->type.isString()) a = makeCast(std::move(a), t, pos);
  };
  auto integer = [&](size_t i) {  // PostgreSQL's integer arguments
    if (args[i]->type.isNull()) args[i] = castTo(std::move(args[i]), SqlType::int32());
    if (!args[i]->type.isInteger()) noSuchFunction(e.name, args, e.pos);
    args[i] = castTo(std::move(args[i]), SqlType::int32());
  };
  auto seconds = [&](size_t i) {  // double precision
    if (args[i]->type.isNull()) args[i] = castTo(std::move(args[i]), SqlType::float64());
    if (!args[i]->type.isNumeric()) noSuchFunction(e.name, args, e.pos);
    args[i] = castTo(std::move(args[i]), SqlType::float64());
  };

  // PostgreSQL has date_trunc and age(t) of TIMESTAMP and TIMESTAMPTZ (and INTERVAL): of a quoted
  // literal or NULL it cannot choose.
  auto isUntyped = [](const Expr& a) { return a.type.isNull() || (a.kind == ExprKind::Constant && a.type.isString()); };
  auto untyped = [&](size_t i) {
    if (!isUntyped(*args[i])) return;
    std::string sig;
    for (size_t j = 0; j < args.size(); ++j) sig += (j ? ", " : "") + (isUntyped(*args[j]) ? "unknown" : args[j]->type.name());
    throw Error(sqlstate::AmbiguousFunction, "function " + e.name + "(" + sig + ") is not unique", args[i]->pos);
  };
  if (e.name == "date_trunc") {
    count(2);
    untyped(1);
    as(1, SqlType::timestamp());
    const SqlType t = args[1]->type;
    if (t.id != TypeId::Timestamp && t.id != TypeId::Interval) noSuchFunction(e.name, args, e.pos);
    // The unit is read when the statement is bound: a constant (PostgreSQL's may be any text).
    ExprPtr unit = foldConstants(std::move(args[0]));
    if (unit->kind != ExprKind::Constant || !(unit->type.isString() || unit->type.isNull()))
      throw Error(sqlstate::FeatureNotSupported, "date_trunc(unit, x) takes its unit as a text constant", e.args[0]->pos);
    if (unit->value.isNull()) return Expr::constant(Value::null(t.withNullable(true)), e.pos);
    try {
      DateTimeField f = text::truncUnit(unit->value.asString(), t.id);
      args[0] = Expr::constant(Value::int32(static_cast<int32_t>(f)), unit->pos);
    } catch (Error& err) {
      err.setPosIfUnknown(e.args[0]->pos);
      throw;
    }
    return makeScalarCall(ScalarFunc::DateTrunc, t.withNullable(false), std::move(args), e.pos);
  }
  if (e.name == "make_date") {
    count(3);
    for (size_t i = 0; i < 3; ++i) integer(i);
    return makeScalarCall(ScalarFunc::MakeDate, SqlType::date(), std::move(args), e.pos);
  }
  if (e.name == "make_time") {
    count(3);
    integer(0), integer(1), seconds(2);
    return makeScalarCall(ScalarFunc::MakeTime, SqlType::time(), std::move(args), e.pos);
  }
  if (e.name == "make_timestamp") {
    count(6);
    for (size_t i = 0; i < 5; ++i) integer(i);
    seconds(5);
    return makeScalarCall(ScalarFunc::MakeTimestamp, SqlType::timestamp(), std::move(args), e.pos);
  }
  if (e.name == "age") {
    // age(t) is age(CURRENT_DATE's midnight, t), as PostgreSQL defines it.
    if (args.size() == 1) {
      untyped(0);
      auto today = std::make_unique<Expr>(ExprKind::Call, SqlType::date(false), e.pos);
      today->func = ScalarFunc::CurrentDate;
      args.insert(args.begin(), castTo(std::move(today), SqlType::timestamp(false)));
    }
    count(2);
    for (size_t i = 0; i < 2; ++i) {
      as(i, SqlType::timestamp());
      if (args[i]->type.id != TypeId::Timestamp) noSuchFunction(e.name, args, e.pos);
    }
    return makeScalarCall(ScalarFunc::Age, SqlType::interval(), std::move(args), e.pos);
  }
  // justify_days, justify_hours, justify_interval
  count(1);
  as(0, SqlType::interval());
  if (args[0]->type.id != TypeId::Interval) noSuchFunction(e.name, args, e.pos);
  const ScalarFunc f = e.name == "justify_days"    ? ScalarFunc::JustifyDays
                       : e.name == "justify_hours" ? ScalarFunc::JustifyHours
                                                   : ScalarFunc::JustifyInterval;
  return makeScalarCall(f, SqlType::interval(), std::move(args), e.pos);
}

}  // namespace hyrax::sql
