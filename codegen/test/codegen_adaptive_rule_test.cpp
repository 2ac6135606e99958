// Adaptive compilation's rule (query_compiler.hpp, worthOptimizedCompile): when a query on cheap
// code starts its optimized compile.
#include <catch2/catch.hpp>

#include <cstdint>

#include "codegen/translate/query_compiler.hpp"

using hyrax::codegen::laterPipelinesMs;
using hyrax::codegen::worthOptimizedCompile;

TEST_CASE("the optimized compile starts when the work left or the work done outweighs it") {
  const double compileMs = 20;
  // A short scan: 1 of 8 morsels in 0.5 ms leaves 3.5 ms of cheap work, less than the compile.
  CHECK_FALSE(worthOptimizedCompile(0.5, 0.5, 1, 8, compileMs));
  // A long one: 1 of 80 morsels in 0.5 ms leaves 39.5 ms.
  CHECK(worthOptimizedCompile(0.5, 0.5, 1, 80, compileMs));
  // The extrapolation waits for a first morsel, and a pipeline of unknown length only counts time.
  CHECK_FALSE(worthOptimizedCompile(1, 1, 0, 80, compileMs));
  CHECK_FALSE(worthOptimizedCompile(1, 1, 3, UINT64_MAX, compileMs));
  // Work already done (this run's and a cached statement's earlier runs') as long as the compile.
  CHECK(worthOptimizedCompile(20, 0.1, 7, 8, compileMs));
  CHECK_FALSE(worthOptimizedCompile(19.9, 0.1, 7, 8, compileMs));
  // The last morsel: nothing left to win.
  CHECK_FALSE(worthOptimizedCompile(5, 5, 8, 8, compileMs));
}

TEST_CASE("the work of later pipelines counts, extrapolated per row from the pipeline running now") {
  const double compileMs = 20;
  // A first pipeline of 160,000 rows (10 morsels), 1 done in 0.025 ms: 1.5625 ms per 1M rows;
  // later pipelines read 7.5M rows: about 11.7 ms of cheap work.
  const double later = laterPipelinesMs(0.025, 1, 10, 160'000, 7'500'000);
  CHECK(later == Approx(11.71875));
  // With its own 0.225 ms left: 11.9 ms, less than the compile; with 15M later rows, more.
  CHECK_FALSE(worthOptimizedCompile(0.025, 0.025, 1, 10, compileMs, later));
  CHECK(worthOptimizedCompile(0.025, 0.025, 1, 10, compileMs, laterPipelinesMs(0.025, 1, 10, 160'000, 15'000'000)));
  // Its last morsel: what is left is the later pipelines' work alone (16M rows: 25 ms).
  CHECK(worthOptimizedCompile(0.25, 0.25, 10, 10, compileMs, laterPipelinesMs(0.25, 10, 10, 160'000, 16'000'000)));
  CHECK_FALSE(worthOptimizedCompile(0.25, 0.25, 10, 10, compileMs, laterPipelinesMs(0.25, 10, 10, 160'000, 1'600'000)));
  // Nothing known yet: no morsel done, rows unknown, a pipeline of unknown length.
  CHECK(laterPipelinesMs(0.025, 0, 10, 160'000, 7'500'000) == 0);
  CHECK(laterPipelinesMs(0.025, 1, 10, -1, 7'500'000) == 0);
  CHECK(laterPipelinesMs(0.025, 1, UINT64_MAX, 160'000, 7'500'000) == 0);
  CHECK_FALSE(worthOptimizedCompile(0.025, 0.025, 0, 10, compileMs, 1000));
}
