#include "engine/types/array_text.hpp"

#include <cctype>
#include <charconv>
#include <cstdint>

#include "engine/util/error.hpp"

namespace hyrax::text {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bool equalsNull(std::string_view s) {
  return s.size() == 4 && std::tolower(static_cast<unsigned char>(s[0])) == 'n' &&
         std::tolower(static_cast<unsigned char>(s[1])) == 'u' && std::tolower(static_cast<unsigned char>(s[2])) == 'l' &&
         std::tolower(static_cast<unsigned char>(s[3])) == 'l';
}

}  // namespace

bool parseArray(std::string_view t, ArrayElements& out, std::string& error, bool& unsupported) {
  out.clear();
  unsupported = false;
  auto malformed = [&](const char* why) {
    error = "malformed array literal: \"" + std::string(t) + "\" (" + why + ")";
    return false;
  };
  size_t i = 0;
  while (i < t.size() && isSpace(t[i])) ++i;
  if (i < t.size() && t[i] == '[') {
    unsupported = true;
    error = "arrays with explicit bounds are not supported";
    return false;
  }
  if (i >= t.size() || t[i] != '{') return malformed("array value must start with \"{\"");
  ++i;
  while (i < t.size() && isSpace(t[i])) ++i;
  if (i < t.size() && t[i] == '{') {
    unsupported = true;
    error = "multidimensional arrays are not supported";
    return false;
  }
  if (i < t.size() && t[i] == '}') {
    ++i;
  } else {
    while (true) {
      while (i < t.size() && isSpace(t[i])) ++i;
      if (i >= t.size()) return malformed("unexpected end of input");
      if (t[i] == '{') {
        unsupported = true;
        error = "multidimensional arrays are not supported";
        return false;
      }
      std::string element;
      bool quoted = false;
      if (t[i] == '"') {
        quoted = true;
        ++i;
        while (true) {
          if (i >= t.size()) return malformed("unexpected end of input");
          char c = t[i++];
          if (c == '"') break;
          if (c == '\\') {
            if (i >= t.size()) return malformed("unexpected end of input");
            c = t[i++];
          }
          element += c;
        }
        while (i < t.size() && isSpace(t[i])) ++i;
      } else {
        size_t trailingSpace = 0;  // white space after an unquoted element is not part of it
        while (i < t.size() && t[i] != ',' && t[i] != '}') {
          char c = t[i++];
          if (c == '"' || c == '{') return malformed("unexpected character");
          if (c == '\\') {
            if (i >= t.size()) return malformed("unexpected end of input");
            element += t[i++];
            trailingSpace = 0;
            continue;
          }
          element += c;
          trailingSpace = isSpace(c) ? trailingSpace + 1 : 0;
        }
        element.resize(element.size() - trailingSpace);
        if (element.empty()) return malformed("unexpected \",\" or \"}\"");
      }
      if (!quoted && equalsNull(element)) out.emplace_back(std::nullopt);
      else out.emplace_back(std::move(element));
      if (i >= t.size()) return malformed("unexpected end of input");
      if (t[i] == ',') {
        ++i;
        continue;
      }
      if (t[i] != '}') return malformed("unexpected character");
      ++i;
      break;
    }
  }
  while (i < t.size() && isSpace(t[i])) ++i;
  if (i != t.size()) return malformed("junk after closing right brace");
  return true;
}

ArrayElements parseArray(std::string_view text) {
  ArrayElements out;
  std::string error;
  bool unsupported = false;
  if (!parseArray(text, out, error, unsupported))
    throw Error(unsupported ? sqlstate::FeatureNotSupported : sqlstate::InvalidText, error);
  return out;
}

void appendArrayElement(std::string& out, std::string_view e) {
  bool quote = e.empty() || equalsNull(e);
  for (char c : e)
    if (c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || isSpace(c)) quote = true;
  if (!quote) {
    out.append(e);
    return;
  }
  out += '"';
  for (char c : e) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

std::string formatArray(const ArrayElements& elements) {
  std::string out = "{";
  for (size_t k = 0; k < elements.size(); ++k) {
    if (k) out += ',';
    if (elements[k]) appendArrayElement(out, *elements[k]);
    else out += "NULL";
  }
  out += '}';
  return out;
}

bool isVectorType(const SqlType& t) { return t.isArray() && (t.arrayOid == 22 || t.arrayOid == 30); }

std::string vectorText(std::string_view canonical) {
  std::string out;
  for (char c : canonical.substr(1, canonical.size() >= 2 ? canonical.size() - 2 : 0)) out += c == ',' ? ' ' : c;
  return out;
}

bool canonicalElement(TypeId element, std::string_view s, std::string& out, std::string& error,
                      const char*& state) {
  if (element != TypeId::Int16 && element != TypeId::Int32 && element != TypeId::Int64) {
    out.assign(s);
    return true;
  }
  const char* name = element == TypeId::Int16 ? "smallint" : element == TypeId::Int32 ? "integer" : "bigint";
  size_t b = 0, e = s.size();
  while (b < e && isSpace(s[b])) ++b;
  while (e > b && isSpace(s[e - 1])) --e;
  std::string_view d = s.substr(b, e - b);
  if (!d.empty() && d[0] == '+') d.remove_prefix(1);
  int64_t x = 0;
  auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), x);
  const int64_t lo = element == TypeId::Int16 ? INT16_MIN : element == TypeId::Int32 ? INT32_MIN : INT64_MIN;
  const int64_t hi = element == TypeId::Int16 ? INT16_MAX : element == TypeId::Int32 ? INT32_MAX : INT64_MAX;
  if (d.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range) || end != d.data() + d.size()) {
    error = std::string("invalid input syntax for type ") + name + ": \"" + std::string(s) + "\"";
    state = sqlstate::InvalidText;
    return false;
  }
  if (ec == std::errc::result_out_of_range || x < lo || x > hi) {
    error = "value \"" + std::string(s) + "\" is out of range for type " + name;
    state = sqlstate::NumericOutOfRange;
    return false;
  }
  out = std::to_string(x);
  return true;
}

}  // namespace hyrax::text
