#include "engine/storage/string_heap.hpp"

#include <sys/mman.h>

#include <cstring>

#include "engine/util/huge_page_keeper.hpp"
#include "engine/util/huge_pages.hpp"

namespace hyrax {

StringHeap::~StringHeap() {
  for (void* m : mapped_) unmapAligned(m, kHugePage);
  if (spare_) unmapAligned(spare_, kHugePage);
}

char* StringHeap::newBlock() {
  if (blocks_.empty()) {  // the first block: a table of a few strings stays small
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(kBlockSize));  // written before read: no zeroing
    capacity_ = kBlockSize;
    return blocks_.back().get();
  }
  void* block = spare_ ? spare_ : mapAligned(kHugePage, true);
  spare_ = nullptr;
  mapped_.push_back(block);
  keepOnHugePages(block, kHugePage);
  spare_ = mapAligned(kHugePage, true);
  prefaultInBackground(spare_, kHugePage);
  capacity_ = kHugePage;
  return static_cast<char*>(block);
}

const char* StringHeap::add(const char* data, size_t n) {
  if (n > kBlockSize / 4) {  // a big string gets a block of its own; the current one goes on
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(n));
    std::memcpy(blocks_.back().get(), data, n);
    bytes_ += n;
    return blocks_.back().get();
  }
  if (used_ + n > capacity_) {
    current_ = newBlock();
    used_ = 0;
  }
  char* dst = current_ + used_;
  std::memcpy(dst, data, n);
  used_ += n;
  bytes_ += n;
  return dst;
}

}  // namespace hyrax
