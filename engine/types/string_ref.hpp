#pragma once
// A string value in 16 bytes, laid out the same in storage, result chunks, runtime and generated
// code:
//   bytes 0..3   length (uint32)
//   bytes 4..7   the first 4 characters (zero padded), so most comparisons never leave the value
//   bytes 8..15  short strings (length <= 12): characters 4..11, zero padded
//                long strings: a pointer to all `length` characters (in the table's string heap
//                or the query's arena); on 32-bit targets the pointer takes bytes 8..11.
// Generated code sees a string as two i64 halves {lo = bytes 0..7, hi = bytes 8..15}, and runtime
// functions take them as two uint64_t arguments, so no by-value struct crosses the C ABI.
#include <cstdint>
#include <cstring>
#include <string_view>

namespace hyrax {

struct StringRef {
  static constexpr uint32_t kInlineMax = 12;

  uint32_t len = 0;
  char prefix[4] = {0, 0, 0, 0};
  union {
    char rest[8];
    const char* ptr;
  } u{};

  StringRef() { std::memset(u.rest, 0, sizeof(u.rest)); }

  // For long strings `data` must outlive the StringRef (a heap or arena owns it).
  static StringRef make(const char* data, uint32_t n) {
    StringRef s;
    s.len = n;
    if (n == 0) return s;  // `data` may be null then
    std::memcpy(s.prefix, data, n < 4 ? n : 4);
    if (n <= kInlineMax) {
      if (n > 4) std::memcpy(s.u.rest, data + 4, n - 4);
    } else {
      s.u.ptr = data;
    }
    return s;
  }
  static StringRef make(std::string_view v) { return make(v.data(), static_cast<uint32_t>(v.size())); }

  bool isInline() const { return len <= kInlineMax; }
  // Contiguous characters: inline strings start at `prefix` (prefix and rest are adjacent).
  const char* data() const { return isInline() ? prefix : u.ptr; }
  std::string_view view() const { return {data(), len}; }

  uint64_t lo() const {
    uint64_t v;
    std::memcpy(&v, this, 8);
    return v;
  }
  uint64_t hi() const {
    uint64_t v;
    std::memcpy(&v, reinterpret_cast<const char*>(this) + 8, 8);
    return v;
  }
  static StringRef fromHalves(uint64_t lo, uint64_t hi) {
    StringRef s;
    std::memcpy(static_cast<void*>(&s), &lo, 8);
    std::memcpy(reinterpret_cast<char*>(&s) + 8, &hi, 8);
    return s;
  }
};
static_assert(sizeof(StringRef) == 16, "StringRef must be 16 bytes");

// The hash of a short (inline) string from its halves: length and characters, zero-padded.
// codegen's ExprCompiler::hash emits the same steps, so keep the two alike.
inline uint64_t hashShortString(uint64_t lo, uint64_t hi) {
  uint64_t h = lo ^ (hi * 0x9E3779B97F4A7C15ULL);
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 29;
  h *= 0x94D049BB133111EBULL;
  return h ^ (h >> 32);
}

// Strings are UTF-8: a character is a lead byte and up to three continuation bytes (10xxxxxx),
// so functions that count characters skip these.
inline bool utf8Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace hyrax
