// The result sink: each output row is written straight into the columnar result chunk (a
// ResultChunkView, engine/runtime/result_chunk.hpp); the runtime is called only when a chunk is
// full.
#include "codegen/translate/operator_translators.hpp"
#include "engine/types/string_ref.hpp"

namespace hyrax::codegen {

ResultSinkTranslator::ResultSinkTranslator(const plan::QueryPlan& plan, QueryTranslator& q)
    : Translator(*plan.root, q), output_(plan.output), into_(plan.into), foundSlot_(plan.foundSlot), writer_(plan.writer) {
  if (!into_.empty() || foundSlot_ >= 0 || writer_) return;
  slot_ = q.newStateSlot();
  q.atInit([this] {
    q_.cg.b.CreateStore(q_.cg.call("hyrax_rt_result_view", {q_.cg.queryContext()}), q_.cg.stateSlot(slot_));
  });
}

void ResultSinkTranslator::consumeInto() {
  CodeGen& cg = q_.cg;
  auto& b = cg.b;
  // A parameter slot: 16 bytes of value in its physical layout, then the NULL byte.
  auto slot = [&](uint32_t n) { return cg.gep(cg.parameterSlots(), uint64_t{24} * n); };
  for (size_t i = 0; i < into_.size(); ++i) {
    const plan::IU* iu = output_[i];
    SqlValue v = q_.values.at(iu);
    v.type = iu->type;
    llvm::Value* isNull = iu->type.id == TypeId::Null ? cg.cTrue() : (v.null ? v.null : cg.cFalse());
    if (iu->type.id != TypeId::Null) cg.storeValue(slot(into_[i]), v);
    b.CreateStore(b.CreateZExt(isNull, cg.i8()), cg.gep(slot(into_[i]), 16));
    if (iu->type.isString()) {
      // A long string's characters live in its table's heap, a cache miss away; the statement
      // that uses the variable (often an INSERT copying it) comes later, so start loading now.
      llvm::Value* isLong = b.CreateICmpUGT(b.CreateTrunc(v.v, cg.i32()), cg.c32(StringRef::kInlineMax));
      llvm::Value* chars = b.CreateSelect(isLong, b.CreateIntToPtr(v.hi, cg.ptr()), slot(into_[i]));
      cg.prefetch(chars);
    }
  }
  setFound();
  cg.returnEarly();  // the first row is the one (PL/pgSQL's SELECT INTO without STRICT)
}

void ResultSinkTranslator::setFound() {
  if (foundSlot_ < 0) return;
  CodeGen& cg = q_.cg;
  llvm::Value* found = cg.gep(cg.parameterSlots(), uint64_t{24} * static_cast<uint32_t>(foundSlot_));
  cg.b.CreateStore(cg.c8(1), found);
  cg.b.CreateStore(cg.c8(0), cg.gep(found, 16));
}

void ResultSinkTranslator::consumeWrite() {
  CodeGen& cg = q_.cg;
  auto& b = cg.b;
  llvm::Value* row = cg.local(llvm::ArrayType::get(cg.i8(), 24 * std::max<size_t>(output_.size(), 1)), "write_row");
  for (size_t i = 0; i < output_.size(); ++i) {
    const plan::IU* iu = output_[i];
    SqlValue v = q_.values.at(iu);
    v.type = iu->type;
    llvm::Value* at = cg.gep(row, uint64_t{24} * i);
    llvm::Value* isNull = iu->type.id == TypeId::Null ? cg.cTrue() : (v.null ? v.null : cg.cFalse());
    if (iu->type.id != TypeId::Null) cg.storeValue(at, v);
    b.CreateStore(b.CreateZExt(isNull, cg.i8()), cg.gep(at, 16));
  }
  cg.checkStatus(cg.call("hyrax_rt_write_row", {cg.queryContext(), cg.cPtr(writer_), row}));
  setFound();
}

void ResultSinkTranslator::consume(Translator&) {
  if (writer_) return consumeWrite();
  if (!into_.empty() || foundSlot_ >= 0) return consumeInto();
  CodeGen& cg = q_.cg;
  auto& b = cg.b;
  // ResultChunkView: {u64 count, u64 capacity, ptr columns, ptr nulls}; pointer fields follow the
  // two u64s, so their offsets are 16 and 16 + pointer size on every target.
  const unsigned ptrSize = cg.module.getDataLayout().getPointerSize();
  llvm::Value* view = cg.loadPtr(cg.stateSlot(slot_));
  llvm::Value* count = b.CreateLoad(cg.i64(), view);
  llvm::Value* capacity = b.CreateLoad(cg.i64(), cg.gep(view, 8));
  cg.If(b.CreateICmpEQ(count, capacity), [&] {
    cg.call("hyrax_rt_result_flush", {cg.queryContext()});
    b.CreateStore(cg.call("hyrax_rt_result_view", {cg.queryContext()}), cg.stateSlot(slot_));
  });
  view = cg.loadPtr(cg.stateSlot(slot_));
  count = b.CreateLoad(cg.i64(), view);
  llvm::Value* columns = cg.loadPtr(cg.gep(view, 16));
  llvm::Value* nulls = cg.loadPtr(cg.gep(view, 16 + ptrSize));
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
  b.CreateStore(b.CreateAdd(count, cg.c64(1)), view);
}

}  // namespace hyrax::codegen
