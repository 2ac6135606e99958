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

// How queries are compiled and run (SET compile_tier, SET threads), installed for the statements
// a session runs (ThreadScope<const ExecutionPolicy>). compile_tier auto: a statement expected to
// read few rows gets the fast pipeline; a big one starts on cheap code and switches to optimized
// code compiled in the background (adaptive). The other tiers force one way, for measurements and
// tests.
enum class CompileTier : uint8_t {
  Auto,
  Cheap,      // cheap code only (the fast pipeline)
  Interpreted,  // the interpreter only, where it runs the code (tests, measurements); cheap code elsewhere
  Optimized,  // wait for the optimized code before the first row, as before adaptive compilation
  Adaptive,   // every statement adaptive, however small
};
struct ExecutionPolicy {
  CompileTier tier = CompileTier::Auto;
  uint32_t threads = 1;  // threads a query's pipelines may run on (morsel-driven parallelism)
  bool twoParts = false;  // SET compile_parts = 'two': cheap code in two parts (query_compiler.cpp)
  bool greedyRegisterAllocator = false;  // SET cheap_regalloc = 'greedy' (jit::CompileOptions)
  // SET first_tier: an adaptive query's first morsels in the interpreter (codegen/interp) while
  // its cheap code compiles on the background thread, or ('cheap') on cheap code compiled first.
  bool interpretFirst = true;
  // Tests (CompileOptions::waitForOptimizedAfter; from HYRAX_TEST_SWITCH_AFTER_MORSELS).
  uint32_t switchAfterMorsels = 0;
};

struct CompileOptions {
  bool countRows = false;    // per-operator row counters (EXPLAIN ANALYZE)
  bool keepIR = false;       // keep the optimized IR text (EXPLAIN (LLVM))
  bool keepAssembly = false; // keep the native assembly text (EXPLAIN (ASM))
  bool fullOptimization = true;  // the full pass pipeline; off for short statements
  // Compile cheap code now and the optimized code (fullOptimization's) on the background thread;
  // each pipeline's remaining morsels switch to it when it is ready. A single query only (not a
  // procedure's plans), and not when IR or assembly text is kept.
  bool adaptive = false;
  // Adaptive: start the optimized compile only once the work on cheap code makes it worth it
  // (Kohn et al.'s rule; code_tiers.hpp's OptimizedTier); false compiles it at once.
  bool optimizeWhenWorthIt = false;
  bool cheapOnly = false;  // only cheap code (CompileTier::Cheap)
  bool interpretOnly = false;  // only the interpreter where it can (CompileTier::Interpreted)
  // Tests: after this many morsels have run, wait for the optimized code (0: never wait), so that
  // a switch in the middle of a pipeline happens every time.
  uint32_t waitForOptimizedAfter = 0;
};

struct CompileStats {
  double codegenMs = 0, optimizeMs = 0, machineCodeMs = 0;
  bool adaptive = false;  // started on cheap code, optimized code compiled in the background
  bool optimized = false; // the code compiled here had the full pipeline (not the fast one)
  bool greedyRegisters = false;  // the fast one with the greedy register allocator (SET cheap_regalloc)
  // The cheap code came in two parts: query_init and the first pipeline before the first row
  // (the times above), the later pipelines' on the background thread (RunProfile says when).
  bool split = false;
  // Run by the interpreter: from the first morsel on (an adaptive query's first tier, its cheap
  // code compiled meanwhile), or throughout (CompileTier::Interpreted). translateMs: the bytecode's.
  bool interpreted = false;
  double translateMs = 0;
  size_t bytecodeInstructions = 0;
  // The scans whose rows a selection vector narrows first, as "table (column, ...)"
  // (TableScanTranslator::columnTests), for EXPLAIN ANALYZE.
  std::vector<std::string> selections;
};

class CompiledQuery {
 public:
  ~CompiledQuery();
  // Runs every pipeline in order over the whole input, morsel by morsel when optimized code may
  // take over (ctx.runProfile() says how it went). Throws hyrax::Error when generated code
  // reported one (the QueryContext says which).
  void run(QueryContext& ctx) const;

  const std::string& ir() const { return ir_; }
  const std::string& assembly() const { return assembly_; }
  const CompileStats& stats() const { return stats_; }
  uint32_t operatorCount() const { return operatorCount_; }

  struct Impl;  // code_tiers.hpp's (the compile fills it, query_driver.cpp's driver reads it)

 private:
  friend struct CompiledProgram compileProgram(const std::vector<const plan::QueryPlan*>&, const plan::Program*,
                                               const CompileOptions&);
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

// Adaptive compilation's rule (Kohn, Leis, Neumann, ICDE 2018): start the optimized compile
// (expected to take `compileMs`) once the statement has spent as long on cheap code (`spentMs`,
// over all its runs), or once the pipeline running now, `done` of `total` morsels in
// `pipelineMs` (total UINT64_MAX: unknown), extrapolates to at least as much work left, counting
// the later pipelines' `laterMs` (laterPipelinesMs).
bool worthOptimizedCompile(double spentMs, double pipelineMs, uint64_t done, uint64_t total, double compileMs,
                           double laterMs = 0);

// The later pipelines' cheap work, extrapolated from the pipeline running now: `done` of `total`
// morsels over its `rows` rows took `pipelineMs`, and the later ones read `laterRows`. Why: the
// query's biggest pipeline often comes last (TPC-H Q3 scans customer, then orders, then
// lineitem); judged by the pipeline running now alone, the compile started only once the last
// one was under way and its code came when little was left (Q3 at one thread, SF 1: cheap code
// 93 of its 136 ms). A later pipeline may cost more or less per row than this one; 0 while
// nothing is known (no morsel done, the rows unknown).
double laterPipelinesMs(double pipelineMs, uint64_t done, uint64_t total, double rows, double laterRows);

// Waits until the optimized compiles queued so far have ended (a query that is gone has its
// compile skipped). The process must not begin to exit while one runs: an exit handler would
// destroy objects LLVM made on first use after the background's own handler was registered
// (e.g. SelectionDAG's set of extended value types), under the compile (a crash at exit in about
// half of the `hyrax-bench tpch --compile-tier adaptive` runs). Database's destructor calls it.
void waitForBackgroundCompiles();

}  // namespace hyrax::codegen
