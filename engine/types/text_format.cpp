#include "engine/types/text_format.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "engine/types/int128.hpp"
#include "engine/types/timestamp.hpp"
#include "engine/types/utf8.hpp"
#include "engine/util/error.hpp"

namespace hyrax::text {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

[[noreturn]] void invalid(const char* type, std::string_view s) {
  throw Error(sqlstate::InvalidText, std::string("invalid input syntax for type ") + type + ": \"" + std::string(s) + "\"");
}

bool ieq(std::string_view a, const char* b) {
  size_t n = std::char_traits<char>::length(b);
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

}  // namespace

int64_t pow10(unsigned n) {
  static const int64_t table[19] = {1,
                                    10,
                                    100,
                                    1000,
                                    10000,
                                    100000,
                                    1000000,
                                    10000000,
                                    100000000,
                                    1000000000,
                                    10000000000LL,
                                    100000000000LL,
                                    1000000000000LL,
                                    10000000000000LL,
                                    100000000000000LL,
                                    1000000000000000LL,
                                    10000000000000000LL,
                                    100000000000000000LL,
                                    1000000000000000000LL};
  return n < 19 ? table[n] : INT64_MAX;
}

bool parseBool(std::string_view in) {
  std::string_view s = trim(in);
  if (ieq(s, "true") || ieq(s, "t") || ieq(s, "yes") || ieq(s, "y") || ieq(s, "on") || s == "1") return true;
  if (ieq(s, "false") || ieq(s, "f") || ieq(s, "no") || ieq(s, "n") || ieq(s, "off") || s == "0") return false;
  invalid("boolean", in);
}

int64_t parseInt(std::string_view in, TypeId target) {
  std::string_view s = trim(in);
  const char* name = target == TypeId::Int16 ? "smallint" : target == TypeId::Int32 ? "integer" : "bigint";
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || p != s.data() + s.size()) {
    if (ec == std::errc::result_out_of_range) throw Error(sqlstate::NumericOutOfRange, std::string("value \"") + std::string(in) + "\" is out of range for type " + name);
    invalid(name, in);
  }
  if (ec == std::errc::result_out_of_range ||
      (target == TypeId::Int16 && (v < INT16_MIN || v > INT16_MAX)) ||
      (target == TypeId::Int32 && (v < INT32_MIN || v > INT32_MAX)))
    throw Error(sqlstate::NumericOutOfRange, std::string("value \"") + std::string(in) + "\" is out of range for type " + name);
  return v;
}

int64_t parseDecimal(std::string_view in, uint8_t precision, uint8_t scale) {
  std::string_view s = trim(in);
  bool neg = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    neg = s.front() == '-';
    s.remove_prefix(1);
  }
  // Digits before and after the point, exactly; extra fraction digits round half away from zero.
  Int128 v = 0;
  int intDigits = 0, fracDigits = 0;
  bool any = false, point = false, roundUp = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (c < '0' || c > '9') invalid("numeric", in);
    any = true;
    if (!point) {
      if (v != 0 || c != '0') ++intDigits;
      v = v * 10 + (c - '0');
      if (intDigits > 19) throw Error(sqlstate::NumericOutOfRange, "numeric field overflow");
    } else if (fracDigits < scale) {
      v = v * 10 + (c - '0');
      ++fracDigits;
    } else if (fracDigits == scale) {
      roundUp = c >= '5';
      ++fracDigits;
    }
  }
  if (!any) invalid("numeric", in);
  for (int i = std::min<int>(fracDigits, scale); i < scale; ++i) v = v * 10;
  if (roundUp) v = v + 1;
  if (intDigits > precision - scale || v >= Int128(pow10(precision)))
    throw Error(sqlstate::NumericOutOfRange, "numeric field overflow");
  int64_t r = v.toInt64();
  return neg ? -r : r;
}

double parseDouble(std::string_view in) {
  std::string_view s = trim(in);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (ieq(s, "nan")) return NAN;
  if (ieq(s, "infinity") || ieq(s, "inf")) return INFINITY;
  if (ieq(s, "-infinity") || ieq(s, "-inf")) return -INFINITY;
  double d = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (s.empty() || p != s.data() + s.size()) invalid("double precision", in);
  if (ec == std::errc::result_out_of_range)
    throw Error(sqlstate::NumericOutOfRange, "\"" + std::string(in) + "\" is out of range for type double precision");
  return d;
}

int32_t daysFromCivil(int32_t y, uint32_t m, uint32_t d) {
  y -= m <= 2;
  const int32_t era = (y >= 0 ? y : y - 399) / 400;
  const uint32_t yoe = static_cast<uint32_t>(y - era * 400);
  const uint32_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const uint32_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int32_t>(doe) - 719468;
}

void civilFromDays(int32_t z, int32_t& y, uint32_t& m, uint32_t& d) {
  z += 719468;
  const int32_t era = (z >= 0 ? z : z - 146096) / 146097;
  const uint32_t doe = static_cast<uint32_t>(z - era * 146097);
  const uint32_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int32_t>(yoe) + era * 400;
  const uint32_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const uint32_t mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

int32_t parseDate(std::string_view in) {
  std::string_view s = trim(in);
  // A time of day after the date is read and dropped, as PostgreSQL does: a DATE column compared
  // with '2007-01-02 00:00:00' (the CH-benCHmark's queries) reads it as a date.
  if (s.find_first_of(" \tTt") != std::string_view::npos) return dateOfTimestamp(parseTimestamp(s));
  auto bad = [&]() -> int32_t {
    throw Error(sqlstate::InvalidDatetime, "invalid input syntax for type date: \"" + std::string(in) + "\"");
  };
  int y = 0, m = 0, d = 0;
  auto num = [&](std::string_view part, int& out, size_t minLen, size_t maxLen) {
    if (part.size() < minLen || part.size() > maxLen) return false;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return ec == std::errc() && p == part.data() + part.size();
  };
  size_t a = s.find('-');
  size_t b = a == std::string_view::npos ? a : s.find('-', a + 1);
  if (a == std::string_view::npos || b == std::string_view::npos) return bad();
  if (!num(s.substr(0, a), y, 1, 4) || !num(s.substr(a + 1, b - a - 1), m, 1, 2) || !num(s.substr(b + 1), d, 1, 2))
    return bad();
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m))
    throw Error(sqlstate::DatetimeOutOfRange, "date/time field value out of range: \"" + std::string(in) + "\"");
  return daysFromCivil(y, static_cast<uint32_t>(m), static_cast<uint32_t>(d));
}

double decimalToDouble(int64_t scaled, uint8_t scale) {
  if (scaled >= -kDoubleExactInts && scaled <= kDoubleExactInts)
    return static_cast<double>(scaled) / static_cast<double>(pow10(scale));
  return parseDouble(formatDecimal(scaled, scale));
}

std::optional<int64_t> floatToDecimal(double d, int digits, uint8_t precision, uint8_t scale) {
  if (!std::isfinite(d)) return std::nullopt;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, d);  // [-]D.DDDe[+-]XX, correctly rounded
  const char* p = buf;
  const bool neg = *p == '-';
  if (neg) ++p;
  int64_t m = 0;  // the digits, as an integer: the value is m * 10^exponent
  int count = 0;
  for (; *p && *p != 'e'; ++p)
    if (*p != '.') m = m * 10 + (*p - '0'), ++count;
  const int shift = std::atoi(p + 1) - (count - 1) + scale;  // the scaled value is m * 10^shift
  const Int128 limit = precision >= 18 ? Int128(INT64_MAX) + 1 : Int128(pow10(precision));
  Int128 v = m;
  if (shift >= 0) {
    for (int i = 0; i < shift && m != 0; ++i)
      if ((v = v * 10) >= limit) return std::nullopt;
  } else if (-shift > 18) {
    v = 0;  // m < 10^17: below a tenth of the last digit kept
  } else {
    const Int128 unit = pow10(static_cast<unsigned>(-shift)), q = v / unit;
    v = (v - q * unit) * 2 >= unit ? q + 1 : q;  // half away from zero (v is the magnitude)
  }
  if (v >= limit) return std::nullopt;
  const int64_t r = v.toInt64();
  return neg ? -r : r;
}

std::string formatDecimal(int64_t scaled, uint8_t scale) {
  bool neg = scaled < 0;
  uint64_t v = neg ? 0 - static_cast<uint64_t>(scaled) : static_cast<uint64_t>(scaled);
  std::string digits = std::to_string(v);
  if (scale) {
    if (digits.size() <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
    digits.insert(digits.size() - scale, ".");
  }
  return neg ? "-" + digits : digits;
}

namespace {
template <typename F>
std::string formatShortest(F f, int fixedBelow) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "Infinity" : "-Infinity";
  // The shortest digits that read back equal, written as PostgreSQL's float8out / float4out
  // write them: in fixed notation for decimal exponents from -4 up to below DBL_DIG (15) or
  // FLT_DIG (6), else in exponent notation (as %g would). std::to_chars alone picks whichever
  // is shorter: -200000 came out as -2e+05, where PostgreSQL and its clients print -200000
  // (found by bench/sqlfuzz).
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), f, std::chars_format::scientific);
  const char* e = std::find(buf, p, 'e');
  int exponent = 0;  // (to_chars writes no NUL: read up to p only)
  if (e != p) std::from_chars(e + 1 + (e[1] == '+'), p, exponent);
  if (exponent < -4 || exponent >= fixedBelow) return std::string(buf, p);
  auto [q, ec2] = std::to_chars(buf, buf + sizeof(buf), f, std::chars_format::fixed);
  return std::string(buf, q);
}
}  // namespace

std::string formatDouble(double d) { return formatShortest(d, 15); }
std::string formatFloat(float f) { return formatShortest(f, 6); }

int32_t addMonths(int32_t days, int64_t months) {
  int32_t y;
  uint32_t m, d;
  civilFromDays(days, y, m, d);
  constexpr int64_t kMonthsInRange = 12 * 10'000;  // any shift larger leaves the range
  if (months > kMonthsInRange || months < -kMonthsInRange) return kNoDate;
  int64_t total = static_cast<int64_t>(y) * 12 + (m - 1) + months;
  int64_t ny = total >= 0 ? total / 12 : -((-total + 11) / 12);
  if (ny < 1 || ny > 9999) return kNoDate;
  auto nm = static_cast<uint32_t>(total - ny * 12 + 1);
  auto last = static_cast<uint32_t>(daysInMonth(ny, nm));
  return daysFromCivil(static_cast<int32_t>(ny), nm, d < last ? d : last);
}

std::string formatDate(int32_t days) {
  int32_t y;
  uint32_t m, d;
  civilFromDays(days, y, m, d);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04d-%02u-%02u", y, m, d);
  return buf;
}

std::string lowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::optional<std::string_view> fitString(std::string_view s, TypeId type, uint32_t length, bool explicitCast) {
  if (type == TypeId::Char) s = withoutCharPadding(s);
  if (!length || !longerThanChars(s, length)) return s;
  std::string_view kept = s.substr(0, utf8Prefix(s, length));
  if (!explicitCast && s.substr(kept.size()).find_first_not_of(' ') != std::string_view::npos) return std::nullopt;
  return type == TypeId::Char ? withoutCharPadding(kept) : kept;
}

}  // namespace hyrax::text
