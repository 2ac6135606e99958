#include "codegen/translate/code_tiers.hpp"

#include "codegen/jit/background.hpp"

namespace hyrax::codegen {

CompiledQuery::~CompiledQuery() = default;

void waitForBackgroundCompiles() { jit::drainBackground(); }

bool worthOptimizedCompile(double spentMs, double pipelineMs, uint64_t done, uint64_t total, double compileMs,
                           double laterMs) {
  if (!done || total == UINT64_MAX || total < done) return spentMs >= compileMs;
  const double left = pipelineMs * static_cast<double>(total - done) / static_cast<double>(done);
  return spentMs >= compileMs || left + laterMs >= compileMs;
}

double laterPipelinesMs(double pipelineMs, uint64_t done, uint64_t total, double rows, double laterRows) {
  if (!done || total == UINT64_MAX || total < done || rows <= 0) return 0;
  const double rowsDone = rows * static_cast<double>(done) / static_cast<double>(total);
  return pipelineMs / rowsDone * laterRows;
}

void OptimizedTier::submit(const std::shared_ptr<OptimizedTier>& self) {
  if (self->submitted.exchange(true)) return;
  jit::runInBackground([optimized = self] {
    if (optimized->wanted) {
      try {
        auto t = std::chrono::steady_clock::now();
        std::shared_ptr<jit::CompiledModule> m = jit::compileAgain(*optimized->cheap, jit::OptLevel::Full);
        optimized->tier.resolve(m, optimized->init, optimized->infos);
        optimized->compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
        optimized->ready.store(&optimized->tier, std::memory_order_release);
      } catch (...) {
        // The cheap code is correct and goes on to the end; only speed is lost.
      }
    }
    optimized->cheap.reset();  // its IR is the optimized code's now (or freed with it)
    std::lock_guard lock(optimized->mutex);
    optimized->done = true;
    optimized->finished.notify_all();
  });
}

// What a module's cheap compile is expected to take, from its size in bytecode instructions: a
// fixed cost plus a share per instruction. Fitted to the 22 TPC-H queries' cheap compiles (LLVM's
// passes and machine code, 394 to 2,087 instructions; best of 4, 2026-11-27, the 2-core Intel
// Xeon VM): 1.7 ms + 2.7 us an instruction (3.0 to 8.7 ms, every query within 0.4 of it); with
// the greedy register allocator 2.2 ms + 10.4 us (5.9 to 22.3 ms, within a third).
double expectedCheapCompileMs(size_t instructions, bool greedyAllocator) {
  const double n = static_cast<double>(instructions);
  return greedyAllocator ? 2.2 + 0.0104 * n : 1.7 + 0.0027 * n;
}

void CheapTier::submit(const std::shared_ptr<CheapTier>& self) {
  if (self->submitted.exchange(true)) return;
  jit::runInBackground([cheap = self] {
    std::shared_ptr<OptimizedTier> optimized = cheap->optimized;
    bool compiled = false;
    if (cheap->wanted) {
      try {
        auto t = std::chrono::steady_clock::now();
        jit::CompileTimes times;
        std::shared_ptr<jit::CompiledModule> m =
            jit::compile(std::move(cheap->context), std::move(cheap->module), jit::OptLevel::Fast, &times,
                         cheap->jitOptions);
        cheap->tier.resolve(m, cheap->init, cheap->infos);
        cheap->compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
        if (optimized) {
          optimized->cheap = m;
          optimized->firstPartMs = times.optimizeMs + times.machineCodeMs;
          optimized->perCheap = optimizedCompilePerCheap(times.greedyRegisters);
          optimized->expectedCompileMs = optimized->perCheap * optimized->firstPartMs;
        }
        cheap->ready.store(&cheap->tier, std::memory_order_release);
        compiled = true;
      } catch (...) {
        // The interpreter is correct and goes on to the end; only speed is lost.
      }
    }
    jit::discard(std::move(cheap->context), std::move(cheap->module));  // what a skipped or failed compile left
    {
      std::lock_guard lock(cheap->mutex);
      cheap->done = true;
      cheap->finished.notify_all();
    }
    if (!optimized) return;
    if (compiled && cheap->optimizeAtOnce) {
      OptimizedTier::submit(optimized);
    } else if (!compiled) {  // no optimized code either: nobody may wait for it
      optimized->submitted = true;
      std::lock_guard lock(optimized->mutex);
      optimized->done = true;
      optimized->finished.notify_all();
    }
  }, jit::Lane::FirstCode);
}

}  // namespace hyrax::codegen
