// A module compiled in two parts (jit.hpp: compileFirst, compileLater). Why: a query's cheap
// compile is LLVM's back end over every pipeline before the first row, though the first morsel
// needs only query_init and the first pipeline; the others (TPC-H: two to ten more) can be
// compiled on the background thread at the same time, on the core the compile left idle, and
// while the first pipeline runs. The later part travels as bitcode into a context of its own:
// two threads may not work in one LLVM context.
#include <functional>
#include <mutex>
#include <set>
#include <shared_mutex>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/ExecutionEngine/RTDyldMemoryManager.h>
#include <llvm/ExecutionEngine/RuntimeDyld.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include "codegen/jit/jit_internal.hpp"
#include "engine/util/error.hpp"

namespace hyrax::jit {

namespace {

// The first part is not split off when it holds more than this share of the module's
// instructions: the second compile's own cost (a target machine's passes set up again, a second
// object loaded) would then eat what the first part saves.
constexpr double kMostOfTheModule = 0.7;

// Functions a constant refers to (a function pointer passed to the runtime, e.g. a sort's compare).
void functionsIn(const llvm::Constant* c, std::vector<const llvm::Function*>& out, std::set<const llvm::Constant*>& seen) {
  if (!seen.insert(c).second) return;
  if (auto* f = llvm::dyn_cast<llvm::Function>(c)) {
    out.push_back(f);
    return;
  }
  for (const llvm::Use& op : c->operands())
    if (auto* inner = llvm::dyn_cast<llvm::Constant>(op.get())) functionsIn(inner, out, seen);
}

// `roots` and every function defined in `m` they call or refer to, transitively.
std::set<const llvm::Function*> closure(const llvm::Module& m, const std::vector<std::string>& roots) {
  std::set<const llvm::Function*> in;
  std::vector<const llvm::Function*> work;
  for (const std::string& name : roots)
    if (const llvm::Function* f = m.getFunction(name)) work.push_back(f);
  std::set<const llvm::Constant*> seen;
  while (!work.empty()) {
    const llvm::Function* f = work.back();
    work.pop_back();
    if (f->isDeclaration() || !in.insert(f).second) continue;
    for (const llvm::BasicBlock& block : *f)
      for (const llvm::Instruction& inst : block)
        for (const llvm::Use& op : inst.operands())
          if (auto* c = llvm::dyn_cast<llvm::Constant>(op.get())) functionsIn(c, work, seen);
  }
  return in;
}

size_t instructions(const llvm::Function& f) { return f.getInstructionCount(); }

// A clone of `m` in its context with the bodies of `keep` only; the other functions declared.
std::unique_ptr<llvm::Module> cloneWith(const llvm::Module& m, const std::set<const llvm::Function*>& keep) {
  llvm::ValueToValueMapTy map;
  return llvm::CloneModule(m, map, [&](const llvm::GlobalValue* gv) {
    auto* f = llvm::dyn_cast<llvm::Function>(gv);
    return f && keep.count(f);
  });
}

}  // namespace

std::unique_ptr<CompiledModule> compileFirst(std::unique_ptr<llvm::LLVMContext>& ctx, std::unique_ptr<llvm::Module>& m,
                                             const std::vector<std::string>& first, std::string& later, OptLevel level,
                                             CompileTimes* times, const std::function<void()>& laterWritten) {
  std::shared_lock inLlvm(llvmGuard());
  if (!m->global_empty() || !m->alias_empty() || !m->ifunc_empty()) return nullptr;
  std::set<const llvm::Function*> part = closure(*m, first), rest;
  size_t total = 0, inPart = 0;
  for (const llvm::Function& f : *m) {
    if (f.isDeclaration()) continue;
    // Every definition is external (codegen makes them so): the other part reaches them by name.
    if (!f.hasExternalLinkage()) return nullptr;
    total += instructions(f);
    if (part.count(&f)) inPart += instructions(f);
  }
  // Halves: both parts compile at once, on two cores, and a compile's time is mostly in
  // proportion to its instructions (a fixed ~0.8 ms beside), so the first row waits least when
  // the first part carries later functions up to half the module. (init and the first pipeline
  // alone were a tenth of TPC-H Q2, 2 ms, and the rest 12 ms, longer than the whole module's 10:
  // the query waited for it after a first pipeline of a millisecond.)
  // A later function joins with what it calls, and only while the part stays within half.
  for (const llvm::Function& f : *m) {
    if (f.isDeclaration() || part.count(&f)) continue;
    std::set<const llvm::Function*> with = closure(*m, {f.getName().str()});
    size_t added = 0;
    for (const llvm::Function* g : with) added += part.count(g) ? 0 : instructions(*g);
    if (2 * (inPart + added) > total) continue;
    part.insert(with.begin(), with.end());
    inPart += added;
  }
  for (const llvm::Function& f : *m)
    if (!f.isDeclaration() && !part.count(&f)) rest.insert(&f);
  if (part.empty() || rest.empty() || static_cast<double>(inPart) > kMostOfTheModule * static_cast<double>(total))
    return nullptr;
  later = toBitcode(*cloneWith(*m, rest));
  if (laterWritten) laterWritten();
  auto result = std::unique_ptr<CompiledModule>(new CompiledModule());
  result->context_ = std::move(ctx);
  result->module_ = std::move(m);
  result->rawIR_ = true;
  std::unique_ptr<llvm::Module> firstPart = cloneWith(*result->module_, part);
  emitAndLoad(*result, *firstPart, level, times, {}, {});
  if (times) times->share = static_cast<double>(inPart) / static_cast<double>(total);
  return result;  // the clone dies here, before the context the result owns
}

std::unique_ptr<CompiledModule> compileLater(const std::string& later,
                                             const std::function<std::shared_ptr<CompiledModule>()>& first,
                                             OptLevel level, CompileTimes* times) {
  std::shared_lock inLlvm(llvmGuard());
  auto result = std::unique_ptr<CompiledModule>(new CompiledModule());
  result->context_ = std::make_unique<llvm::LLVMContext>();
  auto parsed = llvm::parseBitcodeFile(llvm::MemoryBufferRef(later, "later"), *result->context_);
  if (!parsed) {
    std::string message = llvm::toString(parsed.takeError());
    throw Error(sqlstate::InternalError, "cannot read back a split module's later part: " + message);
  }
  result->module_ = std::move(*parsed);
  CompiledModule* r = result.get();
  emitAndLoad(*result, *result->module_, level, times, {}, [&]() -> const CompiledModule* {
    r->base_ = first();
    if (!r->base_) throw Error(sqlstate::InternalError, "the first part of a split compile failed");
    return r->base_.get();
  });
  result->module_.reset();  // only its machine code is used: the IR goes now, not with the query
  result->context_.reset();
  return result;
}

}  // namespace hyrax::jit
