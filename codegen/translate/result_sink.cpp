// The result sink: each output row is written straight into the columnar result chunk (a
// ResultChunkView, engine/runtime/result_chunk.hpp); the runtime is called only when a chunk is
// full.
#include "codegen/translate/operator_translators.hpp"
#include "engine/runtime/result_chunk.hpp"
#include "engine/runtime/value_slot.hpp"
#include "engine/types/string_ref.hpp"

namespace hyrax::codegen {

ResultSinkTranslator::ResultSinkTranslator(const plan::QueryPlan& plan, QueryTranslator& q)
    : Translator(*plan.root, q), output_(plan.output), into_(plan.into), foundSlot_(plan.foundSlot), writer_(plan.writer) {
  if (!into_.empty() || foundSlot_ >= 0 || writer_) return;
  slot_ = q.newStateSlot();
  q.atInit([this] {
    q_.cg.b.CreateStore(q_.cg.checkNotNull(q_.cg.call("hyrax_rt_result_view", {q_.cg.queryContext()})), q_.cg.stateSlot(slot_));
  });
}

void ResultSinkTranslator::consumeInto() {
  CodeGen& cg = q_.cg;
  auto& b = cg.b;
  for (size_t i = 0; i < into_.size(); ++i) {
    const plan::IU* iu = output_[i];
    SqlValue v = q_.values.at(iu);
    v.type = iu->type;
    cg.storeSlot(cg.parameterSlots(), into_[i], v);
    if (iu->type.isVarBytes()) {
      // A long string's characters live in its table's heap, a cache miss away; the statement
      // that uses the variable (often an INSERT copying it) comes later, so start loading now.
      llvm::Value* isLong = b.CreateICmpUGT(b.CreateTrunc(v.v, cg.i32()), cg.c32(StringRef::kInlineMax));
      llvm::Value* chars = b.CreateSelect(isLong, b.CreateIntToPtr(v.hi, cg.ptr()), cg.slotValue(cg.parameterSlots(), into_[i]));
      cg.prefetch(chars);
    }
  }
  setFound();
  cg.returnEarly();  // the first row is the one (PL/pgSQL's SELECT INTO without STRICT)
}

void ResultSinkTranslator::setFound() {
  if (foundSlot_ < 0) return;
  CodeGen& cg = q_.cg;
  SqlValue found;
  found.type = SqlType::boolean(false);
  found.v = cg.cTrue();
  cg.storeSlot(cg.parameterSlots(), static_cast<uint32_t>(foundSlot_), found);
}

void ResultSinkTranslator::consumeWrite() {
  CodeGen& cg = q_.cg;
  llvm::Value* row = cg.localArray(kValueSlotLayout, std::max<size_t>(output_.size(), 1), "write_row");
  for (size_t i = 0; i < output_.size(); ++i) {
    const plan::IU* iu = output_[i];
    SqlValue v = q_.values.at(iu);
    v.type = iu->type;
    cg.storeSlot(row, i, v);
  }
  cg.checkStatus(cg.call("hyrax_rt_write_row", {cg.queryContext(), cg.cPtr(writer_), row}));
  setFound();
}

void ResultSinkTranslator::consume(Translator&) {
  if (writer_ || !into_.empty() || foundSlot_ >= 0) q_.serialOnly();  // one row, to the session's variables or table
  if (writer_) return consumeWrite();
  if (!into_.empty() || foundSlot_ >= 0) return consumeInto();
  q_.sinkInto(PipelineSink::Result, slot_);
  CodeGen& cg = q_.cg;
  auto& b = cg.b;
  const AbiLayout& L = kResultChunkViewLayout;
  using F = ResultChunkViewField;
  llvm::Value* view = cg.loadPtr(cg.stateSlot(slot_));
  llvm::Value* count = b.CreateLoad(cg.i64(), cg.field(view, L, F::Count));
  llvm::Value* capacity = b.CreateLoad(cg.i64(), cg.field(view, L, F::Capacity));
  cg.If(b.CreateICmpEQ(count, capacity), [&] {
    cg.checkStatus(cg.call("hyrax_rt_result_flush", {cg.queryContext()}));
    b.CreateStore(cg.checkNotNull(cg.call("hyrax_rt_result_view", {cg.queryContext()})), cg.stateSlot(slot_));
  });
  view = cg.loadPtr(cg.stateSlot(slot_));
  count = b.CreateLoad(cg.i64(), cg.field(view, L, F::Count));
  llvm::Value* columns = cg.loadPtr(cg.field(view, L, F::Columns));
  llvm::Value* nulls = cg.loadPtr(cg.field(view, L, F::Nulls));
  for (size_t i = 0; i < output_.size(); ++i) {
    const plan::IU* iu = output_[i];
    SqlValue v = q_.values.at(iu);
    v.type = iu->type;
    llvm::Value* base = cg.loadPtr(b.CreateConstInBoundsGEP1_64(cg.ptr(), columns, i));
    llvm::Value* addr = b.CreateGEP(cg.i8(), base, b.CreateMul(count, cg.c64(iu->type.byteWidth())));
    llvm::Value* isNull = iu->type.id == TypeId::Null ? cg.cTrue() : (v.null ? v.null : cg.cFalse());
    cg.storeValue(addr, v);
    llvm::Value* nullBase = cg.loadPtr(b.CreateConstInBoundsGEP1_64(cg.ptr(), nulls, i));
    b.CreateStore(b.CreateZExt(isNull, cg.i8()), b.CreateGEP(cg.i8(), nullBase, count));
  }
  b.CreateStore(b.CreateAdd(count, cg.c64(1)), cg.field(view, L, F::Count));
}

}  // namespace hyrax::codegen
