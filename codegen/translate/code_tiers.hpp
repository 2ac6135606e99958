#pragma once
// The code tiers of a compiled query: the code that runs first (the interpreter's bytecode or
// cheap machine code) and the tiers compiled on the background threads that take over at a
// morsel (CheapTier, OptimizedTier), with what the driver (query_driver.cpp) and the compile
// (query_compiler.cpp) share of a query (CompiledQuery::Impl).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "codegen/interp/interpreter.hpp"
#include "codegen/jit/jit.hpp"
#include "codegen/translate/later_code.hpp"
#include "codegen/translate/query_compiler.hpp"
#include "codegen/translate/translator.hpp"

namespace hyrax::codegen {

// The optimized compile of a query takes about this many times its cheap compile's LLVM time;
// what the compile of an adaptive query is expected to cost, to be weighed against the work left
// on cheap code. TPC-H at SF 1, 2026-11-27, best of 4 each, geometric means: cheap code 4.8 ms
// (14.2 with the greedy register allocator: SET cheap_regalloc), optimized 41.1 ms. Since the
// optimized compile gives small functions O0 apart (jit::compileApart) the ratio is 6.9
// (2026-11-28), but 6.9 here started compiles at two threads that cost more than they saved
// (bench/README.md): 8.5 stays as a fitted weight, not a measurement.
constexpr double kOptimizedCompilePerCheap = 8.5;
constexpr double kOptimizedCompilePerGreedyCheap = 2.9;
inline double optimizedCompilePerCheap(bool greedyAllocator) {
  return greedyAllocator ? kOptimizedCompilePerGreedyCheap : kOptimizedCompilePerCheap;
}
// A query running on every core loses one to its compile: the work left must then outweigh the
// compile twice over. Measured at 2 threads, TPC-H SF 1, first runs: optimized code alone ran
// only ~2% faster than cheap code alone (execution 29.3 against 29.8 ms, geometric mean), and with
// the compile started at once Q9, Q13 and Q16 ended 11-26% later than on cheap code alone.
constexpr double kCompileOnBusyCores = 2;

using PipelineFn = int32_t (*)(QueryContext*, void**, uint64_t, uint64_t);

// One compile's machine code for a plan: its init function, pipelines and (parallel
// aggregation) merge functions.
struct CodeTier {
  std::shared_ptr<jit::CompiledModule> module;  // shared by the plans compiled together
  std::shared_ptr<interp::InterpretedModule> interpreted;  // or the interpreter's bytecode
  PipelineFn init = nullptr;
  // merges[i]: null unless pipeline i aggregates. A split compile's (`later`) are null after the
  // first until completeFrom() filled them in; only the query's thread fills them, before any
  // helper thread is handed this tier.
  mutable std::vector<PipelineFn> pipelines, merges;
  std::shared_ptr<LaterCode> later;  // a split compile's second part
  mutable std::atomic<bool> complete{true};

  // The functions of `m`; with `rest` (a split compile's second part) those `m` holds, the
  // others null until completeFrom().
  void resolve(const std::shared_ptr<jit::CompiledModule>& m, const std::string& initName,
               const std::vector<PipelineInfo>& infos, std::shared_ptr<LaterCode> rest = nullptr) {
    module = m;
    later = std::move(rest);
    init = reinterpret_cast<PipelineFn>(m->function(initName));
    auto find = [&](const std::string& name) {
      return reinterpret_cast<PipelineFn>(later ? reinterpret_cast<void*>(m->address(name)) : m->function(name));
    };
    pipelines.clear();
    merges.clear();
    for (auto& p : infos) {
      pipelines.push_back(find(p.function));
      merges.push_back(p.merge.empty() ? nullptr : find(p.merge));
    }
    complete.store(!later, std::memory_order_release);
  }
  // The interpreter's tier: its functions' native entry points.
  void resolve(const std::shared_ptr<interp::InterpretedModule>& m, const std::string& initName,
               const std::vector<PipelineInfo>& infos) {
    interpreted = m;
    init = reinterpret_cast<PipelineFn>(m->function(initName));
    pipelines.clear();
    merges.clear();
    for (auto& p : infos) {
      pipelines.push_back(reinterpret_cast<PipelineFn>(m->function(p.function)));
      merges.push_back(p.merge.empty() ? nullptr : reinterpret_cast<PipelineFn>(m->function(p.merge)));
    }
  }
  // Every function there (waits for, or compiles, the second part of a split compile).
  void completeFrom(const std::vector<PipelineInfo>& infos) const {
    if (complete.load(std::memory_order_acquire)) return;
    later->finish();
    const jit::CompiledModule& rest = *later->module;
    for (size_t i = 0; i < infos.size(); ++i) {
      if (!pipelines[i]) pipelines[i] = reinterpret_cast<PipelineFn>(rest.function(infos[i].function));
      if (!merges[i] && !infos[i].merge.empty()) merges[i] = reinterpret_cast<PipelineFn>(rest.function(infos[i].merge));
    }
    complete.store(true, std::memory_order_release);
  }
};

// The end of a background compile (either tier's), for the threads that wait on it.
struct CompileEnd {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;  // compiled, failed or skipped

  // Until the compile has ended or `over()` (the pipeline has no morsel left).
  template <typename Over>
  void waitWhileCompiling(const Over& over) {
    std::unique_lock lock(mutex);
    while (!done && !over()) finished.wait_for(lock, std::chrono::microseconds(200));
  }
};

// The optimized tier of an adaptive query: the background thread fills `tier` and then
// publishes it through `ready`; runs switch at their next morsel.
//
// When to compile it (Kohn, Leis, Neumann, ICDE 2018): only once the cheap code's work is worth
// it. A run's driver extrapolates the pipeline it is in from its morsels so far, and the compile
// starts when the work left looks longer than the compile (expectedCompileMs), or when the
// statement has already spent that long on cheap code (a cached statement's runs add up). Before,
// every query over 50,000 rows compiled at once: at 2 threads the compile took the second core
// from short queries that ended before it did, and a snapshot worker paid a compile it never used.
struct OptimizedTier : CompileEnd {
  std::atomic<const CodeTier*> ready{nullptr};
  std::atomic<bool> wanted{true};  // false once the query is gone: the compile is skipped
  std::atomic<bool> submitted{false};
  CodeTier tier;
  double compileMs = 0;
  // From the cheap compile's time. A split compile's first part alone, scaled by its share of the
  // module's instructions, overstates it (that part is mostly the fixed cost of a compile: 1.6 ms
  // for a tenth of TPC-H Q17, whose whole module takes 9), which held optimized code back from
  // queries that wanted it (Q17 123-134 ms in two parts against 72-88 in one); once the later
  // part is compiled, refineExpected() puts both parts' times in its place.
  std::atomic<double> expectedCompileMs{0};
  double firstPartMs = 0;  // a split compile's first part: LLVM's passes and machine code
  double perCheap = kOptimizedCompilePerCheap;  // optimizedCompilePerCheap() of the cheap compile's allocator
  std::atomic<bool> refined{false};
  std::atomic<uint64_t> cheapMicros{0};  // finished runs' time on cheap code before a compile began
  // What the compile needs; used only by the background thread once submitted. The cheap
  // tier's module holds the IR to compile again (the query's thread is done with it: it only
  // calls the machine code), and this reference keeps it alive until the compile took it.
  std::shared_ptr<jit::CompiledModule> cheap;
  std::string init;
  std::vector<PipelineInfo> infos;

  void waitUntilDone() {
    std::unique_lock lock(mutex);
    finished.wait(lock, [&] { return done; });
  }
  // Work on cheap code so far (this run's `runMs` and earlier runs'), and the work left in the
  // pipeline running now, extrapolated from `done` of `total` morsels in `pipelineMs`, plus the
  // later pipelines' (`laterMs`). `factor` scales the compile's expected cost (kCompileOnBusyCores).
  bool worthCompiling(double runMs, double pipelineMs, uint64_t done, uint64_t total, double laterMs, double factor) const {
    const double spent = runMs + static_cast<double>(cheapMicros.load(std::memory_order_relaxed)) / 1000;
    return worthOptimizedCompile(spent, pipelineMs, done, total, expectedCompileMs * factor, laterMs);
  }
  static void submit(const std::shared_ptr<OptimizedTier>& self);
  // A split compile's later part took `laterMs` (passes and machine code): the whole module's
  // cheap compile is about both parts (the query's thread, once).
  void refineExpected(double laterMs) {
    if (refined.exchange(true)) return;
    expectedCompileMs.store(perCheap * (firstPartMs + laterMs), std::memory_order_relaxed);
  }
};

// What a module's cheap compile is expected to take, from its size in bytecode instructions and
// the register allocator (code_tiers.cpp says how it was fitted).
double expectedCheapCompileMs(size_t instructions, bool greedyAllocator);

// An adaptive query that starts in the interpreter (ExecutionPolicy::interpretFirst): its cheap
// code, compiled on the background thread as soon as the bytecode is made, published through
// `ready`; runs switch at their next morsel. Its module holds the IR the optimized tier compiles
// again, so the optimized compile waits for it (Driver::considerCompiling).
struct CheapTier : CompileEnd {
  std::atomic<const CodeTier*> ready{nullptr};
  std::atomic<bool> wanted{true};  // false once the query is gone: the compile is skipped
  CodeTier tier;
  std::atomic<double> compileMs{-1};
  // What the compile needs; used only by the background thread once submitted.
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::string init;
  std::vector<PipelineInfo> infos;
  std::shared_ptr<OptimizedTier> optimized;  // told the cheap module and its compile's cost
  bool optimizeAtOnce = false;               // then submits the optimized compile (tests, compile_tier adaptive)
  // A small statement's cheap compile starts only once it is worth it, as the optimized one does:
  // an ad-hoc query over a few rows ends in the interpreter sooner than LLVM could compile it.
  std::atomic<bool> submitted{false};
  double expectedCompileMs = 0;  // from the bytecode's size (expectedCheapCompileMs)
  jit::CompileOptions jitOptions;  // (SET cheap_regalloc)
  std::atomic<uint64_t> interpretedMicros{0};  // finished runs' time in the interpreter before the compile began

  // The IR of a compile never started (a small statement that ended in the interpreter) is freed
  // as LLVM work is (no fork meanwhile), on whichever thread lets the query go.
  ~CheapTier() { jit::discard(std::move(context), std::move(module)); }

  static void submit(const std::shared_ptr<CheapTier>& self);
  // Tests (CompileOptions::waitForOptimizedAfter): starts the compile if it has not begun, and
  // waits for its end.
  static void waitUntilDone(const std::shared_ptr<CheapTier>& self) {
    submit(self);
    std::unique_lock lock(self->mutex);
    self->finished.wait(lock, [&] { return self->done; });
  }
};

struct CompiledQuery::Impl {
  CodeConstants constants;  // long string constants and stored functions the code points at
  CodeTier code;            // what runs first (the only code unless adaptive)
  std::shared_ptr<OptimizedTier> optimized;  // adaptive: the code compiled in the background
  std::shared_ptr<CheapTier> cheap;  // adaptive, the interpreter first: its cheap code, compiled in the background
  bool hasInit = true;     // false: the init function does nothing (no hash tables or buffers)
  bool countRows = false;
  uint32_t waitForOptimizedAfter = 0;
  std::vector<PipelineInfo> pipelines;  // what the driver needs of each (names, morsels, sink)
  uint32_t stateSlots = 0;
  uint32_t threadTagSlot = 0;  // QueryTranslator::threadTagSlot (0: none)

  ~Impl() {
    if (cheap) cheap->wanted = false;
    if (optimized) optimized->wanted = false;
    if (code.later) code.later->wanted = false;
  }
};

}  // namespace hyrax::codegen
