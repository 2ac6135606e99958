#pragma once
// Floats in SQL's order as PostgreSQL keeps it: NaN equals NaN and sorts above every other value
// (Infinity included), -0.0 equals 0.0. IEEE comparisons make NaN unequal to itself and neither
// below nor above anything, which no sort, group or index can work with. Generated code compares
// the same way (codegen's ExprCompiler::floatCompare); this is the C++ side (constant folding).
#include <cmath>

namespace hyrax {

// -1, 0 or 1 as x is below, equal to or above y.
inline int compareFloats(double x, double y) {
  const bool nx = std::isnan(x), ny = std::isnan(y);
  if (nx || ny) return nx == ny ? 0 : nx ? 1 : -1;
  return x < y ? -1 : x > y ? 1 : 0;
}

}  // namespace hyrax
