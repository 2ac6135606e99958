#pragma once
// What jit.cpp shares with the other files of jit/ (split_compile.cpp), and nothing else includes.
#include <functional>
#include <shared_mutex>

#include "codegen/jit/jit.hpp"

namespace hyrax::jit {

// Held shared by all LLVM work, exclusively by fork() (jit.cpp says why).
std::shared_mutex& llvmGuard();

// `module` optimized at `level` and its machine code loaded into `result`; the caller holds
// llvmGuard() shared. Symbols the module only declares are looked up in the module `base` gives
// first (a split module's part compiled first; asked once the machine code is made, so it may
// wait for that part meanwhile), then in the runtime's table and the process.
void emitAndLoad(CompiledModule& result, llvm::Module& module, OptLevel level, CompileTimes* times,
                 const CompileOptions& options, const std::function<const CompiledModule*()>& base);

}  // namespace hyrax::jit
