#pragma once
// The memory of one ART index's nodes. Nodes come from blocks that grow from 64 KiB to 2 MiB,
// the 2 MiB ones aligned mappings on transparent huge pages: fork() copies a page-table entry per
// 4 KiB page, and malloc'd nodes were about half of what forking TPC-H SF 1 cost a snapshot
// (bench/README.md); a random descent also misses the TLB less. A small index stays in its
// first small block. Freed nodes go to a free list of their kind and are reused; memory goes
// back when the index is cleared or dropped. Used by the one thread that changes indexes.
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace hyrax {

class NodePool {
 public:
  static constexpr unsigned kKinds = 4;  // Node4, Node16, Node48, Node256

  NodePool() = default;
  ~NodePool() { clear(); }
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;

  // A node of type T (one of the kinds), constructed; 16-byte aligned.
  template <typename T>
  T* make(unsigned kind) {
    static_assert(alignof(T) <= 16 && sizeof(T) % 16 == 0, "nodes are 16-byte aligned");
    return new (allocate(kind, sizeof(T))) T();
  }
  // Back to its kind's free list (nodes are trivially destructible).
  void release(unsigned kind, void* node) {
    *static_cast<void**>(node) = free_[kind];
    free_[kind] = node;
  }
  void clear();  // every node gone

 private:
  void* allocate(unsigned kind, size_t bytes) {
    if (void* p = free_[kind]) {
      free_[kind] = *static_cast<void**>(p);
      return p;
    }
    if (static_cast<size_t>(end_ - next_) < bytes) newBlock(bytes);
    void* p = next_;
    next_ += bytes;
    return p;
  }
  void newBlock(size_t atLeast);

  struct Block {
    char* data;
    size_t bytes;
    bool mapped;  // a huge-page mapping (munmap), else malloc'd (free)
  };
  std::vector<Block> blocks_;
  char* next_ = nullptr;
  char* end_ = nullptr;
  void* free_[kKinds] = {};
  size_t nextBlockBytes_ = size_t{64} << 10;
};

}  // namespace hyrax
