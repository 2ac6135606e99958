// exp, ln, log, cbrt, round/trunc to digits, div, gcd, lcm (math_functions.hpp) and the runtime
// functions generated code calls for them.
#include "engine/runtime/math_functions.hpp"

#include <cerrno>
#include <cmath>

#include "engine/runtime/runtime.hpp"
#include "engine/types/int128.hpp"
#include "engine/types/text_format.hpp"

namespace hyrax::math {

namespace {

// ln and log: PostgreSQL's dlog1/dlog10 checks.
int32_t logarithm(double x, double (*f)(double), double* out) {
  if (x == 0) return HYRAX_ERR_LOG_OF_ZERO;
  if (x < 0) return HYRAX_ERR_LOG_OF_NEGATIVE;
  *out = f(x);
  return 0;
}

// 10^n for n in 0..20 (past INT64_MAX from 19 on).
Int128 wideTenTo(int32_t n) { return n <= 18 ? Int128(text::pow10(static_cast<unsigned>(n))) : wideTenTo(n - 1) * 10; }

}  // namespace

int32_t floatFunction(FloatFn fn, double x, double y, double* out) {
  switch (fn) {
    case FloatFn::Exp: {
      // As PostgreSQL's dexp: NaN and infinities by hand, then the platform's range error or an
      // infinite or zero result.
      if (std::isnan(x) || std::isinf(x)) {
        *out = std::isinf(x) && x < 0 ? 0.0 : x;
        return 0;
      }
      errno = 0;
      double r = std::exp(x);
      if (errno == ERANGE) return r != 0 ? HYRAX_ERR_FLOAT_OVERFLOW : HYRAX_ERR_UNDERFLOW;
      if (std::isinf(r)) return HYRAX_ERR_FLOAT_OVERFLOW;
      if (r == 0) return HYRAX_ERR_UNDERFLOW;
      *out = r;
      return 0;
    }
    case FloatFn::Ln: return logarithm(x, [](double v) { return std::log(v); }, out);
    case FloatFn::Log10: return logarithm(x, [](double v) { return std::log10(v); }, out);
    case FloatFn::LogBase: {
      // x the base, y the argument; the base checked first, as PostgreSQL's log_var.
      double lb = 0, lx = 0;
      if (int32_t status = logarithm(x, [](double v) { return std::log(v); }, &lb)) return status;
      if (int32_t status = logarithm(y, [](double v) { return std::log(v); }, &lx)) return status;
      if (lb == 0) return HYRAX_ERR_DIVISION_BY_ZERO;
      *out = lx / lb;
      return 0;
    }
    case FloatFn::Cbrt: *out = std::cbrt(x); return 0;
  }
  return HYRAX_ERR_OVERFLOW;
}

namespace {
// x rounded by `integral` (nearbyint or trunc) to `digits` places. Negative digits divide by an
// exact power of ten (10^-2 is not one); past 10^308 every finite double has no digit there (0)
// or only such digits (itself).
double toDigits(double x, int32_t digits, double (*integral)(double)) {
  double f = std::pow(10.0, digits < 0 ? -digits : digits);
  if (std::isinf(f) || !std::isfinite(x)) return digits < 0 && std::isfinite(x) ? std::copysign(0.0, x) : x;
  if (digits < 0) return integral(x / f) * f;
  double scaled = x * f;  // infinite: x is too large to have digits there
  return std::isinf(scaled) ? x : integral(scaled) / f;
}
}  // namespace

// Ties to even, as PostgreSQL rounds DOUBLE PRECISION.
double roundDouble(double x, int32_t digits) { return toDigits(x, digits, [](double v) { return std::nearbyint(v); }); }
double truncDouble(double x, int32_t digits) { return toDigits(x, digits, [](double v) { return std::trunc(v); }); }

int32_t roundScaled(int64_t x, int32_t scale, int32_t digits, bool truncate, int64_t maxAbs, int64_t* out) {
  if (digits >= scale) {
    *out = x;
    return 0;
  }
  // Units of 10^drop are dropped; past 10^20 every BIGINT is below half a unit, so 0.
  const int32_t drop = scale - digits;
  const Int128 unit = wideTenTo(drop < 20 ? drop : 20);
  Int128 q = Int128(x) / unit, rem = Int128(x) % unit;
  Int128 twice = (rem.isNegative() ? -rem : rem) * 2;
  if (!truncate && twice >= unit) q = q + (x < 0 ? -1 : 1);
  // At scale max(digits, 0): for negative digits the kept units are tens, hundreds, ...
  Int128 r = digits >= 0 ? q : q * wideTenTo(-digits < 20 ? -digits : 20);
  if (r > Int128(maxAbs) || r < -Int128(maxAbs)) return HYRAX_ERR_OVERFLOW;
  *out = r.toInt64();
  return 0;
}

int32_t divTruncated(int64_t a, int64_t b, int64_t* out) {
  if (b == 0) return HYRAX_ERR_DIVISION_BY_ZERO;
  if (a == INT64_MIN && b == -1) return HYRAX_ERR_OVERFLOW;
  *out = a / b;
  return 0;
}

int32_t gcdOrLcm(int64_t a, int64_t b, bool lcm, int64_t maxAbs, int64_t* out) {
  // On magnitudes, unsigned: |INT64_MIN| fits.
  auto magnitude = [](int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); };
  uint64_t x = magnitude(a), y = magnitude(b);
  while (y != 0) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  uint64_t r = x;  // the gcd
  if (lcm) {
    if (a == 0 || b == 0) {
      *out = 0;
      return 0;
    }
    if (__builtin_mul_overflow(magnitude(a) / r, magnitude(b), &r)) return HYRAX_ERR_OVERFLOW;
  }
  if (r > static_cast<uint64_t>(maxAbs)) return HYRAX_ERR_OVERFLOW;
  *out = static_cast<int64_t>(r);
  return 0;
}

int64_t largestMagnitude(const SqlType& t) {
  switch (t.id) {
    case TypeId::Int16: return INT16_MAX;
    case TypeId::Int32: return INT32_MAX;
    case TypeId::Decimal: return text::pow10(t.precision) - 1;
    default: return INT64_MAX;
  }
}

}  // namespace hyrax::math

using namespace hyrax;

extern "C" {

int32_t hyrax_rt_float_fn(QueryContext* ctx, int32_t fn, double x, double y, double* out) {
  int32_t status = math::floatFunction(static_cast<math::FloatFn>(fn), x, y, out);
  return status ? hyrax_rt_error(ctx, status) : 0;
}
double hyrax_rt_trunc_double(double x, int32_t digits) { return math::truncDouble(x, digits); }
int32_t hyrax_rt_round_scaled(QueryContext* ctx, int64_t x, int32_t scale, int32_t digits, int32_t truncate,
                              int64_t maxAbs, int64_t* out) {
  int32_t status = math::roundScaled(x, scale, digits, truncate != 0, maxAbs, out);
  return status ? hyrax_rt_error(ctx, status) : 0;
}
int32_t hyrax_rt_div_truncated(QueryContext* ctx, int64_t a, int64_t b, int64_t* out) {
  int32_t status = math::divTruncated(a, b, out);
  return status ? hyrax_rt_error(ctx, status) : 0;
}
int32_t hyrax_rt_gcd(QueryContext* ctx, int64_t a, int64_t b, int32_t lcm, int64_t maxAbs, int64_t* out) {
  int32_t status = math::gcdOrLcm(a, b, lcm != 0, maxAbs, out);
  return status ? hyrax_rt_error(ctx, status) : 0;
}

}  // extern "C"
