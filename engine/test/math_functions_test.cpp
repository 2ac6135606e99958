// The numeric functions generated code and the constant folder share (engine/runtime/math_functions.hpp):
// the edges the SQL tests cannot reach with DECIMAL(18)'s and BIGINT's literals.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "engine/runtime/math_functions.hpp"
#include "engine/runtime/runtime.hpp"

using namespace hyrax;

TEST_CASE("roundScaled rounds half away from zero or truncates, to any number of places") {
  int64_t r = 0;
  CHECK(math::roundScaled(123450, 2, 1, false, INT64_MAX, &r) == 0);  // 1234.50 -> 1234.5
  CHECK(r == 12345);
  CHECK(math::roundScaled(123450, 2, -2, false, INT64_MAX, &r) == 0);  // -> 1200
  CHECK(r == 1200);
  CHECK(math::roundScaled(-125, 0, -1, false, INT64_MAX, &r) == 0);  // -130: away from zero
  CHECK(r == -130);
  CHECK(math::roundScaled(-125, 0, -1, true, INT64_MAX, &r) == 0);  // -120
  CHECK(r == -120);
  CHECK(math::roundScaled(777, 2, 5, false, INT64_MAX, &r) == 0);  // more places than the scale: as it is
  CHECK(r == 777);
  // Far more places dropped than any BIGINT has digits: 0, whatever the scale.
  CHECK(math::roundScaled(INT64_MAX, 0, -25, false, INT64_MAX, &r) == 0);
  CHECK(r == 0);
  CHECK(math::roundScaled(INT64_MIN, 18, -20, false, INT64_MAX, &r) == 0);
  CHECK(r == 0);
  // Rounding up past the type: BIGINT's maximum to tens, DECIMAL(18)'s 999...9 to a 19-digit number.
  CHECK(math::roundScaled(INT64_MAX, 0, -1, false, INT64_MAX, &r) == HYRAX_ERR_OVERFLOW);
  CHECK(math::roundScaled(999999999999999999, 0, -1, false, 999999999999999999, &r) == HYRAX_ERR_OVERFLOW);
  CHECK(math::roundScaled(INT64_MAX, 0, -1, true, INT64_MAX, &r) == 0);
  CHECK(r == 9223372036854775800);
  CHECK(math::roundScaled(INT64_MIN, 0, -19, false, INT64_MAX, &r) == HYRAX_ERR_OVERFLOW);  // -1e19
}

TEST_CASE("div, gcd and lcm at BIGINT's edges") {
  int64_t r = 0;
  CHECK(math::divTruncated(-7, 2, &r) == 0);
  CHECK(r == -3);
  CHECK(math::divTruncated(1, 0, &r) == HYRAX_ERR_DIVISION_BY_ZERO);
  CHECK(math::divTruncated(INT64_MIN, -1, &r) == HYRAX_ERR_OVERFLOW);
  CHECK(math::gcdOrLcm(INT64_MIN, 6, false, INT64_MAX, &r) == 0);
  CHECK(r == 2);
  CHECK(math::gcdOrLcm(INT64_MIN, 0, false, INT64_MAX, &r) == HYRAX_ERR_OVERFLOW);  // 2^63
  CHECK(math::gcdOrLcm(INT32_MIN, 0, false, INT32_MAX, &r) == HYRAX_ERR_OVERFLOW);
  CHECK(math::gcdOrLcm(INT32_MIN, 0, false, INT64_MAX, &r) == 0);
  CHECK(r == 2147483648);
  CHECK(math::gcdOrLcm(INT64_MAX, INT64_MAX - 1, true, INT64_MAX, &r) == HYRAX_ERR_OVERFLOW);  // past 2^64 too
  CHECK(math::gcdOrLcm(-4, 6, true, INT64_MAX, &r) == 0);
  CHECK(r == 12);
  CHECK(math::gcdOrLcm(0, 0, true, INT64_MAX, &r) == 0);
  CHECK(r == 0);
}

TEST_CASE("exp and the logarithms fail as PostgreSQL's float8 functions") {
  double r = 0;
  CHECK(math::floatFunction(math::FloatFn::Exp, 710, 0, &r) == HYRAX_ERR_FLOAT_OVERFLOW);
  CHECK(math::floatFunction(math::FloatFn::Exp, -746, 0, &r) == HYRAX_ERR_UNDERFLOW);
  CHECK(math::floatFunction(math::FloatFn::Exp, -710, 0, &r) == 0);  // subnormal, no error (as PostgreSQL)
  CHECK(r > 0);
  CHECK(math::floatFunction(math::FloatFn::Exp, -INFINITY, 0, &r) == 0);
  CHECK(r == 0);
  CHECK(math::floatFunction(math::FloatFn::Ln, -0.0, 0, &r) == HYRAX_ERR_LOG_OF_ZERO);
  CHECK(math::floatFunction(math::FloatFn::Log10, -INFINITY, 0, &r) == HYRAX_ERR_LOG_OF_NEGATIVE);
  CHECK(math::floatFunction(math::FloatFn::Ln, NAN, 0, &r) == 0);
  CHECK(std::isnan(r));
  // log(b, x): the base is checked first; base 1 divides by ln(1) = 0.
  CHECK(math::floatFunction(math::FloatFn::LogBase, -1, 0, &r) == HYRAX_ERR_LOG_OF_NEGATIVE);
  CHECK(math::floatFunction(math::FloatFn::LogBase, 0, -1, &r) == HYRAX_ERR_LOG_OF_ZERO);
  CHECK(math::floatFunction(math::FloatFn::LogBase, 1, 5, &r) == HYRAX_ERR_DIVISION_BY_ZERO);
  CHECK(math::floatFunction(math::FloatFn::LogBase, 2, 8, &r) == 0);
  CHECK(r == 3);
}

TEST_CASE("round and trunc of doubles to places, negative and past the exponent's range") {
  CHECK(math::roundDouble(1234.5, -2) == 1200);
  CHECK(math::roundDouble(2.5, 0) == 2);  // ties to even
  CHECK(math::truncDouble(-1234.5, -2) == -1200);
  CHECK(math::truncDouble(1.239, 2) == 1.23);
  CHECK(math::roundDouble(1e300, 20) == 1e300);  // x * 10^20 is infinite: no digits there
  CHECK(math::roundDouble(1e300, 400) == 1e300);
  CHECK(std::signbit(math::truncDouble(-5, -400)));
  CHECK(math::truncDouble(-5, -400) == 0);
  CHECK(std::isnan(math::roundDouble(NAN, -400)));
  CHECK(math::truncDouble(INFINITY, 3) == INFINITY);
}
