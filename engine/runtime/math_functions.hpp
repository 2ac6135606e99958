#pragma once
// The numeric functions of PostgreSQL that can fail (exp, ln, log, cbrt, round/trunc to a number
// of digits, div, gcd, lcm), once for both callers: the runtime functions generated code calls
// (math_functions.cpp, declared in runtime.hpp) and the constant folder, so a constant call folds
// to the value the generated code gives. Each returns 0 with the result in *out, or the
// HyraxRuntimeError code of its failure (runtime_errors.hpp names its SQLSTATE and message).
#include <cstdint>

#include "engine/types/sql_type.hpp"

namespace hyrax::math {

// The double precision functions, as PostgreSQL's float8 ones: NaN in gives NaN out; a finite
// argument whose result is infinite is 22003 overflow, one whose result became 0 underflow.
enum class FloatFn : int32_t {
  Exp,      // exp(x): exp(-Infinity) = 0
  Ln,       // ln(x): 2201E for 0 ("of zero") and below ("of a negative number"), -Infinity included
  Log10,    // log(x): as ln
  LogBase,  // log(b, x) = ln(x) / ln(b), b in x and x in y: 2201E as ln for either (b first), 22012 for b = 1
  Cbrt,     // cbrt(x)
};
int32_t floatFunction(FloatFn fn, double x, double y, double* out);

// round(x, digits) (ties to even, as PostgreSQL rounds double precision) and trunc(x, digits),
// also for negative digits (to tens, hundreds, ...). NaN and infinities pass.
double roundDouble(double x, int32_t digits);
double truncDouble(double x, int32_t digits);

// round (half away from zero, as PostgreSQL's numeric) or trunc (toward zero) of a scaled
// integer `x` (a DECIMAL of scale `scale`, or an integer: scale 0) to `digits` decimal places
// (negative: to tens, hundreds, ...). The result has scale max(0, min(digits, scale)); 22003 when
// its magnitude is above `maxAbs` (10^18 - 1 for DECIMAL(18, s), INT64_MAX for BIGINT).
int32_t roundScaled(int64_t x, int32_t scale, int32_t digits, bool truncate, int64_t maxAbs, int64_t* out);

// div(a, b): the quotient truncated toward zero of two values of one scale (integers, or DECIMALs
// of one scale: the quotient of the scaled integers is the same). 22012 for b = 0, 22003 when it
// does not fit (BIGINT's minimum / -1).
int32_t divTruncated(int64_t a, int64_t b, int64_t* out);

// gcd(a, b) (lcm when `lcm`) of two values of one scale, as PostgreSQL's: never negative,
// gcd(0, 0) = 0, lcm(x, 0) = 0; 22003 when the result's magnitude is above `maxAbs`
// (INT32_MAX for INTEGER: gcd(-2147483648, 0)).
int32_t gcdOrLcm(int64_t a, int64_t b, bool lcm, int64_t maxAbs, int64_t* out);

// The largest magnitude a value of `t` holds: INT16_MAX, INT32_MAX, INT64_MAX, or for
// DECIMAL(p, s) 10^p - 1 (scaled); the `maxAbs` above for a result of type `t`.
int64_t largestMagnitude(const SqlType& t);

}  // namespace hyrax::math
