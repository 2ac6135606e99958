#pragma once
// Hash index for point lookups: open addressing with linear probing over {hash, row} entries
// (16 bytes per slot, at most half full), deletion by backward shifting so no tombstones build
// up under TPC-C's insert/delete churn.
#include <vector>

#include "engine/index/index.hpp"

namespace hyrax {

class HashIndex final : public Index {
 public:
  HashIndex(std::string name, const Table& table, std::vector<uint32_t> columns, bool unique);

  uint64_t insert(uint64_t row, bool allowDuplicate = false) override;
  void erase(uint64_t row) override;
  void relocate(uint64_t from, uint64_t to) override;
  void forEachEqual(const uint8_t* probe, const std::function<void(uint64_t)>& fn) const override;
  uint64_t findFirst(const uint8_t* probe) const override;
  uint64_t countEqual(uint64_t row) const override;
  uint64_t size() const override { return count_; }
  void clear() override;
  // Makes room for `rows` entries at once (bulk loads).
  void reserve(uint64_t rows);

 private:
  struct Slot {
    uint64_t hash;
    uint64_t row;  // kNoRow: empty
  };
  uint64_t slotOf(uint64_t row, uint64_t hash) const;  // the slot holding `row`, or capacity
  void grow(uint64_t capacity);
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
  uint64_t count_ = 0;
};

}  // namespace hyrax
