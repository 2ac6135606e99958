#pragma once
// A table: columns stored in chunks of fixed capacity, so appends never move data (snapshots and
// running scans stay valid). Fixed-width values in plain arrays; NULLs in a per-chunk bitmap per
// nullable column (bit set = NULL; no bitmap for NOT NULL columns); strings as StringRef whose long
// characters live in the table's string heap.
#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "engine/storage/constraints.hpp"
#include "engine/storage/statistics.hpp"
#include "engine/types/sql_type.hpp"
#include <optional>

#include "engine/types/string_ref.hpp"
#include "engine/types/value.hpp"

namespace hyrax {

// The counter of a SERIAL / IDENTITY column: the next value INSERT or COPY gives a row that leaves
// the column out. Not transactional (as in PostgreSQL): a rolled back insert leaves a gap.
struct ColumnSequence {
  int64_t next = 1;
  bool always = false;  // GENERATED ALWAYS AS IDENTITY: an INSERT may not give a value
};

struct Sequence;  // catalog/sequence.hpp

struct ColumnDef {
  std::string name;  // as declared (case preserved); lookups are case-insensitive unless quoted
  SqlType type;
  // DEFAULT: what INSERT and COPY put into the column when they leave it out (none: NULL). A
  // constant of the column's type, checked at CREATE TABLE.
  std::optional<Value> defaultValue = {};
  // DEFAULT CURRENT_TIMESTAMP / now() / LOCALTIMESTAMP / CURRENT_DATE (a DATE, TIMESTAMP or TIME
  // column): the time the inserting transaction began, taken when each row is written, never a
  // constant fixed at CREATE TABLE.
  bool defaultNow = false;
  std::shared_ptr<ColumnSequence> sequence = {};  // SERIAL / IDENTITY, else null
  // DEFAULT nextval('s') (an integer column): the sequence's next value for each row written; the
  // table holds the sequence, and DROP SEQUENCE refuses while it does (2BP01).
  std::shared_ptr<Sequence> defaultSequence = {};
};

// Writes the next value of a sequence in the physical form of integer type `t` (t.byteWidth()
// bytes at `out`); 2200H past the type's range.
void nextSequenceValue(ColumnSequence& seq, const SqlType& t, const std::string& column, void* out);
// `v` in the physical form of integer type `t` (no range check: the callers make it).
void storeInteger(int64_t v, const SqlType& t, void* out);

class StringHeap;  // storage/string_heap.hpp
class Index;       // index/index.hpp

class Table {
 public:
  static constexpr uint32_t kChunkRows = 1u << 16;

  Table(std::string name, std::vector<ColumnDef> columns, std::vector<uint32_t> primaryKey = {});
  ~Table();
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  const std::string& name() const { return name_; }
  const std::vector<ColumnDef>& columns() const { return columns_; }
  const std::vector<uint32_t>& primaryKey() const { return primaryKey_; }
  uint64_t rowCount() const { return rows_; }

  // Chunk access (what generated scans use, through engine/runtime). Inline, with valuePtr and
  // isNull: every row a transaction reads or writes goes through them, a column at a time.
  uint32_t chunkCount() const { return static_cast<uint32_t>(chunks_.size()); }
  uint32_t chunkRows(uint32_t chunk) const { return chunks_[chunk]->rows; }  // rows filled in it
  void* columnData(uint32_t chunk, uint32_t column) { return chunks_[chunk]->data[column]; }  // byteWidth() apart
  uint8_t* nullBitmap(uint32_t chunk, uint32_t column) { return chunks_[chunk]->nulls[column]; }  // nullptr: NOT NULL
  // The same without a call, for generated code: chunk k's memory starts at (*chunkBases())[k]
  // (the address chunkBases() returns stays fixed as chunks come and go); column c's values
  // start columnOffset(c) bytes into it, its NULL bitmap (nullable columns) nullOffset(c) bytes.
  char* const* const* chunkBases() const { return &chunkBase_; }
  size_t columnOffset(uint32_t column) const { return layout_[column].offset; }
  size_t nullOffset(uint32_t column) const { return layout_[column].nullOffset; }

  // Appending rows. Callers validate values first (types, NOT NULL, lengths); append copies long
  // strings into the string heap. Appends are undone by truncate(rowsBefore), which is how a failed
  // INSERT leaves the table exactly as it was.
  void appendRow(const Value* values);  // one Value per column, already of the column's type
  // Raw append of one value in physical representation (`src` points at byteWidth() bytes);
  // `beginRow()` reserves the row and returns its index; strings are copied into the heap.
  uint64_t beginRow();
  // `copyString` false: a long string's characters already live in this table's heap (a row
  // copied or an old value restored).
  void setValue(uint64_t row, uint32_t column, const void* src, bool isNull, bool copyString = true);
  // setValue for a row beginRow() just gave, inline (an INSERT's values, column by column):
  // `at` is slotOf(row); `src` nullptr for NULL; long strings are copied into the heap unless
  // `copyString` is false (setValue's).
  struct RowSlot {
    char* base;  // the row's chunk
    uint32_t r;  // the row in it
  };
  RowSlot slotOf(uint64_t row) const {
    return {static_cast<char*>(chunks_[row / kChunkRows]->mapping), static_cast<uint32_t>(row % kChunkRows)};
  }
  void put(RowSlot at, uint32_t column, const void* src, bool copyString = true) {
    ++changes_;
    const Layout& l = layout_[column];
    char* dst = at.base + l.offset + static_cast<size_t>(at.r) * l.width;
    if (!src) {
      assert(l.nullable && "callers check NOT NULL before they write a NULL");
      std::memset(dst, 0, l.width);
      at.base[l.nullOffset + (at.r >> 3)] |= static_cast<char>(1u << (at.r & 7));
    } else if (l.width == 16) {  // strings only
      StringRef s;
      std::memcpy(static_cast<void*>(&s), src, sizeof s);
      if (l.string && copyString && !s.isInline()) s = copyToHeap(s);
      std::memcpy(dst, &s, sizeof s);
    } else if (l.width == 8) {
      std::memcpy(dst, src, 8);
    } else if (l.width == 4) {
      std::memcpy(dst, src, 4);
    } else {
      std::memcpy(dst, src, l.width);
    }
  }
  // The same over a value a row holds already (an UPDATE's): its NULL bit is cleared first.
  void overwrite(RowSlot at, uint32_t column, const void* src, bool copyString = true) {
    const Layout& l = layout_[column];
    if (src && l.nullable) at.base[l.nullOffset + (at.r >> 3)] &= static_cast<char>(~(1u << (at.r & 7)));
    put(at, column, src, copyString);
  }
  // A value's physical bytes (its width of 16) and then, at out[16], whether it is NULL: the form
  // the undo log keeps (engine/txn). A NULL's bytes are left unwritten.
  void save(RowSlot at, uint32_t column, uint8_t* out) const {
    const Layout& l = layout_[column];
    bool null = l.nullable && ((at.base[l.nullOffset + (at.r >> 3)] >> (at.r & 7)) & 1);
    const char* v = at.base + l.offset + static_cast<size_t>(at.r) * l.width;
    if (!null) {
      if (l.width == 16) std::memcpy(out, v, 16);
      else if (l.width == 8) std::memcpy(out, v, 8);
      else if (l.width == 4) std::memcpy(out, v, 4);
      else std::memcpy(out, v, l.width);
    }
    out[16] = null;
  }
  // setValue for a row that may hold a value already (UPDATE, undo): also clears its NULL bit
  // (a new row's bits are clear already, so appends do not pay for it).
  void overwriteValue(uint64_t row, uint32_t column, const void* src, bool isNull, bool copyString = true);
  void truncate(uint64_t rows);
  // Copies every column of row `from` over row `to` (a delete moving the last row into a hole).
  void copyRow(uint64_t from, uint64_t to);

  // One value in physical representation, and its NULL flag.
  const void* valuePtr(uint64_t row, uint32_t column) const {
    const Chunk& c = *chunks_[row / kChunkRows];
    return static_cast<const char*>(c.data[column]) + (row % kChunkRows) * columns_[column].type.byteWidth();
  }
  bool isNull(uint64_t row, uint32_t column) const {
    const uint8_t* bitmap = chunks_[row / kChunkRows]->nulls[column];
    uint32_t r = static_cast<uint32_t>(row % kChunkRows);
    return bitmap && ((bitmap[r >> 3] >> (r & 7)) & 1);
  }

  Value getValue(uint64_t row, uint32_t column) const;  // for tests and tools, not hot paths

  // Writes so far (values put, rows begun or truncated, columns replaced): what ascends() keys
  // its answers by, so that no write can leave a stale one.
  uint64_t changes() const { return changes_; }
  // Whether a column's values never fall from one row to the next, none of them NULL (TPC-H's
  // lineitem, loaded in l_orderkey's order): then each value's rows are one run, and the query
  // driver gives each run to one thread. Integers, decimals, dates, times and booleans (whose
  // bytes compare as their values do); false for other types. A pass over the column the first
  // time it is asked after a write (column_order.cpp), the answer kept until the next one.
  bool ascends(uint32_t column) const;
  // For a column that ascends: the first row at or after `row` that begins a run of equal values
  // (row 0 does; rowCount() when no row at or after `row` does).
  uint64_t runStart(uint32_t column, uint64_t row) const;

  StringHeap& heap() { return *heap_; }
  // Keeps the long strings' characters alive: a result whose strings point into them holds it, so
  // that they outlive a DROP TABLE committed before the result is read (a server sends a result
  // after its statement's turn, when another session's statements run).
  std::shared_ptr<void> stringsKeeper() const { return heap_; }

  // Indexes (the PRIMARY KEY's and UNIQUE constraints' among them, named after the constraint)
  // and constraints. engine/txn/table_ops keeps the indexes in step with the rows.
  const std::vector<std::unique_ptr<Index>>& indexes() const { return indexes_; }
  Index* findIndex(const std::string& name) const;
  Index& addIndex(std::unique_ptr<Index> index);
  std::unique_ptr<Index> removeIndex(const std::string& name);
  std::vector<CheckConstraint>& checks() { return checks_; }
  const std::vector<CheckConstraint>& checks() const { return checks_; }
  // Foreign keys this table declares, and those of other tables that point at it.
  // (A deque: other tables point at these entries, so they must not move.)
  std::deque<ForeignKey>& foreignKeys() { return foreignKeys_; }
  const std::deque<ForeignKey>& foreignKeys() const { return foreignKeys_; }
  std::vector<const ForeignKey*>& referencedBy() { return referencedBy_; }
  const std::vector<const ForeignKey*>& referencedBy() const { return referencedBy_; }

  // ALTER TABLE. The table's columns become `columns` (and its primary key `primaryKey`): new
  // column i holds old column from[i]'s values, or NULLs / zeros where from[i] is kNewColumn (the
  // caller fills those). Rows keep their numbers and long strings stay in the same heap, so
  // nothing is copied but the columns' arrays. The storage before comes back, kept whole, for
  // restoreStorage (the ALTER's undo). A value going from nullable to NOT NULL must not be NULL
  // (the caller checks). Indexes read columns by position: the caller builds them anew.
  static constexpr int64_t kNewColumn = -1;
  struct Storage;
  std::shared_ptr<Storage> replaceColumns(std::vector<ColumnDef> columns, std::vector<uint32_t> primaryKey,
                                          const std::vector<int64_t>& from);
  void restoreStorage(const std::shared_ptr<Storage>& before);
  // ALTER TABLE ... RENAME (the catalog, which finds tables by name, is the caller's to update).
  void rename(std::string name) { name_ = std::move(name); }
  void renameColumn(uint32_t column, std::string name) { columns_[column].name = std::move(name); }
  // A column's DEFAULT (ALTER COLUMN SET / DROP DEFAULT: the same column, another default).
  void setColumnDefault(uint32_t column, const ColumnDef& withDefault);
  // All indexes at once (ALTER TABLE builds them anew, in the same order); the ones before return.
  std::vector<std::unique_ptr<Index>> swapIndexes(std::vector<std::unique_ptr<Index>> indexes);

  // The optimizer's statistics (statistics.hpp), or nullptr before the first ANALYZE / COPY.
  const TableStatistics* statistics() const { return stats_.get(); }
  void setStatistics(TableStatistics s) { stats_ = std::make_shared<const TableStatistics>(std::move(s)); }
  void clearStatistics() { stats_.reset(); }

 private:
  // Where each column lives in a chunk (its values, then every nullable column's NULL bitmap),
  // made once by the constructor: chunks, put() and generated code all follow it.
  struct Layout {
    size_t offset, nullOffset;  // nullOffset: nullable columns only
    uint32_t width;
    bool string, nullable;
  };
  // A chunk's columns (then their NULL bitmaps) are slices of one private anonymous mapping
  // (table.cpp says why).
  struct Chunk {
    std::vector<void*> data;
    std::vector<uint8_t*> nulls;  // nullptr for NOT NULL columns
    void* mapping = nullptr;
    size_t bytes = 0;
    uint32_t rows = 0;
    Chunk(const std::vector<Layout>& layout, size_t bytes, bool huge);
    ~Chunk();
    Chunk(const Chunk&) = delete;
    Chunk& operator=(const Chunk&) = delete;
  };
  std::string name_;
  std::vector<ColumnDef> columns_;
  std::vector<uint32_t> primaryKey_;
  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::vector<Layout> layout_;
  size_t chunkBytes_ = 0;
  StringRef copyToHeap(StringRef s);
  std::vector<char*> bases_;      // each chunk's mapping, as generated code finds it
  char** chunkBase_ = nullptr;    // bases_.data()
  std::shared_ptr<StringHeap> heap_;
  uint64_t rows_ = 0;
  uint64_t changes_ = 0;
  // ascends()'s answers, a word per column: (changes_ + 1) << 1 when it was found, and the answer
  // in bit 0; zero before the first. Atomic: two threads may ask at once.
  mutable std::vector<std::atomic<uint64_t>> ascends_;
  void forgetOrder() { ascends_ = std::vector<std::atomic<uint64_t>>(columns_.size()); }
  std::shared_ptr<const TableStatistics> stats_;
  std::vector<std::unique_ptr<Index>> indexes_;
  std::vector<CheckConstraint> checks_;
  std::deque<ForeignKey> foreignKeys_;
  std::vector<const ForeignKey*> referencedBy_;
};

}  // namespace hyrax
