#include "engine/index/node_pool.hpp"

#include <sys/mman.h>

#include <cstdlib>

#include "engine/util/huge_page_keeper.hpp"
#include "engine/util/huge_pages.hpp"

namespace hyrax {

void NodePool::newBlock(size_t atLeast) {
  size_t bytes = nextBlockBytes_;
  while (bytes < atLeast) bytes *= 2;
  Block b{nullptr, bytes, bytes >= kHugePage};
  if (b.mapped) {
    b.data = static_cast<char*>(mapAligned(bytes, true));  // throws 53200 when refused
    keepOnHugePages(b.data, bytes);
  } else {
    b.data = static_cast<char*>(std::aligned_alloc(16, bytes));
    if (!b.data) throw std::bad_alloc();
  }
  blocks_.push_back(b);
  next_ = b.data;
  end_ = b.data + bytes;
  if (nextBlockBytes_ < kHugePage) nextBlockBytes_ *= 2;
}

void NodePool::clear() {
  for (Block& b : blocks_) {
    if (b.mapped) unmapAligned(b.data, b.bytes);
    else std::free(b.data);
  }
  blocks_.clear();
  next_ = end_ = nullptr;
  for (void*& f : free_) f = nullptr;
  nextBlockBytes_ = size_t{64} << 10;
}

}  // namespace hyrax
