// SQL's scalar string functions for generated code: SUBSTRING, UPPER/LOWER (Unicode letters as
// PostgreSQL maps them: engine/types/utf8.hpp), CHAR_LENGTH, ASCII,
// POSITION, TRIM, REPLACE, LPAD/RPAD, SPLIT_PART, CHR, STARTS_WITH; current_setting (repeat,
// reverse, initcap, translate, overlay, md5, to_hex: text_functions.cpp). Positions and lengths
// count characters: UTF-8 code points, found by skipping continuation bytes (10xxxxxx). Results
// that are part of the argument point into it (the heap or arena that holds the argument outlives
// the query); new strings go to the query's arena.
#include <cctype>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/runtime/query_context.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/runtime/runtime_guard.hpp"
#include "engine/runtime/session_values.hpp"
#include "engine/runtime/thread_scope.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/utf8.hpp"

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

// PostgreSQL's limits for what string functions make: 1 GB, 2^28 - 1 characters.
constexpr uint64_t kMaxStringBytes = (uint64_t{1} << 30) - 1;
constexpr uint64_t kMaxStringChars = (uint64_t{1} << 28) - 1;

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
  const char* d = s.data();
  bool ascii = true;  // the common case: mapped in place, no string built
  for (uint32_t i = 0; i < s.len && ascii; ++i) ascii = static_cast<unsigned char>(d[i]) < 0x80;
  std::string mapped;
  if (!ascii) {
    bool ok = guarded(ctx, false, [&] {
      mapped = utf8CaseMapped(s.view(), upper != 0);
      return true;
    });
    if (!ok) return 1;
  }
  const size_t n = ascii ? s.len : mapped.size();
  char* buf = guarded(ctx, static_cast<char*>(nullptr), [&] { return ctx->arena().allocate(n ? n : 1); });
  if (!buf) return 1;
  if (ascii)
    for (uint32_t i = 0; i < s.len; ++i) {
      auto c = static_cast<unsigned char>(d[i]);
      buf[i] = static_cast<char>(upper ? std::toupper(c) : std::tolower(c));
    }
  else
    std::memcpy(buf, mapped.data(), n);
  put({buf, static_cast<uint32_t>(n)}, out);
  return 0;
}

int32_t hyrax_rt_fit_string(QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t typeId, int32_t length,
                            int32_t explicitCast, uint64_t* out) {
  StringRef s = StringRef::fromHalves(lo, hi);
  auto fitted = text::fitString(s.view(), static_cast<TypeId>(typeId), static_cast<uint32_t>(length), explicitCast != 0);
  if (!fitted) return hyrax_rt_string_too_long(ctx, typeId, length);
  put(*fitted, out);
  return 0;
}

int32_t hyrax_rt_char_length(uint64_t lo, uint64_t hi) {
  return static_cast<int32_t>(utf8Chars(StringRef::fromHalves(lo, hi).view()));
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
  return static_cast<int32_t>(utf8Chars(s.view().substr(0, at)) + 1);
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

// PostgreSQL's replace(): every occurrence of `from`, left to right, replaced by `to`; an empty
// `from` leaves s as it is.
int32_t hyrax_rt_replace(QueryContext* ctx, uint64_t lo, uint64_t hi, uint64_t flo, uint64_t fhi, uint64_t tlo,
                         uint64_t thi, uint64_t* out) {
  StringRef sr = StringRef::fromHalves(lo, hi), fr = StringRef::fromHalves(flo, fhi), tr = StringRef::fromHalves(tlo, thi);
  std::string_view s = sr.view(), from = fr.view(), to = tr.view();
  size_t hits = 0;
  if (!from.empty())
    for (size_t at = s.find(from); at != std::string_view::npos; at = s.find(from, at + from.size())) ++hits;
  if (hits == 0) {
    put(s, out);
    return 0;
  }
  const uint64_t size = s.size() - hits * from.size() + hits * to.size();
  if (size > kMaxStringBytes) return hyrax_rt_error(ctx, HYRAX_ERR_LENGTH_TOO_LARGE);
  char* buf = guarded(ctx, static_cast<char*>(nullptr), [&] { return ctx->arena().allocate(size ? size : 1); });
  if (!buf) return 1;
  char* w = buf;
  size_t done = 0;
  for (size_t at = s.find(from); at != std::string_view::npos; at = s.find(from, at + from.size())) {
    std::memcpy(w, s.data() + done, at - done);
    w += at - done;
    std::memcpy(w, to.data(), to.size());
    w += to.size();
    done = at + from.size();
  }
  std::memcpy(w, s.data() + done, s.size() - done);
  put({buf, static_cast<size_t>(size)}, out);
  return 0;
}

// PostgreSQL's lpad() and rpad(): s cut or filled with `fill` (repeated, the last copy cut) to
// `length` characters; at most 0 gives '', an empty fill leaves a short s as it is.
int32_t hyrax_rt_pad(QueryContext* ctx, uint64_t lo, uint64_t hi, int64_t length, uint64_t flo, uint64_t fhi,
                     int32_t left, uint64_t* out) {
  StringRef sr = StringRef::fromHalves(lo, hi), fr = StringRef::fromHalves(flo, fhi);
  std::string_view s = sr.view(), fill = fr.view();
  if (length <= 0) {
    put({}, out);
    return 0;
  }
  if (static_cast<uint64_t>(length) > kMaxStringChars) return hyrax_rt_error(ctx, HYRAX_ERR_LENGTH_TOO_LARGE);
  const uint64_t have = utf8Chars(s);
  if (have >= static_cast<uint64_t>(length) || fill.empty()) {
    put(s.substr(0, byteOfChar(s, static_cast<uint64_t>(length))), out);
    return 0;
  }
  // The fill's first `missing` characters, repeated: whole copies, then a cut one.
  const uint64_t missing = static_cast<uint64_t>(length) - have, fillChars = utf8Chars(fill);
  const uint64_t padBytes = missing / fillChars * fill.size() + byteOfChar(fill, missing % fillChars);
  if (padBytes + s.size() > kMaxStringBytes) return hyrax_rt_error(ctx, HYRAX_ERR_LENGTH_TOO_LARGE);
  const uint64_t size = padBytes + s.size();
  char* buf = guarded(ctx, static_cast<char*>(nullptr), [&] { return ctx->arena().allocate(size); });
  if (!buf) return 1;
  char* pad = left ? buf : buf + s.size();
  for (uint64_t k = 0; k + fill.size() <= padBytes; k += fill.size()) std::memcpy(pad + k, fill.data(), fill.size());
  const uint64_t whole = padBytes / fill.size() * fill.size();
  std::memcpy(pad + whole, fill.data(), padBytes - whole);
  std::memcpy(left ? buf + padBytes : buf, s.data(), s.size());
  put({buf, static_cast<size_t>(size)}, out);
  return 0;
}

// PostgreSQL's split_part(): the n-th field of s between delimiters (n < 0: counted from the
// end); '' past the last; an empty delimiter makes s one field.
int32_t hyrax_rt_split_part(QueryContext* ctx, uint64_t lo, uint64_t hi, uint64_t dlo, uint64_t dhi, int64_t n,
                            uint64_t* out) {
  if (n == 0) return hyrax_rt_error(ctx, HYRAX_ERR_FIELD_ZERO);
  StringRef sr = StringRef::fromHalves(lo, hi), dr = StringRef::fromHalves(dlo, dhi);
  std::string_view s = sr.view(), d = dr.view();
  std::vector<std::string_view> fields;
  if (d.empty() || s.empty()) {
    if (!s.empty()) fields.push_back(s);
  } else {
    size_t start = 0;
    for (size_t at = s.find(d); at != std::string_view::npos; at = s.find(d, start)) {
      fields.push_back(s.substr(start, at - start));
      start = at + d.size();
    }
    fields.push_back(s.substr(start));
  }
  const auto count = static_cast<int64_t>(fields.size());
  const int64_t k = n > 0 ? n - 1 : count + n;  // n = INT64_MIN: k < 0, no field
  put(k >= 0 && k < count ? fields[static_cast<size_t>(k)] : std::string_view{}, out);
  return 0;
}

// PostgreSQL's chr(): the character with code point `code`, UTF-8 encoded.
int32_t hyrax_rt_chr(QueryContext* ctx, int64_t code, uint64_t* out) {
  if (code <= 0 || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return hyrax_rt_error(ctx, HYRAX_ERR_BAD_CHARACTER);
  char bytes[4];
  const size_t n = utf8Encode(static_cast<uint32_t>(code), bytes);
  put({bytes, n}, out);  // at most 4 bytes: kept inside the string value, no memory needed
  return 0;
}

int32_t hyrax_rt_starts_with(uint64_t lo, uint64_t hi, uint64_t plo, uint64_t phi) {
  StringRef s = StringRef::fromHalves(lo, hi), p = StringRef::fromHalves(plo, phi);
  return s.view().substr(0, p.len) == p.view();  // byte prefix = character prefix in valid UTF-8
}

}  // extern "C"

// current_setting(name [, missing_ok]): the value in the session's settings (session_values.hpp);
// 42704 for an unknown name unless missingOk, which answers NULL (*isNull = 1).
extern "C" int32_t hyrax_rt_current_setting(QueryContext* ctx, uint64_t nlo, uint64_t nhi, int32_t missingOk,
                                            uint64_t* out, int8_t* isNull) {
  *isNull = 0;
  std::string name(StringRef::fromHalves(nlo, nhi).view());
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const SessionValues* session = ThreadScope<const SessionValues>::current();
  std::optional<std::string> value = session ? session->settingValue(name) : std::nullopt;
  if (!value) {
    if (missingOk) {
      *isNull = 1;
      put({}, out);
      return 0;
    }
    ctx->setError(sqlstate::UndefinedObject, "unrecognized configuration parameter \"" + name + "\"");
    return 1;
  }
  return arenaString(ctx, *value, out);
}
