#pragma once
// Statements that change the catalog: CREATE/DROP TABLE, VIEW and INDEX. Each logs how to revert
// itself in the transaction's undo log, so DDL inside BEGIN ... ROLLBACK is undone too; a dropped
// table is kept until the transaction commits.
#include <functional>

#include "sql/api/database.hpp"
#include "sql/parser/ast.hpp"
#include "sql/semantic/binder.hpp"

namespace hyrax {
class Catalog;
class Table;
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

// ALTER TABLE (alter_table.cpp): its actions in order, each undone with the transaction.
// `firstRow` runs a query (SQL text) and says whether it found a row: how a new CHECK or FOREIGN
// KEY is checked against the rows the table holds.
QueryResult alterTable(Catalog& catalog, UndoLog& undo, ast::AlterTableStmt& stmt,
                       const std::function<bool(const std::string& sql)>& firstRow);

// A table's foreign keys, in and out of their referenced tables' back-references (ddl.cpp).
void linkReferences(Table& t);
void unlinkReferences(Table& t);
// Adds the FOREIGN KEY `r` of table `t` (not yet linked); 42P01, 42703, 42830, 42804 as PostgreSQL.
void addForeignKey(Catalog& catalog, Table& t, const TableDefinition::Reference& r);
// Table `owner` keeps the foreign keys `keep` says yes to; the others are dropped, undone with
// the transaction (its deque is replaced whole, since other tables point into it).
void keepForeignKeys(UndoLog& undo, Table& owner, const std::function<bool(const ForeignKey&)>& keep);
// After a DROP (of a table, view or column): views are text, bound where used, so each is bound
// again; one that no longer binds makes the statement fail with 2BP01 ("cannot drop <object>
// because other objects depend on it"), or with CASCADE goes too, with a NOTICE in `result`.
void dropBrokenViews(Catalog& catalog, UndoLog& undo, bool cascade, const std::string& object, SourcePos pos,
                     QueryResult& result);
// The first view (by name) whose query no longer binds; empty when every one does.
std::string firstBrokenView(Catalog& catalog);

}  // namespace hyrax::sql
