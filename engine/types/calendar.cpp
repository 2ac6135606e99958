#include "engine/types/calendar.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"
#include "engine/util/error.hpp"

namespace hyrax::text {

namespace {

// A timestamp's fields as PostgreSQL's timestamp2tm gives them (the seconds' fraction apart).
struct Fields {
  int64_t year, month, day, hour, minute, second, micros;
};

Fields fieldsOf(int64_t t) {
  int32_t days = dateOfTimestamp(t);
  int64_t tod = t - timestampOfDate(days);
  int32_t y;
  uint32_t m, d;
  civilFromDays(days, y, m, d);
  return {y, m, d, tod / kMicrosPerHour, tod / kMicrosPerMinute % 60, tod / kMicrosPerSecond % 60, tod % kMicrosPerSecond};
}

std::string printed(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printed(const char* format, ...) {
  char buf[128];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

[[noreturn]] void outOfRange(const std::string& message) { throw Error(sqlstate::DatetimeOutOfRange, message); }

// PostgreSQL's float_time_overflows: each field in its range (24:00:00 and a 60th second
// allowed), the seconds rounded to microseconds, the whole at most 24:00:00.
bool timeOverflows(int32_t h, int32_t m, double s) {
  if (h < 0 || h > 24 || m < 0 || m >= 60 || std::isnan(s)) return true;
  double micros = std::rint(s * kMicrosPerSecond);
  if (micros < 0 || micros > 60.0 * kMicrosPerSecond) return true;
  return (int64_t{h} * 60 + m) * kMicrosPerMinute + static_cast<int64_t>(micros) > kMicrosPerDay;
}

int64_t timeOf(int32_t h, int32_t m, double s) {
  return (int64_t{h} * 60 + m) * kMicrosPerMinute + static_cast<int64_t>(std::rint(s * kMicrosPerSecond));
}

// make_date's and make_timestamp's date check: the fields of a real day (a negative year, BC in
// PostgreSQL, counted astronomically for its leap years), then the range hyrax has.
bool dateFieldsValid(int32_t y, int32_t m, int32_t d) {
  return y != 0 && m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y < 0 ? int64_t{y} + 1 : y, m);
}

}  // namespace

DateTimeField truncUnit(std::string_view unit, TypeId type) {
  using F = DateTimeField;
  const char* typeName = dateTimeTypeName(type);
  DateTimeField f;
  // PostgreSQL's reserved words (dow, doy, epoch, ...) are not units: "not recognized" as unknown names.
  if (!dateTimeFieldNamed(unit, f) || f == F::Dow || f == F::IsoDow || f == F::Doy || f == F::Epoch || f == F::IsoYear ||
      f == F::Julian)
    throw Error(sqlstate::InvalidParameter, "unit \"" + std::string(unit) + "\" not recognized for type " + typeName);
  if (f == F::Week && type == TypeId::Interval)
    throw Error(sqlstate::FeatureNotSupported, "unit \"" + std::string(unit) + "\" not supported for type interval")
        .withDetail("Months usually have fractional weeks.");
  return f;
}

int64_t truncTimestamp(DateTimeField unit, int64_t t) {
  using F = DateTimeField;
  int32_t days = dateOfTimestamp(t);
  int64_t tod = t - timestampOfDate(days);
  auto within = [&](int64_t step) { return timestampOfDate(days) + tod - tod % step; };
  switch (unit) {
    case F::Microsecond: return t;
    case F::Millisecond: return within(1000);
    case F::Second: return within(kMicrosPerSecond);
    case F::Minute: return within(kMicrosPerMinute);
    case F::Hour: return within(kMicrosPerHour);
    case F::Day: return timestampOfDate(days);
    case F::Week: {  // back to Monday (1970-01-01 was a Thursday; 0001-01-01 a Monday, so never out of range)
      int64_t sinceMonday = ((int64_t{days} + 3) % 7 + 7) % 7;
      return timestampOfDate(static_cast<int32_t>(days - sinceMonday));
    }
    default: break;
  }
  int32_t y;
  uint32_t m, d;
  civilFromDays(days, y, m, d);
  switch (unit) {
    case F::Millennium: y = (y + 999) / 1000 * 1000 - 999, m = 1; break;
    case F::Century: y = (y + 99) / 100 * 100 - 99, m = 1; break;
    case F::Decade: y = y / 10 * 10, m = 1; break;
    case F::Year: m = 1; break;
    case F::Quarter: m = (m - 1) / 3 * 3 + 1; break;
    default: break;  // Month
  }
  if (y < 1) outOfRange("timestamp out of range");
  return timestampOfDate(daysFromCivil(y, m, 1));
}

Interval truncInterval(DateTimeField unit, const Interval& iv) {
  using F = DateTimeField;
  Interval r = iv;
  auto timeTo = [&](int64_t step) { r.micros -= r.micros % step; };  // toward zero, as interval2tm's divisions
  switch (unit) {
    case F::Microsecond: break;
    case F::Millisecond: timeTo(1000); break;
    case F::Second: timeTo(kMicrosPerSecond); break;
    case F::Minute: timeTo(kMicrosPerMinute); break;
    case F::Hour: timeTo(kMicrosPerHour); break;
    case F::Day: r.micros = 0; break;
    default: {
      r.micros = 0;
      r.days = 0;
      int32_t years = r.months / 12;
      switch (unit) {
        case F::Millennium: r.months = years / 1000 * 12000; break;
        case F::Century: r.months = years / 100 * 1200; break;
        case F::Decade: r.months = years / 10 * 120; break;
        case F::Year: r.months = years * 12; break;
        case F::Quarter: r.months = years * 12 + r.months % 12 / 3 * 3; break;
        default: break;  // Month
      }
    }
  }
  return r;
}

int32_t makeDate(int32_t y, int32_t m, int32_t d) {
  if (!dateFieldsValid(y, m, d)) outOfRange(printed("date field value out of range: %d-%02d-%02d", y, m, d));
  if (y < 1 || y > 9999) outOfRange(printed("date out of range: %d-%02d-%02d", y, m, d));
  return daysFromCivil(y, static_cast<uint32_t>(m), static_cast<uint32_t>(d));
}

int64_t makeTime(int32_t h, int32_t m, double s) {
  if (timeOverflows(h, m, s)) outOfRange(printed("time field value out of range: %d:%02d:%02g", h, m, s));
  return timeOf(h, m, s);
}

int64_t makeTimestamp(int32_t y, int32_t mo, int32_t d, int32_t h, int32_t mi, double s) {
  if (!dateFieldsValid(y, mo, d)) outOfRange(printed("date field value out of range: %d-%02d-%02d", y, mo, d));
  if (timeOverflows(h, mi, s)) outOfRange(printed("time field value out of range: %d:%02d:%02g", h, mi, s));
  int64_t t = 0;
  if (y < 1 || y > 9999 ||
      !timestampInRange(t = timestampOfDate(daysFromCivil(y, static_cast<uint32_t>(mo), static_cast<uint32_t>(d))) +
                            timeOf(h, mi, s)))
    outOfRange(printed("timestamp out of range: %d-%02d-%02d %d:%02d:%02g", y, mo, d, h, mi, s));
  return t;
}

Interval justify(Justify how, const Interval& iv) {
  Interval r = iv;
  auto add = [](int32_t& field, int64_t more) {
    if (__builtin_add_overflow(field, more, &field)) outOfRange("interval out of range");
  };
  auto daysToMonths = [&] {
    int32_t months = r.days / 30;
    r.days -= months * 30;
    add(r.months, months);
  };
  auto timeToDays = [&] {
    int64_t days = r.micros / kMicrosPerDay;
    r.micros -= days * kMicrosPerDay;
    add(r.days, days);
  };
  // A remainder of the other sign than the larger field borrows one unit from it.
  auto agree = [](int32_t& big, auto& small, int64_t unit) {
    if (big > 0 && small < 0) small += unit, --big;
    else if (big < 0 && small > 0) small -= unit, ++big;
  };
  switch (how) {
    case Justify::Days:
      daysToMonths();
      agree(r.months, r.days, 30);
      break;
    case Justify::Hours: {
      timeToDays();
      agree(r.days, r.micros, kMicrosPerDay);
      break;
    }
    case Justify::Both:
      // PostgreSQL 15's interval_justify_interval: days first when that keeps the months from
      // overflowing, then time to days and days to months, then the signs made to agree.
      if ((r.days > 0 && r.micros > 0) || (r.days < 0 && r.micros < 0)) daysToMonths();
      timeToDays();
      daysToMonths();
      if (r.months > 0 && (r.days < 0 || (r.days == 0 && r.micros < 0))) r.days += 30, --r.months;
      else if (r.months < 0 && (r.days > 0 || (r.days == 0 && r.micros > 0))) r.days -= 30, ++r.months;
      agree(r.days, r.micros, kMicrosPerDay);
      break;
  }
  return r;
}

Interval age(int64_t t1, int64_t t2) {
  Fields a = fieldsOf(t1), b = fieldsOf(t2);
  bool flip = t1 < t2;
  int64_t sign = flip ? -1 : 1;
  int64_t micros = sign * (a.micros - b.micros), sec = sign * (a.second - b.second), min = sign * (a.minute - b.minute),
          hour = sign * (a.hour - b.hour), day = sign * (a.day - b.day), mon = sign * (a.month - b.month),
          year = sign * (a.year - b.year);
  // Borrowing, as PostgreSQL's loops do (each at most a few rounds); a day borrowed is as long as
  // the month of the earlier timestamp.
  const Fields& earlier = flip ? a : b;
  while (micros < 0) micros += kMicrosPerSecond, --sec;
  while (sec < 0) sec += 60, --min;
  while (min < 0) min += 60, --hour;
  while (hour < 0) hour += 24, --day;
  while (day < 0) day += daysInMonth(earlier.year, earlier.month), --mon;
  while (mon < 0) mon += 12, --year;
  Interval r;
  r.months = static_cast<int32_t>(sign * (year * 12 + mon));
  r.days = static_cast<int32_t>(sign * day);
  r.micros = sign * (((hour * 60 + min) * 60 + sec) * kMicrosPerSecond + micros);
  return r;
}

}  // namespace hyrax::text
