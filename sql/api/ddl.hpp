#pragma once
// Statements that change the catalog: CREATE/DROP TABLE, VIEW and INDEX. Each logs how to revert
// itself in the transaction's undo log, so DDL inside BEGIN ... ROLLBACK is undone too; a dropped
// table is kept until the transaction commits.
#include <functional>

#include "sql/api/database.hpp"
#include "sql/parser/ast.hpp"

namespace hyrax {
class Catalog;
class UndoLog;
}  // namespace hyrax

namespace hyrax::sql {

QueryResult createTable(Catalog& catalog, UndoLog& undo, const ast::CreateTableStmt& stmt);
// CREATE TABLE ... AS query: a table with the query's columns (its names, or the statement's;
// its types, every column nullable, an untyped NULL as TEXT), filled by `fill` running the
// INSERT ... SELECT it is handed, unless WITH NO DATA. Tag "SELECT n" as PostgreSQL's.
QueryResult createTableAs(Catalog& catalog, UndoLog& undo, ast::CreateTableStmt& stmt,
                          const std::function<QueryResult(const ast::InsertStmt&)>& fill);
QueryResult createView(Catalog& catalog, UndoLog& undo, const ast::CreateViewStmt& stmt);
QueryResult createIndex(Catalog& catalog, UndoLog& undo, const ast::CreateIndexStmt& stmt);
// REINDEX: indexes are kept up to date by every write, so nothing is rebuilt; the name must exist.
QueryResult reindex(const Catalog& catalog, const ast::ReindexStmt& stmt);
QueryResult createSequence(Catalog& catalog, UndoLog& undo, const ast::CreateSequenceStmt& stmt);
QueryResult dropObjects(Catalog& catalog, UndoLog& undo, const ast::DropTableStmt& stmt);  // tables, views, indexes, sequences

}  // namespace hyrax::sql
