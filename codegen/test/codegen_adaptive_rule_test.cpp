// Adaptive compilation's rule (query_compiler.hpp, worthOptimizedCompile): when a query on cheap
// code starts its optimized compile.
#include <catch2/catch.hpp>

#include <cstdint>

#include "codegen/translate/query_compiler.hpp"

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
