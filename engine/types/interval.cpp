#include "engine/types/interval.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"
#include "engine/util/error.hpp"

namespace hyrax::text {

namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// What one unit adds: months, days or microseconds per unit.
struct Unit {
  enum Kind { Months, Days, Micros } kind;
  int64_t per;
};

bool unitNamed(const std::string& w, Unit& u) {
  struct Name {
    const char* name;
    Unit unit;
  };
  static const Name names[] = {
      {"microsecond", {Unit::Micros, 1}},       {"microseconds", {Unit::Micros, 1}}, {"us", {Unit::Micros, 1}},
      {"usec", {Unit::Micros, 1}},              {"usecs", {Unit::Micros, 1}},        {"millisecond", {Unit::Micros, 1000}},
      {"milliseconds", {Unit::Micros, 1000}},   {"ms", {Unit::Micros, 1000}},        {"msec", {Unit::Micros, 1000}},
      {"msecs", {Unit::Micros, 1000}},          {"second", {Unit::Micros, kMicrosPerSecond}},
      {"seconds", {Unit::Micros, kMicrosPerSecond}}, {"sec", {Unit::Micros, kMicrosPerSecond}},
      {"secs", {Unit::Micros, kMicrosPerSecond}},    {"s", {Unit::Micros, kMicrosPerSecond}},
      {"minute", {Unit::Micros, kMicrosPerMinute}},  {"minutes", {Unit::Micros, kMicrosPerMinute}},
      {"min", {Unit::Micros, kMicrosPerMinute}},     {"mins", {Unit::Micros, kMicrosPerMinute}},
      {"m", {Unit::Micros, kMicrosPerMinute}},       {"hour", {Unit::Micros, kMicrosPerHour}},
      {"hours", {Unit::Micros, kMicrosPerHour}},     {"hr", {Unit::Micros, kMicrosPerHour}},
      {"hrs", {Unit::Micros, kMicrosPerHour}},       {"h", {Unit::Micros, kMicrosPerHour}},
      {"day", {Unit::Days, 1}},                 {"days", {Unit::Days, 1}},           {"d", {Unit::Days, 1}},
      {"week", {Unit::Days, 7}},                {"weeks", {Unit::Days, 7}},          {"w", {Unit::Days, 7}},
      {"month", {Unit::Months, 1}},             {"months", {Unit::Months, 1}},       {"mon", {Unit::Months, 1}},
      {"mons", {Unit::Months, 1}},              {"year", {Unit::Months, 12}},        {"years", {Unit::Months, 12}},
      {"yr", {Unit::Months, 12}},               {"yrs", {Unit::Months, 12}},         {"y", {Unit::Months, 12}},
      {"decade", {Unit::Months, 120}},          {"decades", {Unit::Months, 120}},    {"dec", {Unit::Months, 120}},
      {"decs", {Unit::Months, 120}},            {"century", {Unit::Months, 1200}},   {"centuries", {Unit::Months, 1200}},
      {"c", {Unit::Months, 1200}},              {"millennium", {Unit::Months, 12000}},
      {"millennia", {Unit::Months, 12000}},     {"mil", {Unit::Months, 12000}},      {"mils", {Unit::Months, 12000}},
  };
  for (const Name& n : names)
    if (w == n.name) {
      u = n.unit;
      return true;
    }
  return false;
}

// Sums with an overflow check; the parser's fields are int64 until the end.
struct Fields {
  int64_t months = 0, days = 0, micros = 0;
  bool ok = true;
  void add(int64_t& field, double v) {
    if (!(std::fabs(v) < 9.2e18)) {
      ok = false;
      return;
    }
    ok = ok && !__builtin_add_overflow(field, static_cast<int64_t>(v), &field);
  }
  void add(int64_t& field, int64_t a, int64_t b) {
    int64_t p;
    ok = ok && !__builtin_mul_overflow(a, b, &p) && !__builtin_add_overflow(field, p, &field);
  }
};

// n units (whole part `whole`, fraction `frac` of the same sign), a fraction cascading down as
// PostgreSQL's does: a fraction of a year to whole months, of a month to 30-day days and their
// remainder to microseconds, of a day to microseconds.
void addQuantity(Fields& f, const Unit& u, int64_t whole, double frac) {
  switch (u.kind) {
    case Unit::Months:
      f.add(f.months, whole, u.per);
      if (u.per >= 12) {
        f.add(f.months, std::nearbyint(frac * static_cast<double>(u.per)));
      } else {
        double days = frac * 30;
        f.add(f.days, std::trunc(days));
        f.add(f.micros, std::nearbyint((days - std::trunc(days)) * static_cast<double>(kMicrosPerDay)));
      }
      break;
    case Unit::Days: {
      f.add(f.days, whole, u.per);
      double days = frac * static_cast<double>(u.per);
      f.add(f.days, std::trunc(days));
      f.add(f.micros, std::nearbyint((days - std::trunc(days)) * static_cast<double>(kMicrosPerDay)));
      break;
    }
    case Unit::Micros:
      f.add(f.micros, whole, u.per);
      f.add(f.micros, std::nearbyint(frac * static_cast<double>(u.per)));
      break;
  }
}

}  // namespace

Interval parseInterval(std::string_view in, std::string_view qualifier) {
  auto bad = [&]() -> Interval {
    throw Error(sqlstate::InvalidDatetime, "invalid input syntax for type interval: \"" + std::string(in) + "\"");
  };
  Fields f;
  size_t i = 0, n = in.size();
  auto skipBlanks = [&] {
    while (i < n && blank(in[i])) ++i;
  };
  skipBlanks();
  if (i < n && in[i] == '@') ++i;
  bool any = false, ago = false;
  for (skipBlanks(); i < n; skipBlanks()) {
    if (ago) return bad();  // 'ago' comes last
    bool negative = false;
    if (in[i] == '+' || in[i] == '-') negative = in[i++] == '-';
    if (i >= n || (!digit(in[i]) && in[i] != '.')) {
      // a word alone: only 'ago'
      std::string w;
      while (i < n && alpha(in[i])) w += lower(in[i++]);
      if (w != "ago" || negative) return bad();
      ago = true;
      continue;
    }
    int64_t whole = 0;
    size_t start = i;
    while (i < n && digit(in[i])) {
      if (__builtin_mul_overflow(whole, 10, &whole) || __builtin_add_overflow(whole, in[i] - '0', &whole)) f.ok = false;
      ++i;
    }
    if (i < n && in[i] == ':') {  // a time: H:MM[:SS[.f]], hours without limit
      int64_t parts[2] = {0, 0};
      int count = 0;
      double secFrac = 0;
      while (i < n && in[i] == ':' && count < 2) {
        ++i;
        size_t s = i;
        while (i < n && digit(in[i]) && i - s < 2) parts[count] = parts[count] * 10 + (in[i++] - '0');
        if (i == s) return bad();
        ++count;
      }
      if (i < n && in[i] == '.' && count == 2) {
        size_t s = i++;
        while (i < n && digit(in[i])) ++i;
        secFrac = std::strtod(std::string(in.substr(s, i - s)).c_str(), nullptr);
      }
      if (parts[0] > 59 || parts[1] > 59)
        throw Error(sqlstate::DatetimeOutOfRange, "interval field value out of range: \"" + std::string(in) + "\"");
      int64_t m = 0;
      f.add(m, whole, kMicrosPerHour);
      f.add(m, parts[0], kMicrosPerMinute);
      f.add(m, parts[1], kMicrosPerSecond);
      f.add(m, std::nearbyint(secFrac * kMicrosPerSecond));
      f.add(f.micros, negative ? -1 : 1, m);
      any = true;
      continue;
    }
    double frac = 0;
    if (i < n && in[i] == '.') {
      size_t s = i++;
      while (i < n && digit(in[i])) ++i;
      frac = std::strtod(std::string(in.substr(s, i - s)).c_str(), nullptr);
    }
    if (i == start || (i == start + 1 && in[start] == '.')) return bad();
    skipBlanks();
    std::string w;
    while (i < n && alpha(in[i])) w += lower(in[i++]);
    Unit u{Unit::Micros, kMicrosPerSecond};  // a bare number is seconds, as in PostgreSQL
    if (w.empty()) {
      skipBlanks();
      if (!qualifier.empty()) {
        if (i < n) return bad();
        unitNamed(std::string(qualifier), u);
      }
    } else if (!unitNamed(w, u)) {
      return bad();
    }
    addQuantity(f, u, negative ? -whole : whole, negative ? -frac : frac);
    any = true;
  }
  if (!any) return bad();
  if (ago) f.months = -f.months, f.days = -f.days, f.micros = -f.micros;
  if (!f.ok || f.months > INT32_MAX || f.months < INT32_MIN || f.days > INT32_MAX || f.days < INT32_MIN)
    throw Error(sqlstate::DatetimeOutOfRange, "interval field value out of range: \"" + std::string(in) + "\"");
  return {f.micros, static_cast<int32_t>(f.days), static_cast<int32_t>(f.months)};
}

std::string formatInterval(const Interval& iv) {
  std::string out;
  bool previousNegative = false;
  auto part = [&](int64_t v, const char* unit) {
    if (v == 0) return;
    if (!out.empty()) out += ' ';
    if (previousNegative && v > 0) out += '+';
    out += std::to_string(v) + " " + unit + (v == 1 ? "" : "s");
    previousNegative = v < 0;
  };
  part(iv.months / 12, "year");
  part(iv.months % 12, "mon");
  part(iv.days, "day");
  if (out.empty() || iv.micros != 0) {
    bool negative = iv.micros < 0;
    uint64_t m = negative ? 0 - static_cast<uint64_t>(iv.micros) : static_cast<uint64_t>(iv.micros);
    if (!out.empty()) out += ' ';
    out += negative ? "-" : previousNegative ? "+" : "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%02llu:%02llu:", static_cast<unsigned long long>(m / kMicrosPerHour),
                  static_cast<unsigned long long>(m / kMicrosPerMinute % 60));
    out += buf + formatSeconds(static_cast<int64_t>(m % kMicrosPerMinute));
  }
  return out;
}

Int128 intervalSpan(const Interval& iv) {
  return Int128(int64_t{iv.months} * 30 + iv.days) * kMicrosPerDay + Int128(iv.micros);
}

int compareIntervals(const Interval& a, const Interval& b) {
  Int128 x = intervalSpan(a), y = intervalSpan(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

bool addIntervalToTimestamp(int64_t t, const Interval& iv, int64_t& out) {
  if (!timestampInRange(t)) return false;
  int32_t day = dateOfTimestamp(t);
  int64_t timeOfDay = t - timestampOfDate(day);
  if (iv.months != 0) {
    day = addMonths(day, iv.months);
    if (day == kNoDate) return false;
  }
  int64_t days = int64_t{day} + iv.days;
  if (!dateInRange(days)) return false;
  int64_t r = timestampOfDate(static_cast<int32_t>(days)) + timeOfDay;
  if (__builtin_add_overflow(r, iv.micros, &r) || !timestampInRange(r)) return false;
  out = r;
  return true;
}

Interval subtractTimestamps(int64_t t1, int64_t t2) {
  int64_t d = t1 - t2;  // both lie in the range: no overflow
  return {d % kMicrosPerDay, static_cast<int32_t>(d / kMicrosPerDay), 0};
}

bool addIntervals(const Interval& a, const Interval& b, Interval& out) {
  return !__builtin_add_overflow(a.micros, b.micros, &out.micros) && !__builtin_add_overflow(a.days, b.days, &out.days) &&
         !__builtin_add_overflow(a.months, b.months, &out.months);
}

bool scaleInterval(const Interval& a, double x, bool divide, Interval& out) {
  // PostgreSQL's interval_mul and interval_div step by step: the days field keeps its own whole
  // days (truncated toward zero) plus the whole days of the months' fraction, and the rest goes to
  // time, rounded to microseconds (TSROUND) on the way. Cascading the months' fraction into the
  // days before truncating gave '-1 mon 3 days' * -2.5 as 2 mons 7 days 12:00:00 where
  // PostgreSQL answers 2 mons 8 days -12:00:00: the same span, but EXTRACT(DAY) and the text
  // differ.
  auto scaled = [&](double v) { return divide ? v / x : v * x; };
  auto fits = [](double v, double limit) { return std::isfinite(v) && std::fabs(v) < limit; };
  auto toMicros = [](double v) { return std::rint(v * 1e6) / 1e6; };  // TSROUND
  constexpr double kSecondsPerDay = 86400;
  const double months = scaled(a.months), days = scaled(a.days);
  if (!fits(months, 2147483648.0) || !fits(days, 2147483648.0)) return false;
  const auto wholeMonths = static_cast<int32_t>(months), wholeDays = static_cast<int32_t>(days);  // toward zero
  const double monthDays = toMicros((months - wholeMonths) * 30);
  double seconds = toMicros((days - wholeDays + monthDays - static_cast<int32_t>(monthDays)) * kSecondsPerDay);
  int64_t resultDays = wholeDays;
  if (std::fabs(seconds) >= kSecondsPerDay) {  // 24:00:00 from rounding, or more from the cascade
    const auto carried = static_cast<int32_t>(seconds / kSecondsPerDay);
    resultDays += carried;
    seconds -= carried * kSecondsPerDay;
  }
  resultDays += static_cast<int32_t>(monthDays);
  const double micros = std::rint(scaled(static_cast<double>(a.micros)) + seconds * 1e6);
  if (resultDays < INT32_MIN || resultDays > INT32_MAX || !fits(micros, 9.2e18)) return false;
  out = {static_cast<int64_t>(micros), static_cast<int32_t>(resultDays), wholeMonths};
  return true;
}

bool negateInterval(const Interval& a, Interval& out) {
  if (a.micros == INT64_MIN || a.days == INT32_MIN || a.months == INT32_MIN) return false;
  out = {-a.micros, -a.days, -a.months};
  return true;
}

}  // namespace hyrax::text
