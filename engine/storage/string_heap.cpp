#include "engine/storage/string_heap.hpp"

#include <sys/mman.h>

#include <cstring>

#include "engine/util/huge_pages.hpp"

namespace hyrax {

StringHeap::~StringHeap() {
  for (Block& b : blocks_) munmap(b.data, roundToHugePages(b.size));
}

const char* StringHeap::add(const char* data, size_t n) {
  if (used_ + n > capacity_) {
    bool big = n > kBlockSize / 4;  // a big string gets a block of its own
    size_t size = big ? n : kBlockSize;
    blocks_.reserve(blocks_.size() + 1);
    blocks_.push_back({static_cast<char*>(mapAligned(size, false)), size});
    capacity_ = size;
    used_ = 0;
  }
  char* dst = blocks_.back().data + used_;
  std::memcpy(dst, data, n);
  used_ += n;
  bytes_ += n;
  return dst;
}

}  // namespace hyrax
