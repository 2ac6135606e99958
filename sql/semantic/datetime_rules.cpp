// PostgreSQL's arithmetic on points in time and intervals:
//   TIMESTAMP +/- INTERVAL = TIMESTAMP, INTERVAL + TIMESTAMP = TIMESTAMP
//   DATE +/- INTERVAL = TIMESTAMP (the date's midnight; DATE +/- integer days stays a DATE)
//   TIMESTAMP - TIMESTAMP = INTERVAL (a DATE beside a TIMESTAMP is its midnight)
//   INTERVAL +/- INTERVAL = INTERVAL
//   DATE + TIME = TIME + DATE = TIMESTAMP (the time added as an interval of microseconds)
//   INTERVAL * number, number * INTERVAL, INTERVAL / number = INTERVAL
//   TIME - TIME = INTERVAL, TIME +/- INTERVAL = TIME (the interval's time part, around the clock)
// TPC-H's `date '1998-12-01' - interval '90' day` is a TIMESTAMP constant then; the optimizer's
// constant folding turns a DATE column compared with a TIMESTAMP constant back into a comparison
// of dates (constant_folding.cpp), so its scans and range lookups stay on dates.
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::ArithOp;
using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;

ExprPtr makeDateTimeArith(ArithOp op, ExprPtr& a, ExprPtr& b, SourcePos pos) {
  auto is = [](const ExprPtr& e, TypeId t) { return e->type.id == t; };
  bool any = false;
  for (ExprPtr* e : {&a, &b}) any = any || is(*e, TypeId::Timestamp) || is(*e, TypeId::Interval) || is(*e, TypeId::Time);
  if (!any) return nullptr;
  bool nullable = a->type.nullable || b->type.nullable || a->type.isNull() || b->type.isNull();
  auto point = [&](const ExprPtr& e) { return is(e, TypeId::Date) || is(e, TypeId::Timestamp) || e->type.isNull(); };
  auto make = [&](SqlType result, const SqlType& left, const SqlType& right) {
    auto e = std::make_unique<Expr>(ExprKind::Arith, result.withNullable(nullable), pos);
    e->arith = op;
    e->args.push_back(castTo(std::move(a), left));
    e->args.push_back(castTo(std::move(b), right));
    return e;
  };
  bool addOrSub = op == ArithOp::Add || op == ArithOp::Sub;
  if (op == ArithOp::Add && is(a, TypeId::Interval) && point(b) && !b->type.isNull()) std::swap(a, b);
  if (addOrSub && point(a) && is(b, TypeId::Interval))
    return make(SqlType::timestamp(), SqlType::timestamp(), SqlType::interval());
  if (op == ArithOp::Sub && point(a) && point(b) && (is(a, TypeId::Timestamp) || is(b, TypeId::Timestamp)))
    return make(SqlType::interval(), SqlType::timestamp(), SqlType::timestamp());
  if (op == ArithOp::Add && is(a, TypeId::Time) && is(b, TypeId::Date)) std::swap(a, b);
  if (op == ArithOp::Add && is(a, TypeId::Date) && is(b, TypeId::Time))
    return make(SqlType::timestamp(), SqlType::timestamp(), SqlType::time());
  if (op == ArithOp::Mul && b->type.id == TypeId::Interval && a->type.isNumeric()) std::swap(a, b);
  if ((op == ArithOp::Mul || op == ArithOp::Div) && is(a, TypeId::Interval) && b->type.isNumeric())
    return make(SqlType::interval(), SqlType::interval(), SqlType::float64());
  if (op == ArithOp::Sub && is(a, TypeId::Time) && is(b, TypeId::Time))
    return make(SqlType::interval(), SqlType::time(), SqlType::time());
  if (op == ArithOp::Add && is(a, TypeId::Interval) && is(b, TypeId::Time)) std::swap(a, b);
  if (addOrSub && is(a, TypeId::Time) && is(b, TypeId::Interval))
    return make(SqlType::time(), SqlType::time(), SqlType::interval());
  if (addOrSub && (is(a, TypeId::Interval) || a->type.isNull()) && (is(b, TypeId::Interval) || b->type.isNull()))
    return make(SqlType::interval(), SqlType::interval(), SqlType::interval());
  throw Error(sqlstate::UndefinedFunction,
              std::string("operator does not exist: ") + a->type.name() + " " + plan::toString(op) + " " + b->type.name(), pos);
}

}  // namespace hyrax::sql
