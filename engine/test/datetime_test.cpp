#include <catch2/catch.hpp>

#include "engine/types/datetime_fields.hpp"
#include "engine/types/interval.hpp"
#include "engine/types/timestamp.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

namespace {
// The SQLSTATE and message a parser throws.
std::string failure(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.sqlstate() + ": " + e.message();
  }
  return "no error";
}
}  // namespace

TEST_CASE("timestamps read and print as PostgreSQL's do, microseconds since 1970") {
  CHECK(text::parseTimestamp("1970-01-01 00:00:00") == 0);
  CHECK(text::parseTimestamp("1969-12-31 23:59:59.999999") == -1);
  CHECK(text::parseTimestamp(" 2024-01-02T03:04:05.5 ") == text::parseTimestamp("2024-01-02 03:04:05.500000"));
  CHECK(text::parseTimestamp("2024-01-02") == text::timestampOfDate(text::parseDate("2024-01-02")));
  CHECK(text::parseTimestamp("2024-01-02 00:00:00.0000005") == text::parseTimestamp("2024-01-02 00:00:00.000001"));
  CHECK(text::formatTimestamp(text::parseTimestamp("2024-01-02 03:04:05.5")) == "2024-01-02 03:04:05.5");
  CHECK(text::formatTimestamp(text::parseTimestamp("0001-01-01")) == "0001-01-01 00:00:00");
  CHECK(text::formatTimestamp(text::kMaxTimestamp) == "9999-12-31 23:59:59.999999");
  CHECK(text::formatTimestamp(-1) == "1969-12-31 23:59:59.999999");
  CHECK(text::dateOfTimestamp(-1) == -1);
  CHECK(failure([] { text::parseTimestamp("2024-01-02 x"); }) ==
        "22007: invalid input syntax for type timestamp: \"2024-01-02 x\"");
  CHECK(failure([] { text::parseTimestamp("2023-02-29 00:00"); }) ==
        "22008: date/time field value out of range: \"2023-02-29 00:00\"");
  CHECK(failure([] { text::parseTimestamp("2024-01-01 24:00:01"); }).substr(0, 5) == "22008");
  CHECK(failure([] { text::parseTimestamp("10000-01-01"); }) == "22008: timestamp out of range: \"10000-01-01\"");
  // a DATE reads a time of day and drops it, as PostgreSQL's does
  CHECK(text::parseDate("2007-01-02 00:00:00.000000") == text::parseDate("2007-01-02"));
}

TEST_CASE("times of day read and print with their fraction") {
  CHECK(text::parseTime("13:04") == 13 * text::kMicrosPerHour + 4 * text::kMicrosPerMinute);
  CHECK(text::formatTime(text::parseTime("13:04:05.25")) == "13:04:05.25");
  CHECK(text::formatTime(text::parseTime("24:00:00")) == "24:00:00");
  CHECK(failure([] { text::parseTime("10"); }) == "22007: invalid input syntax for type time: \"10\"");
  CHECK(failure([] { text::parseTime("10:60"); }) == "22008: date/time field value out of range: \"10:60\"");
}

TEST_CASE("intervals read PostgreSQL's units and print in its default style") {
  auto fmt = [](std::string_view s, std::string_view unit = {}) { return text::formatInterval(text::parseInterval(s, unit)); };
  CHECK(fmt("1 day") == "1 day");
  CHECK(fmt("2 hours") == "02:00:00");
  CHECK(fmt("1 year 2 months") == "1 year 2 mons");
  CHECK(fmt("1 day 02:00:00") == "1 day 02:00:00");
  CHECK(fmt("-1 day 2 hours") == "-1 days +02:00:00");
  CHECK(fmt("1.5 days") == "1 day 12:00:00");
  CHECK(fmt("1.5 months") == "1 mon 15 days");
  CHECK(fmt("1.5 years") == "1 year 6 mons");
  CHECK(fmt("@ 3 weeks ago") == "-21 days");
  CHECK(fmt("90", "day") == "90 days");
  CHECK(fmt("10") == "00:00:10");
  CHECK(fmt("100:30") == "100:30:00");
  CHECK(fmt("-00:00:01.5") == "-00:00:01.5");
  CHECK(fmt("0 seconds") == "00:00:00");
  CHECK(fmt("1 millennium 1 century") == "1100 years");
  CHECK(failure([] { text::parseInterval("1 fortnight"); }) ==
        "22007: invalid input syntax for type interval: \"1 fortnight\"");
  CHECK(failure([] { text::parseInterval(""); }).substr(0, 5) == "22007");
  CHECK(failure([] { text::parseInterval("3000000000 days"); }).substr(0, 5) == "22008");
}

TEST_CASE("intervals compare by their span and move timestamps by the calendar") {
  using text::Interval;
  CHECK(text::compareIntervals(text::parseInterval("1 mon"), text::parseInterval("30 days")) == 0);
  CHECK(text::compareIntervals(text::parseInterval("1 day"), text::parseInterval("25 hours")) < 0);
  int64_t t;
  REQUIRE(text::addIntervalToTimestamp(text::parseTimestamp("2024-01-31 10:00"), text::parseInterval("1 month"), t));
  CHECK(text::formatTimestamp(t) == "2024-02-29 10:00:00");
  REQUIRE(text::addIntervalToTimestamp(text::parseTimestamp("2024-03-01"), text::parseInterval("-1 day -1 hour"), t));
  CHECK(text::formatTimestamp(t) == "2024-02-28 23:00:00");
  CHECK_FALSE(text::addIntervalToTimestamp(text::kMaxTimestamp, text::parseInterval("1 microsecond"), t));
  Interval d = text::subtractTimestamps(text::parseTimestamp("2024-03-01"), text::parseTimestamp("2024-01-31 12:00"));
  CHECK(text::formatInterval(d) == "29 days 12:00:00");
  Interval iv = text::parseInterval("-1 year 2 days 3 minutes");
  CHECK(Interval::fromWords(iv.micros, iv.high()).months == -12);
  CHECK(Interval::fromWords(iv.micros, iv.high()).days == 2);
}

TEST_CASE("EXTRACT's fields of dates, timestamps, times and intervals") {
  using F = DateTimeField;
  int64_t ts = text::parseTimestamp("2024-03-03 05:06:07.25");
  CHECK(text::extractField(TypeId::Timestamp, F::Year, ts, 0) == 2024);
  CHECK(text::extractField(TypeId::Timestamp, F::Dow, ts, 0) == 0);  // a Sunday
  CHECK(text::extractField(TypeId::Timestamp, F::IsoDow, ts, 0) == 7);
  CHECK(text::extractField(TypeId::Timestamp, F::Doy, ts, 0) == 63);
  CHECK(text::extractField(TypeId::Timestamp, F::Second, ts, 0) == 7'250'000);  // scale 6
  CHECK(text::extractField(TypeId::Timestamp, F::Week, ts, 0) == 9);
  CHECK(text::extractField(TypeId::Date, F::Week, text::parseDate("2021-01-03"), 0) == 53);
  CHECK(text::extractField(TypeId::Date, F::Week, text::parseDate("2024-12-30"), 0) == 1);
  CHECK(text::extractField(TypeId::Date, F::Dow, text::parseDate("1969-12-28"), 0) == 0);
  CHECK(text::extractField(TypeId::Date, F::Century, text::parseDate("2000-12-31"), 0) == 20);
  text::Interval iv = text::parseInterval("1 year 14 months 3 days 04:05:06");
  CHECK(text::extractField(TypeId::Interval, F::Year, iv.micros, iv.high()) == 2);
  CHECK(text::extractField(TypeId::Interval, F::Month, iv.micros, iv.high()) == 2);
  CHECK(text::extractField(TypeId::Interval, F::Minute, iv.micros, iv.high()) == 5);
  CHECK_FALSE(text::hasDateTimeField(TypeId::Date, F::Hour));
  CHECK_FALSE(text::hasDateTimeField(TypeId::Interval, F::Dow));
  DateTimeField f;
  CHECK((text::dateTimeFieldNamed("Epoch", f) && f == F::Epoch));
  CHECK_FALSE(text::dateTimeFieldNamed("fortnight", f));
}
