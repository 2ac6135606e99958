#include "engine/storage/string_heap.hpp"

#include <cstring>

namespace hyrax {

const char* StringHeap::add(const char* data, size_t n) {
  if (used_ + n > capacity_) {
    size_t size = n > kBlockSize / 4 ? n : kBlockSize;  // big strings get a block of their own
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));  // written before read: no zeroing
    capacity_ = size;
    used_ = 0;
  }
  char* dst = blocks_.back().get() + used_;
  std::memcpy(dst, data, n);
  used_ += n;
  bytes_ += n;
  return dst;
}

}  // namespace hyrax
