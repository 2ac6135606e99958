#include "engine/txn/table_ops.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "engine/index/index.hpp"
#include "engine/storage/table.hpp"
#include "engine/txn/undo_log.hpp"
#include "engine/types/timestamp.hpp"
#include "engine/util/error.hpp"

namespace hyrax::txn {

namespace {

std::string columnList(const Table& t, const std::vector<uint32_t>& cols) {
  std::string s;
  for (size_t i = 0; i < cols.size(); ++i) s += (i ? ", " : "") + t.columns()[cols[i]].name;
  return s;
}

bool hasNull(const Table& t, const std::vector<uint32_t>& cols, uint64_t row) {
  for (uint32_t c : cols)
    if (t.isNull(row, c)) return true;
  return false;
}

// The key of `row` in `cols`, laid out as a probe key; it also serves the other side of a foreign
// key, whose columns have the same physical types (checked when it was declared).
std::vector<uint8_t> keyOf(const Table& t, const std::vector<uint32_t>& cols, uint64_t row) {
  std::vector<uint8_t> key;
  for (uint32_t c : cols) {
    auto* p = static_cast<const uint8_t*>(t.valuePtr(row, c));
    key.insert(key.end(), p, p + t.columns()[c].type.byteWidth());
  }
  return key;
}

// "Key (a, b)=(1, x)" as PostgreSQL writes it in DETAIL lines, from a key laid out as keyOf's
// (made only for an error, so a row that is gone can still be named).
std::string keyText(const Table& t, const std::vector<uint32_t>& cols, const uint8_t* key) {
  std::string v;
  for (size_t i = 0; i < cols.size(); ++i) {
    const SqlType& type = t.columns()[cols[i]].type;
    v += (i ? ", " : "") + Value::decode(type, key).toString();
    key += type.byteWidth();
  }
  return "Key (" + columnList(t, cols) + ")=(" + v + ")";
}

std::string keyText(const Table& t, const std::vector<uint32_t>& cols, uint64_t row) {
  return keyText(t, cols, keyOf(t, cols, row).data());
}

Error uniqueViolation(const Table& t, const Index& index, uint64_t row) {
  return Error(sqlstate::UniqueViolation, "duplicate key value violates unique constraint \"" + index.name() + "\"")
      .withDetail(keyText(t, index.columns(), row) + " already exists.");
}

// Is there a row of `t` whose `cols` equal `key`? Through an index on exactly those columns when
// there is one, else by a scan.
bool anyRowWithKey(const Table& t, const std::vector<uint32_t>& cols, const uint8_t* key) {
  for (auto& idx : t.indexes())
    if (idx->columns() == cols) return idx->findFirst(key) != kNoRow;
  IndexKey k(t, cols);
  for (uint64_t r = 0; r < t.rowCount(); ++r)
    if (!k.rowHasNull(r) && k.rowEqualsProbe(r, key)) return true;
  return false;
}

void checkReferencedKeyExists(const Table& t, const ForeignKey& fk, uint64_t row) {
  if (hasNull(t, fk.columns, row)) return;  // MATCH SIMPLE: a NULL column means no reference
  std::vector<uint8_t> key = keyOf(t, fk.columns, row);
  if (!anyRowWithKey(*fk.referenced, fk.referencedColumns, key.data()))
    throw Error(sqlstate::ForeignKeyViolation,
                "insert or update on table \"" + t.name() + "\" violates foreign key constraint \"" + fk.name + "\"")
        .withDetail(keyText(t, fk.columns, row) + " is not present in table \"" + fk.referenced->name() + "\".");
}

// The rows whose `cols` hold `key` (an index over exactly those columns finds them, else a scan).
std::vector<uint64_t> rowsWithKey(const Table& t, const std::vector<uint32_t>& cols, const uint8_t* key) {
  std::vector<uint64_t> rows;
  for (auto& idx : t.indexes())
    if (idx->columns() == cols) {
      idx->forEachEqual(key, [&](uint64_t r) { rows.push_back(r); });
      return rows;
    }
  IndexKey k(t, cols);
  for (uint64_t r = 0; r < t.rowCount(); ++r)
    if (!k.rowHasNull(r) && k.rowEqualsProbe(r, key)) rows.push_back(r);
  return rows;
}

// After a referenced key went away (DELETE): is it still referenced?
void checkNotReferenced(const Table& t, const ForeignKey& fk, const std::vector<uint8_t>& key) {
  if (anyRowWithKey(t, fk.referencedColumns, key.data())) return;  // another row still has the key
  if (anyRowWithKey(*fk.referencing, fk.columns, key.data()))
    throw Error(sqlstate::ForeignKeyViolation, "update or delete on table \"" + t.name() +
                                                   "\" violates foreign key constraint \"" + fk.name + "\" on table \"" +
                                                   fk.referencing->name() + "\"")
        .withDetail(keyText(t, fk.referencedColumns, key.data()) + " is still referenced from table \"" +
                    fk.referencing->name() + "\".");
}

}  // namespace

void saveValue(const Table& table, uint64_t row, uint32_t column, uint8_t* out) {
  // A NULL's value bytes are never read back (restoreValue writes the NULL), nor those past the
  // column's width: only what is read is written.
  table.save(table.slotOf(row), column, out);
}

void unindexAndTruncate(Table& table, uint64_t first) {
  for (uint64_t r = table.rowCount(); r-- > first;)
    for (auto& idx : table.indexes()) idx->erase(r);
  table.truncate(first);
}

void finishAppend(UndoLog& undo, Table& table, uint64_t first) {
  const uint64_t end = table.rowCount();
  if (end == first) return;
  size_t doneIndexes = 0;
  uint64_t doneRows = first;  // rows of index `doneIndexes` inserted so far
  try {
    for (; doneIndexes < table.indexes().size(); ++doneIndexes) {
      Index& idx = *table.indexes()[doneIndexes];
      for (doneRows = first; doneRows < end; ++doneRows) {
        uint64_t other = idx.insert(doneRows);
        if (other != kNoRow) throw uniqueViolation(table, idx, doneRows);
      }
    }
    for (auto& fk : table.foreignKeys())
      for (uint64_t r = first; r < end; ++r) checkReferencedKeyExists(table, fk, r);
  } catch (...) {
    for (size_t i = 0; i <= doneIndexes && i < table.indexes().size(); ++i) {
      uint64_t upTo = i < doneIndexes ? end : doneRows;
      for (uint64_t r = first; r < upTo; ++r) table.indexes()[i]->erase(r);
    }
    table.truncate(first);
    throw;
  }
  undo.logInsert(table, first, end - first);
}

void removeRow(Table& table, uint64_t row) {
  uint64_t last = table.rowCount() - 1;
  for (auto& idx : table.indexes()) idx->erase(row);
  if (row != last) {
    for (auto& idx : table.indexes()) idx->relocate(last, row);
    table.copyRow(last, row);
  }
  table.truncate(last);
}

void reinsertRow(Table& table, uint64_t row, const uint8_t* saved) {
  uint64_t end = table.beginRow();
  if (row != end) {
    for (auto& idx : table.indexes()) idx->relocate(row, end);
    table.copyRow(row, end);
  }
  for (uint32_t c = 0; c < table.columns().size(); ++c) {
    const uint8_t* v = saved + c * kSavedValueBytes;
    table.overwriteValue(row, c, v, v[16] != 0, false);
  }
  for (auto& idx : table.indexes()) idx->insert(row, true);
}

void restoreValue(Table& table, uint64_t row, uint32_t column, const uint8_t* saved) {
  for (auto& idx : table.indexes())
    if (idx->covers(column)) idx->erase(row);
  table.overwriteValue(row, column, saved, saved[16] != 0, false);
  for (auto& idx : table.indexes())
    if (idx->covers(column)) idx->insert(row, true);
}

thread_local int QueryRowsPinned::depth_ = 0;

void deleteRows(UndoLog& undo, Table& table, std::vector<uint64_t> rows) {
  if (QueryRowsPinned::active() && !rows.empty())
    throw Error(sqlstate::FeatureNotSupported, "cannot delete rows of \"" + table.name() +
                                                   "\" in a function called by a query")
        .withDetail("The query holds rows a DELETE would move. Call the function alone (SELECT f(...) or CALL).");
  // Largest first: the last row moved into a hole is then never one still to be deleted.
  std::sort(rows.begin(), rows.end(), std::greater<>());
  struct Gone {
    const ForeignKey* fk;
    std::vector<uint8_t> key;
  };
  std::vector<Gone> gone;
  for (uint64_t r : rows) {
    for (const ForeignKey* fk : table.referencedBy())
      if (!hasNull(table, fk->referencedColumns, r))
        gone.push_back({fk, keyOf(table, fk->referencedColumns, r)});
    undo.logDelete(table, r);
    removeRow(table, r);
  }
  for (auto& g : gone) {
    const ForeignKey& fk = *g.fk;
    if (fk.onDelete == ForeignKey::OnDelete::NoAction || anyRowWithKey(table, fk.referencedColumns, g.key.data())) {
      checkNotReferenced(table, fk, g.key);
      continue;
    }
    Table& ref = *fk.referencing;
    std::vector<uint64_t> refs = rowsWithKey(ref, fk.columns, g.key.data());
    if (refs.empty()) continue;
    if (fk.onDelete == ForeignKey::OnDelete::Cascade) {
      deleteRows(undo, ref, std::move(refs));  // and what references those, in turn
      continue;
    }
    // SET NULL / SET DEFAULT: the referencing columns change (and must still satisfy NOT NULL and
    // their own foreign keys).
    std::vector<uint32_t> cols(fk.columns.begin(), fk.columns.end());
    std::vector<const void*> values;
    boost::container::small_vector<bool, 8> nulls;
    std::vector<std::array<uint64_t, 2>> encoded(cols.size());
    for (size_t i = 0; i < cols.size(); ++i) {
      const ColumnDef& c = ref.columns()[cols[i]];
      bool isNull = fk.onDelete == ForeignKey::OnDelete::SetNull || (!c.defaultValue && !c.defaultNow && !c.defaultSequence);
      // One value is written to every referencing row here; nextval would need one per row.
      if (!isNull && c.defaultSequence)
        throw Error(sqlstate::FeatureNotSupported, "ON DELETE SET DEFAULT of column \"" + c.name + "\", whose default is nextval(), is not supported yet");
      if (isNull && !c.type.nullable)
        throw Error(sqlstate::NotNullViolation, "null value in column \"" + c.name + "\" of relation \"" + ref.name() +
                                                    "\" violates not-null constraint");
      if (!isNull && c.defaultNow) text::encodeTimeAs(c.type.id, undo.transactionTime(), encoded[i].data());
      else if (!isNull) c.defaultValue->encode(c.type, encoded[i].data());
      values.push_back(encoded[i].data());
      nulls.push_back(isNull);
    }
    UpdateBatch batch = beginUpdate(ref, cols);
    for (uint64_t r : refs) updateRow(undo, ref, batch, r, values.data(), nulls.data());
    finishUpdate(ref, batch);
  }
}

UpdateBatch beginUpdate(Table& table, const std::vector<uint32_t>& columns) {
  UpdateBatch b;
  b.columns.assign(columns.begin(), columns.end());
  for (auto& idx : table.indexes())
    for (uint32_t c : b.columns)
      if (idx->covers(c)) {
        b.touched.push_back(idx.get());
        break;
      }
  return b;
}

void updateRow(UndoLog& undo, Table& table, UpdateBatch& b, uint64_t row, const void* const* values, const bool* nulls) {
  for (uint32_t c : b.columns) undo.logUpdate(table, row, c);
  Table::RowSlot at = table.slotOf(row);
  auto write = [&] {
    for (size_t i = 0; i < b.columns.size(); ++i) table.overwrite(at, b.columns[i], nulls[i] ? nullptr : values[i]);
  };
  if (b.touched.empty()) {
    write();
    b.rows.push_back(row);
    return;
  }
  // A key column changes: the row leaves its indexes and comes back under the new key. An index
  // may refuse that key (too long: 54000); then the row gets its old values and keys back before
  // the error goes on, so the statement's undo finds the row as its entries expect it.
  std::vector<uint8_t> old(b.columns.size() * kSavedValueBytes);
  for (size_t i = 0; i < b.columns.size(); ++i) saveValue(table, row, b.columns[i], &old[i * kSavedValueBytes]);
  for (Index* idx : b.touched) idx->erase(row);
  write();
  size_t inserted = 0;
  try {
    for (; inserted < b.touched.size(); ++inserted) b.touched[inserted]->insert(row, true);
  } catch (...) {
    for (size_t i = 0; i < inserted; ++i) b.touched[i]->erase(row);
    for (size_t i = 0; i < b.columns.size(); ++i) {
      const uint8_t* v = &old[i * kSavedValueBytes];
      table.overwriteValue(row, b.columns[i], v, v[16] != 0, false);  // as the undo log restores it
    }
    for (Index* idx : b.touched) idx->insert(row, true);
    throw;
  }
  b.rows.push_back(row);
}

void finishUpdate(Table& table, UpdateBatch& b) {
  auto touches = [&](const std::vector<uint32_t>& cols) {
    for (uint32_t c : cols)
      if (std::find(b.columns.begin(), b.columns.end(), c) != b.columns.end()) return true;
    return false;
  };
  for (Index* idx : b.touched)
    if (idx->unique())
      for (uint64_t r : b.rows)
        if (idx->countEqual(r) > 1) throw uniqueViolation(table, *idx, r);
  for (auto& fk : table.foreignKeys())
    if (touches(fk.columns))
      for (uint64_t r : b.rows) checkReferencedKeyExists(table, fk, r);
  // A referenced key this statement changed: does some referencing row now point at nothing? (A
  // scan of the referencing table; updates of referenced keys are rare.)
  for (const ForeignKey* fk : table.referencedBy()) {
    if (!touches(fk->referencedColumns)) continue;
    const Table& ref = *fk->referencing;
    for (uint64_t r = 0; r < ref.rowCount(); ++r) {
      if (hasNull(ref, fk->columns, r)) continue;
      std::vector<uint8_t> key = keyOf(ref, fk->columns, r);
      if (!anyRowWithKey(table, fk->referencedColumns, key.data()))
        throw Error(sqlstate::ForeignKeyViolation, "update or delete on table \"" + table.name() +
                                                       "\" violates foreign key constraint \"" + fk->name +
                                                       "\" on table \"" + ref.name() + "\"")
            .withDetail(keyText(ref, fk->columns, r) + " is still referenced from table \"" + ref.name() + "\".");
    }
  }
}

void buildIndex(Table& table, Index& index) {
  for (uint64_t r = 0; r < table.rowCount(); ++r)
    if (index.insert(r) != kNoRow) {
      index.clear();
      throw Error(sqlstate::UniqueViolation, "could not create unique index \"" + index.name() + "\"")
          .withDetail(keyText(table, index.columns(), r) + " is duplicated.");
    }
}

}  // namespace hyrax::txn
