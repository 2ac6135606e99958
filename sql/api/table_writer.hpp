#pragma once
// Applies a write statement's computed rows to its table: INSERT appends them, UPDATE overwrites
// the rows they name, DELETE removes them. Values arrive already converted to the column types;
// here they are checked against NOT NULL, CHAR/VARCHAR lengths and the CHECK results the plan
// computed, and engine/txn/table_ops keeps indexes, keys and the undo log in step.
// On an error the statement's changes may be partly applied: the caller rolls the undo log back
// to the statement's savepoint.
#include <atomic>
#include <memory>
#include <vector>

#include "engine/runtime/result_chunk.hpp"

namespace hyrax {
class Catalog;
class RowWriter;
class Table;
class UndoLog;
}  // namespace hyrax

namespace hyrax::txn {
struct UpdateBatch;
}

namespace hyrax::sql {

struct CompiledStatement;
using Chunks = std::vector<std::unique_ptr<ResultChunk>>;

// What each column of a table takes from an INSERT's rows, worked out once per statement (a
// procedure's INSERT runs once per row it inserts). `columnOf[i]` is the table column that result
// column i goes to; columns not listed get NULL; CHECK results follow the columns.
struct InsertTargets {
  struct Target {
    int src = -1;            // the rows' column, or -1: NULL or the sequence's next value
    uint32_t maxLength = 0;  // CHAR(n) / VARCHAR(n): n, else 0
    bool notNull = false, sequence = false;
  };
  std::vector<Target> columns;    // one per table column
  uint32_t sourceColumns = 0;     // the rows' values; their CHECK results follow
  int missingNotNull = -1;        // a NOT NULL column the rows leave out: each run fails (23502)
};
const InsertTargets& insertTargetsOf(CompiledStatement& insert);  // made on its first run, then kept
uint64_t insertRows(UndoLog& undo, Table& table, const Chunks& chunks, const InsertTargets& targets);
// Rows are [row number, new value of each of the batch's columns, CHECK results]; `prototype`
// (txn::beginUpdate's, kept with the statement by updateBatchOf) names the SET columns and the
// indexes over them.
// `returned`: RETURNING's table (binder.hpp, BoundWrite), given the rows as they are after it.
uint64_t updateRows(UndoLog& undo, Table& table, const Chunks& chunks, const txn::UpdateBatch& prototype,
                    Table* returned = nullptr);
const txn::UpdateBatch& updateBatchOf(CompiledStatement& update);  // made on its first run, then kept
// Rows are [row number]. `returned`: RETURNING's table, given the rows as they were.
uint64_t deleteRows(UndoLog& undo, Table& table, const Chunks& chunks, Table* returned = nullptr);
// RETURNING's table (emptied first) gets a copy of `rows` of `table`; long strings stay in
// `table`'s heap (a result holds it: Table::stringsKeeper).
void copyReturnedRows(const Table& table, const std::vector<uint64_t>& rows, Table& returned);

// COPY appended rows [first, end): checks them against the CHECK constraints (by a compiled query
// over those rows), then keys and indexes, and logs them. On an error the table is as before.
void finishLoad(Catalog& catalog, UndoLog& undo, Table& table, uint64_t first, const std::atomic<bool>* cancel);

// A write that yields at most one row (an INSERT of one VALUES row; an UPDATE or DELETE of the
// row its table's unique index finds) gets a writer its generated code hands that row to
// (engine/runtime/row_writer.hpp): no result chunk, and the row's work done at once. Others get
// nullptr: they collect their rows first, so that none changes while the plan reads the table.
// Called on the optimized plan before code generation; the writer lives as long as the code.
std::unique_ptr<RowWriter> oneRowWriter(const CompiledStatement& write);

}  // namespace hyrax::sql
