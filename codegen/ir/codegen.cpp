#include "codegen/ir/codegen.hpp"

#include <llvm/IR/MDBuilder.h>

#include "engine/runtime/hash_table.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/runtime/value_slot.hpp"
#include "engine/util/error.hpp"

namespace hyrax::codegen {

CodeGen::CodeGen(llvm::LLVMContext& c, llvm::Module& m) : ctx(c), module(m), b(c) {}

llvm::Type* CodeGen::payloadType(const SqlType& t) {
  switch (t.id) {
    case TypeId::Null:
    case TypeId::Bool: return i1();
    case TypeId::Int16: return i16();
    case TypeId::Int32:
    case TypeId::Date: return i32();
    case TypeId::Int64:
    case TypeId::Decimal:
    case TypeId::Timestamp:
    case TypeId::Time:
    case TypeId::Interval: return i64();  // an INTERVAL's microseconds; its days and months in SqlValue::hi
    case TypeId::Float32: return b.getFloatTy();
    case TypeId::Float64: return f64();
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Array:
    case TypeId::Text: return i64();
  }
  return i64();
}

llvm::Constant* CodeGen::cPtr(const void* p) {
  auto* asInt = llvm::ConstantInt::get(module.getDataLayout().getIntPtrType(ctx), reinterpret_cast<uintptr_t>(p));
  return llvm::ConstantExpr::getIntToPtr(asInt, ptr());
}

static llvm::Type* abiType(CodeGen& cg, AbiType t) {
  switch (t) {
    case AbiType::Void: return cg.b.getVoidTy();
    case AbiType::I8: return cg.i8();
    case AbiType::I32: return cg.i32();
    case AbiType::I64: return cg.i64();
    case AbiType::F64: return cg.f64();
    case AbiType::Ptr: return cg.ptr();
  }
  return cg.i64();
}

llvm::StructType* CodeGen::structType(const AbiLayout& layout) {
  if (llvm::StructType* t = llvm::StructType::getTypeByName(ctx, layout.name)) return t;
  std::vector<llvm::Type*> fields;
  for (uint32_t i = 0; i < layout.fieldCount; ++i) {
    const AbiField& f = layout.fields[i];
    llvm::Type* t = abiType(*this, f.type);
    fields.push_back(f.count > 1 ? llvm::ArrayType::get(t, f.count) : t);
  }
  return llvm::StructType::create(ctx, fields, layout.name);  // not packed: natural alignment, as C++
}

uint64_t CodeGen::sizeOf(const AbiLayout& layout) {
  return module.getDataLayout().getTypeAllocSize(structType(layout)).getFixedValue();
}

llvm::Value* CodeGen::fieldAddress(llvm::Value* base, const AbiLayout& layout, unsigned field) {
  return b.CreateStructGEP(structType(layout), base, field);
}

llvm::Value* CodeGen::element(llvm::Value* base, const AbiLayout& layout, llvm::Value* index) {
  return b.CreateInBoundsGEP(structType(layout), base, index);
}

llvm::AllocaInst* CodeGen::localArray(const AbiLayout& layout, uint64_t count, const std::string& name) {
  return local(llvm::ArrayType::get(structType(layout), count), name);
}

llvm::AllocaInst* CodeGen::localStringOut(const std::string& name) {
  auto* out = local(llvm::ArrayType::get(i64(), 2), name);
  b.CreateStore(llvm::Constant::getNullValue(out->getAllocatedType()), out);
  return out;
}

void CodeGen::loadStringOut(llvm::Value* out, SqlValue& into) {
  into.v = b.CreateLoad(i64(), out);
  into.hi = b.CreateLoad(i64(), b.CreateConstInBoundsGEP1_64(i64(), out, 1));
}

llvm::Value* CodeGen::slotValue(llvm::Value* slots, uint64_t i) {
  return field(element(slots, kValueSlotLayout, i), kValueSlotLayout, ValueSlotField::Value);
}

llvm::Value* CodeGen::slotNull(llvm::Value* slots, uint64_t i) {
  return field(element(slots, kValueSlotLayout, i), kValueSlotLayout, ValueSlotField::Null);
}

SqlValue CodeGen::loadSlot(llvm::Value* slots, uint64_t i, const SqlType& t) {
  SqlValue v = loadValue(slotValue(slots, i), t);
  v.type = t;
  v.null = b.CreateICmpNE(b.CreateLoad(i8(), slotNull(slots, i)), c8(0));
  return v;
}

void CodeGen::storeSlot(llvm::Value* slots, uint64_t i, const SqlValue& v) {
  if (!v.type.isNull()) storeValue(slotValue(slots, i), v);
  llvm::Value* isNull = v.type.isNull() ? cTrue() : v.null ? v.null : cFalse();
  b.CreateStore(b.CreateZExt(isNull, i8()), slotNull(slots, i));
}

llvm::CallInst* CodeGen::call(const char* runtimeName, llvm::ArrayRef<llvm::Value*> args) {
  return b.CreateCall(runtimeFunction(runtimeName), args);
}

llvm::Function* CodeGen::runtimeFunction(const char* runtimeName) {
  llvm::Function* f = module.getFunction(runtimeName);
  if (!f) {
    const RuntimeFunction* rf = findRuntimeFunction(runtimeName);
    if (!rf) throw Error(sqlstate::InternalError, std::string("unknown runtime function ") + runtimeName);
    std::vector<llvm::Type*> params;
    for (unsigned i = 0; i < rf->argc; ++i) params.push_back(abiType(*this, rf->args[i]));
    auto* ft = llvm::FunctionType::get(abiType(*this, rf->ret), params, false);
    f = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, runtimeName, module);
  }
  return f;
}

llvm::Value* CodeGen::parameterSlots() {
  if (!parameterSlots_) {
    llvm::IRBuilder<> ab(allocaBlock_);  // once, on entry: parameters do not change during a run
    parameterSlots_ = ab.CreateCall(runtimeFunction("hyrax_rt_params"), {queryContext()});
  }
  return parameterSlots_;
}

llvm::Function* CodeGen::beginFunction(const std::string& name) {
  return beginFunction(name, llvm::FunctionType::get(i32(), {ptr(), ptr(), i64(), i64()}, false));
}

llvm::Function* CodeGen::beginFunction(const std::string& name, llvm::FunctionType* ft) {
  fn_ = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, name, module);
  allocaBlock_ = llvm::BasicBlock::Create(ctx, "allocas", fn_);
  cancelBudget_ = nullptr;
  parameterSlots_ = nullptr;
  raiseBlocks_.clear();
  auto* entry = llvm::BasicBlock::Create(ctx, "entry", fn_);
  errorBlock_ = llvm::BasicBlock::Create(ctx, "error", fn_);
  b.SetInsertPoint(errorBlock_);
  bool pipeline = ft->getNumParams() == 4;
  b.CreateRet(pipeline ? c32(1) : c32(0));
  b.SetInsertPoint(entry);
  return fn_;
}

void CodeGen::endFunction() { endFunction(c32(0)); }

void CodeGen::endFunction(llvm::Value* result) {
  b.CreateRet(result);
  llvm::IRBuilder<> ab(allocaBlock_);
  ab.CreateBr(&*std::next(fn_->begin()));
  fn_ = nullptr;
}

void CodeGen::returnEarly() {
  b.CreateRet(c32(kPipelineStop));
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "unreachable", fn_));
}

void CodeGen::raise(int32_t code) {
  call("hyrax_rt_error", {queryContext(), c32(code)});
  b.CreateBr(errorBlock_);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "after_error", fn_));
}

// One block per error code and error exit in a function, shared by every check that raises it:
// a sum of 10,000 terms has 10,000 overflow checks, and a block and a call for each one doubled
// the time LLVM's back end took for it.
void CodeGen::raiseIf(llvm::Value* cond, int32_t code) {
  llvm::BasicBlock*& shared = raiseBlocks_[{errorBlock_, code}];
  if (!shared) {
    shared = llvm::BasicBlock::Create(ctx, "raise", fn_);
    llvm::IRBuilder<> rb(shared);
    rb.CreateCall(runtimeFunction("hyrax_rt_error"), {queryContext(), c32(code)});
    rb.CreateBr(errorBlock_);
  }
  auto* cont = llvm::BasicBlock::Create(ctx, "ok", fn_);
  b.CreateCondBr(cond, shared, cont, weights(Usually::False));
  b.SetInsertPoint(cont);
}

void CodeGen::raiseIf(llvm::Value* cond, const char* runtimeName, llvm::ArrayRef<llvm::Value*> args) {
  If(cond, Usually::False, [&] {
    std::vector<llvm::Value*> all{queryContext()};
    all.insert(all.end(), args.begin(), args.end());
    call(runtimeName, all);
    b.CreateBr(errorBlock_);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "after_error", fn_));
  });
}

void CodeGen::cancelPoint() {
  constexpr int64_t kBudget = 4096;  // loop iterations between two calls of the runtime's check
  if (!cancelBudget_) {
    cancelBudget_ = local(i64(), "cancel_budget");
    llvm::IRBuilder<> ab(allocaBlock_);  // the entry block has no terminator until endFunction()
    ab.CreateStore(c64(kBudget), cancelBudget_);
  }
  llvm::Value* left = b.CreateSub(b.CreateLoad(i64(), cancelBudget_), c64(1));
  b.CreateStore(left, cancelBudget_);
  If(b.CreateICmpEQ(left, c64(0)), Usually::False, [&] {
    b.CreateStore(c64(kBudget), cancelBudget_);
    checkCancel();
  });
}

void CodeGen::checkCancel() { checkStatus(call("hyrax_rt_check_cancel", {queryContext()})); }

void CodeGen::checkStatus(llvm::Value* status) {
  auto* cont = llvm::BasicBlock::Create(ctx, "ok", fn_);
  b.CreateCondBr(b.CreateICmpNE(status, llvm::ConstantInt::get(status->getType(), 0)), errorBlock_, cont,
                 weights(Usually::False));
  b.SetInsertPoint(cont);
}

llvm::Value* CodeGen::checkNotNull(llvm::Value* pointer) {
  auto* cont = llvm::BasicBlock::Create(ctx, "ok", fn_);
  b.CreateCondBr(b.CreateIsNull(pointer), errorBlock_, cont, weights(Usually::False));
  b.SetInsertPoint(cont);
  return pointer;
}

void CodeGen::If(llvm::Value* cond, const std::function<void()>& then, const std::function<void()>& otherwise) {
  auto* thenBB = llvm::BasicBlock::Create(ctx, "then", fn_);
  auto* elseBB = otherwise ? llvm::BasicBlock::Create(ctx, "else", fn_) : nullptr;
  auto* contBB = llvm::BasicBlock::Create(ctx, "endif", fn_);
  b.CreateCondBr(cond, thenBB, elseBB ? elseBB : contBB);
  b.SetInsertPoint(thenBB);
  then();
  b.CreateBr(contBB);
  if (elseBB) {
    b.SetInsertPoint(elseBB);
    otherwise();
    b.CreateBr(contBB);
  }
  b.SetInsertPoint(contBB);
}

void CodeGen::If(llvm::Value* cond, Usually usually, const std::function<void()>& then) {
  auto* thenBB = llvm::BasicBlock::Create(ctx, "then", fn_);
  auto* contBB = llvm::BasicBlock::Create(ctx, "endif", fn_);
  b.CreateCondBr(cond, thenBB, contBB, weights(usually));
  b.SetInsertPoint(thenBB);
  then();
  b.CreateBr(contBB);
  b.SetInsertPoint(contBB);
}

llvm::MDNode* CodeGen::weights(Usually usually) {
  llvm::MDBuilder md(ctx);
  return usually == Usually::True ? md.createLikelyBranchWeights() : md.createUnlikelyBranchWeights();
}

void CodeGen::ForRange(llvm::Value* begin, llvm::Value* end, const std::function<void(llvm::Value*)>& body) {
  auto* head = b.GetInsertBlock();
  auto* loopBB = llvm::BasicBlock::Create(ctx, "loop", fn_);
  auto* bodyBB = llvm::BasicBlock::Create(ctx, "body", fn_);
  auto* exitBB = llvm::BasicBlock::Create(ctx, "loop_exit", fn_);
  b.CreateBr(loopBB);
  b.SetInsertPoint(loopBB);
  auto* i = b.CreatePHI(begin->getType(), 2, "i");
  i->addIncoming(begin, head);
  b.CreateCondBr(b.CreateICmpULT(i, end), bodyBB, exitBB);
  b.SetInsertPoint(bodyBB);
  body(i);
  auto* next = b.CreateAdd(i, llvm::ConstantInt::get(i->getType(), 1));
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(loopBB);
  b.SetInsertPoint(exitBB);
}

void CodeGen::While(const std::function<llvm::Value*()>& cond, const std::function<void()>& body) {
  auto* loopBB = llvm::BasicBlock::Create(ctx, "while", fn_);
  auto* bodyBB = llvm::BasicBlock::Create(ctx, "while_body", fn_);
  auto* exitBB = llvm::BasicBlock::Create(ctx, "while_exit", fn_);
  b.CreateBr(loopBB);
  b.SetInsertPoint(loopBB);
  b.CreateCondBr(cond(), bodyBB, exitBB);
  b.SetInsertPoint(bodyBB);
  body();
  b.CreateBr(loopBB);
  b.SetInsertPoint(exitBB);
}

CodeGen::ChainWalk CodeGen::beginChainWalk(llvm::Value* head, const char* name) {
  ChainWalk w;
  auto* pre = b.GetInsertBlock();
  w.loop = llvm::BasicBlock::Create(ctx, name, fn_);
  auto* body = llvm::BasicBlock::Create(ctx, std::string(name) + "_body", fn_);
  w.exit = llvm::BasicBlock::Create(ctx, std::string(name) + "_exit", fn_);
  b.CreateBr(w.loop);
  b.SetInsertPoint(w.loop);
  w.entry = b.CreatePHI(ptr(), 2, "entry");
  w.entry->addIncoming(head, pre);
  b.CreateCondBr(b.CreateIsNull(w.entry), w.exit, body);
  b.SetInsertPoint(body);
  return w;
}

void CodeGen::continueChainWalk(const ChainWalk& w) {
  w.entry->addIncoming(loadPtr(field(w.entry, kHashEntryLayout, HashEntryField::Next)), b.GetInsertBlock());
  b.CreateBr(w.loop);
}

void CodeGen::ForChain(llvm::Value* head, const std::function<void(llvm::Value*)>& body) {
  ChainWalk w = beginChainWalk(head, "chain");
  body(w.entry);
  continueChainWalk(w);
  b.SetInsertPoint(w.exit);
}

llvm::Value* CodeGen::FindInChain(llvm::Value* head, const std::function<llvm::Value*(llvm::Value*)>& matches) {
  ChainWalk w = beginChainWalk(head, "find");
  llvm::Value* hit = matches(w.entry);
  auto* tested = b.GetInsertBlock();
  auto* next = llvm::BasicBlock::Create(ctx, "find_next", fn_);
  b.CreateCondBr(hit, w.exit, next);
  b.SetInsertPoint(next);
  continueChainWalk(w);
  b.SetInsertPoint(w.exit);
  auto* found = b.CreatePHI(ptr(), 2, "found");
  found->addIncoming(llvm::ConstantPointerNull::get(ptr()), w.loop);
  found->addIncoming(w.entry, tested);
  return found;
}

void CodeGen::prefetch(llvm::Value* addr, bool forWrite) {
  b.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr()}, {addr, c32(forWrite ? 1 : 0), c32(3), c32(1)});
}

llvm::AllocaInst* CodeGen::local(llvm::Type* t, const std::string& name) {
  llvm::IRBuilder<> ab(allocaBlock_, allocaBlock_->begin());
  return ab.CreateAlloca(t, nullptr, name);
}

llvm::Value* CodeGen::gep(llvm::Value* base, uint64_t offset) {
  if (offset == 0) return base;
  return b.CreateConstInBoundsGEP1_64(i8(), base, offset);
}

SqlValue CodeGen::loadValue(llvm::Value* addr, const SqlType& t) {
  SqlValue v;
  v.type = t.withNullable(false);
  if (t.isTwoWords()) {
    v.v = b.CreateLoad(i64(), addr);
    v.hi = b.CreateLoad(i64(), gep(addr, 8));
  } else if (t.id == TypeId::Bool || t.id == TypeId::Null) {
    v.v = b.CreateTrunc(b.CreateLoad(i8(), addr), i1());
  } else {
    v.v = b.CreateLoad(payloadType(t), addr);
  }
  return v;
}

void CodeGen::storeValue(llvm::Value* addr, const SqlValue& v) {
  if (v.type.isTwoWords()) {
    b.CreateStore(v.v, addr);
    b.CreateStore(v.hi, gep(addr, 8));
  } else if (v.type.id == TypeId::Bool || v.type.id == TypeId::Null) {
    b.CreateStore(b.CreateZExt(v.v, i8()), addr);
  } else {
    b.CreateStore(v.v, addr);
  }
}

llvm::Value* CodeGen::stateSlot(uint32_t i) {
  return b.CreateConstInBoundsGEP1_64(ptr(), stateArg(), i);
}

void CodeGen::markCold() {
  fn_->addFnAttr(llvm::Attribute::OptimizeNone);
  fn_->addFnAttr(llvm::Attribute::NoInline);
}

std::string CodeGen::uniqueName(const std::string& base) { return base + "_" + std::to_string(nameCounter_++); }

}  // namespace hyrax::codegen
