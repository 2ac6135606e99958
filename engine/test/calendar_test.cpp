#include <catch2/catch.hpp>

#include <random>

#include "engine/types/calendar.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

// Properties over many random values; the PostgreSQL answers themselves are in
// test/slt/select/datetime_functions.slt.
TEST_CASE("calendar functions keep their invariants over random values") {
  using F = DateTimeField;
  std::mt19937_64 rng(20261127);
  std::uniform_int_distribution<int64_t> ts(text::kMinTimestamp, text::kMaxTimestamp);
  std::uniform_int_distribution<int32_t> days(-20000, 20000), months(-3000, 3000);
  std::uniform_int_distribution<int64_t> micros(-50 * text::kMicrosPerDay, 50 * text::kMicrosPerDay);
  const F units[] = {F::Microsecond, F::Millisecond, F::Second, F::Minute, F::Hour, F::Day, F::Week,
                     F::Month, F::Quarter, F::Year, F::Century, F::Millennium};
  for (int i = 0; i < 20000; ++i) {
    const int64_t t = ts(rng);
    for (F u : units) {  // date_trunc goes back, never forward, and a second time changes nothing
      const int64_t r = text::truncTimestamp(u, t);
      CHECK(r <= t);
      CHECK(text::truncTimestamp(u, r) == r);
    }
    // make_timestamp of a timestamp's own fields gives it back.
    int32_t day = text::dateOfTimestamp(t), y;
    uint32_t m, d;
    text::civilFromDays(day, y, m, d);
    const int64_t tod = t - text::timestampOfDate(day);
    const double sec = static_cast<double>(tod % text::kMicrosPerMinute) / text::kMicrosPerSecond;
    CHECK(text::makeTimestamp(y, static_cast<int32_t>(m), static_cast<int32_t>(d), static_cast<int32_t>(tod / text::kMicrosPerHour),
                              static_cast<int32_t>(tod / text::kMicrosPerMinute % 60), sec) == t);
    // age is antisymmetric and zero only for equal timestamps.
    const int64_t t2 = ts(rng);
    text::Interval a = text::age(t, t2), b = text::age(t2, t), neg;
    REQUIRE(text::negateInterval(b, neg));
    CHECK((a.micros == neg.micros && a.days == neg.days && a.months == neg.months));
    CHECK((text::compareIntervals(a, text::Interval{}) == 0) == (t == t2));
    // justify_* move 30 days to a month and 24 hours to a day: the span stays the same.
    text::Interval iv{micros(rng), days(rng), months(rng)};
    for (auto how : {text::Justify::Days, text::Justify::Hours, text::Justify::Both})
      CHECK(text::compareIntervals(text::justify(how, iv), iv) == 0);
    text::Interval j = text::justify(text::Justify::Both, iv);  // the fields agree in sign
    CHECK(((j.months >= 0 && j.days >= 0 && j.micros >= 0) || (j.months <= 0 && j.days <= 0 && j.micros <= 0)));
  }
}

TEST_CASE("make_date and make_time refuse fields out of range with PostgreSQL's messages") {
  auto failure = [](auto f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.sqlstate() + ": " + e.message();
    }
    return "no error";
  };
  CHECK(failure([] { text::makeDate(2023, 2, 29); }) == "22008: date field value out of range: 2023-02-29");
  CHECK(failure([] { text::makeTime(1, 2, 60.5); }) == "22008: time field value out of range: 1:02:60.5");
  CHECK(text::makeDate(2024, 2, 29) == text::parseDate("2024-02-29"));
  CHECK(text::makeTime(24, 0, 0) == text::kMicrosPerDay);
}
