#pragma once
// The first tier (issue 18: the first morsel within 5 ms): generated IR run by an interpreter of
// its own bytecode, as HyPer does (Kohn, Leis, Neumann, ICDE 2018), while LLVM compiles the same
// module on another thread. Translating a module takes a fraction of a millisecond where LLVM's
// cheapest compile takes several.
//
// A module's functions are reached through native entry points (trampolines, interpreter.cpp),
// so the driver calls an interpreted pipeline as it calls compiled code, and a runtime function
// handed an interpreted function (a sort's comparator) calls it as it would a compiled one.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/interp/bytecode.hpp"

namespace llvm {
class Module;
}

namespace hyrax::interp {

// A function's native signature, for its entry point: a pipeline's, init's and merge's
// `i32 (ptr, ptr, i64, i64)`, or a comparator's `i32 (ptr, ptr)`.
enum class EntryKind : uint8_t { Pipeline, Compare };

class InterpretedModule {
 public:
  InterpretedModule() = default;
  InterpretedModule(const InterpretedModule&) = delete;
  InterpretedModule& operator=(const InterpretedModule&) = delete;
  ~InterpretedModule();  // gives its entry points back

  // The native entry point of a function of the module (throws when it has none).
  void* function(const std::string& name) const;
  size_t instructions() const;
  const Function* bytecode(const std::string& name) const;  // nullptr when there is none (tests)
  std::string disassemble() const;  // every function's

 private:
  friend class Translator;
  std::vector<std::unique_ptr<Function>> functions_;
  std::vector<std::unique_ptr<uint64_t[]>> globals_;  // global variables' storage
  std::unordered_map<std::string, void*> entries_;
  std::vector<std::pair<EntryKind, uint32_t>> slots_;
};

// The module as bytecode; nullptr when it uses what the interpreter does not run (`why` says
// what: the caller compiles it instead), or when every entry point is taken. The module is only
// read: the caller may compile it afterwards, on any thread.
std::unique_ptr<InterpretedModule> translate(const llvm::Module& m, std::string* why = nullptr);

// The bytecode as text, an instruction a line (HYRAX_INTERP_DUMP=1 prints each module's).
std::string disassemble(const Function& f);

// Runs `f` over `args` (its parameters' registers); its result (0 for void).
uint64_t execute(const Function& f, const uint64_t* args);

// Entry points (interpreter.cpp): a native function that runs `f`; false when all are taken.
bool bindEntry(const Function* f, EntryKind kind, uint32_t& slot, void*& entry);
void releaseEntry(EntryKind kind, uint32_t slot);

}  // namespace hyrax::interp
