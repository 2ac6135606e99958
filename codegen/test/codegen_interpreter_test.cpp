// The interpreter (codegen/interp) against LLVM's machine code for the same IR: every function
// here is built twice, once translated into bytecode and once compiled, and both must give the
// same results over inputs at the edges of each width.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include "codegen/interp/interpreter.hpp"
#include "codegen/jit/jit.hpp"
#include "engine/runtime/runtime.hpp"

using namespace hyrax;

namespace {

using Build = std::function<void(llvm::Module&, llvm::IRBuilder<>&)>;

struct Both {
  std::unique_ptr<interp::InterpretedModule> interpreted;
  std::unique_ptr<jit::CompiledModule> compiled;
};

std::pair<std::unique_ptr<llvm::LLVMContext>, std::unique_ptr<llvm::Module>> build(const Build& body) {
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = std::make_unique<llvm::Module>("test", *ctx);
  jit::configureModule(*m);
  llvm::IRBuilder<> b(*ctx);
  body(*m, b);
  return {std::move(ctx), std::move(m)};
}

Both both(const Build& body) {
  Both out;
  {
    auto [ctx, m] = build(body);
    std::string why;
    out.interpreted = interp::translate(*m, &why);
    INFO(why);
    REQUIRE(out.interpreted);
  }
  auto [ctx, m] = build(body);
  out.compiled = jit::compile(std::move(ctx), std::move(m), jit::OptLevel::None);
  return out;
}

// i64 name(i64 a, i64 b) with `body` computing the result from the two arguments.
Build binaryFunction(const std::string& name, std::function<llvm::Value*(llvm::IRBuilder<>&, llvm::Function*, llvm::Value*, llvm::Value*)> body) {
  return [=](llvm::Module& m, llvm::IRBuilder<>& b) {
    auto* ft = llvm::FunctionType::get(b.getInt64Ty(), {b.getInt64Ty(), b.getInt64Ty()}, false);
    auto* f = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, name, m);
    b.SetInsertPoint(llvm::BasicBlock::Create(m.getContext(), "entry", f));
    b.CreateRet(body(b, f, f->getArg(0), f->getArg(1)));
  };
}

const int64_t kEdges[] = {0, 1, -1, 2, -2, 7, -7, 100, 127, 128, -128, -129, 255, 256, 32767, -32768, 65535,
                          2147483647, -2147483647 - 1, 4294967295LL, 12345678901LL, -98765432109LL,
                          std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};

void checkSame(const Both& f, const std::string& name) {
  const interp::Function* bytecode = f.interpreted->bytecode(name);
  REQUIRE(bytecode);
  auto native = reinterpret_cast<int64_t (*)(int64_t, int64_t)>(f.compiled->function(name));
  for (int64_t a : kEdges)
    for (int64_t b : kEdges) {
      const uint64_t args[2] = {static_cast<uint64_t>(a), static_cast<uint64_t>(b)};
      INFO(name << "(" << a << ", " << b << ")");
      CHECK(static_cast<int64_t>(interp::execute(*bytecode, args)) == native(a, b));
    }
}

// Folds a value of any integer width into the i64 result, sign-extended so that the upper bits
// of a narrow result are checked too.
llvm::Value* mix(llvm::IRBuilder<>& b, llvm::Value* acc, llvm::Value* v) {
  llvm::Value* wide = v->getType()->isIntegerTy(64) ? v : b.CreateSExt(v, b.getInt64Ty());
  return b.CreateXor(b.CreateMul(acc, b.getInt64(1000003)), wide);
}

}  // namespace

TEST_CASE("interpreter: integer arithmetic and comparisons at 1, 8, 16, 32 and 64 bits") {
  for (unsigned width : {8u, 16u, 32u, 64u}) {
    const std::string name = "int" + std::to_string(width);
    Both f = both(binaryFunction(name, [&](llvm::IRBuilder<>& b, llvm::Function*, llvm::Value* a64, llvm::Value* b64) {
      llvm::Type* t = b.getIntNTy(width);
      llvm::Value* x = b.CreateTrunc(a64, t);
      llvm::Value* y = b.CreateTrunc(b64, t);
      // Divisors never zero, never -1 (poison for INT_MIN / -1).
      llvm::Value* bad = b.CreateOr(b.CreateICmpEQ(y, llvm::ConstantInt::get(t, 0)),
                                    b.CreateICmpEQ(y, llvm::ConstantInt::get(t, -1, true)));
      llvm::Value* d = b.CreateSelect(bad, llvm::ConstantInt::get(t, 3), y);
      llvm::Value* sh = b.CreateURem(y, llvm::ConstantInt::get(t, width));
      llvm::Value* acc = b.getInt64(17);
      for (llvm::Value* v : {b.CreateAdd(x, y), b.CreateSub(x, y), b.CreateMul(x, y), b.CreateSDiv(x, d),
                             b.CreateSRem(x, d), b.CreateUDiv(x, d), b.CreateURem(x, d), b.CreateShl(x, sh),
                             b.CreateLShr(x, sh), b.CreateAShr(x, sh), b.CreateAnd(x, y), b.CreateOr(x, y),
                             b.CreateXor(x, y)})
        acc = mix(b, acc, v);
      for (auto p : {llvm::CmpInst::ICMP_EQ, llvm::CmpInst::ICMP_NE, llvm::CmpInst::ICMP_ULT, llvm::CmpInst::ICMP_ULE,
                     llvm::CmpInst::ICMP_UGT, llvm::CmpInst::ICMP_UGE, llvm::CmpInst::ICMP_SLT, llvm::CmpInst::ICMP_SLE,
                     llvm::CmpInst::ICMP_SGT, llvm::CmpInst::ICMP_SGE})
        acc = mix(b, acc, b.CreateZExt(b.CreateICmp(p, x, y), b.getInt64Ty()));
      acc = mix(b, acc, b.CreateSExt(b.CreateICmpSLT(x, y), b.getInt64Ty()));  // an i1 sign-extended
      acc = mix(b, acc, b.CreateZExt(x, b.getInt64Ty()));
      return acc;
    }));
    checkSame(f, name);
  }
}

TEST_CASE("interpreter: overflow intrinsics at 32 and 64 bits") {
  for (unsigned width : {32u, 64u})
    for (auto id : {llvm::Intrinsic::sadd_with_overflow, llvm::Intrinsic::ssub_with_overflow, llvm::Intrinsic::smul_with_overflow}) {
      const std::string name = "ov";
      Both f = both(binaryFunction(name, [&](llvm::IRBuilder<>& b, llvm::Function*, llvm::Value* a64, llvm::Value* b64) {
        llvm::Type* t = b.getIntNTy(width);
        llvm::Value* r = b.CreateBinaryIntrinsic(id, b.CreateTrunc(a64, t), b.CreateTrunc(b64, t));
        llvm::Value* value = b.CreateSExt(b.CreateExtractValue(r, 0), b.getInt64Ty());
        llvm::Value* flag = b.CreateZExt(b.CreateExtractValue(r, 1), b.getInt64Ty());
        return b.CreateXor(b.CreateShl(value, 1), flag);
      }));
      checkSame(f, name);
    }
}

TEST_CASE("interpreter: doubles, floats and their comparisons, NaN included") {
  Both f = both(binaryFunction("fp", [&](llvm::IRBuilder<>& b, llvm::Function*, llvm::Value* a64, llvm::Value* b64) {
    llvm::Value* x = b.CreateFDiv(b.CreateSIToFP(a64, b.getDoubleTy()), llvm::ConstantFP::get(b.getDoubleTy(), 3.0));
    llvm::Value* y = b.CreateSIToFP(b64, b.getDoubleTy());
    // NaN when b is 0 and a is 0 (0/0), infinities when b is 0 otherwise.
    llvm::Value* q = b.CreateFDiv(x, y);
    llvm::Value* acc = b.getInt64(5);
    for (llvm::Value* v : {b.CreateFAdd(x, y), b.CreateFSub(x, y), b.CreateFMul(x, y), q, b.CreateFRem(x, y), b.CreateFNeg(x)}) {
      // Compare bits, with every NaN the same.
      llvm::Value* bits = b.CreateBitCast(v, b.getInt64Ty());
      acc = mix(b, acc, b.CreateSelect(b.CreateFCmpUNO(v, v), b.getInt64(-1), bits));
    }
    for (int p = llvm::CmpInst::FIRST_FCMP_PREDICATE; p <= llvm::CmpInst::LAST_FCMP_PREDICATE; ++p) {
      acc = mix(b, acc, b.CreateZExt(b.CreateFCmp(static_cast<llvm::CmpInst::Predicate>(p), q, y), b.getInt64Ty()));
      acc = mix(b, acc, b.CreateZExt(b.CreateFCmp(static_cast<llvm::CmpInst::Predicate>(p), x, y), b.getInt64Ty()));
    }
    // Floats: every operation rounds to float.
    llvm::Value* fx = b.CreateFPTrunc(x, b.getFloatTy());
    llvm::Value* fy = b.CreateSIToFP(b64, b.getFloatTy());
    llvm::Value* fsum = b.CreateFAdd(b.CreateFMul(fx, fy), fx);
    acc = mix(b, acc, b.CreateBitCast(b.CreateFPExt(fsum, b.getDoubleTy()), b.getInt64Ty()));
    // Within range: fptosi of a bounded value.
    llvm::Value* small = b.CreateFDiv(x, llvm::ConstantFP::get(b.getDoubleTy(), 1e12));
    acc = mix(b, acc, b.CreateFPToSI(small, b.getInt32Ty()));
    acc = mix(b, acc, b.CreateBitCast(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), b.getInt64Ty()));
    return acc;
  }));
  checkSame(f, "fp");
}

TEST_CASE("interpreter: loops whose phis swap values, switches, selects and memory") {
  Both f = both([](llvm::Module& m, llvm::IRBuilder<>& b) {
    llvm::LLVMContext& c = m.getContext();
    auto* ft = llvm::FunctionType::get(b.getInt64Ty(), {b.getInt64Ty(), b.getInt64Ty()}, false);
    auto* f = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, "loops", m);
    auto* entry = llvm::BasicBlock::Create(c, "entry", f);
    auto* loop = llvm::BasicBlock::Create(c, "loop", f);
    auto* done = llvm::BasicBlock::Create(c, "done", f);
    auto* one = llvm::BasicBlock::Create(c, "one", f);
    auto* two = llvm::BasicBlock::Create(c, "two", f);
    auto* other = llvm::BasicBlock::Create(c, "other", f);
    auto* join = llvm::BasicBlock::Create(c, "join", f);
    b.SetInsertPoint(entry);
    // A struct {i8, i16, i32, double} and an array of 4 i64 on the stack.
    auto* st = llvm::StructType::get(c, {b.getInt8Ty(), b.getInt16Ty(), b.getInt32Ty(), b.getDoubleTy()});
    llvm::Value* s = b.CreateAlloca(st);
    llvm::Value* arr = b.CreateAlloca(llvm::ArrayType::get(b.getInt64Ty(), 4));
    llvm::Value* n = b.CreateAnd(f->getArg(0), b.getInt64(15));
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    auto* i = b.CreatePHI(b.getInt64Ty(), 2);
    auto* x = b.CreatePHI(b.getInt64Ty(), 2);
    auto* y = b.CreatePHI(b.getInt64Ty(), 2);
    auto* u = b.CreatePHI(b.getInt64Ty(), 2);
    auto* v = b.CreatePHI(b.getInt64Ty(), 2);
    // (x, y) = (y, x + y) and (u, v) = (v, u): the phis read each other on the back edge.
    llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
    llvm::Value* sum = b.CreateAdd(x, y);
    llvm::Value* slot = b.CreateGEP(b.getInt64Ty(), arr, b.CreateAnd(i, b.getInt64(3)));
    b.CreateStore(b.CreateXor(sum, u), slot);
    b.CreateCondBr(b.CreateICmpULT(next, n), loop, done);
    i->addIncoming(b.getInt64(0), entry);
    i->addIncoming(next, loop);
    x->addIncoming(f->getArg(1), entry);
    x->addIncoming(y, loop);
    y->addIncoming(b.getInt64(1), entry);
    y->addIncoming(sum, loop);
    u->addIncoming(b.getInt64(1000), entry);
    u->addIncoming(v, loop);
    v->addIncoming(f->getArg(0), entry);
    v->addIncoming(u, loop);
    b.SetInsertPoint(done);
    b.CreateStore(b.CreateTrunc(x, b.getInt8Ty()), b.CreateStructGEP(st, s, 0));
    b.CreateStore(b.CreateTrunc(y, b.getInt16Ty()), b.CreateStructGEP(st, s, 1));
    b.CreateStore(b.CreateTrunc(sum, b.getInt32Ty()), b.CreateStructGEP(st, s, 2));
    b.CreateStore(b.CreateSIToFP(x, b.getDoubleTy()), b.CreateStructGEP(st, s, 3));
    auto* sw = b.CreateSwitch(b.CreateURem(f->getArg(0), b.getInt64(4)), other, 2);
    sw->addCase(b.getInt64(1), one);
    sw->addCase(b.getInt64(2), two);
    b.SetInsertPoint(one);
    b.CreateBr(join);
    b.SetInsertPoint(two);
    b.CreateBr(join);
    b.SetInsertPoint(other);
    b.CreateBr(join);
    b.SetInsertPoint(join);
    auto* picked = b.CreatePHI(b.getInt64Ty(), 3);
    picked->addIncoming(b.getInt64(11), one);
    picked->addIncoming(b.CreateSExt(b.getInt8(-5), b.getInt64Ty()), two);
    picked->addIncoming(x, other);
    llvm::Value* acc = b.CreateSExt(b.CreateLoad(b.getInt8Ty(), b.CreateStructGEP(st, s, 0)), b.getInt64Ty());
    acc = mix(b, acc, b.CreateLoad(b.getInt16Ty(), b.CreateStructGEP(st, s, 1)));
    acc = mix(b, acc, b.CreateLoad(b.getInt32Ty(), b.CreateStructGEP(st, s, 2)));
    acc = mix(b, acc, b.CreateBitCast(b.CreateLoad(b.getDoubleTy(), b.CreateStructGEP(st, s, 3)), b.getInt64Ty()));
    acc = mix(b, acc, b.CreateLoad(b.getInt64Ty(), b.CreateConstGEP2_64(llvm::ArrayType::get(b.getInt64Ty(), 4), arr, 0, 2)));
    acc = mix(b, acc, b.CreateSub(u, v));
    acc = mix(b, acc, picked);
    acc = mix(b, acc, b.CreateSelect(b.CreateICmpSGT(x, y), x, y));
    b.CreateRet(acc);
  });
  // Loops of up to 15 rounds read array slots the loop wrote; slot 2 only after three rounds.
  const interp::Function* bytecode = f.interpreted->bytecode("loops");
  auto native = reinterpret_cast<int64_t (*)(int64_t, int64_t)>(f.compiled->function("loops"));
  for (int64_t a = 3; a < 16; ++a)
    for (int64_t b : kEdges) {
      const uint64_t args[2] = {static_cast<uint64_t>(a), static_cast<uint64_t>(b)};
      INFO("loops(" << a << ", " << b << ")");
      CHECK(static_cast<int64_t>(interp::execute(*bytecode, args)) == native(a, b));
    }
}

TEST_CASE("interpreter: calls of the module's functions and of runtime functions") {
  Both f = both([](llvm::Module& m, llvm::IRBuilder<>& b) {
    llvm::LLVMContext& c = m.getContext();
    auto* ft = llvm::FunctionType::get(b.getInt64Ty(), {b.getInt64Ty(), b.getInt64Ty()}, false);
    auto* helper = llvm::Function::Create(ft, llvm::Function::InternalLinkage, "helper", m);
    b.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", helper));
    b.CreateRet(b.CreateSub(b.CreateMul(helper->getArg(0), b.getInt64(3)), helper->getArg(1)));
    auto* f = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, "calls", m);
    b.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", f));
    llvm::Value* h = b.CreateCall(helper, {f->getArg(0), f->getArg(1)});
    auto power = m.getOrInsertFunction("hyrax_rt_power", llvm::FunctionType::get(b.getDoubleTy(), {b.getDoubleTy(), b.getDoubleTy()}, false));
    llvm::Value* p = b.CreateCall(power, {b.CreateSIToFP(b.CreateAnd(f->getArg(0), b.getInt64(7)), b.getDoubleTy()),
                                          llvm::ConstantFP::get(b.getDoubleTy(), 2.0)});
    b.CreateRet(b.CreateAdd(h, b.CreateFPToSI(p, b.getInt64Ty())));
  });
  checkSame(f, "calls");
}

TEST_CASE("interpreter: a comparator's address is a native function that runs its bytecode") {
  auto [ctx, m] = build([](llvm::Module& m, llvm::IRBuilder<>& b) {
    llvm::LLVMContext& c = m.getContext();
    auto* ptr = b.getPtrTy();
    auto* cmpType = llvm::FunctionType::get(b.getInt32Ty(), {ptr, ptr}, false);
    auto* cmp = llvm::Function::Create(cmpType, llvm::Function::InternalLinkage, "cmp", m);
    b.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", cmp));
    llvm::Value* x = b.CreateLoad(b.getInt64Ty(), cmp->getArg(0));
    llvm::Value* y = b.CreateLoad(b.getInt64Ty(), cmp->getArg(1));
    b.CreateRet(b.CreateSub(b.CreateZExt(b.CreateICmpSGT(x, y), b.getInt32Ty()), b.CreateZExt(b.CreateICmpSLT(x, y), b.getInt32Ty())));
    auto* pipeType = llvm::FunctionType::get(b.getInt32Ty(), {ptr, ptr, b.getInt64Ty(), b.getInt64Ty()}, false);
    auto* pipe = llvm::Function::Create(pipeType, llvm::Function::ExternalLinkage, "pipeline_1", m);
    b.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", pipe));
    b.CreateStore(cmp, pipe->getArg(1));  // state[0] = the comparator
    b.CreateRet(b.CreateTrunc(b.CreateAdd(pipe->getArg(2), pipe->getArg(3)), b.getInt32Ty()));
  });
  auto module = interp::translate(*m);
  REQUIRE(module);
  auto pipeline = reinterpret_cast<int32_t (*)(void*, void**, uint64_t, uint64_t)>(module->function("pipeline_1"));
  void* state[1] = {nullptr};
  CHECK(pipeline(nullptr, state, 40, 2) == 42);
  auto cmp = reinterpret_cast<int32_t (*)(const void*, const void*)>(state[0]);
  REQUIRE(cmp);
  const int64_t a = -5, b = 9;
  CHECK(cmp(&a, &b) == -1);
  CHECK(cmp(&b, &a) == 1);
  CHECK(cmp(&a, &a) == 0);
}

TEST_CASE("interpreter: entry points are given back with their module") {
  // More modules than there are entry points, one after the other: each gives its back.
  for (int i = 0; i < 5000; ++i) {
    auto [ctx, m] = build([](llvm::Module& m, llvm::IRBuilder<>& b) {
      auto* ptr = b.getPtrTy();
      auto* t = llvm::FunctionType::get(b.getInt32Ty(), {ptr, ptr, b.getInt64Ty(), b.getInt64Ty()}, false);
      auto* f = llvm::Function::Create(t, llvm::Function::ExternalLinkage, "pipeline_1", m);
      b.SetInsertPoint(llvm::BasicBlock::Create(m.getContext(), "entry", f));
      b.CreateRet(b.getInt32(7));
    });
    auto module = interp::translate(*m);
    REQUIRE(module);
    REQUIRE(reinterpret_cast<int32_t (*)(void*, void**, uint64_t, uint64_t)>(module->function("pipeline_1"))(nullptr, nullptr, 0, 0) == 7);
  }
}

TEST_CASE("interpreter: what it does not run is refused with the reason, not run wrongly") {
  auto [ctx, m] = build([](llvm::Module& m, llvm::IRBuilder<>& b) {
    auto* v = llvm::FixedVectorType::get(b.getInt32Ty(), 4);
    auto* t = llvm::FunctionType::get(v, {v, v}, false);
    auto* f = llvm::Function::Create(t, llvm::Function::ExternalLinkage, "vec", m);
    b.SetInsertPoint(llvm::BasicBlock::Create(m.getContext(), "entry", f));
    b.CreateRet(b.CreateAdd(f->getArg(0), f->getArg(1)));
  });
  std::string why;
  CHECK_FALSE(interp::translate(*m, &why));
  CHECK_FALSE(why.empty());
}
