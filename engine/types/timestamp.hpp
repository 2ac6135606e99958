#pragma once
// TIMESTAMP [WITHOUT TIME ZONE] and TIME [WITHOUT TIME ZONE]: their representation, text forms and
// calendar conversions.
//
// A TIMESTAMP is int64 microseconds since 1970-01-01 00:00:00. PostgreSQL counts from 2000-01-01;
// 1970 is chosen here because DATE already counts days from 1970 (a date becomes a timestamp by
// one multiplication, the day of a timestamp is one floor division), the system clock counts from
// 1970 (CURRENT_TIMESTAMP needs no shift) and EXTRACT(EPOCH ...) is a plain division. The range is
// DATE's, 0001-01-01 .. 9999-12-31 23:59:59.999999, so every timestamp prints in a form that reads
// back; leaving it is 22008.
// A TIME is int64 microseconds since midnight, 00:00:00 .. 24:00:00 (PostgreSQL allows 24:00:00).
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/types/text_format.hpp"

namespace hyrax::text {

inline constexpr int64_t kMicrosPerSecond = 1'000'000;
inline constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
inline constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
inline constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

inline constexpr int64_t kMinTimestamp = int64_t{kMinDate} * kMicrosPerDay;
inline constexpr int64_t kMaxTimestamp = (int64_t{kMaxDate} + 1) * kMicrosPerDay - 1;
inline bool timestampInRange(int64_t t) { return t >= kMinTimestamp && t <= kMaxTimestamp; }

// The day a timestamp falls on (floor: 1969-12-31 23:00 is day -1) and midnight of a day.
inline int32_t dateOfTimestamp(int64_t t) {
  int64_t d = t / kMicrosPerDay;
  return static_cast<int32_t>(t % kMicrosPerDay < 0 ? d - 1 : d);
}
inline int64_t timestampOfDate(int32_t days) { return int64_t{days} * kMicrosPerDay; }

// 'YYYY-MM-DD[( |T)HH:MM[:SS[.ffffff]]]'; fractions beyond microseconds are rounded.
// 22007 for bad syntax, 22008 for a field or the result out of range (PostgreSQL's messages).
int64_t parseTimestamp(std::string_view s);
// 'HH:MM[:SS[.ffffff]]'
int64_t parseTime(std::string_view s);
// "2024-01-02 03:04:05.5": seconds' fraction without trailing zeros, as PostgreSQL prints.
std::string formatTimestamp(int64_t t);
std::string formatTime(int64_t micros);
// "05" or "05.5": the seconds of `micros` (0 <= micros < 60 s) as both of the above print them.
std::string formatSeconds(int64_t micros);

// The current time by the system clock, microseconds since 1970 (UTC).
int64_t clockMicros();
// A point in time `t` as a value of DATE, TIME or TIMESTAMP `type` in its physical form (what a
// DEFAULT now() column gets where no generated code computes it: COPY, ON DELETE SET DEFAULT).
void encodeTimeAs(TypeId type, int64_t t, void* out);

}  // namespace hyrax::text
