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

namespace {

// The C library's C.UTF-8 locale, made once; null when it has none.
locale_t utf8Locale() {
  static const locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return loc;
}

void appendUtf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace

std::string utf8CaseMapped(std::string_view s, bool upper) {
  std::string out;
  out.reserve(s.size());
  const locale_t loc = utf8Locale();
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (size_t i = 0; i < s.size();) {
    uint32_t c = p[i];
    size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (len > 1) {
      c &= len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07;
      for (size_t k = 1; k < len && i + k < s.size(); ++k) c = (c << 6) | (p[i + k] & 0x3F);
    }
    i += len;
    if (c < 0x80 || !loc) {
      if (c < 0x80) out += static_cast<char>(upper ? std::toupper(static_cast<int>(c)) : std::tolower(static_cast<int>(c)));
      else appendUtf8(out, c);
      continue;
    }
    auto w = static_cast<wint_t>(c);
    appendUtf8(out, static_cast<uint32_t>(upper ? towupper_l(w, loc) : towlower_l(w, loc)));
  }
  return out;
}

}  // namespace hyrax
