#include "sql/api/table_writer.hpp"

#include <algorithm>
#include <unordered_set>

#include "engine/index/index.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/runtime/row_writer.hpp"
#include "engine/storage/table.hpp"
#include "sql/api/compiled_statement.hpp"
#include "sql/optimizer/optimizer.hpp"
#include "sql/semantic/binder.hpp"
#include "engine/txn/table_ops.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/types/utf8.hpp"
#include "engine/util/error.hpp"

namespace hyrax::sql {

namespace {

[[noreturn]] void notNullViolation(const Table& table, uint32_t c) {
  throw Error(sqlstate::NotNullViolation, "null value in column \"" + table.columns()[c].name + "\" of relation \"" +
                                              table.name() + "\" violates not-null constraint");
}

// NOT NULL and the length of CHAR(n) / VARCHAR(n) for one value headed for column `c`.
void checkValue(const Table& table, uint32_t c, const void* value, bool isNull) {
  const SqlType& t = table.columns()[c].type;
  if (isNull) {
    if (!t.nullable) notNullViolation(table, c);
    return;
  }
  if (t.isString() && t.length && longerThanChars(static_cast<const StringRef*>(value)->view(), t.length))
    throw Error(sqlstate::StringTooLong, "value too long for type " + t.name());
}

uint64_t rowNumber(const ResultChunk& chunk, uint64_t r) { return chunk.get<uint64_t>(r, 0); }

// One row of a write's values, value c at a time (a NULL's value bytes are not to be read): a
// result chunk's row, or the value slots a one-row write hands over
// (RowWriter). The functions below are templates over the two.
class ChunkRow {
 public:
  ChunkRow(const ResultChunk& chunk, uint64_t r) : chunk_(chunk), r_(r) {}
  bool isNull(uint32_t c) const { return chunk_.isNull(r_, c); }
  const void* value(uint32_t c) const { return chunk_.at(r_, c); }
  uint64_t rowNumber() const { return *static_cast<const uint64_t*>(value(0)); }  // UPDATE, DELETE

 private:
  const ResultChunk& chunk_;
  uint64_t r_;
};

class SlotRow {
 public:
  explicit SlotRow(const ValueSlot* slots) : slots_(slots) {}
  bool isNull(uint32_t c) const { return slots_[c].null != 0; }
  const void* value(uint32_t c) const { return slots_[c].bytes(); }
  uint64_t rowNumber() const { return *static_cast<const uint64_t*>(value(0)); }

 private:
  const ValueSlot* slots_;
};

// The CHECK results of one row (its values [first, first + table.checks().size())): throws 23514
// for a FALSE one, naming the constraint and showing `row` of the table.
template <typename SourceRow>
void requireChecks(const Table& table, const SourceRow& src, uint32_t first, uint64_t row) {
  for (uint32_t k = 0; k < table.checks().size(); ++k) {
    if (src.isNull(first + k) || *static_cast<const uint8_t*>(src.value(first + k))) continue;
    std::string values;
    for (uint32_t c = 0; c < table.columns().size(); ++c) {
      Value v = table.getValue(row, c);
      values += (c ? ", " : "") + (v.isNull() ? std::string("null") : v.toString());
    }
    throw Error(sqlstate::CheckViolation, "new row for relation \"" + table.name() + "\" violates check constraint \"" +
                                              table.checks()[k].name + "\"")
        .withDetail("Failing row contains (" + values + ").");
  }
}

InsertTargets insertTargets(const Table& table, const std::vector<uint32_t>& columnOf) {
  const auto& cols = table.columns();
  InsertTargets t;
  t.columns.resize(cols.size());
  t.sourceColumns = static_cast<uint32_t>(columnOf.size());
  for (size_t i = 0; i < columnOf.size(); ++i) t.columns[columnOf[i]].src = static_cast<int>(i);
  for (uint32_t c = 0; c < cols.size(); ++c) {
    InsertTargets::Target& x = t.columns[c];
    x.maxLength = cols[c].type.isString() ? cols[c].type.length : 0;
    x.notNull = !cols[c].type.nullable;
    x.sequence = cols[c].sequence != nullptr;
    if (x.src < 0 && x.notNull && !x.sequence && t.missingNotNull < 0) t.missingNotNull = static_cast<int>(c);
  }
  return t;
}

// Appends one row, each value checked as it is written (checkValue words the error). A failed
// check throws with the row appended, unindexed and unlogged: the caller truncates the table back
// (a long string may leave its characters in the heap, unreferenced).
template <typename SourceRow>
void appendRow(Table& table, const InsertTargets& targets, const SourceRow& src) {
  const auto& cols = table.columns();
  uint64_t row = table.beginRow();
  Table::RowSlot at = table.slotOf(row);
  for (uint32_t c = 0; c < cols.size(); ++c) {
    const InsertTargets::Target& t = targets.columns[c];
    if (t.src < 0) {
      if (!t.sequence) {
        table.put(at, c, nullptr);  // (a NOT NULL column left out failed the statement already)
        continue;
      }
      uint64_t next[2] = {0, 0};  // SERIAL / IDENTITY left out: the next number (a value slot's size)
      nextSequenceValue(*cols[c].sequence, cols[c].type, cols[c].name, next);
      table.put(at, c, next);
      continue;
    }
    uint32_t from = static_cast<uint32_t>(t.src);
    const void* value = src.isNull(from) ? nullptr : src.value(from);
    if (!value ? t.notNull : t.maxLength && static_cast<const StringRef*>(value)->len > t.maxLength)
      checkValue(table, c, value, !value);  // throws
    table.put(at, c, value);
  }
  requireChecks(table, src, targets.sourceColumns, row);
}

// Overwrites the row an UPDATE's values name ([row number, new value of each SET column, CHECK
// results]), logged; a CHECK that fails throws after the row changed (the undo log has it).
template <typename SourceRow>
void updateRow(UndoLog& undo, Table& table, txn::UpdateBatch& batch, const SourceRow& src) {
  const auto& columns = batch.columns;
  boost::container::small_vector<const void*, 16> values(columns.size());
  boost::container::small_vector<bool, 16> nulls(columns.size() + 1);
  uint64_t row = src.rowNumber();
  for (size_t i = 0; i < columns.size(); ++i) {
    uint32_t from = static_cast<uint32_t>(1 + i);
    nulls[i] = src.isNull(from);
    values[i] = src.value(from);
    checkValue(table, columns[i], values[i], nulls[i]);
  }
  txn::updateRow(undo, table, batch, row, values.data(), nulls.data());
  requireChecks(table, src, static_cast<uint32_t>(1 + columns.size()), row);
}

// One-row writes (row_writer.hpp): all of a row's work is done by write(), finishing checks
// included, since no other row of the statement can follow.
class InsertWriter final : public RowWriter {
 public:
  InsertWriter(Table& table, InsertTargets targets) : table_(table), targets_(std::move(targets)) {}
  void write(QueryContext& ctx, const ValueSlot* row) override {
    if (targets_.missingNotNull >= 0) notNullViolation(table_, static_cast<uint32_t>(targets_.missingNotNull));
    const uint64_t before = table_.rowCount();
    try {
      appendRow(table_, targets_, SlotRow(row));
    } catch (...) {
      table_.truncate(before);  // nothing indexed or logged yet
      throw;
    }
    txn::finishAppend(ctx.undo(), table_, before);
  }

 private:
  Table& table_;
  const InsertTargets targets_;
};

class UpdateWriter final : public RowWriter {
 public:
  UpdateWriter(Table& table, txn::UpdateBatch prototype) : table_(table), batch_(std::move(prototype)) {}
  void write(QueryContext& ctx, const ValueSlot* row) override {
    batch_.rows.clear();  // a failed write may have left its row
    updateRow(ctx.undo(), table_, batch_, SlotRow(row));
    txn::finishUpdate(table_, batch_);
  }

 private:
  Table& table_;
  txn::UpdateBatch batch_;
};

class DeleteWriter final : public RowWriter {
 public:
  explicit DeleteWriter(Table& table) : table_(table) {}
  void write(QueryContext& ctx, const ValueSlot* row) override { txn::deleteRows(ctx.undo(), table_, {SlotRow(row).rowNumber()}); }

 private:
  Table& table_;
};

}  // namespace

const InsertTargets& insertTargetsOf(CompiledStatement& insert) {
  if (!insert.insertTargets) insert.insertTargets = std::make_shared<InsertTargets>(insertTargets(*insert.table, insert.columns));
  return *insert.insertTargets;
}

std::unique_ptr<RowWriter> oneRowWriter(const CompiledStatement& write) {
  if (!write.table) return nullptr;
  const plan::Operator* op = write.plan.root.get();
  while (op->kind == plan::OpKind::Map || op->kind == plan::OpKind::Filter) op = op->children[0].get();
  if (write.kind == ast::StmtKind::Insert) {
    if (op->kind != plan::OpKind::Values || static_cast<const plan::Values&>(*op).rows.size() != 1) return nullptr;
    return std::make_unique<InsertWriter>(*write.table, insertTargets(*write.table, write.columns));
  }
  if (op->kind != plan::OpKind::TableScan) return nullptr;
  auto& scan = static_cast<const plan::TableScan&>(*op);
  if (scan.table != write.table || !scan.pointLookup() || !scan.index->unique()) return nullptr;
  if (write.kind == ast::StmtKind::Update)
    return std::make_unique<UpdateWriter>(*write.table, txn::beginUpdate(*write.table, write.columns));
  if (write.kind == ast::StmtKind::Delete) return std::make_unique<DeleteWriter>(*write.table);
  return nullptr;
}

uint64_t insertRows(UndoLog& undo, Table& table, const Chunks& chunks, const InsertTargets& targets) {
  if (targets.missingNotNull >= 0) notNullViolation(table, static_cast<uint32_t>(targets.missingNotNull));
  const uint64_t before = table.rowCount();
  try {
    for (auto& chunk : chunks)
      for (uint64_t r = 0; r < chunk->rowCount(); ++r) appendRow(table, targets, ChunkRow(*chunk, r));
  } catch (...) {
    table.truncate(before);  // nothing indexed or logged yet
    throw;
  }
  txn::finishAppend(undo, table, before);
  return table.rowCount() - before;
}

const txn::UpdateBatch& updateBatchOf(CompiledStatement& update) {
  if (!update.updateBatch) update.updateBatch = std::make_shared<txn::UpdateBatch>(txn::beginUpdate(*update.table, update.columns));
  return *update.updateBatch;
}

uint64_t updateRows(UndoLog& undo, Table& table, const Chunks& chunks, const txn::UpdateBatch& prototype,
                    Table* returned) {
  txn::UpdateBatch batch = prototype;
  // A row is updated once, whatever joins did: the rows so far are searched while few (an
  // order's lines), then hashed.
  constexpr size_t kFew = 32;
  boost::container::small_vector<uint64_t, kFew> few;
  std::unordered_set<uint64_t> many;
  auto firstTime = [&](uint64_t row) {
    if (!many.empty()) return many.insert(row).second;
    if (std::find(few.begin(), few.end(), row) != few.end()) return false;
    if (few.size() < kFew) {
      few.push_back(row);
      return true;
    }
    many.insert(few.begin(), few.end());
    return many.insert(row).second;
  };
  for (auto& chunk : chunks)
    for (uint64_t r = 0; r < chunk->rowCount(); ++r)
      if (firstTime(rowNumber(*chunk, r))) updateRow(undo, table, batch, ChunkRow(*chunk, r));
  txn::finishUpdate(table, batch);
  if (returned) copyReturnedRows(table, {batch.rows.begin(), batch.rows.end()}, *returned);
  return batch.rows.size();
}

void finishLoad(Catalog& catalog, UndoLog& undo, Table& table, uint64_t first, const std::atomic<bool>* cancel) {
  if (!table.checks().empty()) {
    try {
      plan::QueryPlan check;
      Binder(catalog).bindCheckRows(table, first, check);
      optimize(check);
      PhaseTimes ignored;
      Execution ex = compileAndRun(check, {}, cancel, ignored);
      for (auto& chunk : ex.ctx->takeResults())
        for (uint64_t r = 0; r < chunk->rowCount(); ++r) requireChecks(table, ChunkRow(*chunk, r), 1, rowNumber(*chunk, r));
    } catch (...) {
      table.truncate(first);  // nothing indexed or logged yet
      throw;
    }
  }
  txn::finishAppend(undo, table, first);
}

uint64_t deleteRows(UndoLog& undo, Table& table, const Chunks& chunks, Table* returned) {
  std::vector<uint64_t> rows;
  std::unordered_set<uint64_t> seen;
  bool single = chunks.size() == 1 && chunks[0]->rowCount() == 1;
  for (auto& chunk : chunks)
    for (uint64_t r = 0; r < chunk->rowCount(); ++r)
      if (single || seen.insert(rowNumber(*chunk, r)).second) rows.push_back(rowNumber(*chunk, r));
  if (returned) copyReturnedRows(table, rows, *returned);
  txn::deleteRows(undo, table, rows);
  return rows.size();
}

void copyReturnedRows(const Table& table, const std::vector<uint64_t>& rows, Table& returned) {
  returned.truncate(0);
  const uint32_t columns = static_cast<uint32_t>(table.columns().size());
  for (uint64_t row : rows) {
    Table::RowSlot at = returned.slotOf(returned.beginRow());
    for (uint32_t c = 0; c < columns; ++c)
      returned.put(at, c, table.isNull(row, c) ? nullptr : table.valuePtr(row, c), /*copyString=*/false);
  }
}

}  // namespace hyrax::sql
