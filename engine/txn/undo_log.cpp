#include "engine/txn/undo_log.hpp"

#include "engine/storage/table.hpp"
#include "engine/txn/table_ops.hpp"

namespace hyrax {

void UndoLog::logInsert(Table& table, uint64_t firstRow, uint64_t count) {
  // Consecutive appends to one table (INSERT row by row) share an entry.
  if (entries_.size() > sealed_) {
    Entry& last = entries_.back();
    if (last.kind == Kind::Insert && last.table == &table && last.row + last.count == firstRow) {
      last.count += count;
      return;
    }
  }
  entries_.push_back({Kind::Insert, 0, &table, firstRow, count});
}

void UndoLog::logDelete(Table& table, uint64_t row) {
  uint64_t offset = data_.size();
  const uint32_t columns = static_cast<uint32_t>(table.columns().size());
  data_.resize(data_.size() + columns * txn::kSavedValueBytes);
  for (uint32_t c = 0; c < columns; ++c) txn::saveValue(table, row, c, &data_[offset + c * txn::kSavedValueBytes]);
  entries_.push_back({Kind::Delete, 0, &table, row, offset});
}

void UndoLog::logUpdate(Table& table, uint64_t row, uint32_t column) {
  uint64_t offset = data_.size();
  data_.resize(data_.size() + txn::kSavedValueBytes);
  txn::saveValue(table, row, column, &data_[offset]);
  entries_.push_back({Kind::Update, column, &table, row, offset});
}

void UndoLog::logAction(std::function<void()> undo) {
  actions_.push_back(std::move(undo));
  entries_.push_back({Kind::Action, 0, nullptr, 0, actions_.size() - 1});
}

void UndoLog::undo(const Entry& e) {
  switch (e.kind) {
    case Kind::Insert: txn::unindexAndTruncate(*e.table, e.row); break;
    case Kind::Delete: txn::reinsertRow(*e.table, e.row, &data_[e.count]); break;
    case Kind::Update: txn::restoreValue(*e.table, e.row, e.column, &data_[e.count]); break;
    case Kind::Action: actions_[e.count](); break;
  }
}

void UndoLog::rollbackTo(size_t keep) {
  while (entries_.size() > keep) {
    Entry e = entries_.back();
    undo(e);
    entries_.pop_back();
    if (e.kind == Kind::Action) actions_.pop_back();
    else if (e.kind != Kind::Insert) data_.resize(e.count);
  }
  if (sealed_ > keep) sealed_ = keep;
}

void UndoLog::commit() {
  entries_.clear();
  data_.clear();
  actions_.clear();
  sealed_ = 0;
}

}  // namespace hyrax
