// Selection vectors for table scans (codegen/translate/scan_selection.cpp): the rows of a block
// of a chunk whose column passes a test (lies in a range, equals one of a list of integers or of
// strings, matches a LIKE pattern, compares so with another column of the row, or may be in a
// join's hash table), found by tight loops
// compiled here, so that a scan's generated code (machine code of either tier, or the
// interpreter) visits only those rows. A scan under a selective filter spent
// most of its time deciding per row that a row does not qualify: TPC-H Q6 reads 6M rows of which
// 114,160 qualify (HyPer's Data Blocks evaluate such restrictions the same way, SIGMOD 2016).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/runtime/hash_table.hpp"
#include "engine/runtime/like_pattern.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/types/string_ref.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hyrax {
namespace {

// Whether v lies in [lo, lo + span], as one unsigned comparison (span = hi - lo, lo <= hi).
template <typename T>
inline bool inRange(const T* column, uint32_t i, uint64_t lo, uint64_t span) {
  return static_cast<uint64_t>(static_cast<int64_t>(column[i])) - lo <= span;
}

inline bool notNull(const uint8_t* nulls, uint32_t i) { return ((nulls[i >> 3] >> (i & 7)) & 1) == 0; }

// The positions in [first, last) where `matches` (and the column is not NULL). Every position is
// written and the count moves only for a match: no branch a random column would mispredict.
template <typename Matches>
uint32_t selectWhere(uint32_t first, uint32_t last, const uint8_t* nulls, uint32_t* sel, const Matches& matches) {
  uint32_t n = 0;
  if (nulls) {
    for (uint32_t i = first; i < last; ++i) {
      sel[n] = i;
      n += matches(i) & notNull(nulls, i);
    }
  } else {
    for (uint32_t i = first; i < last; ++i) {
      sel[n] = i;
      n += matches(i);
    }
  }
  return n;
}

constexpr uint32_t kPrefetchAhead = 32;  // positions
constexpr uint32_t kLinearValues = 16;   // IN lists longer than this are searched

// Keeps of sel[0, kept) the positions where `matches` (and the column is not NULL), in order.
template <typename T, typename Matches>
uint32_t refineWhere(const T* column, const uint8_t* nulls, uint32_t* sel, uint32_t kept, const Matches& matches) {
  uint32_t n = 0;
  for (uint32_t k = 0; k < kept; ++k) {
    // The positions are ascending but not evenly spaced, which the hardware prefetcher does not
    // follow: each cache line of the column would be a miss.
    if (k + kPrefetchAhead < kept) __builtin_prefetch(column + sel[k + kPrefetchAhead]);
    const uint32_t i = sel[k];
    sel[n] = i;
    n += matches(i) & (!nulls || notNull(nulls, i));
  }
  return n;
}

// f(column) with the column as signed integers of `width` bytes (2, 4 or 8).
template <typename F>
uint32_t byWidth(const void* column, uint32_t width, const F& f) {
  switch (width) {
    case 2: return f(static_cast<const int16_t*>(column));
    case 4: return f(static_cast<const int32_t*>(column));
    default: return f(static_cast<const int64_t*>(column));
  }
}

// The positions of a mask's set bits (bit j: position base + j), in order.
inline uint32_t appendBits(uint32_t mask, uint32_t base, uint32_t* sel, uint32_t n) {
  while (mask) {
    sel[n++] = base + static_cast<uint32_t>(__builtin_ctz(mask));
    mask &= mask - 1;
  }
  return n;
}

// 32-bit columns (DATE, INTEGER) without NULLs, 16 values per step compared 4 at a time: a
// selective range costs about half a cycle per row instead of two (the scalar loop carries the
// count from one row's store to the next).
uint32_t selectIn32(const int32_t* column, uint32_t first, uint32_t last, int32_t lo, int32_t hi, uint32_t* sel) {
  uint32_t n = 0, i = first;
#if defined(__SSE2__)
  const __m128i below = _mm_set1_epi32(lo), above = _mm_set1_epi32(hi);
  auto outside = [&](uint32_t at) {  // 4 bits: values at at..at+3 outside [lo, hi]
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(column + at));
    __m128i out = _mm_or_si128(_mm_cmpgt_epi32(below, v), _mm_cmpgt_epi32(v, above));
    return static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(out)));
  };
  for (; i + 16 <= last; i += 16) {
    uint32_t out = outside(i) | outside(i + 4) << 4 | outside(i + 8) << 8 | outside(i + 12) << 12;
    n = appendBits(~out & 0xffffu, i, sel, n);
  }
#endif
  for (; i < last; ++i) {
    sel[n] = i;
    n += column[i] >= lo && column[i] <= hi;
  }
  return n;
}

// Whether v equals one of values[0, count): a few compared in turn (an IN list), more by binary
// search (sorted by the caller).
inline bool oneOf(int64_t v, const int64_t* values, uint32_t count) {
  if (count > kLinearValues) return std::binary_search(values, values + count, v);
  bool found = false;
  for (uint32_t j = 0; j < count; ++j) found |= v == values[j];
  return found;
}

// A string equals one of the values: equal low halves (length and first 4 bytes), then the high
// halves for short strings, the characters for long ones.
inline bool oneOfStrings(const StringRef& v, const StringRef* values, uint32_t count) {
  for (uint32_t j = 0; j < count; ++j) {
    if (v.lo() != values[j].lo()) continue;
    if (v.isInline() ? v.hi() == values[j].hi() : std::memcmp(v.data(), values[j].data(), v.len) == 0) return true;
  }
  return false;
}

// f(compare) with `compare(x, y)` the comparison `op` (HyraxCompare) names.
template <typename F>
uint32_t byComparison(uint32_t op, const F& f) {
  switch (op) {
    case HYRAX_COMPARE_EQ: return f([](auto x, auto y) { return x == y; });
    case HYRAX_COMPARE_NE: return f([](auto x, auto y) { return x != y; });
    case HYRAX_COMPARE_LT: return f([](auto x, auto y) { return x < y; });
    default: return f([](auto x, auto y) { return x <= y; });
  }
}

// A row's key word of the join's key filter is loaded this many rows ahead when the filter has
// more than 1 MiB of words. (The prefetch hashes each key twice: within a core's L2 that cost
// more than it saved.)
constexpr uint32_t kJoinPrefetchAhead = 16;
constexpr uint64_t kJoinPrefetchFilterBytes = uint64_t{1} << 20;

// Whether a join's built table may hold a key: by its key filter (HashTable::buildKeyFilter, made
// by the driver once the table is built).
template <bool kPrefetch>
struct JoinTest {
  const KeyFilter& filter;
  bool operator()(int64_t key) const { return hashed(hashInteger(key)); }
  bool hashed(uint64_t h) const { return filter.mayHold(h); }
  void prefetch(int64_t key) const {
    if constexpr (kPrefetch) __builtin_prefetch(filter.wordOf(hashInteger(key)));
  }
};
template <typename F>
uint32_t byJoinTest(const HashTable* table, const F& f) {
  const KeyFilter& filter = table->keyFilter();
  return filter.bytes() >= kJoinPrefetchFilterBytes ? f(JoinTest<true>{filter}) : f(JoinTest<false>{filter});
}

}  // namespace
}  // namespace hyrax

using hyrax::byWidth;
using hyrax::StringRef;

uint32_t hyrax_rt_select_range(const void* column, const uint8_t* nulls, uint32_t width, uint32_t first, uint32_t last,
                               int64_t lo, int64_t hi, uint32_t* sel) {
  if (lo > hi || first >= last) return 0;
  if (width == 4 && !nulls) {
    if (lo > INT32_MAX || hi < INT32_MIN) return 0;
    return hyrax::selectIn32(static_cast<const int32_t*>(column), first, last, static_cast<int32_t>(std::max<int64_t>(lo, INT32_MIN)),
                             static_cast<int32_t>(std::min<int64_t>(hi, INT32_MAX)), sel);
  }
  const uint64_t l = static_cast<uint64_t>(lo), span = static_cast<uint64_t>(hi) - l;
  return byWidth(column, width, [&](const auto* c) {
    return hyrax::selectWhere(first, last, nulls, sel, [&](uint32_t i) { return hyrax::inRange(c, i, l, span); });
  });
}

uint32_t hyrax_rt_refine_range(const void* column, const uint8_t* nulls, uint32_t width, uint32_t* sel, uint32_t count,
                               int64_t lo, int64_t hi) {
  if (lo > hi) return 0;
  const uint64_t l = static_cast<uint64_t>(lo), span = static_cast<uint64_t>(hi) - l;
  return byWidth(column, width, [&](const auto* c) {
    return hyrax::refineWhere(c, nulls, sel, count, [&](uint32_t i) { return hyrax::inRange(c, i, l, span); });
  });
}

uint32_t hyrax_rt_select_compare(const void* a, const uint8_t* aNulls, const void* b, const uint8_t* bNulls, uint32_t shape,
                                 uint32_t first, uint32_t last, uint32_t* sel) {
  return hyrax::byComparison(shape >> 8, [&](auto compare) {
    return byWidth(a, shape & 0xff, [&](const auto* x) {
      const auto* y = static_cast<decltype(x)>(b);
      if (bNulls)
        return hyrax::selectWhere(first, last, aNulls, sel, [&](uint32_t i) { return compare(x[i], y[i]) & hyrax::notNull(bNulls, i); });
      return hyrax::selectWhere(first, last, aNulls, sel, [&](uint32_t i) { return compare(x[i], y[i]); });
    });
  });
}

uint32_t hyrax_rt_refine_compare(const void* a, const uint8_t* aNulls, const void* b, const uint8_t* bNulls, uint32_t shape,
                                 uint32_t* sel, uint32_t kept) {
  return hyrax::byComparison(shape >> 8, [&](auto compare) {
    return byWidth(a, shape & 0xff, [&](const auto* x) {
      const auto* y = static_cast<decltype(x)>(b);
      return hyrax::refineWhere(x, aNulls, sel, kept,
                                [&](uint32_t i) { return compare(x[i], y[i]) & (!bNulls || hyrax::notNull(bNulls, i)); });
    });
  });
}

uint32_t hyrax_rt_select_values(const void* column, const uint8_t* nulls, uint32_t width, const int64_t* values, uint32_t count,
                                uint32_t first, uint32_t last, uint32_t* sel) {
  return byWidth(column, width, [&](const auto* c) {
    return hyrax::selectWhere(first, last, nulls, sel, [&](uint32_t i) { return hyrax::oneOf(c[i], values, count); });
  });
}

uint32_t hyrax_rt_refine_values(const void* column, const uint8_t* nulls, uint32_t width, const int64_t* values, uint32_t count,
                                uint32_t* sel, uint32_t kept) {
  return byWidth(column, width, [&](const auto* c) {
    return hyrax::refineWhere(c, nulls, sel, kept, [&](uint32_t i) { return hyrax::oneOf(c[i], values, count); });
  });
}

uint32_t hyrax_rt_select_strings(const void* column, const uint8_t* nulls, const void* values, uint32_t count, uint32_t first,
                                 uint32_t last, uint32_t* sel) {
  const auto* strings = static_cast<const StringRef*>(column);
  const auto* wanted = static_cast<const StringRef*>(values);
  return hyrax::selectWhere(first, last, nulls, sel, [&](uint32_t i) { return hyrax::oneOfStrings(strings[i], wanted, count); });
}

uint32_t hyrax_rt_refine_strings(const void* column, const uint8_t* nulls, const void* values, uint32_t count, uint32_t* sel,
                                 uint32_t kept) {
  const auto* strings = static_cast<const StringRef*>(column);
  const auto* wanted = static_cast<const StringRef*>(values);
  return hyrax::refineWhere(strings, nulls, sel, kept, [&](uint32_t i) { return hyrax::oneOfStrings(strings[i], wanted, count); });
}

uint32_t hyrax_rt_select_like(const void* column, const uint8_t* nulls, const char* prepared, uint32_t negated, uint32_t first,
                              uint32_t last, uint32_t* sel) {
  const auto* strings = static_cast<const StringRef*>(column);
  const bool want = !negated;
  return hyrax::selectWhere(first, last, nulls, sel,
                            [&](uint32_t i) { return hyrax::matchPreparedLike(strings[i].view(), prepared) == want; });
}

uint32_t hyrax_rt_refine_like(const void* column, const uint8_t* nulls, const char* prepared, uint32_t negated, uint32_t* sel,
                              uint32_t kept) {
  const auto* strings = static_cast<const StringRef*>(column);
  const bool want = !negated;
  return hyrax::refineWhere(strings, nulls, sel, kept,
                            [&](uint32_t i) { return hyrax::matchPreparedLike(strings[i].view(), prepared) == want; });
}

uint32_t hyrax_rt_select_joined(const hyrax::HashTable* table, const void* column, const uint8_t* nulls, uint32_t width,
                                uint32_t first, uint32_t last, uint32_t* sel) {
  return hyrax::byJoinTest(table, [&](const auto& test) {
    return byWidth(column, width, [&](const auto* c) {
      return hyrax::selectWhere(first, last, nulls, sel, [&](uint32_t i) {
        if (i + hyrax::kJoinPrefetchAhead < last) test.prefetch(c[i + hyrax::kJoinPrefetchAhead]);
        return test(c[i]);
      });
    });
  });
}

uint32_t hyrax_rt_refine_joined(const hyrax::HashTable* table, const void* column, const uint8_t* nulls, uint32_t width,
                                uint32_t* sel, uint32_t kept) {
  return hyrax::byJoinTest(table, [&](const auto& test) {
    return byWidth(column, width, [&](const auto* c) {
      uint32_t k = 0;
      return hyrax::refineWhere(c, nulls, sel, kept, [&](uint32_t i) {
        // (refineWhere visits sel[0, kept) in order: k is the position of i)
        if (k + hyrax::kJoinPrefetchAhead < kept) test.prefetch(c[sel[k + hyrax::kJoinPrefetchAhead]]);
        ++k;
        return test(c[i]);
      });
    });
  });
}

// Two keys: the rows whose both keys are not NULL and whose combined hash the table may hold.
template <typename Select>
uint32_t byJoinedKeys(const hyrax::HashTable* table, const void* const* columns, uint32_t widths, const Select& select) {
  const auto* aNulls = static_cast<const uint8_t*>(columns[1]);
  const auto* bNulls = static_cast<const uint8_t*>(columns[3]);
  return hyrax::byJoinTest(table, [&](const auto& test) {
    return byWidth(columns[0], widths & 0xff, [&](const auto* a) {
      return byWidth(columns[2], widths >> 8, [&](const auto* b) {
        return select(a, aNulls, [&](uint32_t i) {
          return test.hashed(hyrax::combineHashes(hyrax::hashInteger(a[i]), hyrax::hashInteger(b[i]))) &
                 (!bNulls || hyrax::notNull(bNulls, i));
        });
      });
    });
  });
}

uint32_t hyrax_rt_select_joined2(const hyrax::HashTable* table, const void* const* columns, uint32_t widths, uint32_t first,
                                 uint32_t last, uint32_t* sel) {
  return byJoinedKeys(table, columns, widths, [&](const auto*, const uint8_t* aNulls, const auto& matches) {
    return hyrax::selectWhere(first, last, aNulls, sel, matches);
  });
}

uint32_t hyrax_rt_refine_joined2(const hyrax::HashTable* table, const void* const* columns, uint32_t widths, uint32_t* sel,
                                 uint32_t kept) {
  return byJoinedKeys(table, columns, widths, [&](const auto* a, const uint8_t* aNulls, const auto& matches) {
    return hyrax::refineWhere(a, aNulls, sel, kept, matches);
  });
}
