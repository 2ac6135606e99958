// Sources: table scans (one morsel = a range of rows, chunk by chunk, a chunk's rows in order) and constant VALUES rows.
#include <bit>

#include "codegen/translate/operator_translators.hpp"

#include "engine/index/index.hpp"
#include "engine/storage/table.hpp"

namespace hyrax::codegen {

namespace {
constexpr unsigned kCancelBlockBits = 12;
constexpr int64_t kCancelBlock = int64_t{1} << kCancelBlockBits;  // rows between cancel checks
}  // namespace

// Where a chunk's column lives, computed inline from the table's layout (Table::chunkBases): two
// loads instead of a runtime call per column of every row a transaction reads.
llvm::Value* TableScanTranslator::chunkBase(llvm::Value* chunk) {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  llvm::Value* bases = cg_.loadPtr(cg_.cPtr(scan.table->chunkBases()));
  return cg_.loadPtr(cg_.b.CreateGEP(cg_.ptr(), bases, cg_.b.CreateZExt(chunk, cg_.i64())));
}

llvm::Value* TableScanTranslator::columnData(llvm::Value* base, uint32_t column) {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  return cg_.gep(base, scan.table->columnOffset(column));
}

llvm::Value* TableScanTranslator::columnNulls(llvm::Value* base, uint32_t column) {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  if (!scan.table->columns()[column].type.nullable) return nullptr;  // NOT NULL: no bitmap
  return cg_.gep(base, scan.table->nullOffset(column));
}

void TableScanTranslator::chunkColumns(llvm::Value* chunk, std::vector<llvm::Value*>& data, std::vector<llvm::Value*>& nulls) {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  llvm::Value* base = chunkBase(chunk);
  for (auto& c : scan.columns) {
    if (c.index == plan::TableScan::kRowNumber) {
      data.push_back(nullptr);
      nulls.push_back(nullptr);
      continue;
    }
    data.push_back(columnData(base, c.index));
    nulls.push_back(columnNulls(base, c.index));
  }
}

SqlValue TableScanTranslator::loadColumn(size_t i, llvm::Value* chunk64, llvm::Value* row, llvm::Value* data,
                                         llvm::Value* nulls) {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  auto& b = cg_.b;
  const SqlType& t = scan.columns[i].iu->type;
  SqlValue v;
  if (scan.columns[i].index == plan::TableScan::kRowNumber) {
    v.v = b.CreateAdd(b.CreateMul(chunk64, cg_.c64(Table::kChunkRows)), row);
    v.type = t;
    return v;
  }
  llvm::Value* addr = b.CreateGEP(cg_.i8(), data, b.CreateMul(row, cg_.c64(t.byteWidth())));
  v = cg_.loadValue(addr, t);
  v.type = t;
  if (nulls) {
    llvm::Value* byte = b.CreateLoad(cg_.i8(), b.CreateGEP(cg_.i8(), nulls, b.CreateLShr(row, 3)));
    llvm::Value* bit = b.CreateTrunc(b.CreateAnd(row, cg_.c64(7)), cg_.i8());
    v.null = b.CreateICmpNE(b.CreateAnd(b.CreateLShr(byte, bit), cg_.c8(1)), cg_.c8(0));
  }
  return v;
}

void TableScanTranslator::loadRow(llvm::Value* chunk64, llvm::Value* row, const std::vector<llvm::Value*>& data,
                                  const std::vector<llvm::Value*>& nulls) {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  for (size_t i = 0; i < scan.columns.size(); ++i) q_.values[scan.columns[i].iu] = loadColumn(i, chunk64, row, data[i], nulls[i]);
}

void TableScanTranslator::produce() {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  if (scan.index) return produceIndexLookup();
  auto& b = cg_.b;
  q_.beginPipeline(static_cast<double>(scan.table->rowCount()));
  q_.morselsOver(MorselSource::TableChunks, scan.table, 0);
  {
    std::vector<const plan::IU*> key;
    for (uint32_t c : scan.table->primaryKey())
      for (auto& col : scan.columns)
        if (col.index == c) key.push_back(col.iu);
    if (!scan.table->primaryKey().empty() && key.size() == scan.table->primaryKey().size()) q_.rowsUniqueBy(std::move(key));
    std::vector<std::pair<const plan::IU*, uint32_t>> columns;
    for (auto& col : scan.columns)
      if (col.index != plan::TableScan::kRowNumber) columns.emplace_back(col.iu, col.index);
    q_.scansColumns(std::move(columns));
  }
  static_assert(std::has_single_bit(Table::kChunkRows));
  constexpr unsigned kChunkBits = std::countr_zero(Table::kChunkRows);
  constexpr uint64_t kRowMask = Table::kChunkRows - 1;
  llvm::Value* table = cg_.cPtr(scan.table);
  // Rows [begin, end): the chunks they touch, each once, from the first row in the first chunk to
  // the last row in the last. However small the driver makes a morsel, a call pays the chunk's
  // set-up once, not once per block of rows.
  llvm::Value* capacity = b.CreateShl(b.CreateZExt(cg_.call("hyrax_rt_table_chunks", {table}), cg_.i64()), kChunkBits);
  llvm::Value* begin = cg_.arg(2);
  llvm::Value* end = b.CreateSelect(b.CreateICmpULT(cg_.arg(3), capacity), cg_.arg(3), capacity);
  llvm::Value* any = b.CreateICmpULT(begin, end);
  llvm::Value* firstChunk = b.CreateLShr(begin, kChunkBits);
  llvm::Value* lastRow = b.CreateSub(end, cg_.c64(1));
  llvm::Value* lastChunk = b.CreateLShr(lastRow, kChunkBits);
  llvm::Value* chunksEnd = b.CreateSelect(any, b.CreateAdd(lastChunk, cg_.c64(1)), firstChunk);
  const std::vector<ColumnTest> tests = columnTests();
  llvm::Value* selection = tests.empty() ? nullptr : cg_.local(llvm::ArrayType::get(cg_.i32(), kCancelBlock), "selection");
  cg_.ForRange(firstChunk, chunksEnd, [&](llvm::Value* chunk64) {
    llvm::Value* chunk = b.CreateTrunc(chunk64, cg_.i32());
    llvm::Value* rows = b.CreateZExt(cg_.call("hyrax_rt_table_chunk_rows", {table, chunk}), cg_.i64());
    // The range's rows of the chunk (none when the chunk is shorter).
    llvm::Value* rangeFirst = b.CreateSelect(b.CreateICmpEQ(chunk64, firstChunk), b.CreateAnd(begin, cg_.c64(kRowMask)), cg_.c64(0));
    llvm::Value* rangeLast = b.CreateSelect(b.CreateICmpEQ(chunk64, lastChunk), b.CreateAdd(b.CreateAnd(lastRow, cg_.c64(kRowMask)), cg_.c64(1)),
                                            cg_.c64(Table::kChunkRows));
    rangeLast = b.CreateSelect(b.CreateICmpULT(rangeLast, rows), rangeLast, rows);
    std::vector<llvm::Value*> data, nulls;
    chunkColumns(chunk, data, nulls);
    // Rows in blocks of kCancelBlock with a cancel check between blocks: a per-row check would
    // cost a tight scan about 10%.
    llvm::Value* firstBlock = b.CreateLShr(rangeFirst, kCancelBlockBits);
    llvm::Value* blocks = b.CreateLShr(b.CreateAdd(rangeLast, cg_.c64(kCancelBlock - 1)), kCancelBlockBits);
    cg_.ForRange(firstBlock, blocks, [&](llvm::Value* block) {
      cg_.checkCancel();
      llvm::Value* first = b.CreateShl(block, kCancelBlockBits);
      first = b.CreateSelect(b.CreateICmpULT(first, rangeFirst), rangeFirst, first);
      llvm::Value* last = b.CreateAdd(b.CreateShl(block, kCancelBlockBits), cg_.c64(kCancelBlock));
      last = b.CreateSelect(b.CreateICmpULT(last, rangeLast), last, rangeLast);
      emitRows(chunk64, rows, first, last, data, nulls, tests, selection);
    });
  });
  q_.endPipeline();
}

void TableScanTranslator::emitRow(llvm::Value* chunk64, llvm::Value* row, const std::vector<llvm::Value*>& data,
                                  const std::function<llvm::Value*(int64_t)>& ahead, bool counted) {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  q_.lookahead = [&, chunk64](const plan::IU* iu, int64_t distance) -> std::optional<SqlValue> {
    for (size_t i = 0; i < scan.columns.size(); ++i) {
      if (scan.columns[i].iu != iu || iu->type.nullable || !data[i]) continue;
      return loadColumn(i, chunk64, ahead(distance), data[i], nullptr);
    }
    return std::nullopt;
  };
  if (counted) emit();
  else parent->consume(*this);
  q_.lookahead = nullptr;
}

void TableScanTranslator::emitRows(llvm::Value* chunk64, llvm::Value* rows, llvm::Value* first, llvm::Value* last,
                                   const std::vector<llvm::Value*>& data, const std::vector<llvm::Value*>& nulls,
                                   const std::vector<ColumnTest>& tests, llvm::Value* selection) {
  auto& b = cg_.b;
  if (tests.empty()) {
    cg_.ForRange(first, last, [&](llvm::Value* row) {
      loadRow(chunk64, row, data, nulls);
      emitRow(chunk64, row, data, [&, row, rows](int64_t distance) {
        llvm::Value* a = b.CreateAdd(row, cg_.c64(distance));
        return b.CreateSelect(b.CreateICmpULT(a, rows), a, b.CreateSub(rows, cg_.c64(1)));
      }, true);
    });
    return;
  }
  // The block's rows all count as read (EXPLAIN ANALYZE); those that pass every test go up.
  countRows(b.CreateSub(last, first));
  llvm::Value* n = selectRows(first, last, data, nulls, tests, selection);
  llvm::Value* count = b.CreateZExt(n, cg_.i64());
  auto position = [&](llvm::Value* k) {
    return b.CreateZExt(b.CreateLoad(cg_.i32(), b.CreateGEP(cg_.i32(), selection, k)), cg_.i64());
  };
  cg_.ForRange(cg_.c64(0), count, [&](llvm::Value* k) {
    llvm::Value* row = position(k);
    loadRow(chunk64, row, data, nulls);
    emitRow(chunk64, row, data, [&, k, count](int64_t distance) {
      llvm::Value* a = b.CreateAdd(k, cg_.c64(distance));
      return position(b.CreateSelect(b.CreateICmpULT(a, count), a, b.CreateSub(count, cg_.c64(1))));
    }, false);
  });
}

void TableScanTranslator::produceIndexLookup() {
  // Its estimate (when there is one) tells the driver whether the one call it makes of this
  // pipeline is worth waiting for machine code (query_driver.cpp, kWaitForCodeRows).
  q_.beginPipeline(op_.estimatedRows > 0 ? op_.estimatedRows : -1);
  indexRows();
  q_.endPipeline();
}

// One key value as the index column of type `t` holds it. An integer wider than the column is
// clamped to the column's range, with `below`/`above` telling that it was outside (callers decide
// whether that finds nothing or only loosens a bound); strings are stored whatever their length.
TableScanTranslator::KeyPart TableScanTranslator::keyPart(const plan::Expr& e, const SqlType& t) {
  auto& b = cg_.b;
  KeyPart k;
  k.v = q_.expr.compile(e);
  const SqlType vt = k.v.type;
  if (t.isInteger() && vt.isInteger() && vt.id != t.id) {
    if (vt.byteWidth() < t.byteWidth()) {
      k.v = q_.expr.cast(k.v, t);  // widening cannot fail
    } else {
      int64_t lo = t.id == TypeId::Int16 ? INT16_MIN : INT32_MIN;
      int64_t hi = t.id == TypeId::Int16 ? INT16_MAX : INT32_MAX;
      llvm::Type* wide = cg_.payloadType(vt);
      llvm::Value* x = k.v.v;
      k.below = b.CreateICmpSLT(x, llvm::ConstantInt::get(wide, lo, true));
      k.above = b.CreateICmpSGT(x, llvm::ConstantInt::get(wide, hi, true));
      x = b.CreateSelect(k.below, llvm::ConstantInt::get(wide, lo, true),
                         b.CreateSelect(k.above, llvm::ConstantInt::get(wide, hi, true), x));
      k.v.v = b.CreateTrunc(x, cg_.payloadType(t));
    }
  } else if (!t.isVarBytes() && !vt.sameAs(t)) {
    k.v = q_.expr.cast(k.v, t);  // same representation (DATE, DECIMAL of one scale): no change
  }
  k.v.type = t.withNullable(vt.nullable);
  return k;
}

// The rows an index finds, each read straight from its chunk and emitted: a point lookup, or a
// range on an ordered index. The key goes into stack buffers laid out as the index expects (a
// range has a low and a high one); key expressions may read an enclosing pipeline's row
// (IndexJoin). A NULL key part finds nothing (= NULL is never true), nor does an integer the
// column cannot hold (smallint_col = 100000).
void TableScanTranslator::indexRows() {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  auto& b = cg_.b;
  const IndexKey& key = scan.index->key();
  auto columnType = [&](size_t i) -> const SqlType& { return scan.table->columns()[key.columns()[i]].type; };
  llvm::Type* probeType = llvm::ArrayType::get(cg_.i8(), std::max<uint32_t>(key.probeBytes(), 1));
  bool range = !scan.pointLookup();
  llvm::Value* low = cg_.local(probeType, "low");
  llvm::Value* high = range ? cg_.local(probeType, "high") : nullptr;
  llvm::Value* none = cg_.cFalse();
  auto orNone = [&](llvm::Value* x) {
    if (x) none = b.CreateOr(none, x);
  };
  uint32_t offset = 0;
  for (size_t i = 0; i < scan.lookupKey.size(); ++i) {
    KeyPart k = keyPart(*scan.lookupKey[i], columnType(i));
    orNone(k.v.null);
    orNone(k.below);
    orNone(k.above);
    cg_.storeValue(cg_.gep(low, offset), k.v);
    if (range) cg_.storeValue(cg_.gep(high, offset), k.v);
    offset += columnType(i).byteWidth();
  }
  // Range bounds on the next column: one clamped into the column's range becomes inclusive.
  uint32_t eq = static_cast<uint32_t>(scan.lookupKey.size()), lowColumns = eq, highColumns = eq;
  llvm::Value* lowInclusive = cg_.cTrue();
  llvm::Value* highInclusive = cg_.cTrue();
  // Past the column's range on the far side a bound finds nothing; on the near side it is clamped.
  auto bound = [&](const plan::TableScan::Bound& bd, bool isLow, llvm::Value* buffer, llvm::Value*& inclusive,
                   uint32_t& columns) {
    if (!bd.value) return;
    KeyPart k = keyPart(*bd.value, columnType(eq));
    orNone(k.v.null);
    orNone(isLow ? k.above : k.below);
    llvm::Value* clamped = isLow ? k.below : k.above;
    if (!bd.inclusive) inclusive = clamped ? clamped : cg_.cFalse();
    cg_.storeValue(cg_.gep(buffer, offset), k.v);
    columns = eq + 1;
  };
  bound(scan.low, true, low, lowInclusive, lowColumns);
  bound(scan.high, false, high, highInclusive, highColumns);
  // A found row's columns load where they are used (lazily): random rows miss the cache once per
  // column, and a CASE over ten columns needs one of them.
  auto emitRow = [&](llvm::Value* row) {
    llvm::Value* chunk64 = b.CreateLShr(row, 16);
    static_assert(Table::kChunkRows == 1u << 16);
    llvm::Value* inChunk = b.CreateAnd(row, cg_.c64(Table::kChunkRows - 1));
    llvm::Value* base = chunkBase(b.CreateTrunc(chunk64, cg_.i32()));
    for (size_t i = 0; i < scan.columns.size(); ++i) {
      const auto& c = scan.columns[i];
      if (c.index == plan::TableScan::kRowNumber) {
        q_.values[c.iu] = loadColumn(i, chunk64, inChunk, nullptr, nullptr);
        continue;
      }
      q_.values.setLazy(c.iu, [this, i, base, chunk64, inChunk, &c] {
        return loadColumn(i, chunk64, inChunk, columnData(base, c.index), columnNulls(base, c.index));
      });
    }
    for (uint32_t col : scan.prefetch) {  // for the statements after this one (a write)
      const SqlType& t = scan.table->columns()[col].type;
      cg_.prefetch(b.CreateGEP(cg_.i8(), columnData(base, col), b.CreateMul(inChunk, cg_.c64(t.byteWidth()))), true);
      if (llvm::Value* nulls = columnNulls(base, col)) cg_.prefetch(b.CreateGEP(cg_.i8(), nulls, b.CreateLShr(inChunk, 3)), true);
    }
    emit();
  };
  cg_.If(b.CreateNot(none), [&] {
    llvm::Value* index = cg_.cPtr(scan.index);
    if (!range && scan.index->unique()) {
      llvm::Value* row = cg_.call("hyrax_rt_index_find", {index, low});
      cg_.If(b.CreateICmpNE(row, cg_.c64(-1)), [&] { emitRow(row); });
      return;
    }
    llvm::Value* rowsSlot = cg_.local(cg_.ptr(), "rows");
    llvm::Value* n;
    if (range) {
      llvm::Value* flags = b.CreateOr(b.CreateZExt(lowInclusive, cg_.i32()), b.CreateShl(b.CreateZExt(highInclusive, cg_.i32()), 1));
      flags = b.CreateOr(flags, cg_.c32(scan.reverse ? 4 : 0));
      n = cg_.call("hyrax_rt_index_range", {cg_.queryContext(), index, low, high, cg_.c32(lowColumns | highColumns << 16),
                                            flags, cg_.c64(static_cast<int64_t>(scan.limit)), rowsSlot});
    } else {
      n = cg_.call("hyrax_rt_index_find_all", {cg_.queryContext(), index, low, rowsSlot});
    }
    cg_.checkStatus(b.CreateICmpEQ(n, cg_.c64(-1)));  // UINT64_MAX: the rows did not fit (memory)
    llvm::Value* rows = cg_.loadPtr(rowsSlot);
    cg_.ForRange(cg_.c64(0), n, [&](llvm::Value* i) { emitRow(b.CreateLoad(cg_.i64(), b.CreateGEP(cg_.i64(), rows, i))); });
  });
}

void ValuesTranslator::produce() {
  auto& values = static_cast<const plan::Values&>(op_);
  q_.beginPipeline();
  for (auto& row : values.rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      SqlValue v = q_.expr.compile(*row[i]);
      if (!v.type.sameAs(values.columns[i]->type)) v = q_.expr.cast(v, values.columns[i]->type);
      v.type = values.columns[i]->type;
      if (!v.type.nullable) v.null = nullptr;
      q_.values[values.columns[i]] = v;
    }
    // Under a generate_series that is its pipeline's morsel source, the row is made again for
    // each morsel: EXPLAIN ANALYZE counts it once (in the morsel from the series' start).
    auto* series = dynamic_cast<ExpandTranslator*>(parent);
    emit(series && series->seriesSource() ? cg_.b.CreateICmpEQ(cg_.arg(2), cg_.c64(0)) : nullptr);
  }
  q_.endPipeline();
}

}  // namespace hyrax::codegen
