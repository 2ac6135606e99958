#include "engine/runtime/row_sort.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <memory>

#include "engine/runtime/memory_budget.hpp"
#include "engine/types/sql_type.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/util/on_exit.hpp"

namespace hyrax {

namespace {

// Below this many rows one thread sorts faster than it hands out. (It was 65,536: TPC-H Q16's
// 18,314 rows on four keys, two of them strings, took 7.8-9.9 ms on one thread and 3.6-6.1 on two,
// with the comparator.)
constexpr size_t kParallelSortRows = 8'192;

// The value's bytes in a key: 0 for a type not encoded. Strings: their room, set apart.
uint32_t fixedWidth(TypeId t) {
  switch (t) {
    case TypeId::Bool: return 1;
    case TypeId::Int16: return 2;
    case TypeId::Int32:
    case TypeId::Date:
    case TypeId::Float32: return 4;
    case TypeId::Int64:
    case TypeId::Decimal:  // at most 18 digits: an int64 at the column's scale
    case TypeId::Timestamp:
    case TypeId::Time:
    case TypeId::Float64: return 8;
    default: return 0;  // NULL's type, intervals (compared by their span), arrays
  }
}

bool isString(TypeId t) { return t == TypeId::Char || t == TypeId::Varchar || t == TypeId::Text; }

void putBigEndian(uint8_t* at, uint64_t x, uint32_t bytes) {
  for (uint32_t i = bytes; i-- > 0; x >>= 8) at[i] = static_cast<uint8_t>(x);
}

template <typename T>
T readAt(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// IEEE bits in SQL's order (float_order.hpp): -0.0 as 0.0, every NaN one NaN above Infinity;
// negative values with every bit inverted, others with the sign bit set.
uint64_t orderedDouble(double d) {
  if (d == 0) d = 0;
  uint64_t u = std::isnan(d) ? 0x7FF8000000000000ull : std::bit_cast<uint64_t>(d);
  return (u >> 63) ? ~u : u | (1ull << 63);
}
uint32_t orderedFloat(float f) {
  if (f == 0) f = 0;
  uint32_t u = std::isnan(f) ? 0x7FC00000u : std::bit_cast<uint32_t>(f);
  return (u >> 31) ? ~u : u | (1u << 31);
}

}  // namespace

SortKeyEncoder::SortKeyEncoder(const SortKeyColumn* keys, uint32_t count) {
  // The last byte says whether the key is incomplete, so that a sort reads it with the words.
  constexpr uint32_t kRoom = kMaxBytes - 1;
  for (uint32_t k = 0; k < count; ++k) {
    const SortKeyColumn& c = keys[k];
    Part p{static_cast<uint8_t>(c.kind & 0xFF), (c.kind & kSortDescending) != 0, (c.kind & kSortNullsFirst) != 0,
           c.offset, c.nullOffset, 0};
    const uint32_t nullByte = p.nullOffset >= 0 ? 1 : 0;
    const TypeId t = static_cast<TypeId>(p.type);
    const uint32_t left = kRoom - bytes_;
    if (isString(t)) {
      // The characters a CHAR(n)/VARCHAR(n) holds in ASCII (longer values count as truncated),
      // else what is left; then one byte for the length.
      uint32_t room = c.length ? c.length : left;
      if (nullByte + 2 > left) room = 0;
      else room = std::min(room, left - nullByte - 1);
      p.room = room;
    } else {
      p.room = fixedWidth(t);
      if (nullByte + p.room > left) p.room = 0;
    }
    if (p.room == 0) {
      partial_ = true;
      break;
    }
    parts_.push_back(p);
    bytes_ += nullByte + p.room + (isString(t) ? 1 : 0);
  }
  if (!parts_.empty()) bytes_ += 1;  // the incomplete byte
}

bool SortKeyEncoder::encode(const void* row, uint64_t* out) const {
  uint8_t buf[kMaxBytes] = {};
  const char* r = static_cast<const char*>(row);
  uint32_t at = 0;
  bool complete = !partial_;
  for (const Part& p : parts_) {
    const TypeId t = static_cast<TypeId>(p.type);
    const bool null = p.nullOffset >= 0 && r[p.nullOffset] != 0;
    if (p.nullOffset >= 0) buf[at++] = null != p.nullsFirst ? 1 : 0;  // not inverted: NULLs go where asked
    uint8_t* v = buf + at;
    const uint32_t width = p.room + (isString(t) ? 1 : 0);
    bool truncated = false;
    if (!null) {
      const char* x = r + p.offset;
      switch (t) {
        case TypeId::Bool: v[0] = readAt<uint8_t>(x) ? 1 : 0; break;
        case TypeId::Int16: putBigEndian(v, static_cast<uint16_t>(readAt<int16_t>(x)) ^ 0x8000u, 2); break;
        case TypeId::Int32:
        case TypeId::Date: putBigEndian(v, static_cast<uint32_t>(readAt<int32_t>(x)) ^ 0x80000000u, 4); break;
        case TypeId::Float32: putBigEndian(v, orderedFloat(readAt<float>(x)), 4); break;
        case TypeId::Float64: putBigEndian(v, orderedDouble(readAt<double>(x)), 8); break;
        case TypeId::Char:
        case TypeId::Varchar:
        case TypeId::Text: {
          // Bytes compare as memcmp does, then the shorter first: zero padding and the length
          // after the characters keep that order (and tell "a" from "a\0"). A longer string
          // than its room says so by a length of room + 1.
          const StringRef s = readAt<StringRef>(x);
          const uint32_t n = std::min(s.len, p.room);
          if (n) std::memcpy(v, s.data(), n);
          truncated = s.len > p.room;
          v[p.room] = static_cast<uint8_t>(truncated ? p.room + 1 : s.len);
          break;
        }
        default: putBigEndian(v, static_cast<uint64_t>(readAt<int64_t>(x)) ^ (1ull << 63), 8); break;
      }
    }
    if (p.descending)
      for (uint32_t i = 0; i < width; ++i) v[i] = static_cast<uint8_t>(~v[i]);
    at += width;
    if (truncated) {  // what follows would order rows the string's rest orders: left zero
      complete = false;
      break;
    }
  }
  buf[8 * words() - 1] = complete ? 0 : 1;  // the last word's low byte (bytes_ kept it free)
  for (uint32_t w = 0; w < words(); ++w) {
    uint64_t word;
    std::memcpy(&word, buf + 8 * w, 8);
    out[w] = std::endian::native == std::endian::little ? __builtin_bswap64(word) : word;
  }
  return complete;
}

namespace {

template <uint32_t W>
struct KeyedRow {
  uint64_t key[W];
  void* row;
};

template <uint32_t W>
void sortKeyed(std::vector<void*>& rows, RowCompare cmp, const SortKeyEncoder& keys, uint32_t threads,
               MemoryBudget* budget) {
  const size_t n = rows.size();
  const uint64_t bytes = n * sizeof(KeyedRow<W>);
  if (budget) budget->charge(bytes);
  OnExit release([&] {
    if (budget) budget->release(bytes);
  });
  std::unique_ptr<KeyedRow<W>[]> keyed(new KeyedRow<W>[n]);
  auto prepare = [&](size_t i, size_t j) {
    for (; i < j; ++i) {
      keyed[i].row = rows[i];
      keys.encode(rows[i], keyed[i].key);
    }
  };
  auto less = [cmp](const KeyedRow<W>& a, const KeyedRow<W>& b) {
    for (uint32_t w = 0; w < W; ++w)
      if (a.key[w] != b.key[w]) return a.key[w] < b.key[w];
    // Equal keys: equal rows if complete (the last byte, equal in both, says so).
    return (a.key[W - 1] & 0xFF) != 0 && cmp(a.row, b.row) < 0;
  };
  stableSortInRuns(keyed.get(), keyed.get() + n, less, threads, kParallelSortRows, prepare);
  for (size_t i = 0; i < n; ++i) rows[i] = keyed[i].row;
}

}  // namespace

void sortRows(std::vector<void*>& rows, RowCompare cmp, const SortKeyEncoder* keys, uint32_t threads,
              MemoryBudget* budget) {
  switch (keys ? keys->words() : 0) {
    case 1: return sortKeyed<1>(rows, cmp, *keys, threads, budget);
    case 2: return sortKeyed<2>(rows, cmp, *keys, threads, budget);
    case 3: return sortKeyed<3>(rows, cmp, *keys, threads, budget);
    case 4: return sortKeyed<4>(rows, cmp, *keys, threads, budget);
    case 5: return sortKeyed<5>(rows, cmp, *keys, threads, budget);
    case 6: return sortKeyed<6>(rows, cmp, *keys, threads, budget);
    case 7: return sortKeyed<7>(rows, cmp, *keys, threads, budget);
    case 8: return sortKeyed<8>(rows, cmp, *keys, threads, budget);
    default: break;
  }
  auto less = [cmp](const void* x, const void* y) { return cmp(x, y) < 0; };
  stableSortInRuns(rows.begin(), rows.end(), less, threads, kParallelSortRows, [](size_t, size_t) {});
}

}  // namespace hyrax
