// UPDATE, DELETE and the CHECK constraints every write evaluates: plans whose rows say which table
// rows change and to what. The plan computes everything before a single row is written (so a
// statement that reads the table it changes sees it as it was), and sql/api applies the rows.
#include <algorithm>

#include "engine/catalog/catalog.hpp"
#include "engine/storage/table.hpp"
#include "sql/parser/parser.hpp"
#include "sql/semantic/binder.hpp"
#include "sql/semantic/column_names.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprPtr;
using plan::OperatorPtr;

ExprPtr assignTo(ExprPtr e, const ColumnDef& column, SourcePos pos) {
  if (!castable(e->type, column.type))
    throw Error(sqlstate::DatatypeMismatch, "column \"" + column.name + "\" is of type " + column.type.name() +
                                                " but expression is of type " + e->type.name(), pos);
  return castTo(std::move(e), column.type.withNullable(true));
}

ExprPtr defaultOf(const ColumnDef& column, SourcePos pos) {
  if (column.defaultNow) {  // the transaction's time, read when the row is computed
    auto now = std::make_unique<Expr>(plan::ExprKind::Call, SqlType::timestamp(false), pos);
    now->func = plan::ScalarFunc::CurrentTimestamp;
    return castTo(std::move(now), column.type.withNullable(true));
  }
  if (column.defaultSequence) {  // nextval, taken when the row is computed
    auto next = std::make_unique<Expr>(plan::ExprKind::SequenceCall, SqlType::int64(false), pos);
    next->sequence = column.defaultSequence;
    return castTo(std::move(next), column.type.withNullable(true));
  }
  return Expr::constant(column.defaultValue ? *column.defaultValue : Value::null(column.type.withNullable(true)), pos);
}

OperatorPtr SelectBinder::bindTarget(Table& table, const std::string& alias, const ast::Expr* where,
                                     const plan::IU*& rowNumber, std::vector<const plan::IU*>& columns) {
  auto scan = std::make_unique<plan::TableScan>();
  scan->table = &table;
  scan->alias = alias;
  ScopeEntry entry{alias, {}, {}};
  const auto& cols = table.columns();
  for (uint32_t i = 0; i < cols.size(); ++i) {
    const plan::IU* iu = plan_.ius.make(cols[i].type, cols[i].name);
    scan->columns.push_back({i, iu});
    entry.columns.push_back({cols[i].name, iu});
    columns.push_back(iu);
  }
  rowNumber = plan_.ius.make(SqlType::int64(false), "row_number");
  scan->columns.push_back({plan::TableScan::kRowNumber, rowNumber});
  scope_.push_back(std::move(entry));
  OperatorPtr op = std::move(scan);
  if (where) op = addFilter(std::move(op), *where, Clause::Where, "WHERE");
  return op;
}

ExprPtr SelectBinder::bindOver(OperatorPtr& input, const ast::Expr& e, Clause clause) {
  plan::OperatorPtr* saved = input_;
  input_ = &input;
  ExprPtr r = bindExpr(e, clause);
  input_ = saved;
  return r;
}

ExprPtr bindCheck(Catalog& catalog, plan::QueryPlan& plan, const std::vector<ColumnDef>& columns,
                  const std::vector<const plan::IU*>& values, const ast::Expr& check) {
  SelectBinder b(catalog, plan);
  ScopeEntry entry;
  for (size_t i = 0; i < columns.size(); ++i) entry.columns.push_back({columns[i].name, values[i]});
  b.addScope(std::move(entry));
  ExprPtr e = b.bindExpr(check, Clause::Check);
  requireBoolean(*e, "CHECK");
  return e;
}

void addCheckOutputs(Catalog& catalog, plan::QueryPlan& plan, const Table& table, const std::vector<const plan::IU*>& values) {
  if (table.checks().empty()) return;
  auto map = std::make_unique<plan::Map>();
  for (auto& c : table.checks()) {
    ast::StatementPtr parsed = parseStatement("SELECT " + c.sql);
    const auto& item = *static_cast<const ast::SelectStmt&>(*parsed).select->items[0].expr;
    ExprPtr e = bindCheck(catalog, plan, table.columns(), values, item);
    const plan::IU* iu = plan.ius.make(e->type, c.name);
    map->computed.push_back({iu, std::move(e)});
    plan.output.push_back(iu);
    plan.outputNames.push_back(c.name);
  }
  map->children.push_back(std::move(plan.root));
  plan.root = std::move(map);
}

void Binder::bindUpdate(const ast::UpdateStmt& stmt, BoundWrite& out) {
  Table* t = catalog_.findTable(stmt.table);
  if (!t) throw Error(sqlstate::UndefinedTable, "relation \"" + stmt.table + "\" does not exist", stmt.tablePos);
  out.table = t;
  const auto& cols = t->columns();
  SelectBinder b(catalog_, out.plan);
  const plan::IU* rowNumber;
  std::vector<const plan::IU*> newRow;  // the new value of each table column: the old one unless SET
  OperatorPtr op = b.bindTarget(*t, stmt.alias.empty() ? stmt.table : stmt.alias, stmt.where.get(), rowNumber, newRow);

  out.plan.output.push_back(rowNumber);
  out.plan.outputNames.push_back("row_number");
  auto map = std::make_unique<plan::Map>();
  std::vector<ExprPtr> values;
  for (auto& a : stmt.set) {
    auto it = std::find_if(cols.begin(), cols.end(), [&](auto& c) { return c.name == a.column; });
    if (it == cols.end())
      throw Error(sqlstate::UndefinedColumn, "column \"" + a.column + "\" of relation \"" + stmt.table + "\" does not exist", a.pos);
    uint32_t idx = static_cast<uint32_t>(it - cols.begin());
    if (std::find(out.columns.begin(), out.columns.end(), idx) != out.columns.end())
      throw Error(sqlstate::DuplicateColumn, "multiple assignments to same column \"" + a.column + "\"", a.pos);
    out.columns.push_back(idx);
    // Subqueries in SET join onto the target rows, like those of a select list.
    if (!a.value && it->sequence)
      throw Error(sqlstate::FeatureNotSupported, "SET " + a.column + " = DEFAULT for an identity column", a.pos);
    ExprPtr e = a.value ? b.bindOver(op, *a.value, Clause::Select) : defaultOf(*it, a.pos);
    values.push_back(assignTo(std::move(e), *it, a.value ? a.value->pos : a.pos));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const plan::IU* iu = out.plan.ius.make(values[i]->type, cols[out.columns[i]].name);
    map->computed.push_back({iu, std::move(values[i])});
    out.plan.output.push_back(iu);
    out.plan.outputNames.push_back(iu->name);
    newRow[out.columns[i]] = iu;
  }
  map->children.push_back(std::move(op));
  out.plan.root = std::move(map);
  resolveParameters(out.plan);
  addCheckOutputs(catalog_, out.plan, *t, newRow);
  bindReturning(stmt.returning, stmt.alias.empty() ? stmt.table : stmt.alias, out);
}

void Binder::bindDelete(const ast::DeleteStmt& stmt, BoundWrite& out) {
  Table* t = catalog_.findTable(stmt.table);
  if (!t) throw Error(sqlstate::UndefinedTable, "relation \"" + stmt.table + "\" does not exist", stmt.tablePos);
  out.table = t;
  SelectBinder b(catalog_, out.plan);
  const plan::IU* rowNumber;
  std::vector<const plan::IU*> columns;
  out.plan.root = b.bindTarget(*t, stmt.alias.empty() ? stmt.table : stmt.alias, stmt.where.get(), rowNumber, columns);
  out.plan.output.push_back(rowNumber);
  out.plan.outputNames.push_back("row_number");
  resolveParameters(out.plan);
  bindReturning(stmt.returning, stmt.alias.empty() ? stmt.table : stmt.alias, out);
}

OperatorPtr SelectBinder::bindReturningList(OperatorPtr input, const std::vector<ast::SelectItem>& items,
                                            std::vector<const plan::IU*>& output, std::vector<std::string>& names) {
  auto map = std::make_unique<plan::Map>();
  auto add = [&](ExprPtr e, std::string name) {
    const plan::IU* iu = e->kind == plan::ExprKind::Column ? e->iu : nullptr;
    if (!iu) {
      iu = plan_.ius.make(e->type, name);
      map->computed.push_back({iu, std::move(e)});
    }
    output.push_back(iu);
    names.push_back(std::move(name));
  };
  for (auto& item : items) {
    if (item.expr->kind != ast::ExprKind::Star) {
      add(bindOver(input, *item.expr, Clause::Returning), item.alias.empty() ? defaultColumnName(*item.expr) : item.alias);
      continue;
    }
    const ScopeEntry& target = scope_.front();
    if (!item.expr->table.empty() && item.expr->table != target.alias)
      throw Error(sqlstate::UndefinedTable, "missing FROM-clause entry for table \"" + item.expr->table + "\"", item.pos);
    for (auto& [name, iu] : target.columns) add(Expr::column(iu, item.pos), name);
  }
  if (map->computed.empty()) return input;
  map->children.push_back(std::move(input));
  return map;
}

// RETURNING runs after the write, over a table of the rows it wrote (sql/api fills it): so it
// shows what was stored (serial numbers, defaults, values as their column's type keeps them), and
// the write's own code is the same with RETURNING or without. A subquery reading the target would
// see the table after the write (PostgreSQL's sees it before): 0A000.
void Binder::bindReturning(const std::vector<ast::SelectItem>& items, const std::string& alias, BoundWrite& out) {
  if (items.empty()) return;
  std::vector<ColumnDef> columns;
  for (const ColumnDef& c : out.table->columns()) columns.push_back({c.name, c.type});
  auto rows = std::make_shared<Table>(out.table->name(), std::move(columns));
  out.returning = std::make_unique<plan::QueryPlan>();
  plan::QueryPlan& r = *out.returning;
  r.parameters = out.plan.parameters;
  r.ownedTables.push_back(rows);
  SelectBinder b(catalog_, r);
  const plan::IU* rowNumber;
  std::vector<const plan::IU*> values;
  OperatorPtr scan = b.bindTarget(*rows, alias, nullptr, rowNumber, values);
  r.root = b.bindReturningList(std::move(scan), items, r.output, r.outputNames);
  for (Table* t : plan::tablesScanned(*r.root))
    if (t == out.table)
      throw Error(sqlstate::FeatureNotSupported, "a subquery in RETURNING that reads \"" + t->name() + "\" is not supported",
                  items.front().pos);
  resolveParameters(r);
  // $n first used in RETURNING: the write's plan takes the same values.
  if (r.parameters.size() > out.plan.parameters.size()) out.plan.parameters.resize(r.parameters.size(), SqlType::null());
  for (size_t i = 0; i < r.parameters.size(); ++i)
    if (out.plan.parameters[i].isNull()) out.plan.parameters[i] = r.parameters[i];
}

void Binder::bindCheckRows(Table& table, uint64_t firstRow, plan::QueryPlan& out) {
  SelectBinder b(catalog_, out);
  const plan::IU* rowNumber;
  std::vector<const plan::IU*> columns;
  OperatorPtr scan = b.bindTarget(table, table.name(), nullptr, rowNumber, columns);
  auto filter = std::make_unique<plan::Filter>();
  filter->predicate = std::make_unique<Expr>(plan::ExprKind::Compare, SqlType::boolean(false));
  filter->predicate->cmp = plan::CmpOp::Ge;
  filter->predicate->args.push_back(Expr::column(rowNumber));
  filter->predicate->args.push_back(Expr::constant(Value::int64(static_cast<int64_t>(firstRow))));
  filter->children.push_back(std::move(scan));
  out.root = std::move(filter);
  out.output.push_back(rowNumber);
  out.outputNames.push_back("row_number");
  addCheckOutputs(catalog_, out, table, columns);
}

}  // namespace hyrax::sql
