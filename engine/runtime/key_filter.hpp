#pragma once
// A join's key filter: a blocked Bloom filter over the hashes of a built hash table's entries
// (one 64-bit word per key, three bits set in it; Lang et al., "Performance-Optimal Filtering",
// VLDB 2019). A scan below the join asks it whether a row's key may be in the table before the
// generated code probes (scan_selection.cpp). The directory's tags answer the same question, but
// from 8 bytes a bucket and about two buckets an entry: TPC-H Q4's 57,000 orders made a 1 MB
// directory, beyond the core's L2, and its 6M lineitem rows spent 9 ns each on the tag test. At
// 16 to 32 bits a key the filter is 16 times smaller (114-228 KB there) with about the tags'
// false positives (1%).
#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <utility>

#include "engine/runtime/memory_budget.hpp"
#include "engine/util/zeroed_buffer.hpp"

namespace hyrax {

class KeyFilter {
 public:
  KeyFilter() = default;
  KeyFilter(const KeyFilter&) = delete;
  KeyFilter& operator=(const KeyFilter&) = delete;
  KeyFilter(KeyFilter&& o) noexcept { *this = std::move(o); }
  // Takes o's words and their charge; o is as if never reset.
  KeyFilter& operator=(KeyFilter&& o) noexcept {
    if (this == &o) return *this;
    release();
    words_ = std::move(o.words_);
    budget_ = o.budget_;
    wordCount_ = o.wordCount_;
    mask_ = o.mask_;
    read_ = wordCount_ ? data() : &kEverything;
    o.budget_ = nullptr;
    o.release();
    return *this;
  }
  ~KeyFilter() { release(); }

  // A filter for `count` hashes, empty (nothing may be held), charged to `budget` when given.
  void reset(uint64_t count, MemoryBudget* budget) {
    release();
    const uint64_t words = std::bit_ceil(std::max<uint64_t>(1, (count * kBitsPerKey + 63) / 64));
    if (budget) budget->charge(words * sizeof(uint64_t));
    try {
      words_ = ZeroedBuffer(words * sizeof(uint64_t));
    } catch (...) {
      if (budget) budget->release(words * sizeof(uint64_t));
      throw;
    }
    budget_ = budget;
    wordCount_ = words;
    mask_ = words - 1;
    read_ = data();
  }
  void add(uint64_t hash) { data()[word(hash)] |= bits(hash); }
  // What `other` holds added to this one: filters reset() for the same count (HashTable::absorb's
  // threads' filters, joined).
  void orWith(const KeyFilter& other) {
    assert(other.wordCount_ == wordCount_);
    uint64_t* w = data();
    const uint64_t* o = other.data();
    for (uint64_t i = 0; i < wordCount_; ++i) w[i] |= o[i];
  }
  // False: no entry of this hash was added. True: one may have been (any, before reset: a scan
  // that read a filter never made keeps every row).
  bool mayHold(uint64_t hash) const {
    const uint64_t m = bits(hash);
    return (read_[word(hash)] & m) == m;
  }
  const uint64_t* wordOf(uint64_t hash) const { return read_ + word(hash); }  // mayHold's load, to prefetch
  bool built() const { return wordCount_ != 0; }
  uint64_t bytes() const { return wordCount_ * sizeof(uint64_t); }

 private:
  static constexpr uint64_t kBitsPerKey = 16;
  // The word from the hash's low bits, the three bits from its top 12: hashes are mixed, the low
  // bits depending on all of the key (hashInteger's xor of the product's upper half), the top
  // ones are the product's. The three bits come from one load of a table of 4,096 masks of three
  // distinct bits each (made at compile time): three loads of single bits and two ORs made the
  // test instruction-bound (a loop over 6M keys: 13.1 ns a key against 9.3 beside a build, 5-6 ns
  // a key in TPC-H Q3's lineitem scan), for a few more false positives (0.227% against 0.197% of
  // keys not added, 147,000 keys in 512 KB).
  uint64_t word(uint64_t hash) const { return hash & mask_; }
  static uint64_t bits(uint64_t hash) { return kMasks[hash >> 52]; }
  static constexpr auto kMasks = [] {
    std::array<uint64_t, 4096> masks{};
    uint64_t x = 0x9E3779B97F4A7C15ULL;  // splitmix64's sequence
    for (uint64_t& m : masks)
      while (std::popcount(m) < 3) {
        x += 0x9E3779B97F4A7C15ULL;
        uint64_t z = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        m |= uint64_t{1} << ((z ^ (z >> 31)) >> 58);
      }
    return masks;
  }();
  uint64_t* data() const { return reinterpret_cast<uint64_t*>(words_.data()); }
  void release() {
    if (budget_) budget_->release(bytes());
    budget_ = nullptr;
    wordCount_ = 0;
    mask_ = 0;
    read_ = &kEverything;
  }
  static constexpr uint64_t kEverything = ~uint64_t{0};
  ZeroedBuffer words_;
  MemoryBudget* budget_ = nullptr;
  uint64_t wordCount_ = 0;
  uint64_t mask_ = 0;
  const uint64_t* read_ = &kEverything;  // the words, or kEverything before reset
};

}  // namespace hyrax
