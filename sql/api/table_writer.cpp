#include "sql/api/table_writer.hpp"

#include <unordered_set>

#include "engine/storage/table.hpp"
#include "sql/api/compiled_statement.hpp"
#include "sql/optimizer/optimizer.hpp"
#include "sql/semantic/binder.hpp"
#include "engine/txn/table_ops.hpp"
#include "engine/types/string_ref.hpp"
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
  if (t.isString() && t.length && static_cast<const StringRef*>(value)->len > t.length)
    throw Error(sqlstate::StringTooLong, "value too long for type " + t.name());
}

uint64_t rowNumber(const ResultChunk& chunk, uint64_t r) { return chunk.get<uint64_t>(r, 0); }

}  // namespace

void requireChecks(const Table& table, const ResultChunk& chunk, uint64_t r, uint32_t first, uint64_t row) {
  for (uint32_t k = 0; k < table.checks().size(); ++k) {
    if (chunk.isNull(r, first + k) || chunk.get<uint8_t>(r, first + k)) continue;
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

namespace {

InsertTargets insertTargets(const Table& table, const std::vector<uint32_t>& columnOf) {
  const auto& cols = table.columns();
  InsertTargets t;
  t.columns.resize(cols.size());
  t.sourceColumns = static_cast<uint32_t>(columnOf.size());
  for (size_t i = 0; i < columnOf.size(); ++i) t.columns[columnOf[i]].src = static_cast<int>(i);
  for (uint32_t c = 0; c < cols.size(); ++c) {
    InsertTargets::Target& x = t.columns[c];
    x.width = cols[c].type.byteWidth();
    x.maxLength = cols[c].type.isString() ? cols[c].type.length : 0;
    x.notNull = !cols[c].type.nullable;
    x.sequence = cols[c].sequence != nullptr;
    if (x.src < 0 && x.notNull && !x.sequence && t.missingNotNull < 0) t.missingNotNull = static_cast<int>(c);
  }
  return t;
}

}  // namespace

const InsertTargets& insertTargetsOf(CompiledStatement& insert) {
  if (!insert.insertTargets) insert.insertTargets = std::make_shared<InsertTargets>(insertTargets(*insert.table, insert.columns));
  return *insert.insertTargets;
}

uint64_t insertRows(UndoLog& undo, Table& table, const Chunks& chunks, const InsertTargets& targets) {
  if (targets.missingNotNull >= 0) notNullViolation(table, static_cast<uint32_t>(targets.missingNotNull));
  const auto& cols = table.columns();
  const uint64_t before = table.rowCount();
  try {
    for (auto& chunk : chunks) {
      const ResultChunkView& v = chunk->view();
      for (uint64_t r = 0; r < v.count; ++r) {
        // Each value is checked as it is written (checkValue words the error); a failed check
        // throws and the truncate below takes the row back (a long string may leave its
        // characters in the heap, unreferenced).
        uint64_t row = table.beginRow();
        for (uint32_t c = 0; c < cols.size(); ++c) {
          const InsertTargets::Target& t = targets.columns[c];
          static const uint64_t zero[2] = {0, 0};
          if (t.src < 0) {
            if (!t.sequence) {
              table.setValue(row, c, zero, true);
              continue;
            }
            uint64_t next = 0;  // SERIAL / IDENTITY left out: the next number
            nextSequenceValue(*cols[c].sequence, cols[c].type, cols[c].name, &next);
            table.setValue(row, c, &next, false);
            continue;
          }
          bool isNull = v.nulls[t.src][r] != 0;
          const void* value = isNull ? static_cast<const void*>(zero) : static_cast<const char*>(v.columns[t.src]) + r * t.width;
          if (isNull ? t.notNull : t.maxLength && static_cast<const StringRef*>(value)->len > t.maxLength)
            checkValue(table, c, value, isNull);  // throws
          table.setValue(row, c, value, isNull);
        }
        requireChecks(table, *chunk, r, targets.sourceColumns, row);
      }
    }
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

uint64_t updateRows(UndoLog& undo, Table& table, const Chunks& chunks, const txn::UpdateBatch& prototype) {
  txn::UpdateBatch batch = prototype;
  const auto& columns = batch.columns;
  boost::container::small_vector<const void*, 16> values(columns.size());
  boost::container::small_vector<bool, 16> nulls(columns.size() + 1);
  // A row is updated once, whatever joins did (one row, the usual case, needs no set).
  std::unordered_set<uint64_t> seen;
  bool single = chunks.size() == 1 && chunks[0]->rowCount() == 1;
  for (auto& chunk : chunks) {
    for (uint64_t r = 0; r < chunk->rowCount(); ++r) {
      uint64_t row = rowNumber(*chunk, r);
      if (!single && !seen.insert(row).second) continue;
      for (size_t i = 0; i < columns.size(); ++i) {
        uint32_t src = static_cast<uint32_t>(1 + i);
        nulls[i] = chunk->isNull(r, src);
        values[i] = chunk->at(r, src);
        checkValue(table, columns[i], values[i], nulls[i]);
      }
      txn::updateRow(undo, table, batch, row, values.data(), nulls.data());
      requireChecks(table, *chunk, r, static_cast<uint32_t>(1 + columns.size()), row);
    }
  }
  txn::finishUpdate(table, batch);
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
        for (uint64_t r = 0; r < chunk->rowCount(); ++r) requireChecks(table, *chunk, r, 1, rowNumber(*chunk, r));
    } catch (...) {
      table.truncate(first);  // nothing indexed or logged yet
      throw;
    }
  }
  txn::finishAppend(undo, table, first);
}

uint64_t deleteRows(UndoLog& undo, Table& table, const Chunks& chunks) {
  std::vector<uint64_t> rows;
  std::unordered_set<uint64_t> seen;
  bool single = chunks.size() == 1 && chunks[0]->rowCount() == 1;
  for (auto& chunk : chunks)
    for (uint64_t r = 0; r < chunk->rowCount(); ++r)
      if (single || seen.insert(rowNumber(*chunk, r)).second) rows.push_back(rowNumber(*chunk, r));
  txn::deleteRows(undo, table, rows);
  return rows.size();
}

}  // namespace hyrax::sql
