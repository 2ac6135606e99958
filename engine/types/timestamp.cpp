#include "engine/types/timestamp.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>

#include "engine/util/error.hpp"

namespace hyrax::text {

namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

bool digit(char c) { return c >= '0' && c <= '9'; }

// Reads 1..maxDigits digits at s[i]; false if there are none or too many.
bool number(std::string_view s, size_t& i, size_t maxDigits, int64_t& out) {
  size_t start = i;
  out = 0;
  while (i < s.size() && digit(s[i])) {
    if (i - start == maxDigits) return false;
    out = out * 10 + (s[i++] - '0');
  }
  return i > start;
}

enum class Parsed { Ok, Syntax, FieldRange };

// 'HH:MM[:SS[.f...]]' from s[i] to the end, as microseconds since midnight (24:00:00 allowed, as
// PostgreSQL does; a fraction is rounded to microseconds, half up).
Parsed parseTimeOfDay(std::string_view s, size_t i, int64_t& micros) {
  int64_t h, m, sec = 0, frac = 0;
  if (!number(s, i, 2, h) || i >= s.size() || s[i++] != ':' || !number(s, i, 2, m)) return Parsed::Syntax;
  if (i < s.size() && s[i] == ':') {
    ++i;
    if (!number(s, i, 2, sec)) return Parsed::Syntax;
    if (i < s.size() && s[i] == '.') {
      ++i;
      size_t start = i;
      int64_t scale = kMicrosPerSecond;
      bool roundUp = false;
      for (; i < s.size() && digit(s[i]); ++i) {
        if (scale > 1) frac += (s[i] - '0') * (scale /= 10);
        else if (i - start == 6) roundUp = s[i] >= '5';
      }
      if (i == start) return Parsed::Syntax;
      frac += roundUp;
    }
  }
  if (i != s.size()) return Parsed::Syntax;
  if (h > 24 || m > 59 || sec > 60 || (h == 24 && (m || sec || frac))) return Parsed::FieldRange;
  micros = h * kMicrosPerHour + m * kMicrosPerMinute + sec * kMicrosPerSecond + frac;
  return Parsed::Ok;
}

[[noreturn]] void badSyntax(const char* type, std::string_view in) {
  throw Error(sqlstate::InvalidDatetime, std::string("invalid input syntax for type ") + type + ": \"" + std::string(in) + "\"");
}

[[noreturn]] void fieldRange(std::string_view in) {
  throw Error(sqlstate::DatetimeOutOfRange, "date/time field value out of range: \"" + std::string(in) + "\"");
}

}  // namespace

int64_t parseTimestamp(std::string_view in) {
  std::string_view s = trimmed(in);
  size_t i = 0;
  int64_t y, m, d;
  if (!number(s, i, 5, y) || i >= s.size() || s[i++] != '-' || !number(s, i, 2, m) || i >= s.size() || s[i++] != '-' ||
      !number(s, i, 2, d))
    badSyntax("timestamp", in);
  int64_t timeOfDay = 0;
  if (i < s.size()) {
    if (s[i] != 'T' && s[i] != 't' && !blank(s[i])) badSyntax("timestamp", in);
    while (++i < s.size() && blank(s[i])) {
    }
    Parsed p = parseTimeOfDay(s, i, timeOfDay);
    if (p == Parsed::Syntax) badSyntax("timestamp", in);
    if (p == Parsed::FieldRange) fieldRange(in);
  }
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) fieldRange(in);
  if (y > 9999) throw Error(sqlstate::DatetimeOutOfRange, "timestamp out of range: \"" + std::string(in) + "\"");
  int64_t t = timestampOfDate(daysFromCivil(static_cast<int32_t>(y), static_cast<uint32_t>(m), static_cast<uint32_t>(d))) +
              timeOfDay;
  if (!timestampInRange(t)) throw Error(sqlstate::DatetimeOutOfRange, "timestamp out of range: \"" + std::string(in) + "\"");
  return t;
}

int64_t parseTime(std::string_view in) {
  std::string_view s = trimmed(in);
  int64_t micros = 0;
  Parsed p = parseTimeOfDay(s, 0, micros);
  if (p == Parsed::Syntax) badSyntax("time", in);
  if (p == Parsed::FieldRange || micros > kMicrosPerDay) fieldRange(in);
  return micros;
}

std::string formatSeconds(int64_t micros) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02d.%06d", static_cast<int>(micros / kMicrosPerSecond),
                static_cast<int>(micros % kMicrosPerSecond));
  std::string s = buf;
  while (s.back() == '0' && s.size() > 2) s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string formatTime(int64_t micros) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02d:%02d:", static_cast<int>(micros / kMicrosPerHour),
                static_cast<int>(micros / kMicrosPerMinute % 60));
  return buf + formatSeconds(micros % kMicrosPerMinute);
}

std::string formatTimestamp(int64_t t) {
  int32_t days = dateOfTimestamp(t);
  return formatDate(days) + " " + formatTime(t - timestampOfDate(days));
}

void encodeTimeAs(TypeId type, int64_t t, void* out) {
  int32_t day = dateOfTimestamp(t);
  int64_t timeOfDay = t - timestampOfDate(day);
  if (type == TypeId::Date) std::memcpy(out, &day, sizeof day);
  else std::memcpy(out, type == TypeId::Time ? &timeOfDay : &t, sizeof t);
}

int64_t clockMicros() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace hyrax::text
