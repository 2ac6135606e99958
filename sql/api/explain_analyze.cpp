#include "sql/api/explain_analyze.hpp"

#include <algorithm>
#include <cstdio>

#include "sql/api/snapshot.hpp"

namespace hyrax::sql {

std::string analyzeSummary(uint64_t rows, const PhaseTimes& times, const codegen::CompileStats& stats, const RunProfile& run) {
  std::string text;
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "Result rows: %llu\nParse: %.3f ms\nPlan: %.3f ms\nCodegen: %.3f ms\nLLVM optimize: %.3f ms\n"
                "Machine code: %.3f ms\nExecute: %.3f ms\nTotal: %.3f ms\n",
                static_cast<unsigned long long>(rows), times.parse, times.plan, times.codegen, times.optimize,
                times.machineCode, times.execute, times.total());
  text += buf;
  if (stats.interpreted) {
    // The interpreter first (codegen/interp): its bytecode is in Codegen's time above.
    const double bytecodeMs = stats.translateMs;
    const auto instructions = static_cast<unsigned long long>(stats.bytecodeInstructions);
    const auto morsels = static_cast<unsigned long long>(run.morsels);
    const auto interpreted = static_cast<unsigned long long>(run.interpretedMorsels);
    // A tier ready before this run began (an earlier run of a cached statement compiled it, or,
    // under ThreadSanitizer, a snapshot worker compiled it inline) ran from the first morsel.
    const bool optimizedBefore = run.switchedAtMs == 0;
    if (optimizedBefore || (run.cheapSwitchedAtMs == 0 && run.switchedAtMs < 0))
      std::snprintf(buf, sizeof(buf),
                    "Compile tiers: %s code, compiled before this run (%.3f ms in the background; bytecode "
                    "%.3f ms, %llu instructions); morsels: %llu\n",
                    optimizedBefore ? "optimized" : "cheap", optimizedBefore ? run.optimizedCompileMs : run.cheapCompileMs,
                    bytecodeMs, instructions, morsels);
    else if (run.switchedAtMs > 0)
      std::snprintf(buf, sizeof(buf),
                    "Compile tiers: %s (bytecode %.3f ms, %llu instructions), optimized code (%.3f ms "
                    "in the background) from %.3f ms into the run; morsels: %llu, %llu interpreted, %llu optimized\n",
                    run.cheapSwitchedAtMs == 0 && interpreted == 0 ? "cheap code first, compiled before this run"
                                                                   : "interpreter first",
                    bytecodeMs, instructions, run.optimizedCompileMs, run.switchedAtMs, morsels, interpreted,
                    static_cast<unsigned long long>(run.optimizedMorsels));
    else if (run.cheapSwitchedAtMs > 0)
      std::snprintf(buf, sizeof(buf),
                    "Compile tiers: interpreter first (bytecode %.3f ms, %llu instructions), cheap code (%.3f ms "
                    "in the background) from %.3f ms into the run; morsels: %llu, %llu interpreted\n",
                    bytecodeMs, instructions, run.cheapCompileMs, run.cheapSwitchedAtMs, morsels, interpreted);
    else
      std::snprintf(buf, sizeof(buf),
                    "Compile tiers: interpreter throughout (bytecode %.3f ms, %llu instructions); morsels: %llu\n",
                    bytecodeMs, instructions, morsels);
  } else if (stats.adaptive) {
    // Adaptive: the cheap code's compile is above; the optimized one ran in the background.
    if (run.switchedAtMs == 0)
      std::snprintf(buf, sizeof(buf),
                    "Compile tiers: optimized code, compiled before this run (%.3f ms in the background); "
                    "morsels: %llu\n",
                    run.optimizedCompileMs, static_cast<unsigned long long>(run.morsels));
    else if (run.switchedAtMs > 0)
      std::snprintf(buf, sizeof(buf),
                    "Compile tiers: cheap code first, optimized code (%.3f ms in the background) from %.3f ms "
                    "into the run; morsels: %llu, %llu of them optimized\n",
                    run.optimizedCompileMs, run.switchedAtMs, static_cast<unsigned long long>(run.morsels),
                    static_cast<unsigned long long>(run.optimizedMorsels));
    else if (run.optimizedStartedAtMs >= 0)
      std::snprintf(buf, sizeof(buf),
                    "Compile tiers: cheap code throughout (the optimized code, started %.3f ms into the run, "
                    "was not ready before the end); morsels: %llu\n",
                    run.optimizedStartedAtMs, static_cast<unsigned long long>(run.morsels));
    else
      std::snprintf(buf, sizeof(buf),
                    "Compile tiers: cheap code throughout (the work left never outweighed an optimized "
                    "compile of about %.1f ms); morsels: %llu\n",
                    run.optimizedExpectedMs, static_cast<unsigned long long>(run.morsels));
  } else {
    std::snprintf(buf, sizeof(buf), "Compile tiers: one (%s); morsels: %llu\n",
                  stats.optimized ? "optimized" : stats.greedyRegisters ? "cheap, greedy register allocation" : "cheap",
                  static_cast<unsigned long long>(run.morsels));
  }
  text += buf;
  if (!stats.selections.empty()) {
    // Scans whose rows a selection vector narrowed before the generated code saw them
    // (engine/runtime/scan_selection.cpp).
    text += "Selection vectors:";
    for (size_t i = 0; i < stats.selections.size(); ++i) text += (i ? ", " : " ") + stats.selections[i];
    text += "\n";
  }
  if (stats.split) {
    if (run.laterCodeCompileMs >= 0)
      std::snprintf(buf, sizeof(buf),
                    "Cheap code in two parts: init and the first pipeline before the first row, the later "
                    "pipelines' (%.3f ms) meanwhile; the run waited %.3f ms for them\n",
                    run.laterCodeCompileMs, run.laterCodeWaitMs);
    else
      std::snprintf(buf, sizeof(buf),
                    "Cheap code in two parts: init and the first pipeline before the first row (the run "
                    "ended within it)\n");
    text += buf;
  }
  if (run.parallelPipelines)
    std::snprintf(buf, sizeof(buf), "Parallel: %u pipeline%s on up to %u threads\n", run.parallelPipelines,
                  run.parallelPipelines == 1 ? "" : "s", run.threads);
  else
    std::snprintf(buf, sizeof(buf), "Parallel: none (one thread)\n");
  text += buf;
  text += pipelineLines(run.pipelines);
  double forkMs = 0, ageMs = 0;
  if (sql::inSnapshotWorker(&forkMs, &ageMs))
    std::snprintf(buf, sizeof(buf), "Ran on: snapshot (age %.3f ms, fork %.3f ms)\n", ageMs, forkMs);
  else std::snprintf(buf, sizeof(buf), "Ran on: inline\n");
  text += buf;
  return text;
}

std::string pipelineLines(const std::vector<PipelineRun>& pipelines) {
  std::string text;
  char buf[256];
  for (size_t i = 0; i < pipelines.size(); ++i) {
    const PipelineRun& r = pipelines[i];
    const char* from = r.source == 't' ? "table" : r.source == 'h' ? "hash entries" : r.source == 'b' ? "buffered rows" : r.source == 's' ? "series" : "once";
    const char* to = r.sink == 'r'   ? "result"
                     : r.sink == 'j' ? "join table"
                     : r.sink == 'a' ? "aggregation"
                     : r.sink == 'b' ? "buffer"
                                     : "no sink";
    const char* merge = r.merge == 'p'   ? ", pre-aggregated in partitions, merged"
                        : r.merge == 'g' ? ", groups merged"
                        : r.merge == 'd' ? ", groups adopted"
                        : r.merge == 'r' ? ", morsels aligned to a group key's runs, groups adopted"
                        : r.threads > 1  ? ", sinks joined"
                                         : "";
    int n = std::snprintf(buf, sizeof(buf), "Pipeline %zu: %.3f ms, %s -> %s, %u thread%s, %llu morsel%s%s", i + 1, r.ms,
                          from, to, r.threads, r.threads == 1 ? "" : "s", static_cast<unsigned long long>(r.morsels),
                          r.morsels == 1 ? "" : "s", merge);
    text.append(buf, static_cast<size_t>(n > 0 ? std::min<int>(n, sizeof(buf) - 1) : 0));
    if (r.threads > 1) {
      std::snprintf(buf, sizeof(buf), " (%.3f ms)", r.mergeMs);
      text += buf;
    }
    text += "\n";
  }
  return text;
}

}  // namespace hyrax::sql
