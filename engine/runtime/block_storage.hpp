#pragma once
// Fixed-size rows in zeroed blocks: addresses never move, row i is found in O(1).
// Shared by hash tables (entries) and row buffers (sort input).
//
// Blocks double from 16 rows up to about 4 MiB, then stay there: a transaction's aggregate over
// a handful of rows (TPC-C runs thousands a second) must not pay for zeroing a big block, and a
// big join's build side gets blocks that huge pages can back (ZeroedBuffer).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/runtime/memory_budget.hpp"
#include "engine/util/zeroed_buffer.hpp"

namespace hyrax {

class BlockStorage {
 public:
  // Blocks are charged to `budget` (when given) as they are allocated, and released with them.
  explicit BlockStorage(uint32_t rowSize, MemoryBudget* budget = nullptr) : rowSize_((rowSize + 7) & ~7u), budget_(budget) {
    uint64_t full = rowSize_ >= kBlockBytes / 16 ? 1 : kBlockBytes / rowSize_;  // rows of a full block
    while ((uint64_t{kFirst} << doublings_) * 2 <= full) ++doublings_;
    // Rows in the growing blocks 0 .. doublings_-1: kFirst * (2^doublings_ - 1).
    growingRows_ = kFirst * ((uint64_t{1} << doublings_) - 1);
  }
  ~BlockStorage() { releaseCharge(); }
  BlockStorage(BlockStorage&& o) noexcept { *this = std::move(o); }
  BlockStorage& operator=(BlockStorage&& o) noexcept {
    if (this == &o) return *this;
    releaseCharge();
    rowSize_ = o.rowSize_;
    budget_ = o.budget_;
    charged_ = o.charged_;
    doublings_ = o.doublings_;
    growingRows_ = o.growingRows_;
    count_ = o.count_;
    capacity_ = o.capacity_;
    blocks_ = std::move(o.blocks_);
    o.charged_ = o.count_ = o.capacity_ = 0;
    return *this;
  }
  BlockStorage(const BlockStorage&) = delete;
  BlockStorage& operator=(const BlockStorage&) = delete;

  // A zeroed row at the end; throws Error 53200 past the budget, std::bad_alloc past memory.
  void* append() {
    if (count_ == capacity_) {
      uint64_t rows = blockRows(blocks_.size());
      size_t bytes = static_cast<size_t>(rows) * rowSize_;
      if (budget_) budget_->charge(bytes);
      try {
        blocks_.emplace_back(bytes);
      } catch (...) {
        if (budget_) budget_->release(bytes);
        throw;
      }
      charged_ += budget_ ? bytes : 0;
      capacity_ += rows;
    }
    void* p = at(count_);
    ++count_;
    return p;
  }
  void* at(uint64_t i) const {
    if (i < growingRows_) {
      uint64_t k = 63 - static_cast<uint64_t>(__builtin_clzll(i / kFirst + 1));
      return blocks_[k].data() + (i - kFirst * ((uint64_t{1} << k) - 1)) * rowSize_;
    }
    uint64_t j = i - growingRows_, full = kFirst << doublings_;
    return blocks_[doublings_ + j / full].data() + (j % full) * rowSize_;
  }
  // Row i and how many rows follow it in its block (itself included), rowSize() apart: a loop
  // over many rows takes their address once per block instead of once per row.
  void* run(uint64_t i, uint64_t* rows) const {
    uint64_t first, inBlock;  // the block's first row and its rows
    size_t k;
    if (i < growingRows_) {
      k = static_cast<size_t>(63 - static_cast<uint64_t>(__builtin_clzll(i / kFirst + 1)));
      first = kFirst * ((uint64_t{1} << k) - 1);
      inBlock = kFirst << k;
    } else {
      const uint64_t full = kFirst << doublings_;
      k = doublings_ + static_cast<size_t>((i - growingRows_) / full);
      first = growingRows_ + (k - doublings_) * full;
      inBlock = full;
    }
    *rows = std::min(first + inBlock, count_) - i;
    return blocks_[k].data() + (i - first) * rowSize_;
  }
  uint64_t count() const { return count_; }
  uint32_t rowSize() const { return rowSize_; }
  // Empty again, keeping its blocks (zeroed where rows were, as append() promises): a table that
  // is filled and emptied over and over (aggregation's pre-aggregation) allocates once.
  void clear() {
    for (uint64_t block = 0, first = 0; first < count_; first += blockRows(block), ++block)
      std::memset(blocks_[block].data(), 0, static_cast<size_t>(std::min(blockRows(block), count_ - first)) * rowSize_);
    count_ = 0;
  }
  // The blocks count against `budget` from now on (charged there first: Error 53200 past it).
  void chargeTo(MemoryBudget* budget) {
    if (budget == budget_) return;
    uint64_t bytes = 0;
    for (const ZeroedBuffer& b : blocks_) bytes += b.bytes();
    if (budget) budget->charge(bytes);
    if (budget_) budget_->release(charged_);
    budget_ = budget;
    charged_ = budget ? bytes : 0;
  }

 private:
  static constexpr uint64_t kFirst = 16;
  static constexpr uint64_t kBlockBytes = uint64_t{4} << 20;
  uint64_t blockRows(uint64_t block) const { return kFirst << (block < doublings_ ? block : doublings_); }
  void releaseCharge() {
    if (budget_) budget_->release(charged_);
    charged_ = 0;
  }
  uint32_t rowSize_ = 8;
  MemoryBudget* budget_ = nullptr;
  uint64_t charged_ = 0;
  uint64_t doublings_ = 0, growingRows_ = 0;
  uint64_t count_ = 0, capacity_ = 0;
  std::vector<ZeroedBuffer> blocks_;
};

}  // namespace hyrax
