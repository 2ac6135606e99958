// Table::ascends and Table::runStart: the order of a column's values in row order. A column that
// ascends holds each value's rows as one run, so a parallel aggregation grouped by it can give
// each run, and so each group, to one thread (codegen/translate/query_driver.cpp: morsels that
// begin where a run begins, and the threads' tables adopted without a merge).
#include <algorithm>
#include <cstring>

#include "engine/storage/table.hpp"

namespace hyrax {

namespace {

// Types whose stored bytes, read as a signed integer of their width, order as their values do and
// are equal exactly when the values are (a DECIMAL column has one scale; a boolean is 0 or 1).
bool orderedAsIntegers(const SqlType& t) {
  switch (t.id) {
    case TypeId::Bool:
    case TypeId::Int16:
    case TypeId::Int32:
    case TypeId::Int64:
    case TypeId::Decimal:
    case TypeId::Date:
    case TypeId::Timestamp:
    case TypeId::Time:
      return t.byteWidth() <= 8;
    default:
      return false;
  }
}

// f(T{}) with T the signed integer of a column's width (1, 2, 4 or 8 bytes).
template <typename F>
auto byWidth(uint32_t width, F f) {
  switch (width) {
    case 1: return f(int8_t{});
    case 2: return f(int16_t{});
    case 4: return f(int32_t{});
    default: return f(int64_t{});
  }
}

// Whether rows [0, rows) of a chunk's values ascend, from `last` (the chunk before's last value,
// when `first` is false). Blocks without a branch per row (vectorized), then the block's verdict:
// a column that does not ascend mostly shows it in its first block.
template <typename T>
bool chunkAscends(const void* data, uint32_t rows, T& last, bool& first) {
  if (rows == 0) return true;
  const T* v = static_cast<const T*>(data);
  if (!first && v[0] < last) return false;
  constexpr uint32_t kBlock = 1024;
  for (uint32_t from = 1; from < rows; from += kBlock) {
    const uint32_t to = std::min(rows, from + kBlock);
    bool falls = false;
    for (uint32_t r = from; r < to; ++r) falls |= v[r] < v[r - 1];
    if (falls) return false;
  }
  last = v[rows - 1];
  first = false;
  return true;
}

}  // namespace

bool Table::ascends(uint32_t column) const {
  const SqlType& type = columns_[column].type;
  if (!orderedAsIntegers(type)) return false;
  std::atomic<uint64_t>& known = ascends_[column];
  const uint64_t stamp = (changes_ + 1) << 1;
  const uint64_t k = known.load(std::memory_order_relaxed);
  if ((k & ~uint64_t{1}) == stamp) return (k & 1) != 0;
  auto pass = [&]<typename T>(T last) {
    bool first = true;
    for (const auto& chunk : chunks_) {
      // A NULL is a group of its own wherever it is: a column with one is not taken to ascend.
      if (const uint8_t* nulls = chunk->nulls[column])
        for (uint32_t r = 0; r < chunk->rows; r += 8)
          if (nulls[r / 8] != 0) return false;  // bits past the last row are clear (truncate)
      if (!chunkAscends<T>(chunk->data[column], chunk->rows, last, first)) return false;
    }
    return true;
  };
  const bool up = byWidth(type.byteWidth(), pass);
  known.store(stamp | (up ? 1 : 0), std::memory_order_relaxed);
  return up;
}

uint64_t Table::runStart(uint32_t column, uint64_t row) const {
  if (row == 0 || row >= rows_) return std::min(row, rows_);
  return byWidth(columns_[column].type.byteWidth(), [&]<typename T>(T) {
    auto at = [&](uint64_t r) {
      T v;
      std::memcpy(&v, valuePtr(r, column), sizeof v);
      return v;
    };
    const T before = at(row - 1);
    if (at(row) != before) return row;
    // The run of `before` goes on at `row`: gallop to a row past it, then halve (runs may be
    // long: a boolean's are half the table).
    uint64_t in = row, past = rows_;
    for (uint64_t step = 1; in + step < rows_; step *= 2) {
      if (at(in + step) != before) {
        past = in + step;
        break;
      }
      in += step;
    }
    while (past - in > 1) {
      const uint64_t mid = in + (past - in) / 2;
      (at(mid) == before ? in : past) = mid;
    }
    return past;
  });
}

}  // namespace hyrax
