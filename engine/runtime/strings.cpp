// String runtime functions: comparison, equality, LIKE, concatenation, hashing.
#include <algorithm>
#include <cstring>

#include "engine/runtime/like_pattern.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/runtime/runtime_guard.hpp"
#include "engine/types/string_ref.hpp"

using namespace hyrax;

namespace {

// Matches SQL LIKE iteratively: on a mismatch after '%', retry one character further (the single
// backtrack point makes it linear-ish, never exponential). '_' is one character, a UTF-8 code
// point of one to four bytes, and the retries start on character boundaries only.
bool like(std::string_view s, std::string_view p) {
  size_t si = 0, pi = 0, starP = std::string_view::npos, starS = 0;
  auto nextChar = [&](size_t i) {
    for (++i; i < s.size() && utf8Continuation(s[i]);) ++i;
    return i;
  };
  while (si < s.size()) {
    if (pi < p.size()) {
      char c = p[pi];
      if (c == '%') {
        starP = ++pi;
        starS = si;
        continue;
      }
      if (c == '\\' && pi + 1 < p.size()) {
        if (s[si] == p[pi + 1]) {
          ++si, pi += 2;
          continue;
        }
      } else if (c == '_') {
        si = nextChar(si), ++pi;
        continue;
      } else if (c == s[si]) {
        ++si, ++pi;
        continue;
      }
    }
    if (starP == std::string_view::npos) return false;
    pi = starP;
    si = starS = nextChar(starS);
  }
  while (pi < p.size() && p[pi] == '%') ++pi;
  return pi == p.size();
}

}  // namespace

extern "C" {

int32_t hyrax_rt_str_cmp(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi) {
  StringRef a = StringRef::fromHalves(alo, ahi), b = StringRef::fromHalves(blo, bhi);
  uint32_t n = std::min(a.len, b.len);
  int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return a.len < b.len ? -1 : a.len > b.len ? 1 : 0;
}

int8_t hyrax_rt_str_eq(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi) {
  StringRef a = StringRef::fromHalves(alo, ahi), b = StringRef::fromHalves(blo, bhi);
  return a.len == b.len && std::memcmp(a.data(), b.data(), a.len) == 0;
}

int8_t hyrax_rt_like(uint64_t slo, uint64_t shi, uint64_t plo, uint64_t phi) {
  StringRef s = StringRef::fromHalves(slo, shi), p = StringRef::fromHalves(plo, phi);
  thread_local std::string prepared;  // a pattern computed per row: prepared per row
  prepared.clear();
  if (prepareLikePattern(p.view(), prepared)) return matchPreparedLike(s.view(), prepared.data());
  return like(s.view(), p.view());
}

int8_t hyrax_rt_like_prepared(uint64_t slo, uint64_t shi, const char* prepared) {
  return matchPreparedLike(StringRef::fromHalves(slo, shi).view(), prepared);
}

int32_t hyrax_rt_str_concat(QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi, uint64_t* out) {
  StringRef a = StringRef::fromHalves(alo, ahi), b = StringRef::fromHalves(blo, bhi);
  uint32_t n = a.len + b.len;
  char* buf = guarded(ctx, static_cast<char*>(nullptr), [&] { return ctx->arena().allocate(n ? n : 1); });
  if (!buf) return 1;
  std::memcpy(buf, a.data(), a.len);
  std::memcpy(buf + a.len, b.data(), b.len);
  StringRef r = StringRef::make(buf, n);
  out[0] = r.lo();
  out[1] = r.hi();
  return 0;
}

uint64_t hyrax_rt_hash_string(uint64_t lo, uint64_t hi) {
  StringRef s = StringRef::fromHalves(lo, hi);
  // A short string is whole in its two halves (zero-padded), so they are its hash's input; generated
  // code computes this case inline (ExprCompiler::hash) and calls here only for long strings.
  if (s.isInline()) return hashShortString(lo, hi);
  const char* p = s.data();
  uint64_t h = 0x84222325cbf29ce4ULL ^ s.len;
  uint32_t i = 0;
  for (; i + 8 <= s.len; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 32;
  }
  if (i < s.len) {
    uint64_t w = 0;
    std::memcpy(&w, p + i, s.len - i);
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 32;
  }
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 29);
}

}  // extern "C"
