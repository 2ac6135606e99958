#include "engine/types/datetime_fields.hpp"

#include <string>

#include "engine/types/interval.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"

namespace hyrax::text {

bool dateTimeFieldNamed(std::string_view name, DateTimeField& out) {
  using F = DateTimeField;
  struct Name {
    const char* name;
    DateTimeField field;
  };
  // PostgreSQL's spellings (datetime.c's deltatktbl and the reserved words EXTRACT takes), matched
  // as its DecodeUnits does: lower-cased and cut to 10 characters, so 'milliseconds' is
  // 'millisecon' and 'millenniums' 'millennium'.
  static const Name names[] = {
      {"microsecon", F::Microsecond}, {"us", F::Microsecond},
      {"usec", F::Microsecond},       {"usecs", F::Microsecond},       {"useconds", F::Microsecond},
      {"millisecon", F::Millisecond}, {"ms", F::Millisecond},          {"msec", F::Millisecond},
      {"msecs", F::Millisecond},      {"mseconds", F::Millisecond},    {"second", F::Second},
      {"seconds", F::Second},         {"sec", F::Second},              {"secs", F::Second},
      {"s", F::Second},               {"minute", F::Minute},           {"minutes", F::Minute},
      {"min", F::Minute},             {"mins", F::Minute},             {"m", F::Minute},
      {"hour", F::Hour},              {"hours", F::Hour},              {"hr", F::Hour},
      {"hrs", F::Hour},               {"h", F::Hour},                  {"day", F::Day},
      {"days", F::Day},               {"d", F::Day},                   {"week", F::Week},
      {"weeks", F::Week},             {"w", F::Week},                  {"month", F::Month},
      {"months", F::Month},           {"mon", F::Month},               {"mons", F::Month},
      {"quarter", F::Quarter},        {"qtr", F::Quarter},             {"year", F::Year},
      {"years", F::Year},             {"yr", F::Year},                 {"yrs", F::Year},
      {"y", F::Year},                 {"decade", F::Decade},           {"decades", F::Decade},
      {"dec", F::Decade},             {"decs", F::Decade},             {"century", F::Century},
      {"centuries", F::Century},      {"cent", F::Century},            {"c", F::Century},
      {"millennium", F::Millennium},  {"millennia", F::Millennium},    {"mil", F::Millennium},
      {"mils", F::Millennium},        {"dow", F::Dow},                 {"isodow", F::IsoDow},
      {"doy", F::Doy},                {"epoch", F::Epoch},             {"isoyear", F::IsoYear},
      {"julian", F::Julian},
  };
  std::string lower(name.substr(0, 10));
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  for (const Name& n : names)
    if (lower == n.name) {
      out = n.field;
      return true;
    }
  return false;
}

const char* dateTimeFieldName(DateTimeField f) {
  static const char* const names[] = {"YEAR", "MONTH",  "DAY",     "HOUR",    "MINUTE", "SECOND",
                                      "MILLISECOND", "MICROSECOND", "DOW", "ISODOW", "DOY", "EPOCH",
                                      "QUARTER", "WEEK", "DECADE", "CENTURY", "MILLENNIUM", "ISOYEAR",
                                      "JULIAN"};
  static_assert(sizeof names / sizeof names[0] == static_cast<size_t>(DateTimeField::Julian) + 1);
  return names[static_cast<size_t>(f)];
}

const char* dateTimeTypeName(TypeId type) {
  switch (type) {
    case TypeId::Date: return "date";
    case TypeId::Time: return "time without time zone";
    case TypeId::Timestamp: return "timestamp without time zone";
    default: return "interval";
  }
}

bool hasDateTimeField(TypeId type, DateTimeField f) {
  using F = DateTimeField;
  bool timeOfDay = f == F::Hour || f == F::Minute || f == F::Second || f == F::Millisecond || f == F::Microsecond;
  switch (type) {
    case TypeId::Date: return !timeOfDay;
    // PostgreSQL's Julian Day of a timestamp is a numeric with a fraction of 20 digits, more than
    // DECIMAL(18, s) holds: left out.
    case TypeId::Timestamp: return f != F::Julian;
    case TypeId::Time: return timeOfDay || f == F::Epoch;
    case TypeId::Interval:
      return f != F::Dow && f != F::IsoDow && f != F::Doy && f != F::Week && f != F::IsoYear && f != F::Julian;
    default: return false;
  }
}

int extractScale(TypeId type, DateTimeField f) {
  if (f == DateTimeField::Second) return 6;
  if (f == DateTimeField::Epoch) return type == TypeId::Date ? 0 : 6;
  if (f == DateTimeField::Millisecond) return 3;
  return 0;
}

namespace {

int64_t floorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// Sunday 0 .. Saturday 6; 1970-01-01 was a Thursday.
int64_t dayOfWeek(int32_t days) { return int64_t{days} + 4 - floorDiv(int64_t{days} + 4, 7) * 7; }

// ISO 8601 week: weeks start on Monday, week 1 holds the year's first Thursday; the ISO year is
// the year of the week's Thursday.
int64_t isoWeek(int32_t days, bool year) {
  int64_t dow = dayOfWeek(days);
  int32_t thursday = static_cast<int32_t>(days - (dow == 0 ? 7 : dow) + 4);
  int32_t y;
  uint32_t m, d;
  civilFromDays(thursday, y, m, d);
  return year ? y : (thursday - daysFromCivil(y, 1, 1)) / 7 + 1;
}

int64_t calendarField(DateTimeField f, int32_t days) {
  using F = DateTimeField;
  int32_t y;
  uint32_t m, d;
  civilFromDays(days, y, m, d);
  int64_t dow = dayOfWeek(days);
  switch (f) {
    case F::Year: return y;
    case F::Month: return m;
    case F::Day: return d;
    case F::Dow: return dow;
    case F::IsoDow: return dow == 0 ? 7 : dow;
    case F::Doy: return days - daysFromCivil(y, 1, 1) + 1;
    case F::Quarter: return (m - 1) / 3 + 1;
    case F::Week: return isoWeek(days, false);
    case F::IsoYear: return isoWeek(days, true);
    case F::Julian: return int64_t{days} + 2'440'588;
    case F::Decade: return y / 10;
    case F::Century: return (y + 99) / 100;
    case F::Millennium: return (y + 999) / 1000;
    default: return 0;
  }
}

int64_t timeField(DateTimeField f, int64_t micros) {  // micros since midnight, or an interval's time
  using F = DateTimeField;
  switch (f) {
    case F::Hour: return micros / kMicrosPerHour;
    case F::Minute: return micros / kMicrosPerMinute % 60;
    case F::Second:  // scaled by 10^6: microseconds
    case F::Millisecond:  // scaled by 10^3: microseconds too
    case F::Microsecond: return micros % kMicrosPerMinute;
    default: return 0;
  }
}

}  // namespace

int64_t extractField(TypeId type, DateTimeField f, int64_t bits, uint64_t high) {
  using F = DateTimeField;
  switch (type) {
    case TypeId::Date: return f == F::Epoch ? bits * 86'400 : calendarField(f, static_cast<int32_t>(bits));
    case TypeId::Time: return f == F::Epoch ? bits : timeField(f, bits);
    case TypeId::Timestamp: {
      if (f == F::Epoch) return bits;
      int32_t day = dateOfTimestamp(bits);
      int64_t timeOfDay = bits - timestampOfDate(day);
      bool ofTheDay = f >= F::Hour && f <= F::Microsecond;
      return ofTheDay ? timeField(f, timeOfDay) : calendarField(f, day);
    }
    case TypeId::Interval: {
      Interval iv = Interval::fromWords(bits, high);
      switch (f) {
        case F::Year: return iv.months / 12;
        case F::Month: return iv.months % 12;
        case F::Day: return iv.days;
        case F::Quarter: return iv.months % 12 / 3 + 1;
        case F::Decade: return iv.months / 120;
        case F::Century: return iv.months / 1200;
        case F::Millennium: return iv.months / 12000;
        // PostgreSQL's epoch of an interval: 365.25-day years, 30-day months, 24-hour days.
        case F::Epoch:
          return iv.micros + (int64_t{iv.months / 12} * 36525 * kMicrosPerDay) / 100 +
                 int64_t{iv.months % 12} * 30 * kMicrosPerDay + int64_t{iv.days} * kMicrosPerDay;
        default: return timeField(f, iv.micros);
      }
    }
    default: return 0;
  }
}

}  // namespace hyrax::text
