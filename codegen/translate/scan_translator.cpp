// Sources: table scans (chunk by chunk, one morsel = a range of chunks) and constant VALUES rows.
#include "codegen/translate/operator_translators.hpp"

#include "engine/storage/table.hpp"

namespace hyrax::codegen {

namespace {
constexpr unsigned kCancelBlockBits = 12;
constexpr int64_t kCancelBlock = int64_t{1} << kCancelBlockBits;  // rows between cancel checks
}  // namespace

void TableScanTranslator::produce() {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  auto& b = cg_.b;
  q_.beginPipeline({"", PipelineInfo::Range::TableChunks, 0, scan.table});
  llvm::Value* table = cg_.cPtr(scan.table);
  llvm::Value* chunks = b.CreateZExt(cg_.call("hyrax_rt_table_chunks", {table}), cg_.i64());
  llvm::Value* end = b.CreateSelect(b.CreateICmpULT(cg_.arg(3), chunks), cg_.arg(3), chunks);
  cg_.ForRange(cg_.arg(2), end, [&](llvm::Value* chunk64) {
    llvm::Value* chunk = b.CreateTrunc(chunk64, cg_.i32());
    llvm::Value* rows = b.CreateZExt(cg_.call("hyrax_rt_table_chunk_rows", {table, chunk}), cg_.i64());
    std::vector<llvm::Value*> data, nulls;
    for (auto& c : scan.columns) {
      if (c.index == plan::TableScan::kRowNumber) {
        data.push_back(nullptr);
        nulls.push_back(nullptr);
        continue;
      }
      data.push_back(cg_.call("hyrax_rt_table_column", {table, chunk, cg_.c32(c.index)}));
      nulls.push_back(c.iu->type.nullable ? cg_.call("hyrax_rt_table_nulls", {table, chunk, cg_.c32(c.index)})
                                          : nullptr);
    }
    // Rows in blocks of kCancelBlock with a cancel check between blocks: a per-row check would
    // cost a tight scan about 10%.
    llvm::Value* blocks = b.CreateLShr(b.CreateAdd(rows, cg_.c64(kCancelBlock - 1)), kCancelBlockBits);
    cg_.ForRange(cg_.c64(0), blocks, [&](llvm::Value* block) {
      cg_.checkCancel();
      llvm::Value* first = b.CreateShl(block, kCancelBlockBits);
      llvm::Value* last = b.CreateAdd(first, cg_.c64(kCancelBlock));
      last = b.CreateSelect(b.CreateICmpULT(last, rows), last, rows);
      cg_.ForRange(first, last, [&](llvm::Value* row) {
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
        emit();
      });
    });
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
