#pragma once
// Fixed-size rows in big zeroed blocks: addresses never move, row i is found in O(1).
// Shared by hash tables (entries) and row buffers (sort input).
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace hyrax {

class BlockStorage {
 public:
  explicit BlockStorage(uint32_t rowSize) : rowSize_((rowSize + 7) & ~7u) {
    perBlock_ = rowSize_ >= (1u << 16) ? 1 : (1u << 16) / rowSize_ * 4;  // ~256 KiB blocks
  }
  void* append() {
    if (count_ == static_cast<uint64_t>(blocks_.size()) * perBlock_) {
      blocks_.push_back(std::make_unique<char[]>(static_cast<size_t>(perBlock_) * rowSize_));
      std::memset(blocks_.back().get(), 0, static_cast<size_t>(perBlock_) * rowSize_);
    }
    void* p = at(count_);
    ++count_;
    return p;
  }
  void* at(uint64_t i) const { return blocks_[i / perBlock_].get() + (i % perBlock_) * rowSize_; }
  uint64_t count() const { return count_; }

 private:
  uint32_t rowSize_, perBlock_;
  uint64_t count_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_;
};

}  // namespace hyrax
