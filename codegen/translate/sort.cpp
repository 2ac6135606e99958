// Sort: consume() appends each row to a row buffer; produce() sorts it with a generated
// comparator (one function per query, keys compared inline), which the runtime calls only where
// the rows' normalized keys tie (sortKeys describes the keys to it), and runs a pipeline over the rows in
// order. Sort keys are columns: the planner computes key expressions in a Map below. A LIMIT per
// partition (plan::Sort::partitionKeys) drops rows from the sorted buffer before that pipeline.
#include "codegen/translate/operator_translators.hpp"
#include "engine/runtime/row_sort.hpp"

namespace hyrax::codegen {

SortTranslator::SortTranslator(const plan::Operator& op, QueryTranslator& q) : Translator(op, q) {}

void SortTranslator::consume(Translator&) {
  q_.sinkInto(PipelineSink::Buffer, slot_);
  const uint64_t limit = static_cast<const plan::Sort&>(op_).limit;
  if (limit != UINT64_MAX && keepFirstIn_ != cg_.function()) {
    // Top-k: the buffer sorts its rows with the comparator it was given whenever it fills, and
    // init (which may have run in the interpreter) gave it that tier's. Each call of this pipeline
    // gives it its own tier's again, so that the code switched to compares as fast as it runs
    // (TPC-H Q10, interpreter first: its top 20 of 37,967 groups took 14-15 ms with the
    // interpreted comparator, 3.5 ms with compiled code's).
    llvm::IRBuilderBase::InsertPointGuard guard(cg_.b);
    cg_.b.SetInsertPoint(cg_.entryBlock());
    cg_.call("hyrax_rt_buf_keep_first", {cg_.loadPtr(cg_.stateSlot(slot_)), cg_.c64(static_cast<int64_t>(limit)), cmp_});
    keepFirstIn_ = cg_.function();
  }
  llvm::Value* row = cg_.checkNotNull(cg_.call("hyrax_rt_buf_append", {cg_.queryContext(), cg_.loadPtr(cg_.stateSlot(slot_))}));
  for (size_t i = 0; i < columns_.size(); ++i) layout_.store(cg_, row, fields_[i], q_.values.at(columns_[i]));
}

llvm::Function* SortTranslator::comparator(size_t keys) {
  auto& s = static_cast<const plan::Sort&>(op_);
  auto& b = cg_.b;
  auto* ft = llvm::FunctionType::get(cg_.i32(), {cg_.ptr(), cg_.ptr()}, false);
  llvm::Function* fn = cg_.beginFunction(cg_.uniqueName("compare"), ft);
  q_.markColdIf(op_.estimatedRows);
  llvm::Value* ra = fn->getArg(0);
  llvm::Value* rb = fn->getArg(1);
  for (size_t k = 0; k < keys; ++k) {
    const plan::SortKey& key = s.keys[k];
    const size_t idx = fieldOf(key);
    SqlValue va = layout_.load(cg_, ra, fields_[idx]);
    SqlValue vb = layout_.load(cg_, rb, fields_[idx]);
    llvm::Value* result;
    SqlValue pa = va, pb = vb;
    pa.null = pb.null = nullptr;
    if (va.null && pa.type.isTwoWords()) {
      pa.v = b.CreateSelect(va.null, cg_.c64(0), pa.v);
      pa.hi = b.CreateSelect(va.null, cg_.c64(0), pa.hi);
      pb.v = b.CreateSelect(vb.null, cg_.c64(0), pb.v);
      pb.hi = b.CreateSelect(vb.null, cg_.c64(0), pb.hi);
    }
    result = q_.expr.compare3(pa, pb);
    if (key.descending) result = b.CreateNeg(result);
    if (va.null) {
      // NULL sorts as requested, whatever the direction.
      llvm::Value* nullFirst = cg_.c32(key.nullsFirst ? -1 : 1);
      llvm::Value* nullLast = cg_.c32(key.nullsFirst ? 1 : -1);
      llvm::Value* both = b.CreateAnd(va.null, vb.null);
      result = b.CreateSelect(both, cg_.c32(0),
                              b.CreateSelect(va.null, nullFirst, b.CreateSelect(vb.null, nullLast, result)));
    }
    cg_.If(b.CreateICmpNE(result, cg_.c32(0)), [&] {
      b.CreateRet(result);
      b.SetInsertPoint(llvm::BasicBlock::Create(cg_.ctx, "dead", fn));
    });
  }
  cg_.endFunction(cg_.c32(0));
  return fn;
}

llvm::Value* SortTranslator::sortKeys() {
  // The keys as the comparator orders them, for the runtime's normalized keys (row_sort.hpp):
  // four i32 per key in a stack array, filled where the sort is called.
  auto& s = static_cast<const plan::Sort&>(op_);
  auto* type = llvm::ArrayType::get(cg_.i32(), 4 * std::max<size_t>(s.keys.size(), 1));
  llvm::Value* array = cg_.local(type, "sort_keys");
  uint32_t i = 0;
  auto put = [&](int64_t v) { cg_.b.CreateStore(cg_.c32(v), cg_.b.CreateConstInBoundsGEP2_32(type, array, 0, i++)); };
  for (const plan::SortKey& key : s.keys) {
    const uint32_t field = fields_[fieldOf(key)];
    const SqlType& t = layout_.type(field);
    put(static_cast<int64_t>(t.id) | (key.descending ? kSortDescending : 0) | (key.nullsFirst ? kSortNullsFirst : 0));
    put(layout_.offset(field));
    put(layout_.nullOffset(field));
    put(t.isString() ? t.length : 0);
  }
  return array;
}

size_t SortTranslator::fieldOf(const plan::SortKey& key) const {
  if (key.expr->kind != plan::ExprKind::Column) throw Error(sqlstate::InternalError, "codegen: sort keys must be columns");
  size_t idx = 0;
  while (idx < columns_.size() && columns_[idx] != key.expr->iu) ++idx;
  if (idx == columns_.size()) throw Error(sqlstate::InternalError, "codegen: sort key is not an input column");
  return idx;
}

void SortTranslator::produce() {
  auto& s = static_cast<const plan::Sort&>(op_);
  columns_ = readFrom(*this, op_.child()->produced());  // the keys and what is read above
  for (auto* iu : columns_) fields_.push_back(layout_.add(iu->type));
  // The rank: a field the runtime fills when it keeps the rows of each partition.
  const uint32_t rankField = s.rank ? layout_.add(s.rank->type) : 0;
  // Window functions: the row's partition and peer bounds (four BIGINTs, in a row), then a value
  // per call.
  uint32_t boundsField = 0;
  std::vector<uint32_t> windowFields;
  if (!s.windows.empty()) {
    boundsField = layout_.add(SqlType::int64(false));
    for (int n = 1; n < 4; ++n) layout_.add(SqlType::int64(false));
    for (auto& w : s.windows) windowFields.push_back(layout_.add(w.iu->type));
  }
  slot_ = q_.newStateSlot();
  q_.atInit([this] {
    llvm::Value* buf = cg_.checkNotNull(cg_.call("hyrax_rt_buf_create", {cg_.queryContext(), cg_.c32(std::max(8u, layout_.size()))}));
    cg_.b.CreateStore(buf, cg_.stateSlot(slot_));
    uint64_t limit = static_cast<const plan::Sort&>(op_).limit;
    if (limit != UINT64_MAX) cg_.call("hyrax_rt_buf_keep_first", {buf, cg_.c64(static_cast<int64_t>(limit)), cmp_});
  });
  cmp_ = comparator(s.keys.size());  // before the input's pipeline, whose calls hand it to a top-k buffer
  children[0]->produce();
  llvm::Function* cmp = cmp_;
  // A LIMIT per partition: rows equal on the partition keys (NULLs equal too) are one partition.
  llvm::Function* samePartition = s.partitionKeys ? comparator(s.partitionKeys) : nullptr;
  llvm::Function* samePeers = s.windows.empty() ? nullptr : comparator(s.keys.size());

  q_.beginPipeline();
  llvm::Value* keys = sortKeys();
  cg_.checkStatus(cg_.call("hyrax_rt_buf_sort", {cg_.queryContext(), cg_.loadPtr(cg_.stateSlot(slot_)), cmp, keys,
                                                 cg_.c32(static_cast<int64_t>(s.keys.size()))}));
  if (!s.windows.empty())
    windowPass(samePartition, samePeers, boundsField, windowFields);
  else if (samePartition)
    cg_.call("hyrax_rt_buf_keep_per_partition",
             {cg_.loadPtr(cg_.stateSlot(slot_)), samePartition, cg_.c64(static_cast<int64_t>(s.partitionOffset)),
              cg_.c64(static_cast<int64_t>(s.partitionLimit)),
              cg_.c64(s.rank ? static_cast<int64_t>(layout_.offset(rankField)) : -1)});
  q_.endPipeline();

  q_.beginPipeline(op_.estimatedRows);
  q_.keepOrder();  // sorted rows: their order is the point
  q_.forEachBufferRow(slot_, [&](llvm::Value* row) {
    for (size_t c = 0; c < columns_.size(); ++c) q_.values[columns_[c]] = layout_.load(cg_, row, fields_[c]);
    if (s.rank) q_.values[s.rank] = layout_.load(cg_, row, rankField);
    for (size_t k = 0; k < s.windows.size(); ++k) q_.values[s.windows[k].iu] = layout_.load(cg_, row, windowFields[k]);
    emit();
  });
  q_.endPipeline();
}

}  // namespace hyrax::codegen
