#pragma once
// PostgreSQL's calendar functions over TIMESTAMP and INTERVAL: date_trunc, make_date, make_time,
// make_timestamp, justify_days/hours/interval and age. One implementation for the runtime (per
// row, engine/runtime/datetime_functions.cpp) and the constant folder, so a constant call folds to
// the value generated code gives. Each failure throws an Error with PostgreSQL's SQLSTATE and
// message (the runtime turns it into the query's error).
#include <cstdint>
#include <string_view>

#include "engine/types/datetime_fields.hpp"
#include "engine/types/interval.hpp"

namespace hyrax::text {

// The unit of date_trunc('unit', x) for x of `type` (TIMESTAMP or INTERVAL), by EXTRACT's names:
// microseconds .. millennium. 22023 "unit ... not recognized for type ..." for a name that is no
// unit or one date_trunc has not (dow, doy, epoch, ...); 0A000 for WEEK of an INTERVAL.
DateTimeField truncUnit(std::string_view unit, TypeId type);
// date_trunc of a timestamp: WEEK to its ISO week's Monday, QUARTER to its first month, DECADE to
// a year divisible by 10, CENTURY and MILLENNIUM to their first years (2001, 1901, 1001: they
// count from year 1). 22008 when that leaves the range (the decade of the years 1..9 starts in 1 BC).
int64_t truncTimestamp(DateTimeField unit, int64_t t);
// date_trunc of an interval: its fields (years, months, days, hours, ... each truncated toward
// zero, as PostgreSQL's interval2tm splits it) below `unit` zeroed.
Interval truncInterval(DateTimeField unit, const Interval& iv);

// make_date(y, m, d), make_time(h, m, s), make_timestamp(y, mo, d, h, mi, s): 22008 "date field
// value out of range: 2023-02-29" / "time field value out of range: 25:00:00" (PostgreSQL's
// texts); a negative year (BC in PostgreSQL) or one past 9999 is out of the DATE and TIMESTAMP
// range here (22008 "date out of range: ..." / "timestamp out of range: ..."). The seconds are
// rounded to microseconds; 24:00:00 is allowed, as PostgreSQL allows it.
int32_t makeDate(int32_t y, int32_t m, int32_t d);
int64_t makeTime(int32_t h, int32_t m, double s);
int64_t makeTimestamp(int32_t y, int32_t mo, int32_t d, int32_t h, int32_t mi, double s);

// justify_days (30-day units of days to months), justify_hours (24-hour units of time to days),
// justify_interval (both, the signs of the fields made to agree), as PostgreSQL 15's; 22008
// "interval out of range" when a field overflows.
enum class Justify : int32_t { Days, Hours, Both };
Interval justify(Justify how, const Interval& iv);

// age(t1, t2): t1 - t2 in years, months and days on the calendar, as PostgreSQL's timestamp_age:
// the fields subtracted one by one, a negative one borrowing from the next larger (a day borrowed
// counts the days of the month of the earlier timestamp), the sign of the later one's lead.
Interval age(int64_t t1, int64_t t2);

}  // namespace hyrax::text
