#pragma once
// Floats in SQL's order as PostgreSQL keeps it: NaN equals NaN and sorts above every other value
// (Infinity included), -0.0 equals 0.0. IEEE comparisons make NaN unequal to itself and neither
// below nor above anything, which no sort, group or index can work with. Generated code compares
// the same way (codegen's ExprCompiler::floatCompare); this is the C++ side (constant folding).
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace hyrax {

// -1, 0 or 1 as x is below, equal to or above y.
inline int compareFloats(double x, double y) {
  const bool nx = std::isnan(x), ny = std::isnan(y);
  if (nx || ny) return nx == ny ? 0 : nx ? 1 : -1;
  return x < y ? -1 : x > y ? 1 : 0;
}

// The value equal floats share: -0.0 as 0.0, every NaN one positive quiet NaN (x86 computes
// Infinity - Infinity as a NaN with the sign bit set). What hashes and order-preserving bytes read.
template <typename F>
F canonicalFloat(F x) {
  if (std::isnan(x)) return std::numeric_limits<F>::quiet_NaN();
  return x == 0 ? F{0} : x;
}

// The bits of a float as an unsigned number in SQL's order (compareFloats): negative values with
// every bit inverted, others with the sign bit set; NaN above Infinity. Big-endian, they are
// order-preserving key bytes (ordered indexes, sorts' normalized keys).
inline uint64_t orderedBits(double x) {
  const uint64_t u = std::bit_cast<uint64_t>(canonicalFloat(x));
  return (u >> 63) ? ~u : u | (uint64_t{1} << 63);
}
inline uint32_t orderedBits(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(canonicalFloat(x));
  return (u >> 31) ? ~u : u | (uint32_t{1} << 31);
}

}  // namespace hyrax
