// A stored procedure body in one generated function: each step a basic block, a plan run a direct
// call of its functions, a branch on a variable a load and a conditional branch. Per statement that
// is a few instructions where a C++ loop over the steps would spend some hundred (dispatch,
// context reset, the plan's run loop); the steps that need C++ (a write's rows, FOR loops, RAISE, CALL, RETURN)
// go to the program host (engine/runtime/program_host.hpp), as do failures inside a block with an
// EXCEPTION section, which the host may catch.
#include "codegen/translate/program_compiler.hpp"

#include <algorithm>

#include "engine/runtime/program_host.hpp"

namespace hyrax::codegen {

void generateProgram(CodeGen& cg, const plan::Program& program, const std::vector<PlanFunctions>& plans,
                     const std::string& name) {
  using Op = plan::ProgramStep::Op;
  using Test = plan::ProgramStep::Test;
  auto& b = cg.b;
  llvm::Function* fn = cg.beginFunction(name);
  llvm::Value* ctx = cg.queryContext();
  uint32_t maxSlots = 1;
  for (auto& p : plans) maxSlots = std::max(maxSlots, p.stateSlots);
  llvm::Type* stateType = llvm::ArrayType::get(cg.ptr(), maxSlots);
  llvm::Value* state = cg.local(stateType, "plan_state");
  llvm::Value* slots = cg.parameterSlots();
  auto value = [&](uint32_t slot) { return cg.slotValue(slots, slot); };
  auto nullByte = [&](uint32_t slot) { return cg.slotNull(slots, slot); };
  auto isNull = [&](uint32_t slot) { return b.CreateICmpNE(b.CreateLoad(cg.i8(), nullByte(slot)), cg.c8(0)); };

  const size_t n = program.steps.size();
  std::vector<llvm::BasicBlock*> blocks(n + 1);
  for (size_t i = 0; i < n; ++i) blocks[i] = llvm::BasicBlock::Create(cg.ctx, "step" + std::to_string(i), fn);
  llvm::BasicBlock* done = blocks[n] = llvm::BasicBlock::Create(cg.ctx, "done", fn);
  b.CreateBr(blocks[0]);

  // Blocks with an EXCEPTION section: each has its savepoint on the stack and a catch block that
  // the failures of the steps it protects branch to (the innermost block around a step catches
  // first). The host answers with the handler's step, or -1: the enclosing block tries next, the
  // outermost leaves through the function's error exit.
  llvm::BasicBlock* exit = cg.errorExit();
  const size_t tries = program.tries.size();
  std::vector<llvm::BasicBlock*> catches(tries);
  std::vector<llvm::Value*> savepoints(tries);
  auto innermost = [&](uint32_t step, size_t below) -> int64_t {  // the last block before `below` around `step`
    for (size_t t = below; t-- > 0;)
      if (program.tries[t].begin < step && step < program.tries[t].end) return static_cast<int64_t>(t);
    return -1;
  };
  for (size_t t = 0; t < tries; ++t) {
    catches[t] = llvm::BasicBlock::Create(cg.ctx, "catch" + std::to_string(t), fn);
    savepoints[t] = cg.local(cg.i64(), "savepoint" + std::to_string(t));
  }

  auto failed = [&] {  // leaves with status 1 (the error exit)
    cg.checkStatus(cg.c32(1));
    b.CreateUnreachable();
  };
  auto runPlan = [&](const plan::ProgramStep& s) {
    const PlanFunctions& p = plans[s.plan];
    cg.call("hyrax_rt_program_reset", {ctx, cg.cPtr(s.resultTypes)});
    if (s.foundSlot >= 0) {
      b.CreateStore(cg.c8(0), value(static_cast<uint32_t>(s.foundSlot)));
      b.CreateStore(cg.c8(0), nullByte(static_cast<uint32_t>(s.foundSlot)));
    }
    const llvm::DataLayout& dl = cg.module.getDataLayout();
    b.CreateMemSet(state, cg.c8(0), dl.getPointerSize() * uint64_t{p.stateSlots}, dl.getPointerABIAlignment(0));
    auto callPlan = [&](const std::string& f) {
      llvm::Function* callee = cg.module.getFunction(f);
      // kPipelineStop (a LIMIT reached, SELECT INTO's first row) is success too.
      llvm::Value* status = b.CreateCall(callee, {ctx, state, cg.c64(0), cg.c64(-1)});
      cg.checkStatus(b.CreateICmpEQ(status, cg.c32(CodeGen::kPipelineFailed)));
    };
    if (!p.init.empty()) callPlan(p.init);
    for (auto& f : p.pipelines) callPlan(f);
    if (s.foundSlot >= 0 && !s.into.empty()) {  // SELECT INTO found no row: the variables are NULL
      llvm::Value* found = b.CreateLoad(cg.i8(), value(static_cast<uint32_t>(s.foundSlot)));
      cg.If(b.CreateICmpEQ(found, cg.c8(0)), [&] {
        for (uint32_t v : s.into) b.CreateStore(cg.c8(1), nullByte(v));
      });
    }
  };
  // A host step's answer: next, jump, stop, or failed.
  auto host = [&](size_t i, llvm::BasicBlock* next, llvm::BasicBlock* target) {
    llvm::Value* r = cg.call("hyrax_rt_program_host", {ctx, cg.c32(static_cast<int64_t>(i))});
    auto* fail = llvm::BasicBlock::Create(cg.ctx, "host_failed", fn);
    llvm::SwitchInst* sw = b.CreateSwitch(r, fail, 3);
    sw->addCase(b.getInt32(ProgramHost::kNext), next);
    sw->addCase(b.getInt32(ProgramHost::kJump), target);
    sw->addCase(b.getInt32(ProgramHost::kStop), done);
    b.SetInsertPoint(fail);
    failed();
  };

  for (size_t i = 0; i < n; ++i) {
    const plan::ProgramStep& s = program.steps[i];
    b.SetInsertPoint(blocks[i]);
    int64_t protector = innermost(static_cast<uint32_t>(i), tries);
    cg.setErrorExit(protector < 0 ? exit : catches[protector]);
    llvm::BasicBlock* next = blocks[i + 1];
    llvm::BasicBlock* target = s.target <= n ? blocks[s.target] : done;
    switch (s.op) {
      case Op::Run:
        runPlan(s);
        if (s.host) host(i, next, target);
        else b.CreateBr(next);
        break;
      case Op::Branch: {
        llvm::Value* holds = nullptr;
        if (s.test == Test::Plan) runPlan(s);
        llvm::Value* v = b.CreateICmpNE(b.CreateLoad(cg.i8(), value(s.slot)), cg.c8(0));
        switch (s.test) {
          case Test::Plan:
          case Test::IsTrue: holds = b.CreateAnd(b.CreateNot(isNull(s.slot)), v); break;
          case Test::IsFalse: holds = b.CreateAnd(b.CreateNot(isNull(s.slot)), b.CreateNot(v)); break;
          case Test::IsNull: holds = isNull(s.slot); break;
          case Test::IsNotNull: holds = b.CreateNot(isNull(s.slot)); break;
        }
        if (s.jumpIfTrue) b.CreateCondBr(holds, target, next);
        else b.CreateCondBr(holds, next, target);
        break;
      }
      case Op::Jump:
        if (s.target <= i) cg.checkCancel();
        b.CreateBr(target);
        break;
      case Op::RangeCheck: {
        auto* bad = llvm::BasicBlock::Create(cg.ctx, "null_bound", fn);
        auto* ok = llvm::BasicBlock::Create(cg.ctx, "bounds", fn);
        b.CreateCondBr(b.CreateOr(isNull(s.slot), isNull(s.slot + 1)), bad, ok);
        b.SetInsertPoint(bad);
        host(i, next, target);  // the host raises the error
        b.SetInsertPoint(ok);
        llvm::Value* var = b.CreateLoad(cg.i32(), value(s.slot));
        llvm::Value* bound = b.CreateLoad(cg.i32(), value(s.slot + 1));
        b.CreateCondBr(s.reverse ? b.CreateICmpSLT(var, bound) : b.CreateICmpSGT(var, bound), target, next);
        break;
      }
      case Op::RangeStep: {
        llvm::Value* var = b.CreateSExt(b.CreateLoad(cg.i32(), value(s.slot)), cg.i64());
        llvm::Value* stepped = b.CreateAdd(var, cg.c64(s.reverse ? -1 : 1));
        llvm::Value* outside = b.CreateOr(b.CreateICmpSGT(stepped, cg.c64(INT32_MAX)), b.CreateICmpSLT(stepped, cg.c64(INT32_MIN)));
        auto* store = llvm::BasicBlock::Create(cg.ctx, "step_store", fn);
        b.CreateCondBr(outside, target, store);
        b.SetInsertPoint(store);
        b.CreateStore(b.CreateTrunc(stepped, cg.i32()), value(s.slot));
        b.CreateBr(next);
        break;
      }
      case Op::Host: host(i, next, target); break;
      case Op::TryBegin:
        b.CreateStore(cg.call("hyrax_rt_program_savepoint", {ctx}), savepoints[s.slot]);
        b.CreateBr(next);
        break;
      case Op::TryEnd: b.CreateBr(next); break;
    }
  }
  cg.setErrorExit(exit);
  for (size_t t = 0; t < tries; ++t) {
    const plan::ProgramTry& block = program.tries[t];
    b.SetInsertPoint(catches[t]);
    llvm::Value* handler = cg.call("hyrax_rt_program_catch", {ctx, cg.c32(static_cast<int64_t>(t)),
                                                               b.CreateLoad(cg.i64(), savepoints[t])});
    int64_t outer = innermost(block.begin, t);
    llvm::SwitchInst* sw = b.CreateSwitch(handler, outer < 0 ? exit : catches[outer], static_cast<unsigned>(block.handlers.size()));
    for (uint32_t h : block.handlers) sw->addCase(b.getInt32(h), blocks[h]);
  }
  b.SetInsertPoint(done);
  cg.endFunction();
}

}  // namespace hyrax::codegen
