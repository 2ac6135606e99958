// Whether two ASTs say the same thing, word for word (names, literals, operators, structure;
// positions aside): GROUP BY (SELECT ...) and the same subquery in the select list are one group.
#include "sql/parser/ast_equality.hpp"

#include "engine/util/stack_depth.hpp"

namespace hyrax::ast {

namespace {

template <typename T, typename F>
bool allEqual(const std::vector<T>& a, const std::vector<T>& b, F same) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i])) return false;
  return true;
}

bool optExpr(const ExprPtr& a, const ExprPtr& b) { return (!a && !b) || (a && b && sameAst(*a, *b)); }
bool optSelect(const std::unique_ptr<Select>& a, const std::unique_ptr<Select>& b) {
  return (!a && !b) || (a && b && sameAst(*a, *b));
}

bool sameRef(const TableRef& a, const TableRef& b) {
  checkStackDepth();
  return a.kind == b.kind && a.name == b.name && a.alias == b.alias && a.columnAliases == b.columnAliases &&
         a.joinType == b.joinType && a.usingColumns == b.usingColumns && a.natural == b.natural &&
         ((!a.left && !b.left) || (a.left && b.left && sameRef(*a.left, *b.left))) &&
         ((!a.right && !b.right) || (a.right && b.right && sameRef(*a.right, *b.right))) && optExpr(a.on, b.on) &&
         optSelect(a.subquery, b.subquery) && allEqual(a.args, b.args, optExpr);
}

}  // namespace

bool sameAst(const Expr& a, const Expr& b) {
  checkStackDepth();
  return a.kind == b.kind && a.table == b.table && a.name == b.name && a.op == b.op && a.text == b.text &&
         a.unit == b.unit && a.boolValue == b.boolValue && a.negated == b.negated && a.distinct == b.distinct &&
         a.star == b.star && a.filter == b.filter && a.hasOperand == b.hasOperand && a.hasElse == b.hasElse && a.type == b.type &&
         a.window == b.window && a.windowPartitions == b.windowPartitions && a.windowOrder == b.windowOrder &&
         a.windowFrame == b.windowFrame && a.windowStart == b.windowStart && a.windowEnd == b.windowEnd && a.argumentOrder == b.argumentOrder && allEqual(a.args, b.args, optExpr) && optSelect(a.subquery, b.subquery);
}

bool sameAst(const Select& a, const Select& b) {
  checkStackDepth();
  auto item = [](const SelectItem& x, const SelectItem& y) { return x.alias == y.alias && optExpr(x.expr, y.expr); };
  auto order = [](const OrderItem& x, const OrderItem& y) {
    return x.descending == y.descending && x.nullsFirst == y.nullsFirst && optExpr(x.expr, y.expr);
  };
  auto cte = [](const CommonTableExpr& x, const CommonTableExpr& y) {
    return x.name == y.name && x.columns == y.columns && optSelect(x.query, y.query);
  };
  auto row = [](const std::vector<ExprPtr>& x, const std::vector<ExprPtr>& y) { return allEqual(x, y, optExpr); };
  auto ref = [](const TableRefPtr& x, const TableRefPtr& y) { return x && y && sameRef(*x, *y); };
  return a.setOp == b.setOp && a.setAll == b.setAll && a.parenthesized == b.parenthesized && a.distinct == b.distinct &&
         allEqual(a.distinctOn, b.distinctOn, optExpr) && optSelect(a.left, b.left) && optSelect(a.right, b.right) && allEqual(a.with, b.with, cte) &&
         allEqual(a.items, b.items, item) && allEqual(a.values, b.values, row) && allEqual(a.from, b.from, ref) &&
         optExpr(a.where, b.where) && allEqual(a.groupBy, b.groupBy, optExpr) && optExpr(a.having, b.having) &&
         allEqual(a.orderBy, b.orderBy, order) && optExpr(a.limit, b.limit) && optExpr(a.offset, b.offset) &&
         a.into == b.into;
}

}  // namespace hyrax::ast
