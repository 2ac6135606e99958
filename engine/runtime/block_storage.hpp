#pragma once
// Fixed-size rows in blocks: addresses never move, row i is found in O(1).
// Shared by hash tables (entries) and row buffers (sort input).
//
// A row is zeroed as it is appended, not its block when allocated (ZeroedBuffer::unzeroed): the
// row's cache line is about to be written anyway, while zeroing a reused block whole wrote
// memory the query might never use, and a block fresh from the kernel is zero already.
//
// Blocks double from 16-31 rows up to about 4 MiB, then stay there: a transaction's aggregate
// over a handful of rows (TPC-C runs thousands a second) gets a small block, and a big join's
// build side gets blocks that huge pages can back (ZeroedBuffer). The first block's rows are as
// many as fit a power of two of bytes (25 rows of 40 bytes in 1 KiB), so that every block fills
// most of a power of two: mid-size blocks come from huge-page slabs in powers of two, and
// 16 << k rows of 40 bytes took 1.6 times their bytes there.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/runtime/memory_budget.hpp"
#include "engine/util/zeroed_buffer.hpp"

namespace hyrax {

class BlockStorage {
 public:
  // Blocks are charged to `budget` (when given) as they are allocated, and released with them.
  explicit BlockStorage(uint32_t rowSize, MemoryBudget* budget = nullptr)
      : rowSize_((rowSize + 7) & ~7u), budget_(budget), first_(std::bit_ceil(uint64_t{16} * rowSize_) / rowSize_) {
    uint64_t full = rowSize_ >= kBlockBytes / 16 ? 1 : kBlockBytes / rowSize_;  // rows of a full block
    while ((first_ << doublings_) * 2 <= full) ++doublings_;
    // Rows in the growing blocks 0 .. doublings_-1: first_ * (2^doublings_ - 1).
    growingRows_ = first_ * ((uint64_t{1} << doublings_) - 1);
    // A full block fills the huge pages it is mapped on: 16,384 rows of 136 bytes (2.1 MiB) took
    // two huge pages, and the statement held nearly twice the memory it was charged for.
    fullRows_ = std::max<uint64_t>(first_ << doublings_, ZeroedBuffer::footprint((first_ << doublings_) * rowSize_, false) / rowSize_);
  }
  ~BlockStorage() { releaseCharge(); }
  BlockStorage(BlockStorage&& o) noexcept { *this = std::move(o); }
  BlockStorage& operator=(BlockStorage&& o) noexcept {
    if (this == &o) return *this;
    releaseCharge();
    rowSize_ = o.rowSize_;
    budget_ = o.budget_;
    first_ = o.first_;
    charged_ = o.charged_;
    doublings_ = o.doublings_;
    growingRows_ = o.growingRows_;
    fullRows_ = o.fullRows_;
    count_ = o.count_;
    nextBlock_ = o.nextBlock_;
    next_ = o.next_;
    end_ = o.end_;
    blocks_ = std::move(o.blocks_);  // (the blocks stay where they are)
    o.charged_ = o.count_ = o.nextBlock_ = 0;
    o.next_ = o.end_ = nullptr;
    return *this;
  }
  BlockStorage(const BlockStorage&) = delete;
  BlockStorage& operator=(const BlockStorage&) = delete;
  // The blocks' charge is released to `budget` from now on, which must count with the one they
  // were charged to (a statement's and its helper thread's budgets share one count).
  void releaseTo(MemoryBudget* budget) { budget_ = budget; }

  // A zeroed row at the end; throws Error 53200 past the budget, std::bad_alloc past memory. The
  // next row's place is kept (next_, end_): finding it from count_ took a division by a full
  // block's rows for every row.
  void* append() {
    void* p = appendUnzeroed();
    zeroRow(static_cast<char*>(p));
    return p;
  }
  // A row at the end as its block's memory holds it: for a caller that writes all rowSize() bytes.
  void* appendUnzeroed() {
    if (next_ == end_) nextBlock();
    void* p = next_;
    next_ += rowSize_;
    ++count_;
    return p;
  }
  void* at(uint64_t i) const {
    if (i < growingRows_) {
      uint64_t k = 63 - static_cast<uint64_t>(__builtin_clzll(i / first_ + 1));
      return blocks_[k].data() + (i - first_ * ((uint64_t{1} << k) - 1)) * rowSize_;
    }
    uint64_t j = i - growingRows_;
    return blocks_[doublings_ + j / fullRows_].data() + (j % fullRows_) * rowSize_;
  }
  // Row i and how many rows follow it in its block (itself included), rowSize() apart: a loop
  // over many rows takes their address once per block instead of once per row.
  void* run(uint64_t i, uint64_t* rows) const {
    uint64_t first, inBlock;  // the block's first row and its rows
    size_t k;
    if (i < growingRows_) {
      k = static_cast<size_t>(63 - static_cast<uint64_t>(__builtin_clzll(i / first_ + 1)));
      first = first_ * ((uint64_t{1} << k) - 1);
      inBlock = first_ << k;
    } else {
      k = doublings_ + static_cast<size_t>((i - growingRows_) / fullRows_);
      first = growingRows_ + (k - doublings_) * fullRows_;
      inBlock = fullRows_;
    }
    *rows = std::min(first + inBlock, count_) - i;
    return blocks_[k].data() + (i - first) * rowSize_;
  }
  uint64_t count() const { return count_; }
  uint32_t rowSize() const { return rowSize_; }
  // Empty again, keeping its blocks: a table that is filled and emptied over and over
  // (aggregation's pre-aggregation) allocates once.
  void clear() {
    count_ = nextBlock_ = 0;
    next_ = end_ = nullptr;
  }
  // The blocks count against `budget` from now on (charged there first: Error 53200 past it).
  void chargeTo(MemoryBudget* budget) {
    if (budget == budget_) return;
    if (budget && budget->sameCount(budget_)) {  // a helper's blocks joining its statement's: counted already
      budget_ = budget;
      return;
    }
    uint64_t bytes = 0;
    for (const ZeroedBuffer& b : blocks_) bytes += ZeroedBuffer::footprint(b.bytes(), false);
    if (budget) budget->charge(bytes);
    if (budget_) budget_->release(charged_);
    budget_ = budget;
    charged_ = budget ? bytes : 0;
  }

 private:
  static constexpr uint64_t kBlockBytes = uint64_t{4} << 20;
  // Rows are a few words (hash entries of 24-64 bytes): stores inline, not a call to memset,
  // which was a tenth of TPC-H Q18's time at 2 threads (one per group, twice: pre-aggregation and merge).
  void zeroRow(char* p) const {
    constexpr uint64_t zero = 0;
    switch (rowSize_ / 8) {
      case 8: std::memcpy(p + 56, &zero, 8); [[fallthrough]];
      case 7: std::memcpy(p + 48, &zero, 8); [[fallthrough]];
      case 6: std::memcpy(p + 40, &zero, 8); [[fallthrough]];
      case 5: std::memcpy(p + 32, &zero, 8); [[fallthrough]];
      case 4: std::memcpy(p + 24, &zero, 8); [[fallthrough]];
      case 3: std::memcpy(p + 16, &zero, 8); [[fallthrough]];
      case 2: std::memcpy(p + 8, &zero, 8); [[fallthrough]];
      case 1: std::memcpy(p, &zero, 8); break;
      default: std::memset(p, 0, rowSize_);
    }
  }
  // Moves append() to the next block, allocating it unless clear() kept it.
  void nextBlock() {
    if (nextBlock_ == blocks_.size()) {
      size_t bytes = static_cast<size_t>(blockRows(nextBlock_)) * rowSize_, taken = ZeroedBuffer::footprint(bytes, false);
      if (budget_) budget_->charge(taken);
      try {
        blocks_.push_back(ZeroedBuffer::unzeroed(bytes));
      } catch (...) {
        if (budget_) budget_->release(taken);
        throw;
      }
      charged_ += budget_ ? taken : 0;
    }
    next_ = blocks_[nextBlock_].data();
    end_ = next_ + blockRows(nextBlock_) * rowSize_;
    ++nextBlock_;
  }
  uint64_t blockRows(uint64_t block) const { return block < doublings_ ? first_ << block : fullRows_; }
  void releaseCharge() {
    if (budget_) budget_->release(charged_);
    charged_ = 0;
  }
  uint32_t rowSize_ = 8;
  MemoryBudget* budget_ = nullptr;
  uint64_t first_ = 16;  // rows of the first block (16-31)
  uint64_t charged_ = 0;
  uint64_t doublings_ = 0, growingRows_ = 0, fullRows_ = 16;
  uint64_t count_ = 0;
  uint64_t nextBlock_ = 0;                      // the block after the one append() fills
  char *next_ = nullptr, *end_ = nullptr;       // append()'s place in that block, and its end
  std::vector<ZeroedBuffer> blocks_;
};

}  // namespace hyrax
