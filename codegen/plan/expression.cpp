#include "codegen/plan/expression.hpp"

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

ExprPtr Expr::clone() const {
  auto e = std::make_unique<Expr>(kind, type, pos);
  e->iu = iu;
  e->value = value;
  e->arith = arith;
  e->cmp = cmp;
  e->negated = negated;
  e->hasElse = hasElse;
  e->field = field;
  e->func = func;
  e->param = param;
  e->name = name;
  for (auto& a : args) e->args.push_back(a->clone());
  return e;
}

void Expr::collectIUs(std::vector<const IU*>& out) const {
  if (kind == ExprKind::Column) out.push_back(iu);
  for (auto& a : args) a->collectIUs(out);
}

bool readsOnly(const Expr& e, const IURefs& set) {
  if (e.kind == ExprKind::Column && !set.count(e.iu)) return false;
  for (auto& a : e.args)
    if (!readsOnly(*a, set)) return false;
  return true;
}

bool readsAny(const Expr& e, const IURefs& set) {
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
std::string joined(const Expr& e, const char* sep) {
  std::string s = "(";
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (i) s += sep;
    s += toString(*e.args[i]);
  }
  return s + ")";
}
}  // namespace

std::string toString(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Column: return e.iu->name;
    case ExprKind::Parameter: return "$" + std::to_string(e.param + 1);
    case ExprKind::RoutineCall: {
      std::string s = e.name + "(";
      for (size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + toString(*e.args[i]);
      return s + ")";
    }
    case ExprKind::Constant:
      if (e.value.isNull()) return "NULL";
      if (e.type.isString()) return "'" + e.value.toString() + "'";
      if (e.type.isDateTime() || e.type.id == TypeId::Interval) return e.type.name() + " '" + e.value.toString() + "'";
      return e.value.toString();
    case ExprKind::Arith:
      return "(" + toString(*e.args[0]) + " " + toString(e.arith) + " " + toString(*e.args[1]) + ")";
    case ExprKind::Negate: return "-" + toString(*e.args[0]);
    case ExprKind::Compare:
      return toString(*e.args[0]) + " " + toString(e.cmp) + " " + toString(*e.args[1]);
    case ExprKind::And: return joined(e, " AND ");
    case ExprKind::Or: return joined(e, " OR ");
    case ExprKind::Not: return "NOT " + toString(*e.args[0]);
    case ExprKind::IsNull: return toString(*e.args[0]) + (e.negated ? " IS NOT NULL" : " IS NULL");
    case ExprKind::Like:
      return toString(*e.args[0]) + (e.negated ? " NOT LIKE " : " LIKE ") + toString(*e.args[1]);
    case ExprKind::InList: {
      std::string s = toString(*e.args[0]) + (e.negated ? " NOT IN (" : " IN (");
      for (size_t i = 1; i < e.args.size(); ++i) s += (i > 1 ? ", " : "") + toString(*e.args[i]);
      return s + ")";
    }
    case ExprKind::Case: {
      std::string s = "CASE";
      size_t pairs = (e.args.size() - (e.hasElse ? 1 : 0)) / 2;
      for (size_t i = 0; i < pairs; ++i)
        s += " WHEN " + toString(*e.args[2 * i]) + " THEN " + toString(*e.args[2 * i + 1]);
      if (e.hasElse) s += " ELSE " + toString(*e.args.back());
      return s + " END";
    }
    case ExprKind::Cast: return "CAST(" + toString(*e.args[0]) + " AS " + e.type.name() + ")";
    case ExprKind::Concat: return "(" + toString(*e.args[0]) + " || " + toString(*e.args[1]) + ")";
    case ExprKind::Extract: {
      return std::string("EXTRACT(") + text::dateTimeFieldName(e.field) + " FROM " + toString(*e.args[0]) + ")";
    }
    case ExprKind::Call: {
      std::string s = std::string(toString(e.func)) + "(";
      for (size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + toString(*e.args[i]);
      return s + ")";
    }
  }
  return "?";
}

const char* toString(ScalarFunc f) {
  switch (f) {
    case ScalarFunc::Substring: return "substring";
    case ScalarFunc::Upper: return "upper";
    case ScalarFunc::Lower: return "lower";
    case ScalarFunc::CharLength: return "char_length";
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
  }
  return "?";
}

}  // namespace hyrax::plan

namespace hyrax::plan {

bool sameExpr(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || !a.type.sameAs(b.type) || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
    case ExprKind::Column:
      if (a.iu != b.iu) return false;
      break;
    case ExprKind::Parameter:
      if (a.param != b.param) return false;
      break;
    case ExprKind::RoutineCall: return false;  // may write, and runs once where it stands
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
