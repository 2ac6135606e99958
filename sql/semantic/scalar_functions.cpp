// Binding of SQL's scalar functions. String and numeric functions become plan Calls into the
// runtime (the numeric ones that can fail: engine/runtime/math_functions.hpp, which the constant
// folder computes them with too); COALESCE, NULLIF and ABS are spelled out as the CASE
// expressions the standard defines them by, so code generation needs nothing new for them.
// GREATEST and LEAST are Calls of their own: as CASEs each argument would be copied per later one.
#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>

#include "engine/runtime/text_functions.hpp"
#include "engine/types/text_format.hpp"
#include "sql/optimizer/constant_folding.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;
using plan::ScalarFunc;

namespace {

[[noreturn]] void noFunction(const ast::Expr& e, const std::vector<ExprPtr>& args) { noSuchFunction(e.name, args, e.pos); }

ExprPtr call(ScalarFunc f, SqlType result, std::vector<ExprPtr> args, SourcePos pos) {
  return makeScalarCall(f, result, std::move(args), pos);
}

ExprPtr isNotNull(const ExprPtr& e) { return makeIsNull(e->clone(), true, e->pos); }

}  // namespace

std::optional<std::vector<ExprPtr>> SelectBinder::bindArgsIfNamed(const ast::Expr& e, Clause clause,
                                                                  const char* const* names, size_t count) {
  bool known = false;
  for (size_t i = 0; i < count; ++i) known = known || e.name == names[i];
  if (!known) return std::nullopt;
  if (e.star || e.distinct) throw Error(sqlstate::SyntaxError, e.name + "(*) / " + e.name + "(DISTINCT ...) is not valid", e.pos);
  std::vector<ExprPtr> args;
  for (auto& a : e.args) args.push_back(bindExpr(*a, clause));
  return args;
}

ExprPtr SelectBinder::bindScalarFunction(const ast::Expr& e, Clause clause) {
  static const char* const kNames[] = {"substring", "substr", "ascii", "upper",  "lower", "char_length", "character_length",
                                       "length",    "position", "trim", "btrim",       "ltrim",
                                       "rtrim",     "coalesce", "nullif", "abs",   "round",       "floor",
                                       "ceil",      "ceiling",  "mod",    "sqrt",  "power",       "current_date", "current_timestamp", "localtimestamp", "now",
                                       "current_time", "localtime", "octet_length", "bit_length",
                                       "left",      "right",    "strpos", "concat",      "replace", "lpad", "rpad",
                                       "split_part", "chr", "greatest", "least", "trunc", "exp", "ln", "log", "pi",
                                       "cbrt", "div", "gcd", "lcm", "concat_ws", "repeat", "reverse", "initcap",
                                       "translate", "overlay", "md5", "starts_with", "to_hex", "regexp_replace",
                                       "regexp_like"};
  auto bound = bindArgsIfNamed(e, clause, kNames, std::size(kNames));
  if (!bound) return nullptr;
  std::vector<ExprPtr> args = std::move(*bound);
  auto count = [&](size_t lo, size_t hi) {
    if (args.size() < lo || args.size() > hi) noFunction(e, args);
  };
  // String arguments: any string type, or an untyped NULL.
  auto str = [&](size_t i) {
    if (args[i]->type.isNull()) args[i] = castTo(std::move(args[i]), SqlType::text());
    if (!args[i]->type.isString()) noFunction(e, args);
  };
  auto integer = [&](size_t i) {
    if (args[i]->type.isNull()) args[i] = castTo(std::move(args[i]), SqlType::int64());
    if (!args[i]->type.isInteger()) noFunction(e, args);
    args[i] = castTo(std::move(args[i]), SqlType::int64(args[i]->type.nullable));
  };

  if (e.name == "substring" || e.name == "substr") {  // substr: PostgreSQL's name for substring(s, a [, b])
    count(2, 3);
    str(0);
    integer(1);
    if (args.size() == 3)
      integer(2);
    else
      args.push_back(Expr::constant(Value::int64(INT64_MIN)));  // no FOR: to the end
    return call(ScalarFunc::Substring, SqlType::text(), std::move(args), e.pos);
  }
  if (e.name == "upper" || e.name == "lower") {
    count(1, 1);
    str(0);
    return call(e.name == "upper" ? ScalarFunc::Upper : ScalarFunc::Lower, SqlType::text(), std::move(args), e.pos);
  }
  if (e.name == "char_length" || e.name == "character_length" || e.name == "length") {
    count(1, 1);
    str(0);
    return call(ScalarFunc::CharLength, SqlType::int32(), std::move(args), e.pos);
  }
  if (e.name == "octet_length" || e.name == "bit_length") {
    count(1, 1);
    str(0);
    // octet_length of a CHAR(n) counts its padding, as PostgreSQL's octet_length(character):
    // each value its own (of a COALESCE of CHAR(4) and CHAR(6) columns 4 or 6, not the
    // common type's 6). bit_length is of the text, which drops the padding (as PostgreSQL's).
    if (e.name == "octet_length") args[0] = asPaddedText(std::move(args[0]));
    ExprPtr bytes = call(ScalarFunc::OctetLength, SqlType::int32(), std::move(args), e.pos);
    if (e.name == "bit_length") return makeArith(plan::ArithOp::Mul, std::move(bytes), Expr::constant(Value::int32(8)), e.pos);
    return bytes;
  }
  if (e.name == "ascii") {
    count(1, 1);
    str(0);
    return call(ScalarFunc::Ascii, SqlType::int32(), std::move(args), e.pos);
  }
  if (e.name == "position") {
    count(2, 2);
    str(0);
    str(1);
    return call(ScalarFunc::Position, SqlType::int32(), std::move(args), e.pos);
  }
  if (e.name == "strpos") {  // strpos(s, sub) = position(sub IN s)
    count(2, 2);
    str(0);
    str(1);
    std::swap(args[0], args[1]);
    return call(ScalarFunc::Position, SqlType::int32(), std::move(args), e.pos);
  }
  if (e.name == "left" || e.name == "right") {
    // As substrings, counting characters. left(s, n): the first n, or all but the last -n;
    // right(s, n): the last n, or all but the first -n. A NULL n gives NULL.
    count(2, 2);
    str(0);
    integer(1);
    const SourcePos pos = e.pos;
    auto n = [&] { return args[1]->clone(); };
    auto num = [](int64_t v) { return Expr::constant(Value::int64(v)); };
    auto length = [&] {
      std::vector<ExprPtr> a;
      a.push_back(args[0]->clone());
      return castTo(call(ScalarFunc::CharLength, SqlType::int32(), std::move(a), pos), SqlType::int64());
    };
    auto nonNegative = [&] { return makeCompare(plan::CmpOp::Ge, n(), num(0), pos); };
    std::vector<ExprPtr> sub;
    sub.push_back(args[0]->clone());
    std::vector<ExprPtr> arms;
    if (e.name == "left") {
      // substring(s, 1, CASE WHEN n >= 0 THEN n WHEN length + n > 0 THEN length + n WHEN n < 0 THEN 0 END)
      arms.push_back(nonNegative());
      arms.push_back(n());
      arms.push_back(makeCompare(plan::CmpOp::Gt, makeArith(plan::ArithOp::Add, length(), n(), pos), num(0), pos));
      arms.push_back(makeArith(plan::ArithOp::Add, length(), n(), pos));
      arms.push_back(makeCompare(plan::CmpOp::Lt, n(), num(0), pos));
      arms.push_back(num(0));
      sub.push_back(num(1));
      sub.push_back(makeCase(std::move(arms), false, pos));
    } else {
      // substring(s, CASE WHEN n >= 0 THEN length - n + 1 ELSE 1 - n END), to the end
      arms.push_back(nonNegative());
      arms.push_back(makeArith(plan::ArithOp::Add, makeArith(plan::ArithOp::Sub, length(), n(), pos), num(1), pos));
      arms.push_back(makeArith(plan::ArithOp::Sub, num(1), n(), pos));
      sub.push_back(makeCase(std::move(arms), true, pos));
      sub.push_back(num(INT64_MIN));  // no FOR: to the end
    }
    return call(ScalarFunc::Substring, SqlType::text(), std::move(sub), pos);
  }
  if (e.name == "replace") {
    count(3, 3);
    str(0);
    str(1);
    str(2);
    return call(ScalarFunc::Replace, SqlType::text(), std::move(args), e.pos);
  }
  if (e.name == "lpad" || e.name == "rpad") {
    count(2, 3);
    str(0);
    integer(1);
    if (args.size() == 3)
      str(2);
    else
      args.push_back(Expr::constant(Value::string(" ")));
    return call(e.name == "lpad" ? ScalarFunc::LeftPad : ScalarFunc::RightPad, SqlType::text(), std::move(args), e.pos);
  }
  if (e.name == "split_part") {
    count(3, 3);
    str(0);
    str(1);
    integer(2);
    return call(ScalarFunc::SplitPart, SqlType::text(), std::move(args), e.pos);
  }
  if (e.name == "chr") {
    count(1, 1);
    integer(0);
    return call(ScalarFunc::Chr, SqlType::text(), std::move(args), e.pos);
  }
  if (e.name == "concat" || e.name == "concat_ws") {
    // Every argument as text, a NULL one left out (concat: as ''): concat is never NULL itself.
    // concat_ws(sep, a, b, ...) is substring(CASE WHEN a IS NOT NULL THEN sep || a ELSE '' END ||
    // ..., char_length(sep) + 1): the first separator cut off, NULL for a NULL sep.
    const bool separated = e.name == "concat_ws";
    if (args.size() < (separated ? 2u : 1u)) noFunction(e, args);
    if (separated) str(0);
    ExprPtr out;
    for (size_t i = separated ? 1 : 0; i < args.size(); ++i) {
      ExprPtr& a = args[i];
      std::vector<ExprPtr> arms;
      // Each argument as PostgreSQL prints it: a CHAR(n) with its padding ('ab'::char(4): 'ab  '),
      // a BOOLEAN as t or f (its CAST to text is 'true').
      ExprPtr text;
      if (a->type.isString()) {
        text = asPaddedText(std::move(a));
      } else if (a->type.id == TypeId::Bool) {
        std::vector<ExprPtr> tf;
        tf.push_back(a->clone());
        tf.push_back(Expr::constant(Value::string("t")));
        tf.push_back(isNotNull(a));
        tf.push_back(Expr::constant(Value::string("f")));
        text = makeCase(std::move(tf), false, e.pos);
      } else {
        text = makeCast(std::move(a), SqlType::text(), e.pos);
      }
      arms.push_back(isNotNull(text));
      arms.push_back(separated ? makeConcat(args[0]->clone(), text->clone(), e.pos) : text->clone());
      arms.push_back(Expr::constant(Value::string("")));
      ExprPtr part = makeCase(std::move(arms), true, e.pos);
      out = out ? makeConcat(std::move(out), std::move(part), e.pos) : std::move(part);
    }
    if (!separated) return out;
    std::vector<ExprPtr> sub, length;
    length.push_back(std::move(args[0]));
    sub.push_back(std::move(out));
    sub.push_back(makeArith(plan::ArithOp::Add,
                            castTo(call(ScalarFunc::CharLength, SqlType::int32(), std::move(length), e.pos), SqlType::int64()),
                            Expr::constant(Value::int64(1)), e.pos));
    sub.push_back(Expr::constant(Value::int64(INT64_MIN)));  // no FOR: to the end
    return call(ScalarFunc::Substring, SqlType::text(), std::move(sub), e.pos);
  }
  if (e.name == "repeat" || e.name == "reverse" || e.name == "initcap" || e.name == "md5" || e.name == "translate") {
    const bool three = e.name == "translate", two = e.name == "repeat";
    count(three ? 3 : two ? 2 : 1, three ? 3 : two ? 2 : 1);
    str(0);
    if (two) integer(1);
    if (three) str(1), str(2);
    const ScalarFunc f = e.name == "repeat"    ? ScalarFunc::Repeat
                         : e.name == "reverse" ? ScalarFunc::Reverse
                         : e.name == "initcap" ? ScalarFunc::Initcap
                         : e.name == "md5"     ? ScalarFunc::Md5
                                               : ScalarFunc::Translate;
    return call(f, SqlType::text(), std::move(args), e.pos);
  }
  if (e.name == "overlay") {  // overlay(s PLACING t FROM start [FOR count]), or overlay(s, t, start [, count])
    count(3, 4);
    str(0);
    str(1);
    integer(2);
    if (args.size() == 4)
      integer(3);
    else
      args.push_back(Expr::constant(Value::int64(textfn::kNoCount)));  // no FOR: t's length
    return call(ScalarFunc::Overlay, SqlType::text(), std::move(args), e.pos);
  }
  if (e.name == "starts_with") {
    count(2, 2);
    str(0);
    str(1);
    return call(ScalarFunc::StartsWith, SqlType::boolean(), std::move(args), e.pos);
  }
  if (e.name == "to_hex") {  // of an INTEGER (SMALLINT too) 8 hex digits at most, of a BIGINT 16
    count(1, 1);
    const bool wide = args[0]->type.id == TypeId::Int64;
    integer(0);
    return call(wide ? ScalarFunc::ToHex64 : ScalarFunc::ToHex32, SqlType::text(), std::move(args), e.pos);
  }
  if (e.name == "regexp_replace") {  // (s, pattern, replacement [, flags]); PostgreSQL 15's start and N forms are not here
    count(3, 4);
    for (size_t i = 0; i < args.size(); ++i) str(i);
    if (args.size() == 3) args.push_back(Expr::constant(Value::string("")));
    return call(ScalarFunc::RegexpReplace, SqlType::text(), std::move(args), e.pos);
  }
  if (e.name == "regexp_like") {  // (s, pattern [, flags]): s ~ pattern, or ~* with flag i; the flags a constant
    count(2, 3);
    for (size_t i = 0; i < args.size(); ++i) str(i);
    bool caseInsensitive = false;
    if (args.size() == 3) {
      ExprPtr flags = foldConstants(std::move(args[2]));
      if (flags->kind != ExprKind::Constant)
        throw Error(sqlstate::FeatureNotSupported, "regexp_like takes its flags as a constant", e.args[2]->pos);
      if (flags->value.isNull()) {
        auto null = Expr::constant(Value::null(SqlType::boolean()), e.pos);
        null->type = SqlType::boolean().withNullable(true);
        return null;
      }
      for (char f : flags->value.asString()) {
        if (f == 'i' || f == 'c') caseInsensitive = f == 'i';
        else if (f == 'g') throw Error("22023", "regexp_like() does not support the \"global\" option", e.args[2]->pos);
        else throw Error("22023", "invalid regular expression option: \"" + std::string(1, f) + "\"", e.args[2]->pos);
      }
    }
    // regexp_like(text, text): a CHAR argument loses its blanks, where ~ on it matches them.
    return makeRegexMatch(asUnpaddedText(std::move(args[0])), std::move(args[1]), caseInsensitive, false, e.pos);
  }
  if (e.name == "trim" || e.name == "btrim" || e.name == "ltrim" || e.name == "rtrim") {
    count(1, 2);
    str(0);
    if (args.size() == 2)
      str(1);
    else
      args.push_back(Expr::constant(Value::string(" ")));
    ScalarFunc f = ScalarFunc::TrimBoth;
    if (e.name == "ltrim" || e.unit == "leading") f = ScalarFunc::TrimLeading;
    if (e.name == "rtrim" || e.unit == "trailing") f = ScalarFunc::TrimTrailing;
    return call(f, SqlType::text(), std::move(args), e.pos);
  }
  if (e.name == "greatest" || e.name == "least") {
    // The arguments meet in one type as CASE's arms do; NULL only when all are (plan::ScalarFunc).
    if (args.empty()) noFunction(e, args);
    // A quoted literal takes the type of the others, as PostgreSQL's unknown literals do:
    // greatest(x, 'NaN') with x DOUBLE PRECISION.
    auto literal = [](const Expr& a) { return a.kind == ExprKind::Constant && a.type.isString(); };
    std::optional<SqlType> others;
    for (auto& a : args)
      if (!literal(*a) && !a->type.isNull()) others = others ? commonType(*others, a->type).value_or(*others) : a->type;
    if (others && !others->isString())
      for (auto& a : args)
        if (literal(*a)) a = castTo(std::move(a), others->withNullable(false));
    SqlType t = args[0]->type;
    bool nullable = true;
    for (auto& a : args) {
      auto c = commonType(t, a->type);
      if (!c)
        throw Error(sqlstate::DatatypeMismatch,
                    std::string(e.name == "greatest" ? "GREATEST" : "LEAST") + " types " + t.name() + " and " +
                        a->type.name() + " cannot be matched",
                    a->pos);
      t = *c;
      nullable = nullable && (a->type.nullable || a->type.isNull());
    }
    if (t.isNull()) t = SqlType::text();
    if (t.isArray()) throw Error(sqlstate::FeatureNotSupported, e.name + " of arrays is not supported", e.pos);
    for (auto& a : args) a = castTo(std::move(a), t.withNullable(a->type.nullable || a->type.isNull()));
    auto x = std::make_unique<Expr>(ExprKind::Call, t.withNullable(nullable), e.pos);
    x->func = e.name == "greatest" ? ScalarFunc::Greatest : ScalarFunc::Least;
    x->args = std::move(args);
    return x;
  }
  if (e.name == "coalesce") {
    if (args.empty()) noFunction(e, args);
    // CASE WHEN a IS NOT NULL THEN a WHEN b IS NOT NULL THEN b ... ELSE last END
    std::vector<ExprPtr> arms;
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      arms.push_back(isNotNull(args[i]));
      arms.push_back(std::move(args[i]));
    }
    arms.push_back(std::move(args.back()));
    return makeCase(std::move(arms), true, e.pos);
  }
  if (e.name == "nullif") {
    count(2, 2);
    // CASE WHEN a = b THEN NULL ELSE a END
    std::vector<ExprPtr> arms;
    arms.push_back(makeCompare(plan::CmpOp::Eq, args[0]->clone(), std::move(args[1]), e.pos));
    auto null = Expr::constant(Value());
    null->type = args[0]->type.withNullable(true);
    arms.push_back(std::move(null));
    arms.push_back(std::move(args[0]));
    return makeCase(std::move(arms), true, e.pos);
  }
  auto numeric = [&](size_t i) {
    if (args[i]->type.isNull()) args[i] = castTo(std::move(args[i]), SqlType::int32());
    if (!args[i]->type.isNumeric()) noFunction(e, args);
  };
  auto toDouble = [&](size_t i) {
    numeric(i);
    args[i] = castTo(std::move(args[i]), SqlType::float64(args[i]->type.nullable));
  };
  if (e.name == "mod") {
    count(2, 2);
    numeric(0);
    numeric(1);
    return makeArith(plan::ArithOp::Mod, std::move(args[0]), std::move(args[1]), e.pos);
  }
  if (e.name == "current_date") {
    count(0, 0);
    return call(ScalarFunc::CurrentDate, SqlType::date(false), std::move(args), e.pos);
  }
  if (e.name == "current_timestamp" || e.name == "localtimestamp" || e.name == "now") {
    // The transaction's start; no time zones yet, so CURRENT_TIMESTAMP and now() are TIMESTAMPs
    // in UTC (PostgreSQL's are TIMESTAMPTZ, printed in the session's time zone).
    count(0, 0);
    return call(ScalarFunc::CurrentTimestamp, SqlType::timestamp(false), std::move(args), e.pos);
  }
  if (e.name == "current_time" || e.name == "localtime") {
    // The time of day of the transaction's start; without time zones CURRENT_TIME is a TIME as
    // LOCALTIME is (PostgreSQL's CURRENT_TIME is a TIME WITH TIME ZONE).
    count(0, 0);
    return castTo(call(ScalarFunc::CurrentTimestamp, SqlType::timestamp(false), std::move(args), e.pos), SqlType::time(false));
  }
  if (e.name == "sqrt" || e.name == "power") {
    count(e.name == "sqrt" ? 1 : 2, e.name == "sqrt" ? 1 : 2);
    for (size_t i = 0; i < args.size(); ++i) toDouble(i);
    return call(e.name == "sqrt" ? ScalarFunc::Sqrt : ScalarFunc::Power, SqlType::float64(), std::move(args), e.pos);
  }
  if (e.name == "round" || e.name == "trunc") {
    // round(x [, n]) half away from zero (DOUBLE: ties to even, PostgreSQL's rint), trunc toward
    // zero; n may be negative (round(1234.5, -2) = 1200). A DECIMAL result has scale n, as
    // PostgreSQL's numeric, where DECIMAL(18) holds it: round(1.5, 3) = 1.500.
    count(1, 2);
    numeric(0);
    const bool truncate = e.name == "trunc";
    int32_t digits = 0;
    if (args.size() == 2) {
      ExprPtr d = foldConstants(std::move(args[1]));
      if (d->kind != ExprKind::Constant || !d->type.isInteger() || d->value.isNull() || d->value.asInt() < INT32_MIN ||
          d->value.asInt() > INT32_MAX)
        throw Error(sqlstate::FeatureNotSupported, e.name + "(x, n) takes n as an integer constant", e.args[1]->pos);
      digits = static_cast<int32_t>(d->value.asInt());
      args.pop_back();
    }
    const SqlType t = args[0]->type;
    const ScalarFunc scaled = truncate ? ScalarFunc::TruncScaled : ScalarFunc::RoundScaled;
    args.push_back(Expr::constant(Value::int32(digits)));
    if (t.isInteger()) {
      if (digits >= 0) return std::move(args[0]);
      args[0] = castTo(std::move(args[0]), SqlType::int64(t.nullable));
      return call(scaled, SqlType::int64(), std::move(args), e.pos);
    }
    if (t.id == TypeId::Decimal) {
      if (digits >= t.scale) {  // more places: PostgreSQL shows them, where DECIMAL(18) has room
        const int wide = t.precision - t.scale + digits;
        if (digits == t.scale || wide > SqlType::kMaxDecimalPrecision) return std::move(args[0]);
        return castTo(std::move(args[0]),
                      SqlType::decimal(static_cast<uint8_t>(wide), static_cast<uint8_t>(digits), t.nullable));
      }
      if (digits >= 0 && !truncate)  // the cast rounds half away from zero
        return castTo(std::move(args[0]), SqlType::decimal(18, static_cast<uint8_t>(digits), t.nullable));
      return call(scaled, SqlType::decimal(18, static_cast<uint8_t>(std::max(digits, 0))), std::move(args), e.pos);
    }
    toDouble(0);
    const ScalarFunc f = truncate ? ScalarFunc::TruncDouble : ScalarFunc::RoundDouble;
    return call(f, SqlType::float64(), std::move(args), e.pos);
  }
  if (e.name == "exp" || e.name == "ln" || e.name == "cbrt" || (e.name == "log" && args.size() == 1)) {
    // In DOUBLE PRECISION, as PostgreSQL's float8 functions; a DECIMAL argument too (PostgreSQL's
    // numeric ones answer in numeric, with more digits).
    count(1, 1);
    toDouble(0);
    const ScalarFunc f = e.name == "exp"    ? ScalarFunc::Exp
                         : e.name == "ln"   ? ScalarFunc::Ln
                         : e.name == "cbrt" ? ScalarFunc::Cbrt
                                            : ScalarFunc::Log10;
    return call(f, SqlType::float64(), std::move(args), e.pos);
  }
  if (e.name == "pi") {
    count(0, 0);
    return Expr::constant(Value::float64(M_PI), e.pos);
  }
  // log(b, x), div, gcd, lcm: PostgreSQL's take integers and numeric, not floats.
  auto exact = [&](size_t i) {
    numeric(i);
    if (args[i]->type.isFloat()) noFunction(e, args);
  };
  if (e.name == "log") {  // log(b, x): PostgreSQL's numeric log, here in DOUBLE PRECISION
    count(2, 2);
    for (size_t i = 0; i < 2; ++i) exact(i), toDouble(i);
    return call(ScalarFunc::LogBase, SqlType::float64(), std::move(args), e.pos);
  }
  if (e.name == "div" || e.name == "gcd" || e.name == "lcm") {
    count(2, 2);
    exact(0);
    exact(1);
    SqlType c = *commonType(args[0]->type, args[1]->type);
    // Both of one scale (integers: BIGINT, or INTEGER for gcd and lcm of smaller ones).
    SqlType arg = c.id == TypeId::Decimal ? SqlType::decimal(18, c.scale)
                  : c.id == TypeId::Int64 || e.name == "div" ? SqlType::int64()
                                                              : SqlType::int32();
    for (auto& a : args) a = castTo(std::move(a), arg.withNullable(a->type.nullable));
    if (e.name == "div")
      return call(ScalarFunc::DivTruncated, c.id == TypeId::Decimal ? SqlType::decimal(18, 0) : SqlType::int64(),
                  std::move(args), e.pos);
    return call(e.name == "gcd" ? ScalarFunc::Gcd : ScalarFunc::Lcm, arg, std::move(args), e.pos);
  }
  if (e.name == "floor" || e.name == "ceil" || e.name == "ceiling") {
    count(1, 1);
    numeric(0);
    bool ceil = e.name != "floor";
    const SqlType& t = args[0]->type;
    if (t.isInteger()) return std::move(args[0]);
    if (t.id == TypeId::Decimal)
      return call(ceil ? ScalarFunc::CeilDecimal : ScalarFunc::FloorDecimal, SqlType::decimal(18, 0), std::move(args), e.pos);
    toDouble(0);
    return call(ceil ? ScalarFunc::CeilDouble : ScalarFunc::FloorDouble, SqlType::float64(), std::move(args), e.pos);
  }
  // abs: CASE WHEN x < 0 THEN -x ELSE x END
  count(1, 1);
  if (args[0]->type.isNull()) args[0] = castTo(std::move(args[0]), SqlType::int32());
  if (!args[0]->type.isNumeric()) noFunction(e, args);
  std::vector<ExprPtr> arms;
  arms.push_back(makeCompare(plan::CmpOp::Lt, args[0]->clone(), Expr::constant(Value::int32(0)), e.pos));
  arms.push_back(makeNegate(args[0]->clone(), e.pos));
  arms.push_back(std::move(args[0]));
  return makeCase(std::move(arms), true, e.pos);
}

}  // namespace hyrax::sql
