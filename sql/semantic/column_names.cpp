// PostgreSQL's rule for unaliased output columns (its FigureColname): a name is strong (a column,
// a function) or weak (CASE, ARRAY, a type); a CAST of something with no strong name is named
// after its type.
#include "sql/semantic/column_names.hpp"

#include "sql/semantic/system_catalog.hpp"

namespace hyrax::sql {
namespace {

constexpr const char* kNoName = "?column?";

struct Name {
  std::string text;
  bool strong;
};

Name nameOf(const ast::Expr& e) {
  using ast::ExprKind;
  switch (e.kind) {
    case ExprKind::Column: return {e.name, true};
    case ExprKind::Function:
      if (e.name == "trim" && !e.unit.empty())  // TRIM(LEADING ...) is PostgreSQL's ltrim(...)
        return {e.unit == "leading" ? "ltrim" : e.unit == "trailing" ? "rtrim" : "btrim", true};
      return {e.name, true};
    case ExprKind::Cast: {
      Name inner = nameOf(*e.args[0]);
      if (inner.strong) return inner;
      return {pgType(e.type.id).typname, false};
    }
    case ExprKind::TypedLiteral: return {pgType(e.type.id).typname, false};
    case ExprKind::Case: return {"case", false};
    case ExprKind::Exists: return {"exists", true};
    case ExprKind::Binary:  // (a, b) OVERLAPS (c, d) is PostgreSQL's overlaps(a, b, c, d)
      if (e.op == "overlaps") return {"overlaps", true};
      return {kNoName, false};
    case ExprKind::Array: return {"array", false};
    case ExprKind::Subscript: return nameOf(*e.args[0]);  // a[i] is named as a
    case ExprKind::FieldSelect: return {e.name, true};
    case ExprKind::Subquery:  // named after the subquery's one column
      if (e.subquery->items.size() == 1) {
        const auto& item = e.subquery->items[0];
        if (!item.alias.empty()) return {item.alias, true};
        Name inner = nameOf(*item.expr);
        return {inner.text, inner.text != kNoName};
      }
      return {kNoName, false};
    default: return {kNoName, false};
  }
}

}  // namespace

std::string defaultColumnName(const ast::Expr& e) { return nameOf(e).text; }

}  // namespace hyrax::sql
