#pragma once
// A set of a join region's leaves (join ordering, join_order.cpp and join_enumeration.hpp): a fixed
// bitset of kMaxJoinLeaves bits. Fixed, not growable, so that a set is a plain value that hashes
// and compares without allocating: the enumerators keep tens of thousands of them in hash maps.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace hyrax::sql {

// Most leaves one join region may have (more: 54001); 1,000 tables is far beyond any real query.
inline constexpr size_t kMaxJoinLeaves = 1000;

class LeafSet {
 public:
  static constexpr size_t kWords = (kMaxJoinLeaves + 63) / 64;

  LeafSet() = default;
  static LeafSet single(size_t i) {
    LeafSet s;
    s.set(i);
    return s;
  }
  // {0, 1, ..., i}
  static LeafSet upTo(size_t i) {
    LeafSet s;
    for (size_t w = 0; w < i / 64; ++w) s.w_[w] = ~uint64_t{0};
    s.w_[i / 64] = (i % 64 == 63) ? ~uint64_t{0} : ((uint64_t{1} << (i % 64 + 1)) - 1);
    return s;
  }

  void set(size_t i) { w_[i / 64] |= uint64_t{1} << (i % 64); }
  bool test(size_t i) const { return (w_[i / 64] >> (i % 64)) & 1; }
  bool empty() const {
    for (uint64_t w : w_)
      if (w) return false;
    return true;
  }
  size_t count() const {
    size_t n = 0;
    for (uint64_t w : w_) n += static_cast<size_t>(std::popcount(w));
    return n;
  }
  size_t lowest() const {  // the smallest member; the set must not be empty
    for (size_t i = 0; i < kWords; ++i)
      if (w_[i]) return i * 64 + static_cast<size_t>(std::countr_zero(w_[i]));
    return kMaxJoinLeaves;
  }
  bool intersects(const LeafSet& o) const {
    for (size_t i = 0; i < kWords; ++i)
      if (w_[i] & o.w_[i]) return true;
    return false;
  }
  bool subsetOf(const LeafSet& o) const {
    for (size_t i = 0; i < kWords; ++i)
      if (w_[i] & ~o.w_[i]) return false;
    return true;
  }
  // Calls f(i) for each member, in ascending order.
  template <class F>
  void forEach(F f) const {
    for (size_t i = 0; i < kWords; ++i)
      for (uint64_t w = w_[i]; w; w &= w - 1) f(i * 64 + static_cast<size_t>(std::countr_zero(w)));
  }

  LeafSet& operator|=(const LeafSet& o) {
    for (size_t i = 0; i < kWords; ++i) w_[i] |= o.w_[i];
    return *this;
  }
  LeafSet& operator&=(const LeafSet& o) {
    for (size_t i = 0; i < kWords; ++i) w_[i] &= o.w_[i];
    return *this;
  }
  LeafSet& operator-=(const LeafSet& o) {  // set difference
    for (size_t i = 0; i < kWords; ++i) w_[i] &= ~o.w_[i];
    return *this;
  }
  friend LeafSet operator|(LeafSet a, const LeafSet& b) { return a |= b; }
  friend LeafSet operator&(LeafSet a, const LeafSet& b) { return a &= b; }
  friend LeafSet operator-(LeafSet a, const LeafSet& b) { return a -= b; }
  friend bool operator==(const LeafSet& a, const LeafSet& b) { return a.w_ == b.w_; }
  friend bool operator!=(const LeafSet& a, const LeafSet& b) { return !(a == b); }
  // As numbers (leaf i is bit i): the order the bitmask planner of up to 32 leaves had, which
  // breaks ties between equally cheap plans and orders composite keys, so small plans stay as
  // they were.
  friend bool operator<(const LeafSet& a, const LeafSet& b) {
    for (size_t i = kWords; i-- > 0;)
      if (a.w_[i] != b.w_[i]) return a.w_[i] < b.w_[i];
    return false;
  }
  friend bool operator>(const LeafSet& a, const LeafSet& b) { return b < a; }

  size_t hash() const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint64_t w : w_) h = (h ^ w) * 0xff51afd7ed558ccdull, h ^= h >> 32;
    return static_cast<size_t>(h);
  }

 private:
  std::array<uint64_t, kWords> w_{};
};

struct LeafSetHash {
  size_t operator()(const LeafSet& s) const { return s.hash(); }
};

}  // namespace hyrax::sql
