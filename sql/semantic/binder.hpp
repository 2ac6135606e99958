#pragma once
// The binder: resolves names against the catalog and the query's scopes, types every expression
// (sql/semantic/type_rules) and turns a SELECT into a plan of codegen/plan operators:
//   FROM (scans, joins with their ON conditions as filters) -> WHERE filter -> aggregation ->
//   HAVING filter -> projection map -> DISTINCT -> sort -> limit.
// The optimizer then moves conditions down and turns equalities into hash-join keys.
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

// Column definitions and primary key of a CREATE TABLE, checked (duplicate names 42701, unknown
// key columns 42703).
struct TableDefinition {
  std::vector<ColumnDef> columns;
  std::vector<uint32_t> primaryKey;
};
TableDefinition bindCreateTable(const ast::CreateTableStmt& stmt);

// A query whose output rows go into `table`: output column i goes to table column columnOf[i],
// already converted to that column's type.
struct BoundInsert {
  Table* table = nullptr;
  std::vector<uint32_t> columnOf;
  plan::QueryPlan plan;
};

class Binder {
 public:
  explicit Binder(Catalog& catalog) : catalog_(catalog) {}

  void bindSelect(const ast::Select& select, plan::QueryPlan& out);
  void bindInsert(const ast::InsertStmt& stmt, BoundInsert& out);

 private:
  Catalog& catalog_;
};

}  // namespace hyrax::sql
