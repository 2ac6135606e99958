#include "engine/runtime/row_sort.hpp"

#include <bit>
#include <cstring>
#include <utility>

#include "engine/runtime/memory_budget.hpp"
#include "engine/types/ordered_bytes.hpp"
#include "engine/types/sql_type.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/util/error.hpp"
#include "engine/util/on_exit.hpp"
#include "engine/util/zeroed_buffer.hpp"

namespace hyrax {

namespace {

// Below this many rows one thread sorts faster than it hands out. (It was 65,536: TPC-H Q16's
// 18,314 rows on four keys, two of them strings, took 7.8-9.9 ms on one thread and 3.6-6.1 on two,
// with the comparator.)
constexpr size_t kParallelSortRows = 8'192;

bool isString(TypeId t) { return SqlType{t}.isString(); }

template <typename T>
T readAt(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
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
      p.room = orderedFixedWidth(t);  // 0: not encoded
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
        default: putOrderedFixed(t, x, v); break;
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

// What the sort moves: the key's first two words and the row's place, 24 bytes, whatever the
// key's length (rows of whole keys, 72 bytes, made a 100,000-row sort's moves two thirds of its
// time); the whole keys stay in place, in the rows' order, read where the first words tie.
struct Prefix {
  uint64_t word[2];
  uint64_t place;
};

// Below this many rows a comparison sort beats another radix pass (its 256 counts).
constexpr size_t kRadixSortRows = 64;

// [from, to) in `less`'s order, `less` being total and agreeing with the rows' keys read as
// unsigned numbers word by word (`word(p, w)`: word w of p's key): a radix sort, most significant
// byte first, each part split on the first byte where its rows' keys differ (so the bytes they
// all share, an INTEGER's high bytes, a common brand, cost one pass, not one each), parts of fewer
// than kRadixSortRows rows handed to std::sort. A part whose keys are all equal is in place order
// (the scatter keeps the order within a byte) and stays so when they are complete (the last
// word's low byte), else it is sorted. A comparison sort of random keys mispredicts about one
// branch in two: 100,000 rows by an integer and two strings took 19-21 ms with std::sort on these
// 24 bytes; this takes 2-3 passes for random strings (a throwaway harness: keys made and sorted in
// 14 ms, 29 with whole keys moved by std::stable_sort, 80-98 with the comparator alone).
template <typename Word, typename Less>
void radixSortPrefixes(Prefix* from, Prefix* to, Prefix* scratch, uint32_t words, uint32_t firstWord, const Word& word,
                       const Less& less) {
  const size_t n = static_cast<size_t>(to - from);
  if (n < kRadixSortRows) {
    std::sort(from, to, less);
    return;
  }
  // The first byte where the part's keys differ: a pass per word they share.
  uint32_t w = firstWord;
  uint64_t differ = 0;
  for (; w < words; ++w) {
    const uint64_t first = word(*from, w);
    for (const Prefix* p = from + 1; p != to; ++p) differ |= word(*p, w) ^ first;
    if (differ) break;
  }
  if (w == words) {  // equal keys
    if (word(*from, words - 1) & 0xFF) std::sort(from, to, less);
    return;
  }
  const uint32_t shift = 56 - 8 * (static_cast<uint32_t>(std::countl_zero(differ)) / 8);
  auto byteOf = [&](const Prefix& p) { return static_cast<uint32_t>(word(p, w) >> shift) & 0xFF; };
  size_t counts[256] = {};
  for (const Prefix* p = from; p != to; ++p) ++counts[byteOf(*p)];
  size_t starts[256], at = 0;
  for (uint32_t v = 0; v < 256; ++v) starts[v] = std::exchange(at, at + counts[v]);
  size_t next[256];
  std::copy(starts, starts + 256, next);
  for (const Prefix* p = from; p != to; ++p) scratch[next[byteOf(*p)]++] = *p;  // (in order within a byte)
  std::copy(scratch, scratch + n, from);
  for (uint32_t v = 0; v < 256; ++v)
    if (counts[v] > 1)
      radixSortPrefixes(from + starts[v], from + starts[v] + counts[v], scratch + starts[v], words, w, word, less);
}

}  // namespace

void sortRows(std::vector<void*>& rows, RowCompare cmp, const SortKeyEncoder* keys, uint32_t threads,
              MemoryBudget* budget) {
  const uint32_t words = keys ? keys->words() : 0;
  if (words == 0) {
    auto less = [cmp](const void* x, const void* y) { return cmp(x, y) < 0; };
    sortInRuns(rows.begin(), rows.end(), less, threads, kParallelSortRows,
               [&](size_t i, size_t j) { std::stable_sort(rows.begin() + i, rows.begin() + j, less); });
    return;
  }
  // Its memory from the pools of faulted-in memory (zeroed_buffer.hpp): fresh pages cost more
  // than the sort on a VM (100,000 rows' 11 MB: 6-8 ms of page faults against 8 of sorting).
  const size_t n = rows.size();
  const size_t prefixBytes = n * sizeof(Prefix), wholeBytes = words > 2 ? n * words * sizeof(uint64_t) : 0;
  const uint64_t bytes = 2 * ZeroedBuffer::footprint(prefixBytes, false) + (wholeBytes ? ZeroedBuffer::footprint(wholeBytes, false) : 0);
  // Up to 112 bytes a row where the comparator's sort takes 8: past memory_limit, that sort.
  if (budget) try {
      budget->charge(bytes);
    } catch (const Error& e) {
      if (e.sqlstate() != sqlstate::OutOfMemory) throw;
      return sortRows(rows, cmp, nullptr, threads, budget);
    }
  OnExit release([&] {
    if (budget) budget->release(bytes);
  });
  ZeroedBuffer prefixMemory = ZeroedBuffer::unzeroed(prefixBytes), scratchMemory = ZeroedBuffer::unzeroed(prefixBytes);
  ZeroedBuffer wholeMemory = wholeBytes ? ZeroedBuffer::unzeroed(wholeBytes) : ZeroedBuffer();
  auto* prefixes = reinterpret_cast<Prefix*>(prefixMemory.data());
  auto* scratch = reinterpret_cast<Prefix*>(scratchMemory.data());
  auto* whole = reinterpret_cast<uint64_t*>(wholeMemory.data());
  const std::vector<void*>& byPlace = rows;  // read until the end, where the order is written back
  // The order: the two words, the rest of the key, the comparator where a key is incomplete (its
  // last word's low byte), and the place last, which makes it total and the stable order.
  auto less = [&](const Prefix& a, const Prefix& b) {
    if (a.word[0] != b.word[0]) return a.word[0] < b.word[0];
    if (a.word[1] != b.word[1]) return a.word[1] < b.word[1];
    uint64_t last = words == 1 ? a.word[0] : a.word[1];
    if (words > 2) {
      const uint64_t* ka = &whole[a.place * words];
      const uint64_t* kb = &whole[b.place * words];
      for (uint32_t w = 2; w < words; ++w)
        if (ka[w] != kb[w]) return ka[w] < kb[w];
      last = ka[words - 1];
    }
    if (last & 0xFF)
      if (int32_t c = cmp(byPlace[a.place], byPlace[b.place])) return c < 0;
    return a.place < b.place;
  };
  // A run: its keys made, then sorted.
  auto sortRun = [&](size_t i, size_t j) {
    uint64_t key[SortKeyEncoder::kMaxBytes / 8];
    for (size_t k = i; k < j; ++k) {
      uint64_t* to = words > 2 ? &whole[k * words] : key;
      keys->encode(rows[k], to);
      prefixes[k] = {{to[0], words > 1 ? to[1] : 0}, k};
    }
    auto word = [&](const Prefix& p, uint32_t w) { return w < 2 ? p.word[w] : whole[p.place * words + w]; };
    radixSortPrefixes(&prefixes[i], &prefixes[j], &scratch[i], words, 0, word, less);
  };
  sortInRuns(prefixes, prefixes + n, less, threads, kParallelSortRows, sortRun);
  auto* sorted = reinterpret_cast<void**>(scratch);  // (a Prefix holds a pointer, and the scratch is free)
  for (size_t i = 0; i < n; ++i) sorted[i] = byPlace[prefixes[i].place];
  std::copy(sorted, sorted + n, rows.begin());
}

}  // namespace hyrax
