#include "engine/types/utf8.hpp"

#include <cctype>
#include <clocale>
#include <cstdio>
#include <cwctype>

#include <locale.h>

namespace hyrax {

size_t invalidUtf8At(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
    } else {
      return i;  // a continuation byte, an overlong lead (C0, C1) or F5..FF
    }
    if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k)
      if ((p[i + k] & 0xC0) != 0x80) return i;
    i += len;
  }
  return std::string_view::npos;
}

size_t utf8Chars(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string invalidUtf8Message(std::string_view s, size_t at) {
  std::string m = "invalid byte sequence for encoding \"UTF8\":";
  for (size_t k = at; k < s.size() && k < at + 2; ++k) {  // the first bytes, as PostgreSQL shows them
    char hex[8];
    std::snprintf(hex, sizeof hex, " 0x%02x", static_cast<unsigned char>(s[k]));
    m += hex;
  }
  return m;
}

size_t utf8Prefix(std::string_view s, size_t chars) {
  size_t i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;  // a continuation byte
    if (chars-- == 0) break;
  }
  return i;
}

uint32_t utf8DecodeAt(std::string_view s, size_t i, size_t& len) {
  const auto b = static_cast<unsigned char>(s[i]);
  const size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  bool valid = n > 0 && i + n <= s.size();
  uint32_t cp = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
  for (size_t k = 1; valid && k < n; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    valid = (c & 0xC0) == 0x80;
    cp = (cp << 6) | (c & 0x3F);
  }
  len = valid ? n : 1;
  return valid ? cp : b;
}

size_t utf8Encode(uint32_t c, char* out) {
  if (c < 0x80) {
    out[0] = static_cast<char>(c);
    return 1;
  }
  if (c < 0x800) {
    out[0] = static_cast<char>(0xC0 | (c >> 6));
    out[1] = static_cast<char>(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (c >> 12));
    out[1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (c >> 18));
  out[1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (c & 0x3F));
  return 4;
}

namespace {

// The C library's C.UTF-8 locale, made once; null when it has none.
locale_t utf8Locale() {
  static const locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return loc;
}

// One code point mapped as UPPER or LOWER maps it.
uint32_t caseMapped(uint32_t c, bool upper, locale_t loc) {
  if (c < 0x80) return static_cast<uint32_t>(upper ? std::toupper(static_cast<int>(c)) : std::tolower(static_cast<int>(c)));
  if (!loc) return c;
  return static_cast<uint32_t>(upper ? towupper_l(static_cast<wint_t>(c), loc) : towlower_l(static_cast<wint_t>(c), loc));
}

}  // namespace

std::string utf8CaseMapped(std::string_view s, bool upper) {
  std::string out;
  out.reserve(s.size());
  const locale_t loc = utf8Locale();
  char bytes[4];
  for (size_t i = 0, len = 0; i < s.size(); i += len) out.append(bytes, utf8Encode(caseMapped(utf8DecodeAt(s, i, len), upper, loc), bytes));
  return out;
}

std::string utf8Initcap(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const locale_t loc = utf8Locale();
  char bytes[4];
  bool afterAlnum = false;
  for (size_t i = 0, len = 0; i < s.size(); i += len) {
    const uint32_t c = caseMapped(utf8DecodeAt(s, i, len), !afterAlnum, loc);
    afterAlnum = c < 0x80 ? std::isalnum(static_cast<int>(c)) != 0 : loc && iswalnum_l(static_cast<wint_t>(c), loc) != 0;
    out.append(bytes, utf8Encode(c, bytes));
  }
  return out;
}

}  // namespace hyrax
