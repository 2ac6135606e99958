#pragma once
// LLVM's JIT behind one small interface, so nothing else in hyrax sees it. Optimization uses the
// new pass manager; machine code for the host comes from LLVM's code generator as an object file
// in memory, loaded by RuntimeDyld (what MCJIT does, with target machines kept from compile to
// compile). Only codegen/ includes this header.
#include <functional>
#include <memory>
#include <string>

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
};

struct CompileOptions {
  bool keepIR = false;        // keep the optimized IR text
  bool keepAssembly = false;  // keep the native assembly of the optimized module
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
  const std::string& ir() const { return ir_; }
  const std::string& assembly() const { return assembly_; }

 private:
  friend std::unique_ptr<CompiledModule> compile(std::unique_ptr<llvm::LLVMContext>, std::unique_ptr<llvm::Module>,
                                                 OptLevel, CompileTimes*, const CompileOptions&);
  friend std::unique_ptr<CompiledModule> compileAgain(CompiledModule&, OptLevel, CompileTimes*);
  std::unique_ptr<llvm::LLVMContext> context_;
  std::unique_ptr<llvm::Module> module_;
  std::unique_ptr<llvm::RTDyldMemoryManager> memory_;
  std::unique_ptr<llvm::RuntimeDyld> loader_;
  char globalPrefix_ = 0;  // of symbol names in the object file ('_' on some targets)
  std::string ir_, assembly_;
};

std::unique_ptr<CompiledModule> compile(std::unique_ptr<llvm::LLVMContext> ctx, std::unique_ptr<llvm::Module> m,
                                        OptLevel level, CompileTimes* times = nullptr,
                                        const CompileOptions& options = {});

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
