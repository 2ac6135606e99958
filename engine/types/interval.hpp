#pragma once
// INTERVAL: months, days and microseconds kept apart, as PostgreSQL stores them, because a month
// and a day have no fixed length on the calendar ('2024-01-31' + 1 month is Feb 29, a day is not
// always 24 hours where time zones apply). 16 bytes: microseconds, then days, then months. In
// generated code the value is two i64 words like a string's (`SqlValue::v` the microseconds,
// `hi` days in the low and months in the high 32 bits: the same bytes on a little-endian target).
// Comparisons, equality and hashing use the span with 30-day months and 24-hour days, as in
// PostgreSQL ('1 mon' = '30 days').
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/types/int128.hpp"

namespace hyrax::text {

struct Interval {
  int64_t micros = 0;
  int32_t days = 0;
  int32_t months = 0;

  uint64_t high() const { return static_cast<uint32_t>(days) | static_cast<uint64_t>(static_cast<uint32_t>(months)) << 32; }
  static Interval fromWords(int64_t micros, uint64_t high) {
    return {micros, static_cast<int32_t>(static_cast<uint32_t>(high)), static_cast<int32_t>(static_cast<uint32_t>(high >> 32))};
  }
};
static_assert(sizeof(Interval) == 16);

// PostgreSQL's input: '1 year 2 mons 3 days 04:05:06.5', '2 hours', '-1 day +02:00:00', '1.5 days',
// units from microseconds to millennia in their long and short spellings, '@' before and 'ago'
// after. `unit` is the qualifier of INTERVAL '3' DAY (day, hour, minute, second, month, year):
// it gives a bare number its unit. 22007 for bad syntax, 22008 for a field that does not fit
// (PostgreSQL says 22015 there; 22008 is what every other date/time overflow here gives).
Interval parseInterval(std::string_view s, std::string_view unit = {});
// PostgreSQL's default output (IntervalStyle postgres): '1 year 2 mons', '1 day 02:00:00',
// '-1 days +02:00:00', '00:00:00'.
std::string formatInterval(const Interval& iv);

// The span in microseconds with 30-day months and 24-hour days: what intervals compare by.
Int128 intervalSpan(const Interval& iv);
int compareIntervals(const Interval& a, const Interval& b);

// Calendar arithmetic, as PostgreSQL does it: months first (a day past the new month's end
// becomes its last day), then days, then microseconds. False if the result leaves the
// timestamp range.
bool addIntervalToTimestamp(int64_t t, const Interval& iv, int64_t& out);
// t1 - t2 as days and microseconds (the days being whole 24-hour days, both of one sign).
Interval subtractTimestamps(int64_t t1, int64_t t2);
// a + b, a - b, -a: false when a field overflows.
bool addIntervals(const Interval& a, const Interval& b, Interval& out);
bool negateInterval(const Interval& a, Interval& out);
// a * x or a / x (x != 0): each field scaled, the fractions of months going down to 30-day days
// and those of days to microseconds, as PostgreSQL's interval_mul does. False when a field
// overflows.
bool scaleInterval(const Interval& a, double x, bool divide, Interval& out);

}  // namespace hyrax::text
