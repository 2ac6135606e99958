#pragma once
// How an index sees its key: the values of some of a table's columns, read from the table's rows
// (an index stores row numbers only) or from a probe buffer. A probe key is the key columns'
// physical values back to back, each `byteWidth()` bytes (strings as 16-byte StringRefs), the
// same layout generated code writes before it calls an index operation.
#include <cstdint>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "engine/types/sql_type.hpp"

namespace hyrax {

class Table;

// A key as an order-preserving byte string (ordered indexes): comparing two with memcmp orders them
// as SQL orders their values, column by column. Integers, dates and decimals are big-endian with
// the sign bit flipped, floats their sign-adjusted bits, strings their bytes with 0x00 escaped as
// 0x00 0x01 and ended by 0x00 0x00, so no encoded column is a prefix of another.
using KeyBytes = boost::container::small_vector<uint8_t, 48>;

class IndexKey {
 public:
  IndexKey(const Table& table, std::vector<uint32_t> columns);

  const std::vector<uint32_t>& columns() const { return columns_; }
  uint32_t probeBytes() const { return probeBytes_; }

  bool rowHasNull(uint64_t row) const;  // rows with a NULL key column are not indexed (SQL's UNIQUE)
  uint64_t hashRow(uint64_t row) const;
  uint64_t hashProbe(const uint8_t* probe) const;
  // Comparisons from key column `from` on (the earlier ones known equal).
  bool rowsEqual(uint64_t a, uint64_t b, uint32_t from = 0) const;
  bool rowEqualsProbe(uint64_t row, const uint8_t* probe, uint32_t from = 0) const;
  // The first key column not wholly inside the first `bytes` bytes of the encoded key (columns
  // after a string have no fixed position).
  uint32_t firstUnverifiedColumn(size_t bytes) const;
  // Writes a row's key in probe layout (probeBytes() bytes).
  void writeProbe(uint64_t row, uint8_t* out) const;
  // Appends the row's key, or the first `columns` key columns of a probe, as KeyBytes.
  void encodeRow(uint64_t row, KeyBytes& out) const;
  void encodeProbe(const uint8_t* probe, uint32_t columns, KeyBytes& out) const;
  // The whole key of a probe into `out` (capacity bytes) when its columns are all fixed-width and
  // it fits: true and its size; else false (encodeProbe then).
  bool encodeFixedProbe(const uint8_t* probe, uint8_t* out, size_t capacity, size_t& size) const;

 private:
  const void* valueAt(uint64_t row, uint32_t keyColumn) const;
  const SqlType& typeAt(uint32_t keyColumn) const;
  // Equal keys hash equally whether read from a row or a probe: `value(k)` gives key column k.
  template <typename ValueOf>
  uint64_t hashKey(ValueOf value) const;
  template <typename ValueOf>
  void encode(uint32_t columns, ValueOf value, KeyBytes& out) const;
  // The first `columns` key columns, all fixed-width, written from `out` on; returns the end.
  template <typename ValueOf>
  uint8_t* encodeFixedColumns(uint32_t columns, ValueOf value, uint8_t* out) const;
  const Table& table_;
  std::vector<uint32_t> columns_;
  std::vector<uint32_t> offsets_;  // of each key column in a probe buffer
  std::vector<TypeId> types_;      // of each key column
  bool nullable_ = false;          // some key column may hold NULL
  std::vector<uint32_t> encodedEnd_;  // where each column's encoding ends, UINT32_MAX from a string on
  uint32_t probeBytes_ = 0;
  bool int32Words_ = false;  // every key column INTEGER or DATE: encoded word by word, no dispatch
};

}  // namespace hyrax
