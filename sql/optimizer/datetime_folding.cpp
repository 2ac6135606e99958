#include "sql/optimizer/datetime_folding.hpp"

#include "engine/types/calendar.hpp"
#include "engine/types/interval.hpp"
#include "engine/types/timestamp.hpp"

namespace hyrax::sql {

using plan::CmpOp;
using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;

std::optional<Value> foldDateTimeCast(const Value& v, const SqlType& to) {
  const SqlType& from = v.type();
  if (from.isString()) {
    const std::string& s = v.asString();
    switch (to.id) {
      case TypeId::Timestamp: return Value::timestamp(text::parseTimestamp(s));
      case TypeId::Time: return Value::time(text::parseTime(s));
      case TypeId::Interval: {
        text::Interval iv = text::parseInterval(s);
        return Value::interval(iv.micros, iv.high());
      }
      default: return std::nullopt;
    }
  }
  if (from.id == TypeId::Date && to.id == TypeId::Timestamp)
    return Value::timestamp(text::timestampOfDate(static_cast<int32_t>(v.asInt())));
  if (from.id == TypeId::Timestamp && to.id == TypeId::Date) return Value::date(text::dateOfTimestamp(v.asInt()));
  if (from.id == TypeId::Timestamp && to.id == TypeId::Time)
    return Value::time(v.asInt() - text::timestampOfDate(text::dateOfTimestamp(v.asInt())));
  return std::nullopt;
}

std::optional<Value> foldDateTimeArith(const Expr& e, const Value& a, const Value& b) {
  bool subtract = e.arith == plan::ArithOp::Sub;
  auto interval = [](const Value& v) { return text::Interval::fromWords(v.asInt(), v.high()); };
  auto outOfRange = [&](const char* type) -> Value {
    throw Error(sqlstate::DatetimeOutOfRange, std::string(type) + " out of range", e.pos);
  };
  if (a.type().id == TypeId::Time && b.type().id == TypeId::Time) return Value::interval(a.asInt() - b.asInt(), 0);
  if (a.type().id == TypeId::Time && b.type().id == TypeId::Interval) {
    int64_t shift = b.asInt() % text::kMicrosPerDay, x = (subtract ? a.asInt() - shift : a.asInt() + shift) % text::kMicrosPerDay;
    return Value::time(x < 0 ? x + text::kMicrosPerDay : x);
  }
  if (a.type().id == TypeId::Timestamp && b.type().id == TypeId::Timestamp) {
    text::Interval d = text::subtractTimestamps(a.asInt(), b.asInt());
    return Value::interval(d.micros, d.high());
  }
  if (a.type().id == TypeId::Timestamp && (b.type().id == TypeId::Interval || b.type().id == TypeId::Time)) {
    text::Interval iv = b.type().id == TypeId::Time ? text::Interval{b.asInt(), 0, 0} : interval(b);
    int64_t r;
    if ((subtract && !text::negateInterval(iv, iv)) || !text::addIntervalToTimestamp(a.asInt(), iv, r))
      return outOfRange("timestamp");
    return Value::timestamp(r);
  }
  if (a.type().id == TypeId::Interval && b.type().isFloat()) {
    bool divide = e.arith == plan::ArithOp::Div;
    if (divide && b.asDouble() == 0) throw Error(sqlstate::DivisionByZero, "division by zero", e.pos);
    text::Interval r;
    if (!text::scaleInterval(interval(a), b.asDouble(), divide, r)) return outOfRange("interval");
    return Value::interval(r.micros, r.high());
  }
  if (a.type().id == TypeId::Interval && b.type().id == TypeId::Interval) {
    text::Interval x = interval(a), y = interval(b), r;
    if ((subtract && !text::negateInterval(y, y)) || !text::addIntervals(x, y, r)) return outOfRange("interval");
    return Value::interval(r.micros, r.high());
  }
  return std::nullopt;
}

std::optional<Value> foldCalendarCall(const Expr& e) {
  using plan::ScalarFunc;
  const ScalarFunc f = e.func;
  if (f != ScalarFunc::DateTrunc && f != ScalarFunc::MakeDate && f != ScalarFunc::MakeTime &&
      f != ScalarFunc::MakeTimestamp && f != ScalarFunc::JustifyDays && f != ScalarFunc::JustifyHours &&
      f != ScalarFunc::JustifyInterval && f != ScalarFunc::Age)
    return std::nullopt;
  for (auto& a : e.args)
    if (a->value.isNull()) return Value::null(e.type);
  auto arg = [&](size_t i) -> const Value& { return e.args[i]->value; };
  auto i32 = [&](size_t i) { return static_cast<int32_t>(arg(i).asInt()); };
  auto interval = [](const text::Interval& iv) { return Value::interval(iv.micros, iv.high()); };
  try {
    switch (f) {
      case ScalarFunc::DateTrunc: {
        auto unit = static_cast<DateTimeField>(arg(0).asInt());
        if (arg(1).type().id == TypeId::Interval)
          return interval(text::truncInterval(unit, text::Interval::fromWords(arg(1).asInt(), arg(1).high())));
        return Value::timestamp(text::truncTimestamp(unit, arg(1).asInt()));
      }
      case ScalarFunc::MakeDate: return Value::date(text::makeDate(i32(0), i32(1), i32(2)));
      case ScalarFunc::MakeTime: return Value::time(text::makeTime(i32(0), i32(1), arg(2).asDouble()));
      case ScalarFunc::MakeTimestamp:
        return Value::timestamp(text::makeTimestamp(i32(0), i32(1), i32(2), i32(3), i32(4), arg(5).asDouble()));
      case ScalarFunc::Age: return interval(text::age(arg(0).asInt(), arg(1).asInt()));
      default:
        return interval(text::justify(static_cast<text::Justify>(plan::justifyOf(f)),
                                      text::Interval::fromWords(arg(0).asInt(), arg(0).high())));
    }
  } catch (Error& err) {
    err.setPosIfUnknown(e.pos);
    throw;
  }
}

int compareIntervalValues(const Value& a, const Value& b) {
  return text::compareIntervals(text::Interval::fromWords(a.asInt(), a.high()), text::Interval::fromWords(b.asInt(), b.high()));
}

ExprPtr dateComparedWithTimestamp(Expr& e) {
  if (e.kind != ExprKind::Compare) return nullptr;
  auto dateCast = [](const Expr& x) {
    return x.kind == ExprKind::Cast && x.type.id == TypeId::Timestamp && x.args[0]->type.id == TypeId::Date;
  };
  auto timestampConst = [](const Expr& x) {
    return x.kind == ExprKind::Constant && x.type.id == TypeId::Timestamp && !x.value.isNull();
  };
  CmpOp op = e.cmp;
  int dateSide;
  if (dateCast(*e.args[0]) && timestampConst(*e.args[1])) {
    dateSide = 0;
  } else if (dateCast(*e.args[1]) && timestampConst(*e.args[0])) {
    dateSide = 1;  // t op d: d op' t with the operator mirrored
    op = op == CmpOp::Lt ? CmpOp::Gt : op == CmpOp::Le ? CmpOp::Ge : op == CmpOp::Gt ? CmpOp::Lt : op == CmpOp::Ge ? CmpOp::Le : op;
  } else {
    return nullptr;
  }
  int64_t t = e.args[1 - dateSide]->value.asInt();
  int32_t floor = text::dateOfTimestamp(t);
  bool midnight = text::timestampOfDate(floor) == t;
  // d's midnight against t: d <= t iff d <= floor(t); d < t iff d < ceil(t); likewise above.
  int32_t bound = floor;
  switch (op) {
    case CmpOp::Lt:
    case CmpOp::Ge: bound = midnight ? floor : floor + 1; break;
    case CmpOp::Le:
    case CmpOp::Gt: bound = floor; break;
    case CmpOp::Eq:
    case CmpOp::Ne:
      if (!midnight) return nullptr;  // never equal: left as it is (rare)
      break;
  }
  if (!text::dateInRange(bound)) return nullptr;
  auto r = std::make_unique<Expr>(ExprKind::Compare, e.type, e.pos);
  r->cmp = op;
  r->args.push_back(std::move(e.args[dateSide]->args[0]));
  r->args.push_back(Expr::constant(Value::date(bound), e.args[1 - dateSide]->pos));
  return r;
}

}  // namespace hyrax::sql
