#pragma once
// Fixed-size rows in zeroed blocks: addresses never move, row i is found in O(1).
// Shared by hash tables (entries) and row buffers (sort input).
//
// Blocks double from 16 rows up to about 256 KiB, then stay there: a transaction's aggregate
// over a handful of rows (TPC-C runs thousands a second) must not pay for zeroing 256 KiB, and
// a big join's build side still gets big blocks after a few doublings.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace hyrax {

class BlockStorage {
 public:
  explicit BlockStorage(uint32_t rowSize) : rowSize_((rowSize + 7) & ~7u) {
    uint64_t full = rowSize_ >= (1u << 16) ? 1 : (1u << 18) / rowSize_;  // rows of a ~256 KiB block
    while ((uint64_t{kFirst} << doublings_) * 2 <= full) ++doublings_;
    // Rows in the growing blocks 0 .. doublings_-1: kFirst * (2^doublings_ - 1).
    growingRows_ = kFirst * ((uint64_t{1} << doublings_) - 1);
  }
  void* append() {
    if (count_ == capacity_) {
      uint64_t rows = blockRows(blocks_.size());
      blocks_.push_back(std::make_unique<char[]>(static_cast<size_t>(rows) * rowSize_));  // zeroed
      capacity_ += rows;
    }
    void* p = at(count_);
    ++count_;
    return p;
  }
  void* at(uint64_t i) const {
    if (i < growingRows_) {
      uint64_t k = 63 - static_cast<uint64_t>(__builtin_clzll(i / kFirst + 1));
      return blocks_[k].get() + (i - kFirst * ((uint64_t{1} << k) - 1)) * rowSize_;
    }
    uint64_t j = i - growingRows_, full = kFirst << doublings_;
    return blocks_[doublings_ + j / full].get() + (j % full) * rowSize_;
  }
  uint64_t count() const { return count_; }

 private:
  static constexpr uint64_t kFirst = 16;
  uint64_t blockRows(uint64_t block) const { return kFirst << (block < doublings_ ? block : doublings_); }
  uint32_t rowSize_;
  uint64_t doublings_ = 0, growingRows_ = 0;
  uint64_t count_ = 0, capacity_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_;
};

}  // namespace hyrax
