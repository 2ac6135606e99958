#include "engine/index/hash_index.hpp"

#include "engine/util/error.hpp"

namespace hyrax {

HashIndex::HashIndex(std::string name, const Table& table, std::vector<uint32_t> columns, bool unique)
    : Index(std::move(name), table, std::move(columns), unique) {
  grow(16);
}

void HashIndex::clear() {
  slots_.assign(16, Slot{0, kNoRow});
  next_.clear();
  prev_.clear();
  mask_ = 15;
  count_ = keys_ = 0;
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

void HashIndex::link(uint64_t row, uint64_t prevRow, uint64_t nextRow) {
  if (prevRow == kNoRow && nextRow == kNoRow && row >= next_.size()) return;  // nothing to remember
  if (row >= next_.size()) {
    uint64_t n = std::max<uint64_t>(row + 1, next_.size() * 2);
    next_.resize(n, kNoRow);
    prev_.resize(n, kNoRow);
  }
  next_[row] = nextRow;
  prev_[row] = prevRow;
}

uint64_t HashIndex::slotOfKey(uint64_t row, uint64_t hash) const {
  for (uint64_t i = hash & mask_; slots_[i].row != kNoRow; i = (i + 1) & mask_)
    if (slots_[i].hash == hash && key().rowsEqual(slots_[i].row, row)) return i;
  return slots_.size();
}

uint64_t HashIndex::slotOfProbe(const uint8_t* probe, uint64_t hash) const {
  for (uint64_t i = hash & mask_; slots_[i].row != kNoRow; i = (i + 1) & mask_)
    if (slots_[i].hash == hash && key().rowEqualsProbe(slots_[i].row, probe)) return i;
  return slots_.size();
}

uint64_t HashIndex::slotOf(uint64_t row, uint64_t hash) const {
  for (uint64_t i = hash & mask_; slots_[i].row != kNoRow; i = (i + 1) & mask_)
    if (slots_[i].row == row) return i;
  return slots_.size();
}

uint64_t HashIndex::insert(uint64_t row, bool allowDuplicate) {
  if (key().rowHasNull(row)) return kNoRow;
  uint64_t h = key().hashRow(row);
  uint64_t i = slotOfKey(row, h);
  if (i != slots_.size()) {
    if (unique() && !allowDuplicate) return slots_[i].row;
    // Another row of the key: it becomes the list's first.
    uint64_t head = slots_[i].row;
    link(row, kNoRow, head);
    link(head, row, next(head));
    slots_[i].row = row;
    ++count_;
    return kNoRow;
  }
  for (i = h & mask_; slots_[i].row != kNoRow; i = (i + 1) & mask_) {
  }
  slots_[i] = Slot{h, row};
  link(row, kNoRow, kNoRow);
  ++count_;
  if (++keys_ * 2 > slots_.size()) grow(slots_.size() * 2);
  return kNoRow;
}

void HashIndex::removeSlot(uint64_t i) {
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
  --keys_;
}

void HashIndex::erase(uint64_t row) {
  if (key().rowHasNull(row)) return;
  uint64_t p = prev(row), n = next(row);
  if (p != kNoRow) {  // inside its key's list
    link(p, prev(p), n);
    if (n != kNoRow) link(n, p, next(n));
  } else {
    uint64_t i = slotOf(row, key().hashRow(row));
    if (i == slots_.size()) throw Error(sqlstate::InternalError, "index \"" + name() + "\" lost a row");
    if (n != kNoRow) {
      slots_[i].row = n;
      link(n, kNoRow, next(n));
    } else {
      removeSlot(i);
    }
  }
  link(row, kNoRow, kNoRow);
  --count_;
}

void HashIndex::relocate(uint64_t from, uint64_t to) {
  if (key().rowHasNull(from)) return;
  uint64_t p = prev(from), n = next(from);
  if (p != kNoRow) {
    link(p, prev(p), to);
  } else {
    uint64_t i = slotOf(from, key().hashRow(from));
    if (i == slots_.size()) throw Error(sqlstate::InternalError, "index \"" + name() + "\" lost a row");
    slots_[i].row = to;
  }
  if (n != kNoRow) link(n, to, next(n));
  link(to, p, n);
  link(from, kNoRow, kNoRow);
}

void HashIndex::forEachEqual(const uint8_t* probe, const std::function<void(uint64_t)>& fn) const {
  uint64_t i = slotOfProbe(probe, key().hashProbe(probe));
  if (i == slots_.size()) return;
  for (uint64_t r = slots_[i].row; r != kNoRow;) {
    uint64_t n = next(r);  // fn may not change the index, but read the link first anyway
    fn(r);
    r = n;
  }
}

uint64_t HashIndex::findFirst(const uint8_t* probe) const {
  uint64_t i = slotOfProbe(probe, key().hashProbe(probe));
  return i == slots_.size() ? kNoRow : slots_[i].row;
}

uint64_t HashIndex::countEqual(uint64_t row) const {
  if (key().rowHasNull(row)) return 0;
  uint64_t i = slotOfKey(row, key().hashRow(row));
  if (i == slots_.size()) return 0;
  uint64_t n = 0;
  for (uint64_t r = slots_[i].row; r != kNoRow; r = next(r)) ++n;
  return n;
}

}  // namespace hyrax
