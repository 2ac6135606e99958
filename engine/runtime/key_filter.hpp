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
  // The word from the hash's low bits, the three bits from its top 18: hashes are mixed, the low
  // bits depending on all of the key (hashInteger's xor of the product's upper half), the top
  // ones are the product's. Constant shifts and a table of masks: `1 << (h & 63)` is a shift by
  // a register, three micro-ops on x86-64 without BMI2, and the three of them made the test a row
  // a sixth slower (a loop over 6M keys: 6.0 ns a key, 5.2 with the table).
  uint64_t word(uint64_t hash) const { return hash & mask_; }
  static uint64_t bits(uint64_t hash) {
    return kBit[hash >> 58] | kBit[(hash >> 52) & 63] | kBit[(hash >> 46) & 63];
  }
  static constexpr auto kBit = [] {
    std::array<uint64_t, 64> b{};
    for (unsigned i = 0; i < 64; ++i) b[i] = uint64_t{1} << i;
    return b;
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
