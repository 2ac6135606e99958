#include "engine/runtime/like_pattern.hpp"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hyrax {

namespace {

// Prepared form: u32 wildcard (0: no '%', the pattern is the whole string), u32 head length,
// u32 tail length, u32 middle segments; the head's and the tail's bytes; then per middle segment
// its u32 length and bytes. Head and tail are what comes before the first and after the last '%'.
void putU32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
uint32_t getU32(const char*& p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  p += 4;
  return v;
}

constexpr size_t kNone = SIZE_MAX;

// Whether a[0, k) equals b[0, k), inline: the bytes between a candidate's first and last, or a
// head or tail (often none), are a few bytes, and memcmp's call cost more than the compare (a
// fifth of a LIKE over TPC-H's comments). Reads nothing outside the two ranges.
inline bool sameBytes(const char* a, const char* b, size_t k) {
  auto word = [](const char* p, auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  for (; k >= 8; a += 8, b += 8, k -= 8)
    if (word(a, uint64_t{}) != word(b, uint64_t{})) return false;
  if (k >= 4) return word(a, uint32_t{}) == word(b, uint32_t{}) && word(a + k - 4, uint32_t{}) == word(b + k - 4, uint32_t{});
  for (size_t i = 0; i < k; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// Where `needle` (n >= 1 bytes) first starts in s[from, end), or kNone. Candidates are the
// positions whose first and last bytes match (16 at a time with SSE2); only those are compared.
size_t findSegment(const char* s, size_t from, size_t end, const char* needle, size_t n) {
  if (end < from || end - from < n) return kNone;
  const size_t lastStart = end - n;
  const char first = needle[0], last = needle[n - 1];
  size_t i = from;
#if defined(__SSE2__)
  const __m128i f = _mm_set1_epi8(first), l = _mm_set1_epi8(last);
  for (; i + 15 <= lastStart; i += 16) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + n - 1));
    auto mask = static_cast<uint32_t>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, f), _mm_cmpeq_epi8(b, l))));
    while (mask) {
      size_t at = i + static_cast<size_t>(__builtin_ctz(mask));
      if (n <= 2 || sameBytes(s + at + 1, needle + 1, n - 2)) return at;
      mask &= mask - 1;
    }
  }
  // The candidates left, [i, lastStart]: one more block, the one that ends at lastStart, with
  // those before i (already looked at) masked off, instead of up to 15 steps of the byte loop
  // (TPC-H's comments of 19-78 bytes spent most of their time there). It reads no byte outside
  // s[0, end) once lastStart >= 15.
  if (i <= lastStart && lastStart >= 15) {
    const size_t at0 = lastStart - 15;
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at0));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at0 + n - 1));
    auto mask = static_cast<uint32_t>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, f), _mm_cmpeq_epi8(b, l))));
    mask &= ~((1u << (i - at0)) - 1);
    while (mask) {
      size_t at = at0 + static_cast<size_t>(__builtin_ctz(mask));
      if (n <= 2 || sameBytes(s + at + 1, needle + 1, n - 2)) return at;
      mask &= mask - 1;
    }
    return kNone;
  }
#endif
  for (; i <= lastStart; ++i)
    if (s[i] == first && s[i + n - 1] == last && (n <= 2 || sameBytes(s + i + 1, needle + 1, n - 2))) return i;
  return kNone;
}

}  // namespace

bool prepareLikePattern(std::string_view p, std::string& out) {
  if (p.find_first_of("_\\") != std::string_view::npos) return false;
  size_t first = p.find('%');
  if (first == std::string_view::npos) {
    putU32(out, 0);
    putU32(out, static_cast<uint32_t>(p.size()));
    putU32(out, 0);
    putU32(out, 0);
    out.append(p);
    return true;
  }
  size_t last = p.rfind('%');
  std::string_view head = p.substr(0, first), tail = p.substr(last + 1);
  std::string middle;
  uint32_t segments = 0;
  for (size_t i = first + 1; i < last;) {
    size_t j = p.find('%', i);
    std::string_view seg = p.substr(i, j - i);
    i = j + 1;
    if (seg.empty()) continue;
    putU32(middle, static_cast<uint32_t>(seg.size()));
    middle.append(seg);
    ++segments;
  }
  putU32(out, 1);
  putU32(out, static_cast<uint32_t>(head.size()));
  putU32(out, static_cast<uint32_t>(tail.size()));
  putU32(out, segments);
  out.append(head);
  out.append(tail);
  out.append(middle);
  return true;
}

bool matchPreparedLike(std::string_view s, const char* p) {
  uint32_t wildcard = getU32(p), headLen = getU32(p), tailLen = getU32(p), segments = getU32(p);
  const char* head = p;
  const char* tail = p + headLen;
  if (!wildcard) return s.size() == headLen && sameBytes(s.data(), head, headLen);
  if (s.size() < size_t{headLen} + tailLen || !sameBytes(s.data(), head, headLen) ||
      !sameBytes(s.data() + s.size() - tailLen, tail, tailLen))
    return false;
  p = tail + tailLen;
  size_t pos = headLen;
  const size_t end = s.size() - tailLen;
  for (uint32_t k = 0; k < segments; ++k) {  // each as early as it occurs, left to right
    uint32_t n = getU32(p);
    size_t at = findSegment(s.data(), pos, end, p, n);
    if (at == kNone) return false;
    pos = at + n;
    p += n;
  }
  return true;
}

}  // namespace hyrax
