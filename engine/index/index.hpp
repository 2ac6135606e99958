#pragma once
// A secondary structure over one table that maps key values (some of its columns) to row numbers.
// Indexes store row numbers only and read keys from the table, so the table's write operations
// (engine/txn/table_ops) keep them in step: erase before a row's key changes, insert after, and
// relocate when a delete moves the table's last row into the hole. Rows with a NULL key column
// are not indexed (SQL lets UNIQUE columns hold many NULLs; `= NULL` never matches).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/index/index_key.hpp"

namespace hyrax {

inline constexpr uint64_t kNoRow = ~uint64_t{0};

// One end of a key range for an ordered index: the first `columns` key columns of a probe (layout:
// IndexKey). Keys are compared on those columns only, so `columns` < the key's length bounds a
// prefix: (w, d) inclusive from below and above selects all keys starting with w, d. No columns:
// unbounded.
struct KeyBound {
  const uint8_t* probe = nullptr;
  uint32_t columns = 0;
  bool inclusive = true;
};

class Index {
 public:
  Index(std::string name, const Table& table, std::vector<uint32_t> columns, bool unique)
      : name_(std::move(name)), unique_(unique), key_(table, std::move(columns)) {}
  virtual ~Index() = default;
  Index(const Index&) = delete;
  Index& operator=(const Index&) = delete;

  const std::string& name() const { return name_; }
  bool unique() const { return unique_; }
  const IndexKey& key() const { return key_; }
  const std::vector<uint32_t>& columns() const { return key_.columns(); }
  bool covers(uint32_t column) const {
    for (uint32_t c : columns())
      if (c == column) return true;
    return false;
  }

  // Adds `row`. A unique index that already holds another row with the same key returns that row
  // and adds nothing, unless `allowDuplicate` (undo restores old keys one row at a time, so two
  // rows may share a key until it is done). Otherwise returns kNoRow.
  virtual uint64_t insert(uint64_t row, bool allowDuplicate = false) = 0;
  // Removes `row`; its key must still be the one it was inserted with.
  virtual void erase(uint64_t row) = 0;
  // The row numbered `from` is about to be moved to `to` (its key unchanged).
  virtual void relocate(uint64_t from, uint64_t to) = 0;
  // Rows whose key equals the probe key (layout: IndexKey), in no particular order.
  virtual void forEachEqual(const uint8_t* probe, const std::function<void(uint64_t)>& fn) const = 0;
  // The first row with the probe key, or kNoRow.
  virtual uint64_t findFirst(const uint8_t* probe) const = 0;
  // How many indexed rows have the same key as `row` (1 when it is unique).
  virtual uint64_t countEqual(uint64_t row) const = 0;
  virtual uint64_t size() const = 0;
  // Ordered indexes only: rows whose key lies between two bounds, in key order (descending when
  // `reverse`) while `fn` returns true.
  virtual bool ordered() const { return false; }
  virtual void forEachInRange(const KeyBound& low, const KeyBound& high, bool reverse,
                              const std::function<bool(uint64_t)>& fn) const;
  virtual void clear() = 0;

 private:
  std::string name_;
  bool unique_;
  IndexKey key_;
};

}  // namespace hyrax
