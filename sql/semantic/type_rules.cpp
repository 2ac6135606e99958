#include "sql/semantic/type_rules.hpp"

#include <algorithm>
#include <optional>

#include "engine/types/string_ref.hpp"
#include "engine/types/utf8.hpp"
#include "sql/optimizer/constant_folding.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;

namespace {

int rank(TypeId t) {
  switch (t) {
    case TypeId::Int16: return 1;
    case TypeId::Int32: return 2;
    case TypeId::Int64: return 3;
    case TypeId::Decimal: return 4;
    case TypeId::Float32: return 5;
    case TypeId::Float64: return 6;
    default: return 0;
  }
}

uint8_t integerDigits(const SqlType& t) {
  switch (t.id) {
    case TypeId::Int16: return 5;
    case TypeId::Int32: return 10;
    case TypeId::Int64: return 18;
    case TypeId::Decimal: return static_cast<uint8_t>(t.precision - t.scale);
    default: return 0;
  }
}

// A quoted literal whose type its context decides (Expr::untypedLiteral): not one the query cast
// (sqlfuzz finding 17: CAST('a ' AS TEXT) = a CHAR was compared as CHARs, and CAST('5' AS TEXT) =
// an INTEGER was taken as 5).
bool isStringLiteral(const Expr& e) { return e.kind == ExprKind::Constant && e.type.isString() && e.untypedLiteral; }

SqlType withNull(SqlType t, bool nullable) { return t.withNullable(nullable); }

// PostgreSQL reads a quoted literal next to a typed operand as that type ('1998-12-01' vs a DATE).
// A string literal beside a CHAR(n) value is read as a CHAR (of any length), as PostgreSQL reads
// an untyped literal: without its trailing blanks, which CHAR values never carry.
void adoptCharLiteral(ExprPtr& literal, const SqlType& other) {
  if (isStringLiteral(*literal) && other.id == TypeId::Char && literal->type.id != TypeId::Char)
    literal = castTo(std::move(literal), SqlType::charN(0, false));
}

void adoptLiteral(ExprPtr& a, ExprPtr& b) {
  if (isStringLiteral(*a) && !b->type.isString() && !b->type.isNull()) a = castTo(std::move(a), b->type);
  if (isStringLiteral(*b) && !a->type.isString() && !a->type.isNull()) b = castTo(std::move(b), a->type);
  adoptCharLiteral(a, b->type);
  adoptCharLiteral(b, a->type);
}

// A VARCHAR compared with a CHAR is compared as a CHAR: PostgreSQL resolves character =
// varchar to character's operator (varchar converts to it implicitly), where trailing blanks do
// not count ('ab'::char(4) = 'ab  '::varchar is true; hyrax compared the bytes: false). CHAR
// values carry no trailing blanks, so the VARCHAR's are trimmed. Against a TEXT, PostgreSQL
// compares the CHAR as text, without its blanks: as hyrax keeps it.
void compareAsChar(ExprPtr& x, const SqlType& other) {
  if (x->type.id != TypeId::Varchar || other.id != TypeId::Char) return;
  auto trimmed = std::make_unique<Expr>(ExprKind::Call, SqlType::text(x->type.nullable), x->pos);
  trimmed->func = plan::ScalarFunc::TrimTrailing;
  trimmed->args.push_back(std::move(x));
  trimmed->args.push_back(Expr::constant(Value::string(" ")));
  x = std::move(trimmed);
}

[[noreturn]] void noOperator(const char* op, const SqlType& a, const SqlType& b, SourcePos pos) {
  throw Error(sqlstate::UndefinedFunction,
              std::string("operator does not exist: ") + a.name() + " " + op + " " + b.name(), pos);
}

}  // namespace

std::optional<SqlType> commonType(const SqlType& a, const SqlType& b) {
  bool nullable = a.nullable || b.nullable;
  if (a.isNull()) return withNull(b, true);
  if (b.isNull()) return withNull(a, true);
  if (a.isString() && b.isString()) {
    if (a.sameAs(b)) return withNull(a, nullable);
    if (a.id == TypeId::Text || b.id == TypeId::Text) return SqlType::text(nullable);
    // CHARs of two lengths meet as a CHAR, as PostgreSQL's character: trailing blanks do not
    // count in its comparisons (COALESCE(char6, char4) = 'AB  ' is true; as VARCHAR it was
    // false). LIKE sees each value's own padding (blankPadded below).
    // A CHAR beside a VARCHAR: the first's type, as PostgreSQL's select_common_type keeps the
    // first type when each converts to the other implicitly: COALESCE(char6, varchar) and a UNION
    // whose first part gives the CHAR compare as character, trailing blanks not counting (it
    // grouped 'ab' and 'ab  ' apart); COALESCE(varchar, char6) is varchar. The longer length, or
    // none when either has none (a VARCHAR without one met CHAR(4) as VARCHAR(4)).
    const uint32_t length = a.length && b.length ? std::max(a.length, b.length) : 0;
    if (a.id == TypeId::Char) return SqlType::charN(length, nullable);
    return SqlType::varchar(length, nullable);
  }
  if (a.isArray() || b.isArray()) {  // arrays of one element type (int2vector meets int2[] as int2[])
    if (!a.isArray() || !b.isArray() || a.element != b.element) return std::nullopt;
    return a.sameAs(b) ? a.withNullable(nullable) : SqlType::array(a.element, 0, nullable);
  }
  if (a.id == TypeId::Bool && b.id == TypeId::Bool) return SqlType::boolean(nullable);
  if (a.id == TypeId::Date && b.id == TypeId::Date) return SqlType::date(nullable);
  // A DATE beside a TIMESTAMP is its midnight, as in PostgreSQL.
  auto dateOrTimestamp = [](TypeId t) { return t == TypeId::Date || t == TypeId::Timestamp; };
  if (dateOrTimestamp(a.id) && dateOrTimestamp(b.id)) return SqlType::timestamp(nullable);
  if ((a.id == TypeId::Time || a.id == TypeId::Interval) && a.id == b.id) return a.withNullable(nullable);
  int ra = rank(a.id), rb = rank(b.id);
  if (!ra || !rb) return std::nullopt;
  if (a.isFloat() || b.isFloat()) {
    if (a.id == TypeId::Float32 && b.id == TypeId::Float32) return SqlType::float32(nullable);
    return SqlType::float64(nullable);
  }
  if (a.id == TypeId::Decimal || b.id == TypeId::Decimal) {
    uint8_t scale = std::max(a.id == TypeId::Decimal ? a.scale : 0, b.id == TypeId::Decimal ? b.scale : 0);
    uint8_t digits = std::max(integerDigits(a), integerDigits(b));
    uint8_t precision = static_cast<uint8_t>(std::min<int>(SqlType::kMaxDecimalPrecision, digits + scale));
    return SqlType::decimal(precision, scale, nullable);
  }
  return withNull(ra >= rb ? a : b, nullable);
}

ExprPtr castTo(ExprPtr e, const SqlType& to) {
  if (e->type.sameAs(to)) return e;
  SqlType t = to.withNullable(e->type.nullable || e->type.isNull());
  auto c = std::make_unique<Expr>(ExprKind::Cast, t, e->pos);
  c->implicitCast = true;
  c->args.push_back(std::move(e));
  return c;
}

ExprPtr minMaxArgument(ExprPtr e) {
  if (e->type.id == TypeId::Varchar) return castTo(std::move(e), SqlType::text());
  return e;
}

bool castable(const SqlType& from, const SqlType& to) {
  if (from.isNull() || from.sameAs(to) || from.isString() || to.isString()) return true;
  if (from.isArray() || to.isArray()) return from.isArray() && to.isArray();  // elements checked when it runs
  bool fromNum = from.isNumeric() || from.id == TypeId::Bool;
  bool toNum = to.isNumeric() || to.id == TypeId::Bool;
  if (fromNum && toNum) return !(from.isFloat() && to.id == TypeId::Bool);
  if (from.id == TypeId::Date) return to.id == TypeId::Timestamp;
  if (from.id == TypeId::Timestamp) return to.id == TypeId::Date || to.id == TypeId::Time;
  return false;
}

ExprPtr makeCast(ExprPtr a, const SqlType& to, SourcePos pos) {
  if (a->type.isArray() && (a->type.arrayOid == 22 || a->type.arrayOid == 30) && to.isString())
    throw Error(sqlstate::FeatureNotSupported, "int2vector and oidvector as text are not supported", pos);
  if (!castable(a->type, to))
    throw Error("42846", "cannot cast type " + a->type.name() + " to " + to.name(), pos);
  if (a->type.sameAs(to)) {
    a->untypedLiteral = false;  // typed by the query now
    return a;
  }
  SqlType t = to.withNullable(a->type.nullable || a->type.isNull());
  auto c = std::make_unique<Expr>(ExprKind::Cast, t, pos);
  c->args.push_back(std::move(a));
  return c;
}

ExprPtr makeArith(plan::ArithOp op, ExprPtr a, ExprPtr b, SourcePos pos) {
  // A quoted literal beside an INTERVAL is a point in time ('2024-01-01' + INTERVAL '1 day').
  for (ExprPtr* x : {&a, &b})
    if (isStringLiteral(**x) && (x == &a ? b : a)->type.id == TypeId::Interval) *x = castTo(std::move(*x), SqlType::timestamp(false));
  adoptLiteral(a, b);
  const char* sym = plan::toString(op);
  bool nullable = a->type.nullable || b->type.nullable || a->type.isNull() || b->type.isNull();
  SqlType result;
  if (ExprPtr e = makeDateTimeArith(op, a, b, pos)) return e;
  // DATE +/- integer days, DATE - DATE = days.
  if (a->type.id == TypeId::Date || b->type.id == TypeId::Date) {
    if (a->type.id == TypeId::Date && b->type.id == TypeId::Date && op == plan::ArithOp::Sub) {
      result = SqlType::int32(nullable);
      a = castTo(std::move(a), SqlType::int32());
      b = castTo(std::move(b), SqlType::int32());
    } else if (a->type.id == TypeId::Date && b->type.isInteger() && (op == plan::ArithOp::Add || op == plan::ArithOp::Sub)) {
      b = castTo(std::move(b), SqlType::int32());
      result = SqlType::date(nullable);
    } else if (b->type.id == TypeId::Date && a->type.isInteger() && op == plan::ArithOp::Add) {
      std::swap(a, b);
      b = castTo(std::move(b), SqlType::int32());
      result = SqlType::date(nullable);
    } else {
      noOperator(sym, a->type, b->type, pos);
    }
    auto e = std::make_unique<Expr>(ExprKind::Arith, result, pos);
    e->arith = op;
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return e;
  }
  if (a->type.isNull() && b->type.isNull()) {
    a = castTo(std::move(a), SqlType::int32());
    b = castTo(std::move(b), SqlType::int32());
  }
  auto common = commonType(a->type, b->type);
  if (!common || !common->isNumeric()) noOperator(sym, a->type, b->type, pos);
  if (op == plan::ArithOp::BitAnd && !common->isInteger()) noOperator(sym, a->type, b->type, pos);
  SqlType c = *common;
  if (c.id == TypeId::Decimal && (op == plan::ArithOp::Mul || op == plan::ArithOp::Div)) {
    // Operands keep their own scales; integers become DECIMAL(p,0).
    auto asDecimal = [](ExprPtr e) {
      if (e->type.id == TypeId::Decimal) return e;
      SqlType t = e->type.isNull() ? SqlType::decimal(18, 0) : SqlType::decimal(integerDigits(e->type), 0);
      return castTo(std::move(e), t);
    };
    a = asDecimal(std::move(a));
    b = asDecimal(std::move(b));
    if (op == plan::ArithOp::Mul) {
      // A constant's trailing zeros only widen the product's scale (x * 0.0001000000): drop them.
      for (ExprPtr* c : {&a, &b}) {
        Expr& k = **c;
        if (k.kind != ExprKind::Constant || k.value.isNull()) continue;
        int64_t v = k.value.asInt();
        uint8_t scale = k.type.scale, prec = k.type.precision;
        while (scale > 0 && v % 10 == 0) v /= 10, --scale, --prec;
        prec = std::max(prec, static_cast<uint8_t>(std::max<int>(1, scale)));
        *c = Expr::constant(Value::decimal(v, prec, scale), k.pos);
      }
    }
    int sa = a->type.scale, sb = b->type.scale;
    int scale = op == plan::ArithOp::Mul ? sa + sb : std::max({6, sa, sb});
    if (scale > SqlType::kMaxDecimalPrecision)
      throw Error(sqlstate::NumericOutOfRange, "result scale of DECIMAL " + std::string(sym) + " exceeds 18", pos);
    result = SqlType::decimal(18, static_cast<uint8_t>(scale), nullable);
  } else {
    a = castTo(std::move(a), c);
    b = castTo(std::move(b), c);
    result = c.id == TypeId::Decimal ? SqlType::decimal(18, c.scale, nullable) : c.withNullable(nullable);
  }
  auto e = std::make_unique<Expr>(ExprKind::Arith, result, pos);
  e->arith = op;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

ExprPtr makeCompare(plan::CmpOp op, ExprPtr a, ExprPtr b, SourcePos pos) {
  adoptLiteral(a, b);
  auto common = commonType(a->type, b->type);
  if (!common) noOperator(plan::toString(op), a->type, b->type, pos);
  SqlType c = common->isNull() ? SqlType::int32() : *common;
  if (c.isArray() && op != plan::CmpOp::Eq && op != plan::CmpOp::Ne)  // PostgreSQL orders element by element
    throw Error(sqlstate::FeatureNotSupported, std::string("operator ") + plan::toString(op) + " on arrays is not supported", pos);
  if (!(a->type.isString() && b->type.isString())) {
    a = castTo(std::move(a), c);
    b = castTo(std::move(b), c);
  } else {
    const SqlType ta = a->type, tb = b->type;
    compareAsChar(a, tb);
    compareAsChar(b, ta);
  }
  bool nullable = a->type.nullable || b->type.nullable || a->type.isNull() || b->type.isNull();
  auto e = std::make_unique<Expr>(ExprKind::Compare, SqlType::boolean(nullable), pos);
  e->cmp = op;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

void requireBoolean(const Expr& e, const char* clause) {
  if (e.type.id != TypeId::Bool && !e.type.isNull())
    throw Error(sqlstate::DatatypeMismatch,
                std::string("argument of ") + clause + " must be type boolean, not type " + e.type.name(), e.pos);
}

ExprPtr makeLogic(ExprKind kind, std::vector<ExprPtr> args, SourcePos pos) {
  bool nullable = false;
  const char* name = kind == ExprKind::And ? "AND" : kind == ExprKind::Or ? "OR" : "NOT";
  for (auto& a : args) {
    if (isStringLiteral(*a)) a = castTo(std::move(a), SqlType::boolean(false));
    requireBoolean(*a, name);
    nullable = nullable || a->type.nullable || a->type.isNull();
  }
  auto e = std::make_unique<Expr>(kind, SqlType::boolean(nullable), pos);
  // AND and OR are associative (three-valued too) and evaluated left to right either way: an
  // operand of the same kind gives its operands, so the tree stays flat however it was written.
  for (auto& a : args) {
    if (kind != ExprKind::Not && a->kind == kind) {
      for (auto& inner : a->args) e->args.push_back(std::move(inner));
    } else {
      e->args.push_back(std::move(a));
    }
  }
  return e;
}

ExprPtr makeNegate(ExprPtr a, SourcePos pos) {
  if (!a->type.isNumeric() && !a->type.isNull() && a->type.id != TypeId::Interval)
    throw Error(sqlstate::UndefinedFunction, "operator does not exist: - " + a->type.name(), pos);
  if (a->type.isNull()) a = castTo(std::move(a), SqlType::int32());
  auto e = std::make_unique<Expr>(ExprKind::Negate, a->type, pos);
  e->args.push_back(std::move(a));
  return e;
}

ExprPtr makeConcat(ExprPtr a, ExprPtr b, SourcePos pos) {
  if (ExprPtr r = makeArrayConcat(a, b, pos)) return r;
  bool nullable = a->type.nullable || b->type.nullable || a->type.isNull() || b->type.isNull();
  auto e = std::make_unique<Expr>(ExprKind::Concat, SqlType::text(nullable), pos);
  e->args.push_back(castTo(std::move(a), SqlType::text()));
  e->args.push_back(castTo(std::move(b), SqlType::text()));
  return e;
}

namespace {

// Calls f on each result arm of a CASE's args: WHEN/THEN pairs, then the ELSE if it has one.
template <typename Args, typename F>
void forEachCaseResult(Args& args, bool hasElse, F f) {
  const size_t pairs = (args.size() - (hasElse ? 1 : 0)) / 2;
  for (size_t i = 0; i < pairs; ++i) f(args[2 * i + 1]);
  if (hasElse) f(args.back());
}

// A NULL or a quoted literal: an arm that leaves a CASE of CHARs character in PostgreSQL (the
// literal is read as a character value of its own length, no blanks added).
bool neutralArm(const Expr& e) {
  if (e.kind == ExprKind::Cast && e.implicitCast) return neutralArm(*e.args[0]);
  return e.kind == ExprKind::Constant && (e.value.isNull() || e.type.isString());
}

// An arm of a CASE as the query gave it: under the casts the CASE put in to make types meet.
const Expr& asWritten(const Expr& e) { return e.kind == ExprKind::Cast && e.implicitCast ? asWritten(*e.args[0]) : e; }

// Whether PostgreSQL sees `e` as character (bpchar), each value with its own trailing blanks: a
// CHAR(n), or a CASE (COALESCE and NULLIF are CASEs here) that PostgreSQL types character. Its
// rule for string arms (select_common_type): TEXT if any arm is TEXT (the preferred type), else
// the first typed arm's type (CHAR and VARCHAR convert either way), so COALESCE(char6, varchar)
// is character and COALESCE(varchar, char6) varchar, whose CHAR values lose their blanks. hyrax's
// commonType follows it but for literals, which are TEXT here and unknown there, and CHARs of two
// lengths meet as a CHAR of the longer, so a CASE goes by its arms, not its type; a cast the query
// wrote to another string type drops the blanks, as in PostgreSQL.
// GREATEST and LEAST give one of their arguments as it is, so they follow CASE's rules (PostgreSQL
// types them by select_common_type too): GREATEST(char3, char4) is each value with its own blanks.
bool isMinMax(const Expr& e) {
  return e.kind == ExprKind::Call && (e.func == plan::ScalarFunc::Greatest || e.func == plan::ScalarFunc::Least);
}

bool blankPadded(const Expr& e) {
  // Under a cast the CASE put in, as the arm gave it (a VARCHAR arm of a CASE typed CHAR is not).
  if (e.kind == ExprKind::Cast && e.implicitCast && e.type.isString()) return blankPadded(*e.args[0]);
  const bool choice = e.kind == ExprKind::Case || isMinMax(e);
  if (!choice && e.type.id == TypeId::Char && e.type.length > 0) return true;
  if (!choice || !e.type.isString()) return false;
  std::optional<bool> first;  // whether the first typed arm is
  bool textArm = false;
  auto arms = [&](auto f) {  // each value it may give
    if (isMinMax(e))
      for (const ExprPtr& a : e.args) f(a);
    else
      forEachCaseResult(e.args, e.hasElse, f);
  };
  arms([&](const ExprPtr& a) {
    const Expr& arm = asWritten(*a);
    if (neutralArm(arm)) return;
    textArm = textArm || arm.type.id == TypeId::Text;
    if (!first) first = blankPadded(arm);
  });
  return !textArm && first.value_or(false);
}

// An arm that is not blankPadded as TEXT, under the string casts the CASE put in: as the arm gave
// it (a VARCHAR arm of a CASE typed CHAR keeps its blanks, as in PostgreSQL's character without a
// length; a CHAR arm of a VARCHAR CASE has none).
ExprPtr plainText(ExprPtr e) {
  while (e->kind == ExprKind::Cast && e->implicitCast && e->args[0]->type.isString()) e = std::move(e->args[0]);
  return castTo(std::move(e), SqlType::text());
}

// `e` (blankPadded) as TEXT with each value's trailing blanks: a CHAR(n) padded to n, a CASE arm
// by arm.
ExprPtr withBlanks(ExprPtr e) {
  // Under a cast the CASE put in, the value's own length (a CHAR(4) arm of a CHAR(6) CASE).
  if (e->kind == ExprKind::Cast && e->implicitCast && blankPadded(*e->args[0])) return withBlanks(std::move(e->args[0]));
  if (isMinMax(*e)) {
    // The first argument equal to the result is the one it gave (PostgreSQL keeps the first of
    // equal ones): CASE WHEN g = a1 THEN a1 with its blanks WHEN g = a2 ... END.
    const SourcePos at = e->pos;
    auto chosen = std::make_unique<Expr>(ExprKind::Case, SqlType::text(true), at);
    for (const ExprPtr& a : e->args) {
      chosen->args.push_back(makeCompare(plan::CmpOp::Eq, e->clone(), a->clone(), at));
      chosen->args.push_back(blankPadded(*a) ? withBlanks(a->clone()) : plainText(a->clone()));
    }
    return chosen;
  }
  if (e->kind != ExprKind::Case && e->type.id == TypeId::Char && e->type.length > 0) {
    const SourcePos at = e->pos;
    const int64_t length = e->type.length;
    auto padded = std::make_unique<Expr>(ExprKind::Call, SqlType::text(e->type.nullable), at);
    padded->func = plan::ScalarFunc::RightPad;
    padded->args.push_back(castTo(std::move(e), SqlType::text()));
    padded->args.push_back(Expr::constant(Value::int64(length)));
    padded->args.push_back(Expr::constant(Value::string(" ")));
    return padded;
  }
  if (e->kind == ExprKind::Case) {
    forEachCaseResult(e->args, e->hasElse, [](ExprPtr& a) { a = blankPadded(*a) ? withBlanks(std::move(a)) : plainText(std::move(a)); });
    e->type = SqlType::text(e->type.nullable);
    return e;
  }
  return castTo(std::move(e), SqlType::text());
}

}  // namespace

ExprPtr asPaddedText(ExprPtr e) { return blankPadded(*e) ? withBlanks(std::move(e)) : castTo(std::move(e), SqlType::text()); }

ExprPtr asUnpaddedText(ExprPtr e) {
  const bool padded = blankPadded(*e);
  ExprPtr c = castTo(std::move(e), SqlType::text());
  if (padded && c->kind == ExprKind::Cast) c->implicitCast = false;  // as a cast the query wrote: no blanks
  return c;
}

ExprPtr makeLike(ExprPtr a, ExprPtr pattern, bool negated, SourcePos pos) {
  if ((!a->type.isString() && !a->type.isNull()) || (!pattern->type.isString() && !pattern->type.isNull()))
    noOperator(negated ? "NOT LIKE" : "LIKE", a->type, pattern->type, pos);
  bool nullable = a->type.nullable || pattern->type.nullable || a->type.isNull() || pattern->type.isNull();
  auto e = std::make_unique<Expr>(ExprKind::Like, SqlType::boolean(nullable), pos);
  e->negated = negated;
  // A CHAR(n) value is matched padded to n characters, as PostgreSQL's LIKE on character(n)
  // (bpcharlike) matches it: hyrax keeps CHAR values without their trailing blanks
  // (engine/types/text_format.hpp), which count in a pattern ('b'::char(4) LIKE 'b' is false,
  // LIKE 'b%' and LIKE 'b___' true). Matching the bare value answered true (found by
  // bench/sqlfuzz against PostgreSQL). Likewise a CASE or COALESCE of CHARs, each value padded
  // to its own column's length (COALESCE(a, b) with a CHAR(6), b CHAR(4): found by sqlfuzz,
  // seed 205 query 698).
  e->args.push_back(asPaddedText(std::move(a)));
  e->args.push_back(castTo(std::move(pattern), SqlType::text()));
  return e;
}

ExprPtr makeRegexMatch(ExprPtr a, ExprPtr pattern, bool caseInsensitive, bool negated, SourcePos pos) {
  const char* op = caseInsensitive ? (negated ? "!~*" : "~*") : (negated ? "!~" : "~");
  if ((!a->type.isString() && !a->type.isNull()) || (!pattern->type.isString() && !pattern->type.isNull()))
    noOperator(op, a->type, pattern->type, pos);
  bool nullable = a->type.nullable || pattern->type.nullable || a->type.isNull() || pattern->type.isNull();
  auto e = std::make_unique<Expr>(ExprKind::Call, SqlType::boolean(nullable), pos);
  e->func = caseInsensitive ? plan::ScalarFunc::RegexMatchInsensitive : plan::ScalarFunc::RegexMatch;
  // A CHAR(n) value is matched padded to n, as PostgreSQL's ~ on character (bpcharregexeq) and so
  // SIMILAR TO match it: 'a'::char(4) ~ '^a$' is false there, SIMILAR TO 'a' too (found by
  // bench/sqlfuzz against PostgreSQL, seed 500 query 574). LIKE's rule (makeLike).
  e->args.push_back(asPaddedText(std::move(a)));
  e->args.push_back(castTo(std::move(pattern), SqlType::text()));
  if (!negated) return e;
  std::vector<ExprPtr> one;
  one.push_back(std::move(e));
  return makeLogic(ExprKind::Not, std::move(one), pos);
}

namespace {

// A LIKE pattern whose escape character is `esc` (empty: none) in the default form, where '\'
// escapes: esc c becomes '\' c, a literal '\' becomes '\\' (PostgreSQL's like_escape). A pattern
// that ends with its escape character is 22025 here, when bound; PostgreSQL says so when a row's
// match reaches that end (and answers false for the rows whose match stops before it).
std::string defaultEscapeForm(const std::string& p, const std::string& esc, SourcePos pos) {
  auto charAt = [&](size_t i) {
    size_t n = 1;
    while (i + n < p.size() && utf8Continuation(p[i + n])) ++n;
    return p.substr(i, n);
  };
  std::string out;
  for (size_t i = 0; i < p.size();) {
    std::string c = charAt(i);
    i += c.size();
    if (!esc.empty() && c == esc) {
      if (i == p.size()) throw Error(sqlstate::InvalidEscape, "LIKE pattern must not end with escape character", pos);
      c = charAt(i);
      i += c.size();
      out += '\\';
      out += c;
    } else {
      out += c == "\\" ? "\\\\" : c;
    }
  }
  return out;
}

}  // namespace

ExprPtr makeLike(ExprPtr a, ExprPtr pattern, ExprPtr escape, bool negated, SourcePos pos, bool caseInsensitive) {
  if (caseInsensitive) {
    if ((!a->type.isString() && !a->type.isNull()) || (!pattern->type.isString() && !pattern->type.isNull()))
      noOperator(negated ? "NOT ILIKE" : "ILIKE", a->type, pattern->type, pos);
    auto lowered = [&](ExprPtr x) {
      bool nullable = x->type.nullable || x->type.isNull();
      auto l = std::make_unique<Expr>(ExprKind::Call, SqlType::text(nullable), pos);
      l->func = plan::ScalarFunc::Lower;
      l->args.push_back(std::move(x));
      return foldConstants(std::move(l), true);
    };
    a = lowered(asPaddedText(std::move(a)));
    pattern = lowered(castTo(std::move(pattern), SqlType::text()));
  }
  if (!escape) escape = Expr::constant(Value::string("\\"));
  SourcePos escPos = escape->pos;
  if (!escape->type.isString() && !escape->type.isNull())
    throw Error(sqlstate::UndefinedFunction, "function like_escape(" + pattern->type.name() + ", " + escape->type.name() + ") does not exist", escPos);
  escape = foldConstants(std::move(escape), true);
  ExprPtr folded = foldConstants(pattern->clone(), true);
  bool constantPattern = folded->kind == ExprKind::Constant;
  if (escape->kind != ExprKind::Constant)
    throw Error(sqlstate::FeatureNotSupported, "LIKE ... ESCAPE takes only a constant escape character", escPos);
  if (escape->value.isNull() || (constantPattern && folded->value.isNull()))  // like_escape is strict: NULL
    return makeLike(std::move(a), Expr::constant(Value()), negated, pos);
  const std::string& esc = escape->value.asString();
  size_t chars = 0;
  for (char c : esc) chars += !utf8Continuation(c);
  if (chars > 1) throw Error(sqlstate::InvalidEscape, "invalid escape string (it must be empty or one character)", escPos);
  if (!constantPattern || !folded->value.type().isString()) {
    if (esc != "\\")
      throw Error(sqlstate::FeatureNotSupported, "LIKE ... ESCAPE with an escape character other than '\\' takes only a constant pattern", escPos);
    return makeLike(std::move(a), std::move(pattern), negated, pos);
  }
  return makeLike(std::move(a), Expr::constant(Value::string(defaultEscapeForm(folded->value.asString(), esc, pattern->pos))), negated, pos);
}

ExprPtr makeSimilarTo(ExprPtr a, ExprPtr pattern, ExprPtr escape, bool negated, SourcePos pos) {
  const SourcePos patternPos = pattern->pos;
  pattern = foldConstants(castTo(std::move(pattern), SqlType::text()), true);
  escape = escape ? foldConstants(castTo(std::move(escape), SqlType::text()), true) : Expr::constant(Value::string("\\"));
  if (pattern->kind != ExprKind::Constant || escape->kind != ExprKind::Constant)
    throw Error(sqlstate::FeatureNotSupported, "SIMILAR TO takes only a constant pattern and escape character", patternPos);
  if (pattern->value.isNull() || escape->value.isNull())  // strict: NULL
    return makeRegexMatch(std::move(a), Expr::constant(Value::null(SqlType::text())), false, negated, pos);
  const std::string& esc = escape->value.asString();
  if (utf8Chars(esc) > 1) throw Error(sqlstate::InvalidEscape, "invalid escape string", escape->pos);
  // PostgreSQL's similar_escape_internal, with ERE's plain groups where it writes (?:...).
  const std::string& p = pattern->value.asString();
  std::string re = "^(";
  bool afterEscape = false, inClass = false;
  for (size_t i = 0, len = 0; i < p.size(); i += len) {
    utf8DecodeAt(p, i, len);
    const std::string_view c(p.data() + i, len);
    if (afterEscape) {
      if (c == "\"") throw Error(sqlstate::FeatureNotSupported, "SIMILAR TO's substring markers are not supported", patternPos);
      if (len == 1 && std::string_view("\\.^$[]()|*+?{}").find(c[0]) != std::string_view::npos) re += '\\';
      re += c;
      afterEscape = false;
    } else if (!esc.empty() && c == esc) {
      afterEscape = true;
    } else if (inClass) {
      if (c == "\\") re += '\\';
      re += c;
      inClass = c != "]";
    } else if (c == "[") {
      re += c;
      inClass = true;
    } else if (c == "%") {
      re += ".*";
    } else if (c == "_") {
      re += '.';
    } else if (c == "\\" || c == "." || c == "^" || c == "$") {
      re += '\\';
      re += c;
    } else {
      re += c;
    }
  }
  re += ")$";
  return makeRegexMatch(std::move(a), Expr::constant(Value::string(re)), false, negated, pos);
}

ExprPtr makeIsNull(ExprPtr a, bool negated, SourcePos pos) {
  auto e = std::make_unique<Expr>(ExprKind::IsNull, SqlType::boolean(false), pos);
  e->negated = negated;
  e->args.push_back(std::move(a));
  return e;
}

// a IS [NOT] DISTINCT FROM b (SQL:1999) as a CASE: where neither is NULL the comparison, with
// its type rules and errors (CHAR beside VARCHAR, 42883); else whether only one of them is NULL.
// Never NULL itself. The operands are evaluated again in the arms, which have no side effects.
ExprPtr makeIsDistinct(ExprPtr a, ExprPtr b, bool notDistinct, SourcePos pos) {
  ExprPtr compared = makeCompare(notDistinct ? plan::CmpOp::Eq : plan::CmpOp::Ne, a->clone(), b->clone(), pos);
  std::vector<ExprPtr> args;
  args.push_back(makeIsNull(std::move(a), false, pos));
  args.push_back(makeIsNull(b->clone(), !notDistinct, pos));  // a NULL: distinct from b unless b is NULL too
  args.push_back(makeIsNull(std::move(b), false, pos));
  args.push_back(Expr::constant(Value::boolean(!notDistinct), pos));
  args.push_back(std::move(compared));
  return makeCase(std::move(args), true, pos);
}

ExprPtr makeInList(ExprPtr a, std::vector<ExprPtr> list, bool negated, SourcePos pos) {
  SqlType t = a->type;
  for (auto& item : list) {
    if (isStringLiteral(*item) && !t.isString() && !t.isNull()) item = castTo(std::move(item), t);
    adoptCharLiteral(item, a->type);
    auto c = commonType(t, item->type);
    if (!c) noOperator("IN", a->type, item->type, item->pos);
    t = *c;
  }
  if (t.isNull()) t = SqlType::int32(true);
  // VARCHAR IN (char_col, ...): PostgreSQL compares the left side with each item by that pair's
  // =, so against a CHAR item as a CHAR (trailing blanks do not count) and against the others
  // byte for byte ('ab  '::varchar IN (char_col) was false here where char_col held 'ab'). A list
  // of CHARs alone: the left side trimmed once; a mixed list: the CHAR items and the others as two
  // lists, x IN (A, B) being x IN (A) OR x IN (B) in three-valued logic too.
  if (a->type.id == TypeId::Varchar) {
    std::vector<ExprPtr> chars, others;
    for (auto& item : list) (item->type.id == TypeId::Char ? chars : others).push_back(std::move(item));
    if (!chars.empty() && !others.empty()) {
      std::vector<ExprPtr> either;
      either.push_back(makeInList(a->clone(), std::move(chars), negated, pos));
      either.push_back(makeInList(std::move(a), std::move(others), negated, pos));
      return makeLogic(negated ? ExprKind::And : ExprKind::Or, std::move(either), pos);
    }
    if (!chars.empty()) compareAsChar(a, chars[0]->type);
    list = chars.empty() ? std::move(others) : std::move(chars);
  }
  bool nullable = t.nullable;
  auto e = std::make_unique<Expr>(ExprKind::InList, SqlType::boolean(nullable), pos);
  e->negated = negated;
  if (!t.isString()) a = castTo(std::move(a), t);
  for (auto& item : list) compareAsChar(item, a->type);  // CHAR IN (varchar, ...): as its =
  e->args.push_back(std::move(a));
  for (auto& item : list) e->args.push_back(t.isString() ? std::move(item) : castTo(std::move(item), t));
  return e;
}

ExprPtr makeCase(std::vector<ExprPtr> args, bool hasElse, SourcePos pos) {
  const size_t pairs = (args.size() - (hasElse ? 1 : 0)) / 2;
  std::optional<SqlType> t;
  for (size_t i = 0; i < pairs; ++i) requireBoolean(*args[2 * i], "CASE/WHEN");
  forEachCaseResult(args, hasElse, [&](ExprPtr& r) {
    if (!t) {
      t = r->type;
      return;
    }
    auto c = commonType(*t, r->type);
    if (!c) throw Error(sqlstate::DatatypeMismatch, "CASE types " + t->name() + " and " + r->type.name() + " cannot be matched", r->pos);
    t = *c;
  });
  SqlType rt = t->isNull() ? SqlType::text(true) : *t;
  if (!hasElse) rt.nullable = true;
  forEachCaseResult(args, hasElse, [&](ExprPtr& r) { r = castTo(std::move(r), rt); });
  auto e = std::make_unique<Expr>(ExprKind::Case, rt, pos);
  e->hasElse = hasElse;
  e->args = std::move(args);
  return e;
}

// ---- arrays ----

TypeId arrayElementOf(const SqlType& t, SourcePos pos) {
  if (t.isInteger()) return t.id;
  if (t.isString()) return TypeId::Text;
  if (t.isArray()) throw Error(sqlstate::FeatureNotSupported, "multidimensional arrays are not supported", pos);
  throw Error(sqlstate::FeatureNotSupported, "arrays of " + t.name() + " are not supported", pos);
}

ExprPtr makeArrayCall(plan::ScalarFunc f, SqlType type, std::vector<ExprPtr> args, SourcePos pos) {
  auto e = std::make_unique<Expr>(ExprKind::Call, type, pos);
  e->func = f;
  e->args = std::move(args);
  return e;
}

ExprPtr makeScalarCall(plan::ScalarFunc f, SqlType result, std::vector<ExprPtr> args, SourcePos pos) {
  bool nullable = false;
  for (auto& a : args) nullable = nullable || a->type.nullable || a->type.isNull();
  return makeArrayCall(f, result.withNullable(nullable), std::move(args), pos);
}

void noSuchFunction(const std::string& name, const std::vector<ExprPtr>& args, SourcePos pos) {
  std::string sig;
  for (size_t i = 0; i < args.size(); ++i) sig += (i ? ", " : "") + args[i]->type.name();
  throw Error(sqlstate::UndefinedFunction, "function " + name + "(" + sig + ") does not exist", pos);
}

ExprPtr makeArrayConcat(ExprPtr& a, ExprPtr& b, SourcePos pos) {
  if (!a->type.isArray() && !b->type.isArray()) return nullptr;
  // A quoted literal or NULL beside an array is an array of its type (as PostgreSQL reads it).
  for (ExprPtr* x : {&a, &b}) {
    const SqlType& other = (x == &a ? b : a)->type;
    if (other.isArray() && ((*x)->type.isNull() || isStringLiteral(**x))) *x = makeCast(std::move(*x), other, pos);
  }
  const bool both = a->type.isArray() && b->type.isArray();
  if (both) {
    if (a->type.element != b->type.element) noOperator("||", a->type, b->type, pos);
    const SqlType t = SqlType::array(a->type.element, 0, a->type.nullable && b->type.nullable);
    std::vector<ExprPtr> args;
    args.push_back(castTo(std::move(a), t));
    args.push_back(castTo(std::move(b), t));
    return makeArrayCall(plan::ScalarFunc::ArrayCat, t, std::move(args), pos);
  }
  const bool append = a->type.isArray();
  ExprPtr& arr = append ? a : b;
  ExprPtr& element = append ? b : a;
  const SqlType t = SqlType::array(arr->type.element, 0, false);
  const SqlType et = t.elementType();
  if (!element->type.isNull() && !(element->type.isInteger() && et.isInteger()) && !(element->type.isString() && et.isString()))
    noOperator("||", a->type, b->type, pos);
  std::vector<ExprPtr> args;
  ExprPtr asText = castTo(castTo(std::move(element), et), SqlType::text());
  ExprPtr array = castTo(std::move(arr), t);
  if (append) {
    args.push_back(std::move(array));
    args.push_back(std::move(asText));
  } else {
    args.push_back(std::move(asText));
    args.push_back(std::move(array));
  }
  return makeArrayCall(append ? plan::ScalarFunc::ArrayAppend : plan::ScalarFunc::ArrayPrepend, t, std::move(args), pos);
}

}  // namespace hyrax::sql
