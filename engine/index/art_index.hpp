#pragma once
// Ordered index: an adaptive radix tree (Leis, Kemper, Neumann, "The Adaptive Radix Tree", ICDE
// 2013) over keys encoded as order-preserving byte strings (IndexKey's KeyBytes). Inner nodes grow
// and shrink through the paper's four sizes (4, 16, 48 and 256 children); a path of one-child
// nodes is compressed into a node's prefix of up to 8 bytes (longer ones become a chain), and a
// subtree holding one key is a leaf in its parent's slot (lazy expansion). A leaf is the row number
// itself, tagged in the pointer's low bit: the key is read back from the table when a leaf must be
// compared, as every hyrax index reads keys from its table. A pointer to an inner node carries the
// node's type and whether it has a prefix in its low bits, so lookups skip the header of a
// Node48/Node256 without a prefix (a cache miss per level in a big index).
//
// Every entry's key ends with its row number (8 bytes, big-endian), so rows sharing a key are
// distinct entries ordered by row, and a unique index checks for a duplicate by looking for any
// entry with the key as prefix. That also lets undo hold two rows with one key for a moment.
#include <array>

#include "engine/index/index.hpp"
#include "engine/index/node_pool.hpp"

namespace hyrax {

class ArtIndex final : public Index {
 public:
  ArtIndex(std::string name, const Table& table, std::vector<uint32_t> columns, bool unique);
  ~ArtIndex() override;

  // The longest key an entry may have, in encoded bytes: a longer one fails with 54000, as in
  // PostgreSQL (whose B-tree allows 2,704 bytes). The tree's depth, and so the recursion of its
  // walks (erase, range scans, freeing), grows with the bytes keys share; the cap bounds it.
  static constexpr size_t kMaxKeyBytes = 4096;

  uint64_t insert(uint64_t row, bool allowDuplicate = false) override;
  void erase(uint64_t row) override;
  void relocate(uint64_t from, uint64_t to) override;
  void forEachEqual(const uint8_t* probe, const std::function<void(uint64_t)>& fn) const override;
  uint64_t findFirst(const uint8_t* probe) const override;
  uint64_t countEqual(uint64_t row) const override;
  uint64_t size() const override { return count_; }
  void clear() override;
  bool ordered() const override { return true; }
  void forEachInRange(const KeyBound& low, const KeyBound& high, bool reverse,
                      const std::function<bool(uint64_t)>& fn) const override;

  // Inner nodes by size, for tests and EXPLAIN-level curiosity: {4, 16, 48, 256}. Throws
  // (XX000) if a parent's pointer to a node carries a stale tag (its type or prefix flag).
  std::array<uint64_t, 4> nodeCounts() const;

  struct Node;
  using Child = uintptr_t;  // 0: none; low bit set: a leaf (row << 1 | 1); else a Node*

 private:
  // The entry key of `row`: its key columns read from row `valuesOf`, then `row` (relocate writes
  // the new row number under the old row's values).
  void entryKey(uint64_t valuesOf, uint64_t row, KeyBytes& out) const;
  // Adds the entry; with `unique` (the key columns' bytes, a prefix of `key`), an entry whose
  // first `unique` bytes are the key's is a duplicate: its row is returned and nothing changes.
  uint64_t insertEntry(const KeyBytes& key, uint64_t row, size_t unique);
  bool eraseEntry(const KeyBytes& key, uint64_t row);
  // Rows with keys in [lo, hi) (no upper end when `hiEnd` is false) in order until fn says stop.
  void scan(const KeyBytes& lo, const KeyBytes* hi, bool reverse, const std::function<bool(uint64_t)>& fn) const;
  // Rows of the entries starting with `prefix`, in order, until fn says stop: a descent by the
  // prefix, then the whole subtree below it, unchecked (equality on leading key columns, the
  // common range: one order's lines in lineitem's key).
  void scanPrefix(const KeyBytes& prefix, bool reverse, const std::function<bool(uint64_t)>& fn) const;
  // The row of the first entry starting with `prefix`, to be checked by the caller, who may skip
  // the first `verified` bytes of the key (the path matched them); or kNoRow.
  uint64_t candidate(const uint8_t* prefix, size_t size, size_t& verified) const;
  NodePool pool_;  // every node of the tree (node_pool.hpp)
  Child root_ = 0;
  uint64_t count_ = 0;
};

}  // namespace hyrax
