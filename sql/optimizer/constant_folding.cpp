#include "sql/optimizer/constant_folding.hpp"

#include "engine/types/utf8.hpp"

#include "engine/types/array_text.hpp"

#include <cmath>
#include <optional>

#include "engine/runtime/math_functions.hpp"
#include "engine/runtime/runtime_errors.hpp"
#include "engine/runtime/text_functions.hpp"
#include "engine/types/int128.hpp"
#include "engine/types/float_order.hpp"
#include "engine/types/text_format.hpp"
#include "sql/optimizer/datetime_folding.hpp"
#include "engine/util/stack_depth.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;

namespace {

Value withType(Value v, const SqlType& t) {
  // Re-tag an integral payload with the exact declared type (e.g. DECIMAL(15,2)).
  if (v.isNull()) return Value::null(t);
  switch (t.id) {
    case TypeId::Decimal: return Value::decimal(v.asInt(), t.precision, t.scale);
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Array:
    case TypeId::Text: return Value::string(v.asString(), t.withNullable(false));
    default: return v;
  }
}

Value integral(TypeId id, int64_t x, const SqlType& t) {
  switch (id) {
    case TypeId::Bool: return Value::boolean(x != 0);
    case TypeId::Int16: return Value::int16(static_cast<int16_t>(x));
    case TypeId::Int32: return Value::int32(static_cast<int32_t>(x));
    case TypeId::Int64: return Value::int64(x);
    case TypeId::Date: return Value::date(static_cast<int32_t>(x));
    case TypeId::Timestamp: return Value::timestamp(x);
    case TypeId::Time: return Value::time(x);
    case TypeId::Decimal: return Value::decimal(x, t.precision, t.scale);
    default: return Value::int64(x);
  }
}

int64_t checkRange(int64_t x, TypeId id, SourcePos pos) {
  if (id == TypeId::Date && !text::dateInRange(x)) throw Error(sqlstate::DatetimeOutOfRange, "date out of range", pos);
  int64_t lo = id == TypeId::Int16 ? INT16_MIN : id == TypeId::Int32 || id == TypeId::Date ? INT32_MIN : INT64_MIN;
  int64_t hi = id == TypeId::Int16 ? INT16_MAX : id == TypeId::Int32 || id == TypeId::Date ? INT32_MAX : INT64_MAX;
  if (x < lo || x > hi) throw Error(sqlstate::NumericOutOfRange, std::string(SqlType{id}.name()) + " out of range", pos);
  return x;
}

// Evaluates a cast of a non-NULL constant (`explicitCast`: written in the query, not an
// assignment's); nullopt when folding is not attempted.
// A string constant headed for a string type: cut as generated code cuts it (text::fitString).
Value fitted(std::string_view s, const SqlType& to, bool explicitCast, SourcePos pos) {
  auto f = text::fitString(s, to.id, to.length, explicitCast);
  if (!f) throw Error(sqlstate::StringTooLong, "value too long for type " + to.name(), pos);
  return Value::string(std::string(*f), to.withNullable(false));
}

std::optional<Value> foldCast(const Value& v, const SqlType& to, bool explicitCast, SourcePos pos) {
  const SqlType& from = v.type();
  try {
    if (to.isArray()) {  // from text or another array: each element checked and made canonical
      text::ArrayElements elements = text::parseArray(v.asString());
      for (auto& x : elements) {
        if (!x) continue;
        std::string canonical, error;
        const char* state = nullptr;
        if (!text::canonicalElement(to.element, *x, canonical, error, state)) throw Error(state, error, pos);
        x = std::move(canonical);
      }
      return Value::string(text::formatArray(elements), to.withNullable(false));
    }
    if (auto r = foldDateTimeCast(v, to)) return r;
    if (from.isString()) {
      const std::string& s = v.asString();
      switch (to.id) {
        case TypeId::Bool: return Value::boolean(text::parseBool(s));
        case TypeId::Int16:
        case TypeId::Int32:
        case TypeId::Int64: return integral(to.id, text::parseInt(s, to.id), to);
        case TypeId::Decimal: return Value::decimal(text::parseDecimal(s, to.precision, to.scale), to.precision, to.scale);
        case TypeId::Float32: return Value::float32(static_cast<float>(text::parseDouble(s)));
        case TypeId::Float64: return Value::float64(text::parseDouble(s));
        case TypeId::Date: return Value::date(text::parseDate(s));
        default: return fitted(s, to, explicitCast, pos);
      }
    }
    if (to.isString()) return fitted(v.toString(), to, explicitCast, pos);
    if ((from.isInteger() || from.id == TypeId::Date) && (to.isInteger() || to.id == TypeId::Date))
      return integral(to.id, checkRange(v.asInt(), to.id, pos), to);
    if (from.isInteger() && to.id == TypeId::Decimal) {
      Int128 x = Int128(v.asInt()) * text::pow10(to.scale);
      Int128 limit = text::pow10(to.precision);
      if (x >= limit || -x >= limit) throw Error(sqlstate::NumericOutOfRange, "numeric field overflow", pos);
      return Value::decimal(x.toInt64(), to.precision, to.scale);
    }
    if (from.id == TypeId::Decimal && to.id == TypeId::Decimal && to.scale >= from.scale) {
      Int128 x = Int128(v.asInt()) * text::pow10(to.scale - from.scale);
      Int128 limit = text::pow10(to.precision);
      if (x >= limit || -x >= limit) throw Error(sqlstate::NumericOutOfRange, "numeric field overflow", pos);
      return Value::decimal(x.toInt64(), to.precision, to.scale);
    }
    if (from.id == TypeId::Decimal && (to.isInteger() || (to.id == TypeId::Decimal && to.scale < from.scale))) {
      // Rounding half away from zero, as PostgreSQL's numeric (and the generated cast) does.
      int64_t div = text::pow10(from.scale - (to.id == TypeId::Decimal ? to.scale : 0));
      int64_t x = v.asInt(), q = x / div, rem = x % div;
      if (2 * (rem < 0 ? -rem : rem) >= div) q += x < 0 ? -1 : 1;
      if (to.isInteger()) return integral(to.id, checkRange(q, to.id, pos), to);
      if (Int128(q < 0 ? -q : q) >= text::pow10(to.precision))
        throw Error(sqlstate::NumericOutOfRange, "numeric field overflow", pos);
      return Value::decimal(q, to.precision, to.scale);
    }
    if ((from.isInteger() || from.id == TypeId::Decimal) && to.isFloat()) {
      double d = v.toDouble();
      return to.id == TypeId::Float64 ? Value::float64(d) : Value::float32(static_cast<float>(d));
    }
    if (from.isFloat() && to.isFloat())
      return to.id == TypeId::Float64 ? Value::float64(v.asDouble()) : Value::float32(static_cast<float>(v.asDouble()));
  } catch (Error& e) {
    e.setPosIfUnknown(pos);
    throw;
  }
  return std::nullopt;  // the rest (rounding casts) is left to generated code
}

std::optional<Value> foldArith(const Expr& e, const Value& a, const Value& b) {
  const SqlType& t = e.type;
  auto overflow = [&]() -> Value {
    throw Error(sqlstate::NumericOutOfRange, t.name() + " out of range", e.pos);
  };
  if (t.id == TypeId::Timestamp || t.id == TypeId::Interval || t.id == TypeId::Time) return foldDateTimeArith(e, a, b);
  if (a.type().isFloat() || a.type().isString() || b.type().isFloat()) {
    if (!a.type().isFloat()) return std::nullopt;
    double x = a.asDouble(), y = b.asDouble(), r = 0;
    switch (e.arith) {
      case plan::ArithOp::Add: r = x + y; break;
      case plan::ArithOp::Sub: r = x - y; break;
      case plan::ArithOp::Mul: r = x * y; break;
      case plan::ArithOp::Div:
        if (y == 0) throw Error(sqlstate::DivisionByZero, "division by zero", e.pos);
        r = x / y;
        break;
      case plan::ArithOp::Mod:
        if (y == 0) throw Error(sqlstate::DivisionByZero, "division by zero", e.pos);
        r = std::fmod(x, y);
        break;
      case plan::ArithOp::BitAnd: return std::nullopt;  // the binder allows integers only
    }
    // As generated code: an infinite result of finite operands is an overflow.
    const double stored = t.id == TypeId::Float64 ? r : static_cast<double>(static_cast<float>(r));
    if (std::isinf(stored) && !std::isinf(x) && !std::isinf(y))
      throw Error(sqlstate::NumericOutOfRange, "value out of range: overflow", e.pos);
    const bool mul = e.arith == plan::ArithOp::Mul, div = e.arith == plan::ArithOp::Div;
    if ((mul || div) && stored == 0 && x != 0 && (mul ? y != 0 : !std::isinf(y)))
      throw Error(sqlstate::NumericOutOfRange, "value out of range: underflow", e.pos);
    return t.id == TypeId::Float64 ? Value::float64(r) : Value::float32(static_cast<float>(r));
  }
  if (t.id == TypeId::Decimal && e.arith == plan::ArithOp::Div) return std::nullopt;  // rounding: runtime
  int64_t x = a.asInt(), y = b.asInt(), r = 0;
  switch (e.arith) {
    case plan::ArithOp::Add:
      if (__builtin_add_overflow(x, y, &r)) overflow();
      break;
    case plan::ArithOp::Sub:
      if (__builtin_sub_overflow(x, y, &r)) overflow();
      break;
    case plan::ArithOp::Mul:
      if (__builtin_mul_overflow(x, y, &r)) overflow();
      break;
    case plan::ArithOp::Div:
      if (y == 0) throw Error(sqlstate::DivisionByZero, "division by zero", e.pos);
      if (y == -1) {
        if (__builtin_sub_overflow(int64_t{0}, x, &r)) overflow();
      } else {
        r = x / y;
      }
      break;
    case plan::ArithOp::Mod:
      if (y == 0) throw Error(sqlstate::DivisionByZero, "division by zero", e.pos);
      r = y == -1 ? 0 : x % y;
      break;
    case plan::ArithOp::BitAnd: r = x & y; break;
  }
  if (t.id != TypeId::Decimal) checkRange(r, t.id, e.pos);
  return integral(t.id, r, t);
}

// Two non-NULL constants of one type in SQL's order, as generated code compares them.
int compareConstants(const Value& a, const Value& b) {
  if (a.type().id == TypeId::Interval) return compareIntervalValues(a, b);
  if (a.type().isString()) return a.asString().compare(b.asString());
  if (a.type().isFloat()) return compareFloats(a.asDouble(), b.asDouble());
  int64_t x = a.asInt(), y = b.asInt();
  return x < y ? -1 : x > y ? 1 : 0;
}

std::optional<Value> foldCompare(const Expr& e, const Value& a, const Value& b) {
  const int c = compareConstants(a, b);
  bool r = false;
  switch (e.cmp) {
    case plan::CmpOp::Eq: r = c == 0; break;
    case plan::CmpOp::Ne: r = c != 0; break;
    case plan::CmpOp::Lt: r = c < 0; break;
    case plan::CmpOp::Le: r = c <= 0; break;
    case plan::CmpOp::Gt: r = c > 0; break;
    case plan::CmpOp::Ge: r = c >= 0; break;
  }
  return Value::boolean(r);
}

// A call of constants, computed by the functions generated code calls (math_functions.hpp); nullopt
// for the functions left to generated code.
std::optional<Value> foldCall(const Expr& e) {
  using plan::ScalarFunc;
  const auto& args = e.args;
  if (e.func == ScalarFunc::Greatest || e.func == ScalarFunc::Least) {  // NULLs skipped, ties keep the first
    const Value* best = nullptr;
    for (auto& a : args) {
      if (a->value.isNull()) continue;
      const int c = best ? compareConstants(a->value, *best) : 0;
      if (!best || (e.func == ScalarFunc::Greatest ? c > 0 : c < 0)) best = &a->value;
    }
    return best ? *best : Value::null(e.type);
  }
  if (auto r = foldCalendarCall(e)) return r;
  if (e.func == ScalarFunc::Upper || e.func == ScalarFunc::Lower) {  // as the runtime's str_case maps them
    const Value& v = args[0]->value;
    if (v.isNull()) return Value::null(e.type);
    if (!v.type().isString()) return std::nullopt;
    return Value::string(utf8CaseMapped(v.asString(), e.func == ScalarFunc::Upper));
  }
  if (plan::textFnOf(e.func) >= 0 || e.func == ScalarFunc::StartsWith) {  // as the runtime computes them
    for (auto& a : args)
      if (a->value.isNull()) return Value::null(e.type);
    textfn::TextArgs in;
    size_t strings = 0, integers = 0;
    for (auto& a : args) {
      if (a->value.type().isString()) in.s[strings++] = a->value.asString();
      else in.n[integers++] = a->value.asInt();
    }
    if (e.func == ScalarFunc::StartsWith) return Value::boolean(in.s[0].substr(0, in.s[1].size()) == in.s[1]);
    std::string out;
    try {
      textfn::textFunction(static_cast<textfn::TextFn>(plan::textFnOf(e.func)), in, out);
    } catch (Error& err) {
      err.setPosIfUnknown(e.pos);
      throw;
    }
    return Value::string(out);
  }
  const bool computed = plan::floatFnOf(e.func) >= 0 || e.func == ScalarFunc::RoundDouble ||
                        e.func == ScalarFunc::TruncDouble || e.func == ScalarFunc::RoundScaled ||
                        e.func == ScalarFunc::TruncScaled || e.func == ScalarFunc::DivTruncated ||
                        e.func == ScalarFunc::Gcd || e.func == ScalarFunc::Lcm;
  if (!computed) return std::nullopt;
  for (auto& a : args)
    if (a->value.isNull()) return Value::null(e.type);
  auto check = [&](int32_t status) {
    if (!status) return;
    RuntimeErrorText t = runtimeErrorText(status);
    throw Error(t.sqlstate, t.message ? t.message : "runtime error", e.pos);
  };
  const Value& a = args[0]->value;
  if (plan::floatFnOf(e.func) >= 0) {
    double r = 0;
    check(math::floatFunction(static_cast<math::FloatFn>(plan::floatFnOf(e.func)), a.asDouble(),
                              args.size() > 1 ? args[1]->value.asDouble() : 0.0, &r));
    return Value::float64(r);
  }
  if (e.func == ScalarFunc::RoundDouble || e.func == ScalarFunc::TruncDouble) {
    const auto digits = static_cast<int32_t>(args[1]->value.asInt());
    return Value::float64(e.func == ScalarFunc::RoundDouble ? math::roundDouble(a.asDouble(), digits)
                                                           : math::truncDouble(a.asDouble(), digits));
  }
  int64_t r = 0;
  const int64_t b = args[1]->value.asInt();
  if (e.func == ScalarFunc::RoundScaled || e.func == ScalarFunc::TruncScaled) {
    const int32_t scale = a.type().id == TypeId::Decimal ? a.type().scale : 0;
    check(math::roundScaled(a.asInt(), scale, static_cast<int32_t>(b), e.func == ScalarFunc::TruncScaled,
                            math::largestMagnitude(e.type), &r));
  } else if (e.func == ScalarFunc::DivTruncated) {
    check(math::divTruncated(a.asInt(), b, &r));
  } else {
    check(math::gcdOrLcm(a.asInt(), b, e.func == ScalarFunc::Lcm, math::largestMagnitude(e.type), &r));
  }
  return integral(e.type.id, r, e.type);
}

bool isBoolConst(const Expr& e, bool v) {
  return e.kind == ExprKind::Constant && !e.value.isNull() && e.type.id == TypeId::Bool && e.value.asBool() == v;
}
bool isNullConst(const Expr& e) { return e.kind == ExprKind::Constant && e.value.isNull(); }

ExprPtr constant(Value v, const Expr& like) {
  auto c = Expr::constant(withType(std::move(v), like.type), like.pos);
  if (c->value.isNull()) c->type = like.type.withNullable(true);
  return c;
}

}  // namespace

namespace {

// One node whose arguments are folded already.
ExprPtr foldNode(ExprPtr e) {
  auto allConst = [&] {
    for (auto& a : e->args)
      if (a->kind != ExprKind::Constant) return false;
    return true;
  };
  switch (e->kind) {
    case ExprKind::Cast: {
      if (!allConst()) return e;
      const Value& v = e->args[0]->value;
      if (v.isNull()) return constant(Value::null(e->type), *e);
      if (auto r = foldCast(v, e->type, !e->implicitCast, e->pos)) return constant(*r, *e);
      return e;
    }
    case ExprKind::Negate:
      if (allConst() && !e->args[0]->value.isNull() && !e->type.isFloat() && e->type.isNumeric()) {
        int64_t r;
        if (__builtin_sub_overflow(int64_t{0}, e->args[0]->value.asInt(), &r))
          throw Error(sqlstate::NumericOutOfRange, e->type.name() + " out of range", e->pos);
        if (e->type.id != TypeId::Decimal) checkRange(r, e->type.id, e->pos);
        return constant(integral(e->type.id, r, e->type), *e);
      }
      if (allConst() && e->type.isFloat() && !e->args[0]->value.isNull())
        return constant(e->type.id == TypeId::Float64 ? Value::float64(-e->args[0]->value.asDouble())
                                                     : Value::float32(static_cast<float>(-e->args[0]->value.asDouble())),
                        *e);
      return e;
    case ExprKind::Arith:
    case ExprKind::Compare: {
      if (ExprPtr dates = dateComparedWithTimestamp(*e)) return dates;
      if (!allConst()) return e;
      const Value& a = e->args[0]->value;
      const Value& b = e->args[1]->value;
      if (a.isNull() || b.isNull()) return constant(Value::null(e->type), *e);
      auto r = e->kind == ExprKind::Arith ? foldArith(*e, a, b) : foldCompare(*e, a, b);
      return r ? constant(*r, *e) : std::move(e);
    }
    case ExprKind::Call: {
      if (!allConst()) return e;
      auto r = foldCall(*e);
      return r ? constant(*r, *e) : std::move(e);
    }
    case ExprKind::Not:
      if (allConst()) {
        const Value& a = e->args[0]->value;
        return constant(a.isNull() ? Value::null(e->type) : Value::boolean(!a.asBool()), *e);
      }
      return e;
    case ExprKind::IsNull:
      if (allConst()) return constant(Value::boolean(e->args[0]->value.isNull() != e->negated), *e);
      return e;
    case ExprKind::And:
    case ExprKind::Or: {
      bool isAnd = e->kind == ExprKind::And;
      // x AND FALSE = FALSE, x OR TRUE = TRUE; TRUE operands of AND (FALSE of OR) drop out.
      std::vector<ExprPtr> kept;
      bool sawNull = false;
      for (auto& a : e->args) {
        if (isBoolConst(*a, !isAnd)) return constant(Value::boolean(!isAnd), *e);
        if (isBoolConst(*a, isAnd)) continue;
        if (isNullConst(*a)) {
          sawNull = true;
          continue;
        }
        kept.push_back(std::move(a));
      }
      if (kept.empty()) return constant(sawNull ? Value::null(e->type) : Value::boolean(isAnd), *e);
      if (sawNull) kept.push_back(constant(Value::null(SqlType::boolean()), *e));
      if (kept.size() == 1) return std::move(kept[0]);
      e->args = std::move(kept);
      return e;
    }
    case ExprKind::Case: {
      // Conditions are tried in order: while they are constants, a TRUE one decides and FALSE or
      // NULL ones drop out; folded only when the value so chosen is a constant too.
      size_t pairs = (e->args.size() - (e->hasElse ? 1 : 0)) / 2;
      const Expr* chosen = nullptr;
      size_t i = 0;
      for (; i < pairs && e->args[2 * i]->kind == ExprKind::Constant; ++i) {
        const Value& c = e->args[2 * i]->value;
        if (!c.isNull() && c.asBool()) {
          chosen = e->args[2 * i + 1].get();
          break;
        }
      }
      if (!chosen && i == pairs) {
        if (!e->hasElse) return constant(Value::null(e->type), *e);
        chosen = e->args.back().get();
      }
      if (chosen && chosen->kind == ExprKind::Constant) return constant(chosen->value, *e);
      return e;
    }
    default: return e;
  }
}

}  // namespace

namespace {

// CASE (COALESCE is one), AND and OR fold their operands in order and stop where a constant
// decides: an operand that is never evaluated is never folded, so `CASE WHEN false THEN 1/0 ELSE
// 1 END`, `coalesce(1, 1/0)` and `false AND 1/0 = 1` answer as in PostgreSQL instead of failing
// at the fold. Returns false for the other kinds, whose operands all fold.
bool foldOperandsInOrder(Expr& e, bool deferErrors) {
  if (e.kind == ExprKind::And || e.kind == ExprKind::Or) {
    const bool decides = e.kind == ExprKind::Or;  // FALSE decides an AND, TRUE an OR
    for (size_t i = 0; i < e.args.size(); ++i) {
      e.args[i] = foldConstants(std::move(e.args[i]), deferErrors);
      if (isBoolConst(*e.args[i], decides)) {
        e.args.resize(i + 1);
        break;
      }
    }
    return true;
  }
  if (e.kind != ExprKind::Case) return false;
  const size_t pairs = (e.args.size() - (e.hasElse ? 1 : 0)) / 2;
  std::vector<ExprPtr> kept;
  auto constantOf = [&](SqlType t, Value v) {
    auto c = std::make_unique<Expr>(ExprKind::Constant, t, e.pos);
    c->value = std::move(v);
    return c;
  };
  bool decided = false;
  for (size_t i = 0; i < pairs && !decided; ++i) {
    ExprPtr when = foldConstants(std::move(e.args[2 * i]), deferErrors);
    if (when->kind == ExprKind::Constant && (when->value.isNull() || !when->value.asBool())) continue;  // never taken
    decided = when->kind == ExprKind::Constant;  // TRUE: the arms after it never are
    kept.push_back(std::move(when));
    kept.push_back(foldConstants(std::move(e.args[2 * i + 1]), deferErrors));
  }
  if (!decided && e.hasElse) {
    ExprPtr otherwise = foldConstants(std::move(e.args.back()), deferErrors);
    if (kept.empty()) {  // only the ELSE is left: WHEN TRUE THEN it, a CASE of one arm
      kept.push_back(constantOf(SqlType::boolean(), Value::boolean(true)));
      kept.push_back(std::move(otherwise));
      e.hasElse = false;
    } else {
      kept.push_back(std::move(otherwise));
    }
  } else {
    e.hasElse = false;
  }
  if (kept.empty()) {  // no arm can be taken and there is no ELSE: NULL
    kept.push_back(constantOf(SqlType::boolean(), Value::boolean(true)));
    kept.push_back(constantOf(e.type, Value::null(e.type)));
  }
  e.args = std::move(kept);
  return true;
}

}  // namespace

ExprPtr foldConstants(ExprPtr e, bool deferErrors) {
  checkStackDepth();  // a chain of 10,000 terms recurses that deep (stack_depth.hpp)
  if (!foldOperandsInOrder(*e, deferErrors))
    for (auto& a : e->args) a = foldConstants(std::move(a), deferErrors);
  // Only a node whose arguments are all constants may fail to fold (overflow, a bad cast): only
  // then is the copy kept for that case needed, and it is one level deep (copying at every level
  // of a long chain would be quadratic).
  bool mayFail = deferErrors;
  for (auto& a : e->args) mayFail = mayFail && a->kind == ExprKind::Constant;
  if (!mayFail) return foldNode(std::move(e));
  ExprPtr unfolded = e->clone();
  try {
    return foldNode(std::move(e));
  } catch (const Error&) {
    return unfolded;
  }
}

}  // namespace hyrax::sql
