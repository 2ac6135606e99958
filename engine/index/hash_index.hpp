#pragma once
// Hash index for point lookups: open addressing with linear probing over {hash, row} entries
// (16 bytes per slot, at most half full), one slot per distinct key; deletion by backward
// shifting so no tombstones build up under TPC-C's insert/delete churn. Rows sharing a key (a
// non-unique index: a district's 30,000 order lines) hang off their key's slot in a doubly linked
// list threaded through two arrays indexed by row number, so inserting, erasing and moving one
// of them costs the same however many share its key. The arrays exist only once a key repeats.
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
  uint64_t slotOf(uint64_t row, uint64_t hash) const;  // the slot whose list starts at `row`, or capacity
  uint64_t slotOfKey(uint64_t row, uint64_t hash) const;  // the slot of row's key, or capacity
  uint64_t slotOfProbe(const uint8_t* probe, uint64_t hash) const;
  void removeSlot(uint64_t i);
  void grow(uint64_t capacity);
  uint64_t next(uint64_t row) const { return row < next_.size() ? next_[row] : kNoRow; }
  uint64_t prev(uint64_t row) const { return row < prev_.size() ? prev_[row] : kNoRow; }
  void link(uint64_t row, uint64_t prevRow, uint64_t nextRow);  // sets both of row's links
  std::vector<Slot> slots_;          // row: the first row of the key's list
  std::vector<uint64_t> next_, prev_;  // the key's other rows; kNoRow ends (absent: kNoRow)
  uint64_t mask_ = 0;
  uint64_t count_ = 0;  // rows
  uint64_t keys_ = 0;   // used slots
};

}  // namespace hyrax
