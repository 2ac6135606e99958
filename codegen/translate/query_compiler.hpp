#pragma once
// codegen's public entry point: a physical plan in, a compiled query out. No LLVM types appear
// here, so sql/ and everything above compile without LLVM headers.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen/plan/operator.hpp"
#include "codegen/plan/program.hpp"

namespace hyrax {
class QueryContext;
namespace jit {
class CompiledModule;
}
}  // namespace hyrax

namespace hyrax::codegen {

struct CompileOptions {
  bool countRows = false;    // per-operator row counters (EXPLAIN ANALYZE)
  bool keepIR = false;       // keep the optimized IR text (EXPLAIN (LLVM))
  bool keepAssembly = false; // keep the native assembly text (EXPLAIN (ASM))
  bool fullOptimization = true;  // the full pass pipeline; off for short statements
};

struct CompileStats {
  double codegenMs = 0, optimizeMs = 0, machineCodeMs = 0;
};

class CompiledQuery {
 public:
  ~CompiledQuery();
  // Runs every pipeline in order over the whole input. Throws hyrax::Error when generated code
  // reported one (the QueryContext says which).
  void run(QueryContext& ctx) const;

  const std::string& ir() const { return ir_; }
  const std::string& assembly() const { return assembly_; }
  const CompileStats& stats() const { return stats_; }
  uint32_t operatorCount() const { return operatorCount_; }

 private:
  friend struct CompiledProgram compileProgram(const std::vector<const plan::QueryPlan*>&, const plan::Program*,
                                               const CompileOptions&);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string ir_, assembly_;
  CompileStats stats_;
  uint32_t operatorCount_ = 0;
};

std::unique_ptr<CompiledQuery> compile(const plan::QueryPlan& plan, const CompileOptions& options);

// Several plans in one LLVM module, optimized and turned into machine code together (a stored
// procedure's statements): one compile instead of many. Each result runs its own plan; they
// share the machine code, and stats() of each tells the whole module's times.
std::vector<std::unique_ptr<CompiledQuery>> compileAll(const std::vector<const plan::QueryPlan*>& plans,
                                                       const CompileOptions& options);

// The same, plus a stored procedure body's control flow as one function calling those plans
// (program_compiler.hpp): `i32 body(ctx, state, begin, end)`, 0 when the body ended, 1 when it
// failed; it runs with a ProgramHost installed (engine/runtime/program_host.hpp).
struct CompiledProgram {
  std::vector<std::unique_ptr<CompiledQuery>> plans;
  int32_t (*body)(QueryContext*, void**, uint64_t, uint64_t) = nullptr;
  std::shared_ptr<jit::CompiledModule> module;  // keeps the body's code alive
};
CompiledProgram compileProgram(const std::vector<const plan::QueryPlan*>& plans, const plan::Program* program,
                               const CompileOptions& options);

}  // namespace hyrax::codegen
