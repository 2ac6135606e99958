#pragma once
// Every change to a table's rows goes through here: the rows, their indexes and the undo log move
// together, and PRIMARY KEY / UNIQUE / FOREIGN KEY constraints are checked. (NOT NULL, lengths and
// CHECK are checked by sql/ before values arrive, since they need the statement's types.)
// A function that throws may leave the statement's earlier changes in place, all logged: the
// caller rolls the undo log back to where the statement began, which is how a failed statement
// leaves nothing behind.
#include <cstdint>
#include <memory>
#include <vector>

#include <boost/container/small_vector.hpp>

namespace hyrax {

class Index;
class Table;
class UndoLog;

namespace txn {

// Rows [first, table.rowCount()) were just appended (INSERT, COPY): indexes them and checks
// UNIQUE and FOREIGN KEY. On a violation removes them again (nothing is logged) and throws
// 23505 / 23503; otherwise logs one Insert entry.
void finishAppend(UndoLog& undo, Table& table, uint64_t first);

// Deletes the rows (any order, no duplicates): each hole is filled by the table's last row.
// Afterwards checks that no FOREIGN KEY still references a deleted key (23503).
// Refused (0A000) inside a stored function that a query calls per row (QueryRowsPinned): the
// query holds row numbers, and moving a row under it would make it read or write the wrong row,
// or a chunk no longer there.
void deleteRows(UndoLog& undo, Table& table, std::vector<uint64_t> rows);

// Held by the runtime while generated code's query calls a stored function for a row.
class QueryRowsPinned {
 public:
  QueryRowsPinned() { ++depth_; }
  ~QueryRowsPinned() { --depth_; }
  QueryRowsPinned(const QueryRowsPinned&) = delete;
  QueryRowsPinned& operator=(const QueryRowsPinned&) = delete;
  static bool active() { return depth_ > 0; }

 private:
  static thread_local int depth_;
};

// Overwrites `columns` of `row` with `values[i]` (physical representation, `nulls[i]`). Call
// finishUpdate once all rows of the statement are written; only then are UNIQUE and FOREIGN KEY
// checked, so `SET id = id + 1` works whatever order the rows come in.
// Inline capacity for the usual OLTP statement (a few columns of one row): no allocation.
struct UpdateBatch {
  boost::container::small_vector<uint32_t, 8> columns;
  boost::container::small_vector<uint64_t, 4> rows;
  boost::container::small_vector<Index*, 4> touched;  // indexes over an updated column
};
UpdateBatch beginUpdate(Table& table, const std::vector<uint32_t>& columns);
void updateRow(UndoLog& undo, Table& table, UpdateBatch& batch, uint64_t row, const void* const* values,
               const bool* nulls);
void finishUpdate(Table& table, UpdateBatch& batch);

// Building an index over existing rows (CREATE INDEX, a new UNIQUE): throws 23505 on duplicates.
void buildIndex(Table& table, Index& index);

// Low level, used by the undo log: no logging and no checks.
void unindexAndTruncate(Table& table, uint64_t first);       // undo of an append
void removeRow(Table& table, uint64_t row);                    // moves the last row into `row`
void reinsertRow(Table& table, uint64_t row, const uint8_t* saved);  // undo of removeRow
void restoreValue(Table& table, uint64_t row, uint32_t column, const uint8_t* saved);

// Saved values: 16 bytes of physical value then a NULL byte.
inline constexpr uint32_t kSavedValueBytes = 17;
void saveValue(const Table& table, uint64_t row, uint32_t column, uint8_t* out);

}  // namespace txn
}  // namespace hyrax
