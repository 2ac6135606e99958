#include "codegen/plan/expression.hpp"

#include "engine/runtime/math_functions.hpp"
#include "engine/runtime/text_functions.hpp"
#include "engine/types/calendar.hpp"
#include "engine/util/iterative_teardown.hpp"
#include "engine/util/stack_depth.hpp"

namespace hyrax::plan {

ExprPtr Expr::column(const IU* iu, SourcePos p) {
  auto e = std::make_unique<Expr>(ExprKind::Column, iu->type, p);
  e->iu = iu;
  return e;
}

ExprPtr Expr::constant(Value v, SourcePos p) {
  auto e = std::make_unique<Expr>(ExprKind::Constant, v.type(), p);
  e->value = std::move(v);
  return e;
}

// Without recursion: a chain of 10,000 terms is a tree that deep (see ast_destruction.cpp).
Expr::~Expr() { destroyChildrenIteratively(args); }

ExprPtr Expr::clone() const {
  checkStackDepth();
  auto e = std::make_unique<Expr>(kind, type, pos);
  e->iu = iu;
  e->value = value;
  e->arith = arith;
  e->cmp = cmp;
  e->negated = negated;
  e->hasElse = hasElse;
  e->implicitCast = implicitCast;
  e->untypedLiteral = untypedLiteral;
  e->field = field;
  e->func = func;
  e->param = param;
  e->name = name;
  e->sequenceOp = sequenceOp;
  e->sequence = sequence;
  for (auto& a : args) e->args.push_back(a->clone());
  return e;
}

void Expr::collectIUs(std::vector<const IU*>& out) const {
  checkStackDepth();
  if (kind == ExprKind::Column) out.push_back(iu);
  for (auto& a : args) a->collectIUs(out);
}

bool readsOnly(const Expr& e, const IURefs& set) {
  checkStackDepth();
  if (e.kind == ExprKind::Column && !set.count(e.iu)) return false;
  for (auto& a : e.args)
    if (!readsOnly(*a, set)) return false;
  return true;
}

bool readsAny(const Expr& e, const IURefs& set) {
  checkStackDepth();
  if (e.kind == ExprKind::Column && set.count(e.iu)) return true;
  for (auto& a : e.args)
    if (readsAny(*a, set)) return true;
  return false;
}

const char* toString(ArithOp op) {
  switch (op) {
    case ArithOp::Add: return "+";
    case ArithOp::Sub: return "-";
    case ArithOp::Mul: return "*";
    case ArithOp::Div: return "/";
    case ArithOp::Mod: return "%";
    case ArithOp::BitAnd: return "&";
  }
  return "?";
}

CmpOp mirrored(CmpOp op) {
  switch (op) {
    case CmpOp::Lt: return CmpOp::Gt;
    case CmpOp::Le: return CmpOp::Ge;
    case CmpOp::Gt: return CmpOp::Lt;
    case CmpOp::Ge: return CmpOp::Le;
    default: return op;
  }
}

const char* toString(CmpOp op) {
  switch (op) {
    case CmpOp::Eq: return "=";
    case CmpOp::Ne: return "<>";
    case CmpOp::Lt: return "<";
    case CmpOp::Le: return "<=";
    case CmpOp::Gt: return ">";
    case CmpOp::Ge: return ">=";
  }
  return "?";
}

namespace {

// Appends to one string: a chain of 10,000 terms printed by returning and concatenating strings
// would copy its text once per level.
void print(const Expr& e, std::string& out);

void printList(const Expr& e, size_t from, const char* sep, std::string& out) {
  for (size_t i = from; i < e.args.size(); ++i) {
    if (i > from) out += sep;
    print(*e.args[i], out);
  }
}

// args[0] op args[1], in parentheses for arithmetic and ||.
void printInfix(const Expr& e, const char* op, bool parenthesized, std::string& out) {
  if (parenthesized) out += '(';
  print(*e.args[0], out);
  out += ' ';
  out += op;
  out += ' ';
  print(*e.args[1], out);
  if (parenthesized) out += ')';
}

void print(const Expr& e, std::string& out) {
  checkStackDepth();
  switch (e.kind) {
    case ExprKind::Column: out += e.iu->name; return;
    case ExprKind::Parameter:
      out += '$';
      out += std::to_string(e.param + 1);
      return;
    case ExprKind::SequenceCall:
      out += e.sequenceOp == SequenceOp::NextVal ? "nextval('" : e.sequenceOp == SequenceOp::CurrVal ? "currval('" : "setval('";
      out += e.sequence->name;
      out += e.args.empty() ? "'" : "', ";
      printList(e, 0, ", ", out);
      out += ")";
      return;
    case ExprKind::RoutineCall:
      out += e.name;
      out += '(';
      printList(e, 0, ", ", out);
      out += ")";
      return;
    case ExprKind::Constant:
      if (e.value.isNull()) {
        out += "NULL";
      } else if (e.type.isVarBytes()) {
        out += '\'' + e.value.toString() + '\'';
      } else if (e.type.isDateTime() || e.type.id == TypeId::Interval) {
        out += e.type.name() + " '" + e.value.toString() + '\'';
      } else {
        out += e.value.toString();
      }
      return;
    case ExprKind::Arith: return printInfix(e, toString(e.arith), true, out);
    case ExprKind::Negate:
      out += "-";
      print(*e.args[0], out);
      return;
    case ExprKind::Compare: return printInfix(e, toString(e.cmp), false, out);
    case ExprKind::And:
    case ExprKind::Or:
      out += "(";
      printList(e, 0, e.kind == ExprKind::And ? " AND " : " OR ", out);
      out += ")";
      return;
    case ExprKind::Not:
      out += "NOT ";
      print(*e.args[0], out);
      return;
    case ExprKind::IsNull:
      print(*e.args[0], out);
      out += e.negated ? " IS NOT NULL" : " IS NULL";
      return;
    case ExprKind::Like:
      print(*e.args[0], out);
      out += e.negated ? " NOT LIKE " : " LIKE ";
      print(*e.args[1], out);
      return;
    case ExprKind::InList:
      print(*e.args[0], out);
      out += e.negated ? " NOT IN (" : " IN (";
      printList(e, 1, ", ", out);
      out += ")";
      return;
    case ExprKind::Case: {
      out += "CASE";
      size_t pairs = (e.args.size() - (e.hasElse ? 1 : 0)) / 2;
      for (size_t i = 0; i < pairs; ++i) {
        out += " WHEN ";
        print(*e.args[2 * i], out);
        out += " THEN ";
        print(*e.args[2 * i + 1], out);
      }
      if (e.hasElse) {
        out += " ELSE ";
        print(*e.args.back(), out);
      }
      out += " END";
      return;
    }
    case ExprKind::Cast:
      out += "CAST(";
      print(*e.args[0], out);
      out += " AS " + e.type.name() + ")";
      return;
    case ExprKind::Concat: return printInfix(e, "||", true, out);
    case ExprKind::Extract: {
      out += std::string("EXTRACT(") + text::dateTimeFieldName(e.field) + " FROM ";
      print(*e.args[0], out);
      out += ")";
      return;
    }
    case ExprKind::Call:
      out += std::string(toString(e.func)) + "(";
      if (e.func == ScalarFunc::DateTrunc) {  // its unit by name, not its number
        out += std::string(text::dateTimeFieldName(static_cast<DateTimeField>(e.args[0]->value.asInt()))) + ", ";
        printList(e, 1, ", ", out);
      } else {
        printList(e, 0, ", ", out);
      }
      out += ")";
      return;
  }
  out += "?";
}

}  // namespace

std::string toString(const Expr& e) {
  std::string out;
  print(e, out);
  return out;
}

int32_t floatFnOf(ScalarFunc f) {
  using math::FloatFn;
  switch (f) {
    case ScalarFunc::Exp: return static_cast<int32_t>(FloatFn::Exp);
    case ScalarFunc::Ln: return static_cast<int32_t>(FloatFn::Ln);
    case ScalarFunc::Log10: return static_cast<int32_t>(FloatFn::Log10);
    case ScalarFunc::LogBase: return static_cast<int32_t>(FloatFn::LogBase);
    case ScalarFunc::Cbrt: return static_cast<int32_t>(FloatFn::Cbrt);
    default: return -1;
  }
}

int32_t textFnOf(ScalarFunc f) {
  using textfn::TextFn;
  switch (f) {
    case ScalarFunc::Repeat: return static_cast<int32_t>(TextFn::Repeat);
    case ScalarFunc::Reverse: return static_cast<int32_t>(TextFn::Reverse);
    case ScalarFunc::Initcap: return static_cast<int32_t>(TextFn::Initcap);
    case ScalarFunc::Translate: return static_cast<int32_t>(TextFn::Translate);
    case ScalarFunc::Overlay: return static_cast<int32_t>(TextFn::Overlay);
    case ScalarFunc::Md5: return static_cast<int32_t>(TextFn::Md5);
    case ScalarFunc::ToHex32: return static_cast<int32_t>(TextFn::ToHex32);
    case ScalarFunc::ToHex64: return static_cast<int32_t>(TextFn::ToHex64);
    case ScalarFunc::RegexpReplace: return static_cast<int32_t>(TextFn::RegexpReplace);
    default: return -1;
  }
}

int32_t justifyOf(ScalarFunc f) {
  using text::Justify;
  return static_cast<int32_t>(f == ScalarFunc::JustifyDays    ? Justify::Days
                              : f == ScalarFunc::JustifyHours ? Justify::Hours
                                                              : Justify::Both);
}

const char* toString(ScalarFunc f) {
  switch (f) {
    case ScalarFunc::Substring: return "substring";
    case ScalarFunc::Upper: return "upper";
    case ScalarFunc::Lower: return "lower";
    case ScalarFunc::CharLength: return "char_length";
    case ScalarFunc::OctetLength: return "octet_length";
    case ScalarFunc::Ascii: return "ascii";
    case ScalarFunc::Position: return "position";
    case ScalarFunc::TrimBoth: return "btrim";
    case ScalarFunc::TrimLeading: return "ltrim";
    case ScalarFunc::TrimTrailing: return "rtrim";
    case ScalarFunc::RoundDouble: return "round";
    case ScalarFunc::FloorDouble:
    case ScalarFunc::FloorDecimal: return "floor";
    case ScalarFunc::CeilDouble:
    case ScalarFunc::CeilDecimal: return "ceil";
    case ScalarFunc::Sqrt: return "sqrt";
    case ScalarFunc::Power: return "power";
    case ScalarFunc::CurrentDate: return "current_date";
    case ScalarFunc::CurrentTimestamp: return "current_timestamp";
    case ScalarFunc::Replace: return "replace";
    case ScalarFunc::LeftPad: return "lpad";
    case ScalarFunc::RightPad: return "rpad";
    case ScalarFunc::SplitPart: return "split_part";
    case ScalarFunc::Chr: return "chr";
    case ScalarFunc::Repeat: return "repeat";
    case ScalarFunc::Reverse: return "reverse";
    case ScalarFunc::Initcap: return "initcap";
    case ScalarFunc::Translate: return "translate";
    case ScalarFunc::Overlay: return "overlay";
    case ScalarFunc::Md5: return "md5";
    case ScalarFunc::ToHex32:
    case ScalarFunc::ToHex64: return "to_hex";
    case ScalarFunc::RegexpReplace: return "regexp_replace";
    case ScalarFunc::StartsWith: return "starts_with";
    case ScalarFunc::RegexMatch: return "regex_match";
    case ScalarFunc::RegexMatchInsensitive: return "regex_match_insensitive";
    case ScalarFunc::CurrentSetting: return "current_setting";
    case ScalarFunc::Exp: return "exp";
    case ScalarFunc::Ln: return "ln";
    case ScalarFunc::Log10: return "log";
    case ScalarFunc::LogBase: return "log";
    case ScalarFunc::Cbrt: return "cbrt";
    case ScalarFunc::TruncDouble:
    case ScalarFunc::TruncScaled: return "trunc";
    case ScalarFunc::RoundScaled: return "round";
    case ScalarFunc::DivTruncated: return "div";
    case ScalarFunc::Gcd: return "gcd";
    case ScalarFunc::Lcm: return "lcm";
    case ScalarFunc::Greatest: return "greatest";
    case ScalarFunc::Least: return "least";
    case ScalarFunc::DateTrunc: return "date_trunc";
    case ScalarFunc::MakeDate: return "make_date";
    case ScalarFunc::MakeTime: return "make_time";
    case ScalarFunc::MakeTimestamp: return "make_timestamp";
    case ScalarFunc::JustifyDays: return "justify_days";
    case ScalarFunc::JustifyHours: return "justify_hours";
    case ScalarFunc::JustifyInterval: return "justify_interval";
    case ScalarFunc::Age: return "age";
    case ScalarFunc::ArrayAppend: return "array_append";
    case ScalarFunc::ArrayPrepend: return "array_prepend";
    case ScalarFunc::ArrayCat: return "array_cat";
    case ScalarFunc::ArrayToString: return "array_to_string";
    case ScalarFunc::ArrayElement: return "array_element";
    case ScalarFunc::Cardinality: return "cardinality";
    case ScalarFunc::ArrayAny: return "array_any";
    case ScalarFunc::ArraySort: return "array_sort";
  }
  return "?";
}

}  // namespace hyrax::plan

namespace hyrax::plan {

bool sameExpr(const Expr& a, const Expr& b) {
  checkStackDepth();
  if (a.kind != b.kind || !a.type.sameAs(b.type) || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
    case ExprKind::Column:
      if (a.iu != b.iu) return false;
      break;
    case ExprKind::Parameter:
      if (a.param != b.param) return false;
      break;
    case ExprKind::RoutineCall:
    case ExprKind::SequenceCall: return false;  // may write, and runs once where it stands
    case ExprKind::Constant:
      if (a.value.isNull() != b.value.isNull()) return false;
      if (!a.value.isNull() && a.value.toString() != b.value.toString()) return false;
      break;
    case ExprKind::Arith:
      if (a.arith != b.arith) return false;
      break;
    case ExprKind::Compare:
      if (a.cmp != b.cmp) return false;
      break;
    case ExprKind::Extract:
      if (a.field != b.field) return false;
      break;
    case ExprKind::Call:
      if (a.func != b.func) return false;
      break;
    default:
      if (a.negated != b.negated || a.hasElse != b.hasElse) return false;
  }
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!sameExpr(*a.args[i], *b.args[i])) return false;
  return true;
}

}  // namespace hyrax::plan
