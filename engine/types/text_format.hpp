#pragma once
// Parsing and printing of values as text: one implementation used by literals, CAST, COPY, the
// runtime's string casts and every output format. Parsers throw hyrax::Error with SQLSTATE
// 22P02 (bad number/boolean), 22007/22008 (bad date), 22003 (out of range).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/types/sql_type.hpp"

namespace hyrax::text {

// Whole-input parsers; leading/trailing blanks are allowed, anything else is an error.
bool parseBool(std::string_view s);
int64_t parseInt(std::string_view s, TypeId target);  // range-checked for SMALLINT/INTEGER/BIGINT
// Decimal text -> value scaled by 10^scale, rounded half away from zero; checks precision.
int64_t parseDecimal(std::string_view s, uint8_t precision, uint8_t scale);
double parseDouble(std::string_view s);
int32_t parseDate(std::string_view s);  // 'YYYY-MM-DD[ HH:MM:SS]' -> days since 1970-01-01 (the time dropped)

std::string formatDecimal(int64_t scaled, uint8_t scale);  // 1250,2 -> "12.50"
// The double nearest a DECIMAL's value, as reading its text would give (PostgreSQL converts so).
// Up to 2^53 the unscaled integer and the power of ten are exact, and one division rounds once;
// beyond, dividing the rounded integer rounded twice (123456789012345.678 became ...345.69).
double decimalToDouble(int64_t scaled, uint8_t scale);
// A float's value as a DECIMAL of `scale` (scaled by 10^scale), as PostgreSQL's float8_numeric and
// float4_numeric make it: the float's text of `digits` significant digits (15 for DOUBLE
// PRECISION, 6 for REAL), rounded half away from zero. So 1.005 (the double just below) is 1.01
// in DECIMAL(5,2), as its text says, where rounding the double itself gave 1.00. Nullopt for NaN,
// infinities and values beyond `precision` digits (18: any 64-bit value).
std::optional<int64_t> floatToDecimal(double d, int digits, uint8_t precision, uint8_t scale);
constexpr int64_t kDoubleExactInts = int64_t{1} << 53;  // integers a double holds exactly: |v| <= this
std::string formatDouble(double d);                        // shortest text that reads back equal
std::string formatFloat(float f);
std::string formatDate(int32_t days);                      // "1998-12-01"

// Calendar helpers (proleptic Gregorian).
int32_t daysFromCivil(int32_t y, uint32_t m, uint32_t d);
void civilFromDays(int32_t days, int32_t& y, uint32_t& m, uint32_t& d);
// The days of month m (1..12) of year y: 28..31.
inline int daysInMonth(int64_t y, int64_t m) {
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return mdays[m - 1] + (m == 2 && leap);
}
// CHAR(n) values carry no trailing blanks: they do not count in SQL's comparisons of CHAR values
// ('ab' = 'ab   '), so each value is stored, compared, hashed and indexed in that one form.
inline std::string_view withoutCharPadding(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// A string headed for a CHAR(n) or VARCHAR(n) (`length` n in characters, 0: no limit), as SQL-92
// 6.10 and PostgreSQL convert it: an explicit CAST (`explicitCast`) cuts it to its first n
// characters ('abc'::varchar(2) is 'ab'); an assignment (INSERT, UPDATE, COPY, a procedure's
// variable) cuts only trailing blanks and is nullopt (22001 for the caller) when other characters
// would be cut. A CHAR's value is then without its trailing blanks (withoutCharPadding). The
// result is a part of `s`.
std::optional<std::string_view> fitString(std::string_view s, TypeId type, uint32_t length, bool explicitCast);

// DATE values lie in 0001-01-01 .. 9999-12-31 (days since 1970-01-01): what dates read from text
// can be. Arithmetic that leaves the range fails with 22008, so every date prints in a form that
// reads back (COPY TO output loads again with COPY FROM).
inline constexpr int32_t kMinDate = -719162, kMaxDate = 2932896;
inline bool dateInRange(int64_t days) { return days >= kMinDate && days <= kMaxDate; }
inline constexpr int32_t kNoDate = INT32_MIN;  // addMonths: the result is out of range
// The date `months` months later (earlier if negative); a day past the new month's end becomes
// its last day (Jan 31 + 1 month = Feb 28/29), as in PostgreSQL. kNoDate when out of range.
int32_t addMonths(int32_t days, int64_t months);

// 10^n for n in [0,18].
int64_t pow10(unsigned n);

// ASCII letters lower-cased, other bytes (UTF-8 included) kept: option words, setting values.
std::string lowerAscii(std::string_view s);

}  // namespace hyrax::text
