// SQL's scalar string functions for generated code: SUBSTRING, UPPER/LOWER, CHAR_LENGTH, POSITION
// and TRIM. Positions and lengths count characters: UTF-8 code points, found by skipping
// continuation bytes (10xxxxxx). Results that are part of the argument point into it (the heap or
// arena that holds the argument outlives the query); new strings go to the query's arena.
#include <cctype>
#include <cstring>
#include <string_view>

#include "engine/runtime/query_context.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/runtime/runtime_guard.hpp"
#include "engine/types/string_ref.hpp"

using namespace hyrax;

namespace {

// Byte offset of character `n` (0-based) in s, or s.size() when s has fewer characters.
size_t byteOfChar(std::string_view s, uint64_t n) {
  size_t i = 0;
  while (i < s.size() && n > 0) {
    ++i;
    while (i < s.size() && utf8Continuation(s[i])) ++i;
    --n;
  }
  return i;
}

uint64_t charCount(std::string_view s) {
  uint64_t n = 0;
  for (char c : s) n += !utf8Continuation(c);
  return n;
}

void put(std::string_view v, uint64_t* out) {
  StringRef r = StringRef::make(v.data(), static_cast<uint32_t>(v.size()));
  out[0] = r.lo();
  out[1] = r.hi();
}

}  // namespace

extern "C" {

int32_t hyrax_rt_substring(QueryContext* ctx, uint64_t lo, uint64_t hi, int64_t start, int64_t count, uint64_t* out) {
  // SQL: the characters at positions [start, start + count) that exist, positions from 1.
  StringRef s = StringRef::fromHalves(lo, hi);
  std::string_view v = s.view();
  bool toEnd = count == INT64_MIN;  // no FOR
  if (!toEnd && count < 0) return hyrax_rt_error(ctx, HYRAX_ERR_SUBSTRING_LENGTH);
  int64_t first = start < 1 ? 1 : start;
  if (!toEnd) {
    // The end position start + count, without overflow; nothing is left when it is <= first.
    int64_t end = start > INT64_MAX - count ? INT64_MAX : start + count;
    if (end <= first) {
      put({}, out);
      return 0;
    }
    count = end - first;
  }
  size_t b = byteOfChar(v, static_cast<uint64_t>(first - 1));
  std::string_view rest = v.substr(b);
  size_t e = toEnd ? rest.size() : byteOfChar(rest, static_cast<uint64_t>(count));
  put(rest.substr(0, e), out);
  return 0;
}

int32_t hyrax_rt_str_case(QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t upper, uint64_t* out) {
  StringRef s = StringRef::fromHalves(lo, hi);
  char* buf = guarded(ctx, static_cast<char*>(nullptr), [&] { return ctx->arena().allocate(s.len ? s.len : 1); });
  if (!buf) return 1;
  const char* d = s.data();
  for (uint32_t i = 0; i < s.len; ++i) {  // ASCII letters; other bytes (UTF-8 sequences) unchanged
    unsigned char c = static_cast<unsigned char>(d[i]);
    buf[i] = static_cast<char>(c < 0x80 ? (upper ? std::toupper(c) : std::tolower(c)) : c);
  }
  put({buf, s.len}, out);
  return 0;
}

int32_t hyrax_rt_char_length(uint64_t lo, uint64_t hi) {
  return static_cast<int32_t>(charCount(StringRef::fromHalves(lo, hi).view()));
}

// PostgreSQL's ascii(): the code point of the first character (UTF-8 decoded), 0 for ''.
int32_t hyrax_rt_ascii(uint64_t lo, uint64_t hi) {
  StringRef s = StringRef::fromHalves(lo, hi);  // a short string's bytes are inside it
  std::string_view v = s.view();
  if (v.empty()) return 0;
  auto c = static_cast<unsigned char>(v[0]);
  if (c < 0x80) return c;
  int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
  int32_t cp = c & (0x3F >> more);
  for (int k = 1; k <= more && static_cast<size_t>(k) < v.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(v[k]) & 0x3F);
  return cp;
}

int32_t hyrax_rt_position(uint64_t nlo, uint64_t nhi, uint64_t lo, uint64_t hi) {
  StringRef n = StringRef::fromHalves(nlo, nhi), s = StringRef::fromHalves(lo, hi);
  size_t at = s.view().find(n.view());
  if (at == std::string_view::npos) return 0;
  return static_cast<int32_t>(charCount(s.view().substr(0, at)) + 1);
}

void hyrax_rt_trim(uint64_t lo, uint64_t hi, uint64_t clo, uint64_t chi, int32_t leading, int32_t trailing,
                   uint64_t* out) {
  // Removes characters found in `chars` (single bytes; multi-byte characters are kept whole
  // unless all their bytes are listed).
  StringRef sr = StringRef::fromHalves(lo, hi), cr = StringRef::fromHalves(clo, chi);
  std::string_view v = sr.view(), chars = cr.view();
  size_t b = 0, e = v.size();
  if (leading)
    while (b < e && chars.find(v[b]) != std::string_view::npos) ++b;
  if (trailing)
    while (e > b && chars.find(v[e - 1]) != std::string_view::npos) --e;
  put(v.substr(b, e - b), out);
}

}  // extern "C"
