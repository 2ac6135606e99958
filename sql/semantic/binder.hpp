#pragma once
// The binder: resolves names against the catalog and the query's scopes, types every expression
// (sql/semantic/type_rules) and turns a SELECT into a logical plan of codegen/plan operators:
//   FROM (scans, logical joins with their ON conditions as filters) -> WHERE filter ->
//   aggregation -> HAVING filter -> projection map -> DISTINCT -> sort -> limit.
// The optimizer then moves conditions down and turns equalities into join keys; its physical
// planner picks each join's algorithm.
#include <set>
#include <string>
#include <vector>

#include "codegen/plan/operator.hpp"
#include "engine/storage/table.hpp"
#include "sql/parser/ast.hpp"

namespace hyrax {
class Catalog;
class Table;
}

namespace hyrax::sql {

// Column definitions and constraints of a CREATE TABLE, checked (duplicate names 42701, unknown
// key columns 42703, CHECK expressions bound) and named as PostgreSQL names them (t_pkey,
// t_a_key, t_a_check, t_a_fkey). Foreign keys are resolved by sql/api once the table exists (it
// may reference itself).
struct TableDefinition {
  std::vector<ColumnDef> columns;
  std::vector<uint32_t> primaryKey;
  struct Key {
    std::string name;
    std::vector<uint32_t> columns;
  };
  std::vector<Key> keys;  // the PRIMARY KEY first, then UNIQUE constraints: each gets an index
  std::vector<CheckConstraint> checks;
  struct Reference {
    std::string name;
    std::vector<uint32_t> columns;
    std::string table;
    std::vector<std::string> refColumns;  // empty: the referenced table's primary key
    SourcePos pos;
    std::string onDelete;  // as in ast::TableConstraint
  };
  std::vector<Reference> references;
};
TableDefinition bindCreateTable(Catalog& catalog, const ast::CreateTableStmt& stmt);
// A column's DEFAULT or identity, as CREATE TABLE binds it: a constant of the column's type,
// nextval('s') or the clock, put into `column`.
void bindColumnDefault(Catalog& catalog, ColumnDef& column, const ast::ColumnDefinition& c);
// The same for ALTER TABLE ADD: `columns` appended to a table's `existing` ones (kept as they
// are), and `constraints` bound over them all, named apart from `takenNames` (the table's
// indexes and constraints); a PRIMARY KEY is 42P16 when `hasPrimaryKey`. The result holds all the
// columns, and the new keys, checks and references only.
TableDefinition bindTableDefinition(Catalog& catalog, const std::string& tableName, std::vector<ColumnDef> existing,
                                    const std::vector<ast::ColumnDefinition>& columns,
                                    const std::vector<ast::TableConstraint>& constraints, std::set<std::string> takenNames,
                                    bool hasPrimaryKey);

// Assignment of a value to a column (INSERT, UPDATE): the value converted to the column's type.
plan::ExprPtr assignTo(plan::ExprPtr e, const ColumnDef& column, SourcePos pos);
// The column's DEFAULT (NULL without one) as a constant.
plan::ExprPtr defaultOf(const ColumnDef& column, SourcePos pos);
// The plan's outputs: `values` converted to the targets' types (a Map over `op` where needed).
plan::OperatorPtr assignOutputs(plan::QueryPlan& plan, plan::OperatorPtr op, const std::vector<const plan::IU*>& values,
                                const std::vector<ColumnDef>& targets, SourcePos pos);
// A CHECK expression over a row whose column i is `values[i]`.
plan::ExprPtr bindCheck(Catalog& catalog, plan::QueryPlan& plan, const std::vector<ColumnDef>& columns,
                        const std::vector<const plan::IU*>& values, const ast::Expr& check);
// Adds one BOOLEAN output per CHECK constraint of `table` to the plan, over the new rows'
// `values` (one IU per table column). A row violates a constraint whose output is FALSE.
void addCheckOutputs(Catalog& catalog, plan::QueryPlan& plan, const Table& table,
                     const std::vector<const plan::IU*>& values);

// A write statement: its target and the plan whose rows say what to write.
//   INSERT  output i goes to table column columns[i], already of its type; then CHECK results
//   UPDATE  [row number, the new value of each of `columns`, CHECK results]
//   DELETE  [row number]
//   RETURNING  a query of its own (dml_binder.cpp: bindReturning) over `returning.ownedTables[0]`,
//              a table of the target's columns that the write fills with the rows it wrote, as
//              stored (DELETE: as they were), and that runs after the write
struct BoundWrite {
  Table* table = nullptr;
  std::vector<uint32_t> columns;
  plan::QueryPlan plan;
  std::unique_ptr<plan::QueryPlan> returning;  // null: no RETURNING
};

// Gives parameters of unknown type the type of where they are used; 42P18 when that says
// nothing (parameters.cpp). The binders of statements call it last.
void resolveParameters(plan::QueryPlan& plan);

class Binder {
 public:
  explicit Binder(Catalog& catalog) : catalog_(catalog) {}

  // Each binds a statement into a plan; `out.plan.parameters` may hold the declared types of
  // $1, $2 ... beforehand, and holds every parameter's type afterwards.

  void bindSelect(const ast::Select& select, plan::QueryPlan& out);
  // A SELECT whose first `targets.size()` outputs are assigned to variables of those types (a
  // stored procedure's SELECT INTO and assignments): converted as INSERT converts.
  void bindSelectInto(const ast::Select& select, const std::vector<ColumnDef>& targets, plan::QueryPlan& out);
  void bindInsert(const ast::InsertStmt& stmt, BoundWrite& out);
  void bindUpdate(const ast::UpdateStmt& stmt, BoundWrite& out);  // dml_binder.cpp
  void bindDelete(const ast::DeleteStmt& stmt, BoundWrite& out);
  // EXECUTE's arguments: constant expressions converted to the parameters' types (0A000 when one
  // is not constant).
  std::vector<Value> bindConstants(const std::vector<ast::ExprPtr>& exprs, const std::vector<SqlType>& types);
  // Values (the extended query protocol's parameters) CAST to the parameters' types as CAST
  // would (42846 where there is no cast); NULLs become NULLs of the type.
  std::vector<Value> castValues(const std::vector<Value>& values, const std::vector<SqlType>& types);
  // [row number, CHECK results] of the rows from `firstRow` on (rows COPY just loaded).
  void bindCheckRows(Table& table, uint64_t firstRow, plan::QueryPlan& out);

 private:
  // out.returning for RETURNING `items` of a write to out.table as `alias` (dml_binder.cpp).
  void bindReturning(const std::vector<ast::SelectItem>& items, const std::string& alias, BoundWrite& out);

  Catalog& catalog_;
};

}  // namespace hyrax::sql
