// repeat, reverse, initcap, translate, overlay, md5, to_hex, regexp_replace (text_functions.hpp)
// and the runtime function generated code calls for them.
#include "engine/runtime/text_functions.hpp"

#include <openssl/evp.h>

#include <climits>
#include <cstring>

#include "engine/runtime/query_context.hpp"
#include "engine/runtime/regex_match.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/runtime/runtime_guard.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/types/utf8.hpp"
#include "engine/util/error.hpp"

namespace hyrax::textfn {

namespace {

// PostgreSQL's limit for a value it makes: 1 GB less its 4-byte header.
constexpr uint64_t kMaxBytes = (uint64_t{1} << 30) - 1 - 4;

[[noreturn]] void tooLarge() { throw Error(sqlstate::ProgramLimitExceeded, "requested length too large"); }

void repeat(std::string_view s, int64_t n, std::string& out) {
  if (n <= 0 || s.empty()) return;
  if (static_cast<uint64_t>(n) > kMaxBytes / s.size()) tooLarge();
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) out.append(s);
}

void reverse(std::string_view s, std::string& out) {
  out.resize(s.size());
  // Each character's bytes keep their order: copied whole to the mirrored place.
  for (size_t i = 0, len = 0; i < s.size(); i += len) {
    utf8DecodeAt(s, i, len);
    std::memcpy(out.data() + s.size() - i - len, s.data() + i, len);
  }
}

// PostgreSQL's translate(): a character of `from` found more than once counts at its first place.
void translate(std::string_view s, std::string_view from, std::string_view to, std::string& out) {
  out.reserve(s.size());
  for (size_t i = 0, len = 0; i < s.size(); i += len) {
    utf8DecodeAt(s, i, len);
    const std::string_view c = s.substr(i, len);
    size_t index = 0;  // of c in `from`, in characters
    size_t at = 0, clen = 0;
    for (; at < from.size(); at += clen, ++index) {
      utf8DecodeAt(from, at, clen);
      if (from.substr(at, clen) == c) break;
    }
    if (at >= from.size()) {
      out.append(c);
      continue;
    }
    const size_t b = utf8Prefix(to, index);  // the index-th character of `to`, if it has one
    if (b < to.size()) {
      size_t tlen = 0;
      utf8DecodeAt(to, b, tlen);
      out.append(to.substr(b, tlen));
    }
  }
}

// PostgreSQL's text_overlay(): substring(s, 1, start - 1) || t || substring(s, start + count),
// start and count INTEGERs as its arguments are.
void overlay(std::string_view s, std::string_view t, int64_t start, int64_t count, std::string& out) {
  if (count == kNoCount) count = static_cast<int64_t>(utf8Chars(t));
  if (start <= 0) throw Error("22011", "negative substring length not allowed");
  if (start > INT32_MAX || count > INT32_MAX || count < INT32_MIN || start + count > INT32_MAX)
    throw Error(sqlstate::NumericOutOfRange, "integer out of range");
  const std::string_view head = s.substr(0, utf8Prefix(s, static_cast<size_t>(start - 1)));
  const int64_t rest = start + count;  // the first character kept after t (from 1)
  const std::string_view tail = rest <= 1 ? s : s.substr(utf8Prefix(s, static_cast<size_t>(rest - 1)));
  if (head.size() + t.size() + tail.size() > kMaxBytes) tooLarge();
  out.append(head).append(t).append(tail);
}

void hex(uint64_t v, std::string& out) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v & 0xF];
    v >>= 4;
  } while (v != 0);
  while (n > 0) out.push_back(digits[--n]);
}

void md5(std::string_view s, std::string& out) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (!EVP_Digest(s.data(), s.size(), digest, &size, EVP_md5(), nullptr))
    throw Error(sqlstate::InternalError, "could not compute MD5 hash");
  for (unsigned int i = 0; i < size; ++i) {
    out.push_back("0123456789abcdef"[digest[i] >> 4]);
    out.push_back("0123456789abcdef"[digest[i] & 0xF]);
  }
}

}  // namespace

void textFunction(TextFn fn, const TextArgs& a, std::string& out) {
  out.clear();
  switch (fn) {
    case TextFn::Repeat: return repeat(a.s[0], a.n[0], out);
    case TextFn::Reverse: return reverse(a.s[0], out);
    case TextFn::Initcap: out = utf8Initcap(a.s[0]); return;
    case TextFn::Translate: return translate(a.s[0], a.s[1], a.s[2], out);
    case TextFn::Overlay: return overlay(a.s[0], a.s[1], a.n[0], a.n[1], out);
    case TextFn::Md5: return md5(a.s[0], out);
    case TextFn::ToHex32: return hex(static_cast<uint32_t>(a.n[0]), out);
    case TextFn::ToHex64: return hex(static_cast<uint64_t>(a.n[0]), out);
    case TextFn::RegexpReplace: return regexReplace(a.s[0], a.s[1], a.s[2], a.s[3], out);
  }
}

}  // namespace hyrax::textfn

using namespace hyrax;

extern "C" int32_t hyrax_rt_text_function(QueryContext* ctx, int32_t fn, uint64_t* words, uint64_t* out) {
  StringRef refs[4];
  textfn::TextArgs args;
  for (int i = 0; i < 4; ++i) {
    refs[i] = StringRef::fromHalves(words[2 * i], words[2 * i + 1]);  // a short string's bytes are inside it
    args.s[i] = refs[i].view();
  }
  args.n[0] = static_cast<int64_t>(words[8]);
  args.n[1] = static_cast<int64_t>(words[9]);
  thread_local std::string result;  // reused: no allocation per row beyond the arena's copy
  const bool ok = guarded(ctx, false, [&] {
    textfn::textFunction(static_cast<textfn::TextFn>(fn), args, result);
    return true;
  });
  return ok ? arenaString(ctx, result, out) : 1;
}
