#include "engine/index/hash_index.hpp"

#include "engine/util/error.hpp"

namespace hyrax {

HashIndex::HashIndex(std::string name, const Table& table, std::vector<uint32_t> columns, bool unique)
    : Index(std::move(name), table, std::move(columns), unique) {
  grow(16);
}

void HashIndex::clear() {
  slots_.assign(16, Slot{0, kNoRow});
  mask_ = 15;
  count_ = 0;
}

void HashIndex::grow(uint64_t capacity) {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(capacity, Slot{0, kNoRow});
  mask_ = capacity - 1;
  for (const Slot& s : old) {
    if (s.row == kNoRow) continue;
    uint64_t i = s.hash & mask_;
    while (slots_[i].row != kNoRow) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

void HashIndex::reserve(uint64_t rows) {
  uint64_t cap = slots_.size();
  while (cap < 2 * rows) cap *= 2;
  if (cap != slots_.size()) grow(cap);
}

uint64_t HashIndex::insert(uint64_t row, bool allowDuplicate) {
  if (key().rowHasNull(row)) return kNoRow;
  uint64_t h = key().hashRow(row);
  uint64_t i = h & mask_;
  for (; slots_[i].row != kNoRow; i = (i + 1) & mask_)
    if (unique() && !allowDuplicate && slots_[i].hash == h && key().rowsEqual(slots_[i].row, row)) return slots_[i].row;
  slots_[i] = Slot{h, row};
  if (++count_ * 2 > slots_.size()) grow(slots_.size() * 2);
  return kNoRow;
}

uint64_t HashIndex::slotOf(uint64_t row, uint64_t hash) const {
  for (uint64_t i = hash & mask_; slots_[i].row != kNoRow; i = (i + 1) & mask_)
    if (slots_[i].row == row) return i;
  return slots_.size();
}

void HashIndex::erase(uint64_t row) {
  if (key().rowHasNull(row)) return;
  uint64_t i = slotOf(row, key().hashRow(row));
  if (i == slots_.size()) throw Error(sqlstate::InternalError, "index \"" + name() + "\" lost a row");
  // Backward shift: move later entries of the probe run into the hole when their home slot allows.
  uint64_t j = i;
  while (true) {
    j = (j + 1) & mask_;
    if (slots_[j].row == kNoRow) break;
    uint64_t home = slots_[j].hash & mask_;
    // The entry at j may fill hole i when its home is not cyclically in (i, j].
    bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (!between) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i].row = kNoRow;
  --count_;
}

void HashIndex::relocate(uint64_t from, uint64_t to) {
  if (key().rowHasNull(from)) return;
  uint64_t i = slotOf(from, key().hashRow(from));
  if (i == slots_.size()) throw Error(sqlstate::InternalError, "index \"" + name() + "\" lost a row");
  slots_[i].row = to;
}

void HashIndex::forEachEqual(const uint8_t* probe, const std::function<void(uint64_t)>& fn) const {
  uint64_t h = key().hashProbe(probe);
  for (uint64_t i = h & mask_; slots_[i].row != kNoRow; i = (i + 1) & mask_)
    if (slots_[i].hash == h && key().rowEqualsProbe(slots_[i].row, probe)) fn(slots_[i].row);
}

uint64_t HashIndex::findFirst(const uint8_t* probe) const {
  uint64_t h = key().hashProbe(probe);
  for (uint64_t i = h & mask_; slots_[i].row != kNoRow; i = (i + 1) & mask_)
    if (slots_[i].hash == h && key().rowEqualsProbe(slots_[i].row, probe)) return slots_[i].row;
  return kNoRow;
}

uint64_t HashIndex::countEqual(uint64_t row) const {
  if (key().rowHasNull(row)) return 0;
  uint64_t h = key().hashRow(row), n = 0;
  for (uint64_t i = h & mask_; slots_[i].row != kNoRow; i = (i + 1) & mask_)
    if (slots_[i].hash == h && key().rowsEqual(slots_[i].row, row)) ++n;
  return n;
}

}  // namespace hyrax
