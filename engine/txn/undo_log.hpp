#pragma once
// The undo log of one transaction: what each write changed, so that ROLLBACK, and a statement that
// fails half-way, can put everything back, indexes included. Entries are undone in reverse order,
// so each one sees the table exactly as it was just after its change:
//   Insert  rows [row, row+count) were appended      -> unindex them, truncate
//   Delete  row `row` was removed (the last row moved into it; its old values are kept here)
//           -> move the row now there back to the end, restore the old values, index both
//   Update  one column of one row was overwritten (old value kept)  -> restore it
//   Action  anything else (DDL): a function that reverts it
// Old values are kept in physical form; a long string's characters stay in the table's heap,
// which only grows, so the saved StringRef stays valid.
#include <cstdint>
#include <functional>
#include <vector>

namespace hyrax {

class Table;

class UndoLog {
 public:
  void logInsert(Table& table, uint64_t firstRow, uint64_t count);
  void logDelete(Table& table, uint64_t row);  // call before the row is removed
  void logUpdate(Table& table, uint64_t row, uint32_t column);  // call before the value changes
  // DDL: `undo` reverts it. What it captures lives until the transaction ends (a dropped table is
  // kept alive that way, and freed at COMMIT).
  void logAction(std::function<void()> undo);

  size_t size() const { return entries_.size(); }
  // When the transaction began (microseconds since 1970, UTC): CURRENT_TIMESTAMP for each of its
  // statements, handed to their QueryContexts (the session stamps it as a transaction begins).
  void beginTransactionAt(int64_t micros) { transactionTime_ = micros; }
  int64_t transactionTime() const { return transactionTime_; }
  // Where a statement begins: rollbackTo(savepoint()) undoes exactly what came after.
  size_t savepoint() {
    sealed_ = entries_.size();
    return sealed_;
  }
  // Undoes the entries after the first `keep`, newest first.
  void rollbackTo(size_t keep);
  // Forgets everything (the transaction committed).
  void commit();

 private:
  int64_t transactionTime_ = 0;
  enum class Kind : uint8_t { Insert, Delete, Update, Action };
  struct Entry {
    Kind kind;
    uint32_t column;
    Table* table;
    uint64_t row;
    uint64_t count;   // Insert: rows; Delete/Update: offset of the saved value(s) in data_
  };
  using Action = std::function<void()>;
  void saveValue(Table& table, uint64_t row, uint32_t column);
  void undo(const Entry& e);
  std::vector<Entry> entries_;
  std::vector<uint8_t> data_;  // saved values: 16 bytes each, then one NULL byte
  std::vector<Action> actions_;
  size_t sealed_ = 0;  // entries before this belong to an earlier savepoint: never merged into
};

}  // namespace hyrax
