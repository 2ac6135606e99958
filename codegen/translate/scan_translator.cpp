// Sources: table scans (chunk by chunk, one morsel = a range of chunks) and constant VALUES rows.
#include "codegen/translate/operator_translators.hpp"

#include "engine/index/index.hpp"
#include "engine/storage/table.hpp"

namespace hyrax::codegen {

namespace {
constexpr unsigned kCancelBlockBits = 12;
constexpr int64_t kCancelBlock = int64_t{1} << kCancelBlockBits;  // rows between cancel checks
}  // namespace

void TableScanTranslator::chunkColumns(llvm::Value* table, llvm::Value* chunk, std::vector<llvm::Value*>& data,
                                       std::vector<llvm::Value*>& nulls) {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  for (auto& c : scan.columns) {
    if (c.index == plan::TableScan::kRowNumber) {
      data.push_back(nullptr);
      nulls.push_back(nullptr);
      continue;
    }
    data.push_back(cg_.call("hyrax_rt_table_column", {table, chunk, cg_.c32(c.index)}));
    nulls.push_back(c.iu->type.nullable ? cg_.call("hyrax_rt_table_nulls", {table, chunk, cg_.c32(c.index)}) : nullptr);
  }
}

void TableScanTranslator::loadRow(llvm::Value* chunk64, llvm::Value* row, const std::vector<llvm::Value*>& data,
                                  const std::vector<llvm::Value*>& nulls) {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  auto& b = cg_.b;
  for (size_t i = 0; i < scan.columns.size(); ++i) {
    const SqlType& t = scan.columns[i].iu->type;
    if (scan.columns[i].index == plan::TableScan::kRowNumber) {
      SqlValue v;
      v.v = b.CreateAdd(b.CreateMul(chunk64, cg_.c64(Table::kChunkRows)), row);
      v.type = t;
      q_.values[scan.columns[i].iu] = v;
      continue;
    }
    llvm::Value* addr = b.CreateGEP(cg_.i8(), data[i], b.CreateMul(row, cg_.c64(t.byteWidth())));
    SqlValue v = cg_.loadValue(addr, t);
    v.type = t;
    if (nulls[i]) {
      llvm::Value* byte = b.CreateLoad(cg_.i8(), b.CreateGEP(cg_.i8(), nulls[i], b.CreateLShr(row, 3)));
      llvm::Value* bit = b.CreateTrunc(b.CreateAnd(row, cg_.c64(7)), cg_.i8());
      v.null = b.CreateICmpNE(b.CreateAnd(b.CreateLShr(byte, bit), cg_.c8(1)), cg_.c8(0));
    }
    q_.values[scan.columns[i].iu] = v;
  }
}

void TableScanTranslator::produce() {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  if (scan.index) return produceIndexLookup();
  auto& b = cg_.b;
  q_.beginPipeline({"", PipelineInfo::Range::TableChunks, 0, scan.table});
  llvm::Value* table = cg_.cPtr(scan.table);
  llvm::Value* chunks = b.CreateZExt(cg_.call("hyrax_rt_table_chunks", {table}), cg_.i64());
  llvm::Value* end = b.CreateSelect(b.CreateICmpULT(cg_.arg(3), chunks), cg_.arg(3), chunks);
  cg_.ForRange(cg_.arg(2), end, [&](llvm::Value* chunk64) {
    llvm::Value* chunk = b.CreateTrunc(chunk64, cg_.i32());
    llvm::Value* rows = b.CreateZExt(cg_.call("hyrax_rt_table_chunk_rows", {table, chunk}), cg_.i64());
    std::vector<llvm::Value*> data, nulls;
    chunkColumns(table, chunk, data, nulls);
    // Rows in blocks of kCancelBlock with a cancel check between blocks: a per-row check would
    // cost a tight scan about 10%.
    llvm::Value* blocks = b.CreateLShr(b.CreateAdd(rows, cg_.c64(kCancelBlock - 1)), kCancelBlockBits);
    cg_.ForRange(cg_.c64(0), blocks, [&](llvm::Value* block) {
      cg_.checkCancel();
      llvm::Value* first = b.CreateShl(block, kCancelBlockBits);
      llvm::Value* last = b.CreateAdd(first, cg_.c64(kCancelBlock));
      last = b.CreateSelect(b.CreateICmpULT(last, rows), last, rows);
      cg_.ForRange(first, last, [&](llvm::Value* row) {
        loadRow(chunk64, row, data, nulls);
        emit();
      });
    });
  });
  q_.endPipeline();
}

// Point lookups: the key goes into a stack buffer laid out as the index expects, a precompiled
// index operation finds the rows, and each is read straight from its chunk.
void TableScanTranslator::produceIndexLookup() {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  auto& b = cg_.b;
  q_.beginPipeline({"", PipelineInfo::Range::None});
  const IndexKey& key = scan.index->key();
  llvm::Value* probe = cg_.local(llvm::ArrayType::get(cg_.i8(), std::max<uint32_t>(key.probeBytes(), 1)), "probe");
  llvm::Value* anyNull = cg_.cFalse();
  uint32_t offset = 0;
  for (size_t i = 0; i < scan.lookupKey.size(); ++i) {
    const SqlType& t = scan.table->columns()[key.columns()[i]].type;
    SqlValue v = q_.expr.compile(*scan.lookupKey[i]);
    if (!v.type.sameAs(t)) v = q_.expr.cast(v, t);
    if (v.null) anyNull = b.CreateOr(anyNull, v.null);
    cg_.storeValue(cg_.gep(probe, offset), v);
    offset += t.byteWidth();
  }
  llvm::Value* table = cg_.cPtr(scan.table);
  auto emitRow = [&](llvm::Value* row) {
    llvm::Value* chunk64 = b.CreateLShr(row, 16);
    static_assert(Table::kChunkRows == 1u << 16);
    llvm::Value* inChunk = b.CreateAnd(row, cg_.c64(Table::kChunkRows - 1));
    std::vector<llvm::Value*> data, nulls;
    chunkColumns(table, b.CreateTrunc(chunk64, cg_.i32()), data, nulls);
    loadRow(chunk64, inChunk, data, nulls);
    emit();
  };
  // A NULL key finds nothing (= NULL is never true).
  cg_.If(b.CreateNot(anyNull), [&] {
    llvm::Value* index = cg_.cPtr(scan.index);
    if (scan.index->unique()) {
      llvm::Value* row = cg_.call("hyrax_rt_index_find", {index, probe});
      cg_.If(b.CreateICmpNE(row, cg_.c64(-1)), [&] { emitRow(row); });
    } else {
      llvm::Value* rowsSlot = cg_.local(cg_.ptr(), "rows");
      llvm::Value* n = cg_.call("hyrax_rt_index_find_all", {cg_.queryContext(), index, probe, rowsSlot});
      llvm::Value* rows = cg_.loadPtr(rowsSlot);
      cg_.ForRange(cg_.c64(0), n, [&](llvm::Value* i) {
        emitRow(b.CreateLoad(cg_.i64(), b.CreateGEP(cg_.i64(), rows, i)));
      });
    }
  });
  q_.endPipeline();
}

void ValuesTranslator::produce() {
  auto& values = static_cast<const plan::Values&>(op_);
  q_.beginPipeline({"", PipelineInfo::Range::None});
  for (auto& row : values.rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      SqlValue v = q_.expr.compile(*row[i]);
      if (!v.type.sameAs(values.columns[i]->type)) v = q_.expr.cast(v, values.columns[i]->type);
      v.type = values.columns[i]->type;
      if (!v.type.nullable) v.null = nullptr;
      q_.values[values.columns[i]] = v;
    }
    emit();
  }
  q_.endPipeline();
}

}  // namespace hyrax::codegen
