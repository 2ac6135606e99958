#pragma once
// The chained hash table generated code uses for joins and aggregation (layout in runtime.hpp):
// the runtime owns memory and buckets; generated code compares hashes and keys and follows chains.
#include <vector>

#include "engine/runtime/block_storage.hpp"

namespace hyrax {

class HashTable {
 public:
  explicit HashTable(uint32_t entrySize) : entries_(entrySize < 16 ? 16 : entrySize), buckets_(1024, nullptr) {}

  void* insert(uint64_t hash) {
    if (entries_.count() >= buckets_.size()) grow();
    auto* e = static_cast<char*>(entries_.append());
    std::memcpy(e + 8, &hash, 8);
    void*& head = buckets_[bucket(hash)];
    std::memcpy(e, &head, sizeof(void*));
    head = e;
    return e;
  }
  void* lookup(uint64_t hash) const { return buckets_[bucket(hash)]; }
  uint64_t count() const { return entries_.count(); }
  void* entry(uint64_t i) const { return entries_.at(i); }

 private:
  // High bits: the generated hashes are multiplicative, so their top bits mix best.
  size_t bucket(uint64_t hash) const { return static_cast<size_t>((hash * 0x9E3779B97F4A7C15ULL) >> shift_); }
  void grow() {
    buckets_.assign(buckets_.size() * 2, nullptr);
    --shift_;
    for (uint64_t i = 0; i < entries_.count(); ++i) {
      auto* e = static_cast<char*>(entries_.at(i));
      uint64_t h;
      std::memcpy(&h, e + 8, 8);
      void*& head = buckets_[bucket(h)];
      std::memcpy(e, &head, sizeof(void*));
      head = e;
    }
  }
  BlockStorage entries_;
  std::vector<void*> buckets_;
  unsigned shift_ = 64 - 10;
};

class RowBuffer {
 public:
  explicit RowBuffer(uint32_t rowSize) : rows_(rowSize) {}
  void* append() {
    void* p = rows_.append();
    order_.push_back(p);
    return p;
  }
  uint64_t count() const { return rows_.count(); }
  void* row(uint64_t i) const { return order_[i]; }
  std::vector<void*>& order() { return order_; }

 private:
  BlockStorage rows_;
  std::vector<void*> order_;
};

}  // namespace hyrax
