#pragma once
// LLVM's JIT behind one small interface, so nothing else in hyrax sees it. Optimization uses the
// new pass manager; machine code for the host comes from LLVM's code generator as an object file
// in memory, loaded by RuntimeDyld (what MCJIT does, with target machines kept from compile to
// compile). Only codegen/ includes this header.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

namespace llvm {
class TargetMachine;
class RuntimeDyld;
class RTDyldMemoryManager;
}  // namespace llvm

namespace hyrax::jit {

// Fast: a short pipeline for short statements; Full: the O2 pipeline for long-running queries.
enum class OptLevel { None, Fast, Full };

struct CompileTimes {
  double optimizeMs = 0, machineCodeMs = 0;
  double share = 1;  // of the module's instructions compiled (compileFirst: the first part's)
  bool greedyRegisters = false;  // Fast with the greedy register allocator (CompileOptions)
  size_t coldApart = 0;  // Full: functions marked optnone given O0's code generator apart (compileApart)
};

struct CompileOptions {
  bool keepIR = false;        // keep the optimized IR text
  bool keepAssembly = false;  // keep the native assembly of the optimized module
  // Fast with the register allocator of optimized code instead of LLVM's O0 one, which keeps no
  // value in a register from one block to the next (SET cheap_regalloc = 'greedy': faster cheap
  // code for a longer compile, jit.cpp has the figures). Never for huge modules.
  bool greedyRegisterAllocator = false;
};

void initialize();  // once per process; thread-safe

// Sets target triple and DataLayout ("" = host) before code is generated, so pointer widths and
// struct layouts come from the target.
void configureModule(llvm::Module& m, const std::string& triple = "");

// Owns one compiled module: its machine code, what loaded it, and its IR and context (freed
// with the code, not on the way to the first row).
class CompiledModule {
 public:
  ~CompiledModule();
  void* function(const std::string& name) const;  // throws when there is none
  uint64_t address(const std::string& name) const;  // 0 when there is none
  uint64_t symbolAddress(const std::string& objectName) const;  // by the object file's name (prefixed)
  const std::string& ir() const { return ir_; }
  const std::string& assembly() const { return assembly_; }

 private:
  friend std::unique_ptr<CompiledModule> compile(std::unique_ptr<llvm::LLVMContext>, std::unique_ptr<llvm::Module>,
                                                 OptLevel, CompileTimes*, const CompileOptions&);
  friend std::unique_ptr<CompiledModule> compileAgain(CompiledModule&, OptLevel, CompileTimes*);
  friend std::unique_ptr<CompiledModule> compileFirst(std::unique_ptr<llvm::LLVMContext>&, std::unique_ptr<llvm::Module>&,
                                                      const std::vector<std::string>&, std::string&, OptLevel,
                                                      CompileTimes*, const std::function<void()>&);
  friend std::unique_ptr<CompiledModule> compileLater(const std::string&,
                                                      const std::function<std::shared_ptr<CompiledModule>()>&, OptLevel,
                                                      CompileTimes*);
  friend std::shared_ptr<CompiledModule> compileApart(CompiledModule&, llvm::Module&);
  friend void loadObject(CompiledModule&, llvm::StringRef, const llvm::Module&, const CompiledModule*);
  friend void emitAndLoad(CompiledModule&, llvm::Module&, OptLevel, CompileTimes*, const CompileOptions&,
                          const std::function<const CompiledModule*()>&);
  std::unique_ptr<llvm::LLVMContext> context_;
  std::unique_ptr<llvm::Module> module_;
  std::unique_ptr<llvm::RTDyldMemoryManager> memory_;
  std::unique_ptr<llvm::RuntimeDyld> loader_;
  char globalPrefix_ = 0;  // of symbol names in the object file ('_' on some targets)
  // compileLater's: the part compiled first, whose functions this code calls (kept alive with
  // it); compileApart's: the part of a full compile that it compiled first (address() looks
  // there for what this part lacks).
  std::shared_ptr<CompiledModule> base_;
  bool coldPart_ = false;  // compileApart's part of the functions marked optnone
  // compileFirst's: module_ is the IR as generated (its parts were compiled from clones), not yet
  // through the fast pipeline as a cheap compile's IR is; compileAgain runs that first.
  bool rawIR_ = false;
  std::string ir_, assembly_;
};

std::unique_ptr<CompiledModule> compile(std::unique_ptr<llvm::LLVMContext> ctx, std::unique_ptr<llvm::Module> m,
                                        OptLevel level, CompileTimes* times = nullptr,
                                        const CompileOptions& options = {});

// A module compiled in two parts (issue 18: the time to the first morsel). compileFirst writes
// the functions not named in `first` (nor referred to by them) as bitcode into `later`, calls
// `laterWritten` (so that another thread may start on it), compiles the others, and returns them
// with the whole module's IR kept (for compileAgain); nullptr, leaving `ctx` and `m` as they were,
// when that part would be most of the module (or the module has global variables, which two
// parts could not share). compileLater compiles `later` in an LLVM context of its own, so on
// another thread while the first part compiles or runs; once its machine code is made it asks
// `first` for the first part (which may wait for it; null: the first part failed, and so does
// this), whose functions its code calls and keeps alive.
std::unique_ptr<CompiledModule> compileFirst(std::unique_ptr<llvm::LLVMContext>& ctx, std::unique_ptr<llvm::Module>& m,
                                             const std::vector<std::string>& first, std::string& later, OptLevel level,
                                             CompileTimes* times = nullptr,
                                             const std::function<void()>& laterWritten = {});
std::unique_ptr<CompiledModule> compileLater(const std::string& later,
                                             const std::function<std::shared_ptr<CompiledModule>()>& first,
                                             OptLevel level, CompileTimes* times = nullptr);

// The module as bitcode, and a compile of such bitcode in an LLVM context of its own.
std::string toBitcode(const llvm::Module& m);
std::unique_ptr<CompiledModule> compileBitcode(const std::string& bitcode, OptLevel level, CompileTimes* times = nullptr);

// Compiles the IR a module was compiled from again, at another level: adaptive compilation's
// optimized tier, on the background thread, from the IR the cheap tier left (its IR passes and
// instruction selection's preparation have run; it is IR like any other). The new module takes
// the IR and its context over; `from` keeps its machine code. The caller makes sure no other
// thread uses `from` meanwhile (a context must not be used by two threads at once) and that it
// lives until this returns. Throws when the IR was taken already.
std::unique_ptr<CompiledModule> compileAgain(CompiledModule& from, OptLevel level, CompileTimes* times = nullptr);

// Frees IR that will not be compiled (the interpreter ran it), as LLVM work is done: no fork meanwhile.
void discard(std::unique_ptr<llvm::LLVMContext> ctx, std::unique_ptr<llvm::Module> m);

void optimize(llvm::Module& m, OptLevel level, llvm::TargetMachine* tm);
std::string printIR(const llvm::Module& m);
// Assembly for a target triple ("" = host; e.g. "armv7-unknown-linux-gnueabihf").
std::string emitAssembly(llvm::Module& m, const std::string& triple = "");

// Whether every compile checks its IR with LLVM's verifier (an invalid module is a code
// generation bug: an InternalError then, never a crash in LLVM). Always before the full
// pipeline; before the fast one in debug builds, with HYRAX_VERIFY_IR set, or once switched on
// here (tests); release builds skip it there, on the way to the first row.
bool verifyingGeneratedCode();
void verifyGeneratedCode(bool always);

using SymbolResolver = std::function<void*(const std::string& name)>;
// Replaces how external symbols are found (tests); the default looks in engine/runtime's table,
// then in the process.
void setSymbolResolver(SymbolResolver r);

}  // namespace hyrax::jit
