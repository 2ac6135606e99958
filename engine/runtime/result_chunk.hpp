#pragma once
// Columnar result chunks: generated code writes result rows straight into these arrays (no
// per-row call into C++); the shell, the sqllogictest runner and the bench format from them.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/runtime/abi_layout.hpp"
#include "engine/types/sql_type.hpp"

namespace hyrax {

// What generated code writes result rows through (codegen/translate/result_sink.cpp); layout
// described once, below (abi_layout.hpp).
struct ResultChunkView {
  uint64_t count;     // rows written so far
  uint64_t capacity;  // rows that fit
  void** columns;     // columns[i]: array of `capacity` values of column i's byteWidth()
  uint8_t** nulls;    // nulls[i]: array of `capacity` bytes, 1 = NULL
};
enum class ResultChunkViewField : uint32_t { Count, Capacity, Columns, Nulls };
inline constexpr AbiField kResultChunkViewFields[] = {
    {"count", AbiType::I64, 1, offsetof(ResultChunkView, count)},
    {"capacity", AbiType::I64, 1, offsetof(ResultChunkView, capacity)},
    {"columns", AbiType::Ptr, 1, offsetof(ResultChunkView, columns)},
    {"nulls", AbiType::Ptr, 1, offsetof(ResultChunkView, nulls)},
};
inline constexpr AbiLayout kResultChunkViewLayout =
    abiLayout("hyrax.result_chunk_view", kResultChunkViewFields, sizeof(ResultChunkView));

class ResultChunk {
 public:
  static constexpr uint64_t kCapacity = 1024;

  // `owner`: what the types came from (see reuseFor).
  explicit ResultChunk(const std::vector<SqlType>& types, uint64_t capacity = kCapacity, const void* owner = nullptr);
  ResultChunk(const ResultChunk&) = delete;
  ResultChunk& operator=(const ResultChunk&) = delete;

  ResultChunkView& view() { return view_; }
  // Whether this chunk's memory fits rows of `types` at `capacity` (the same value widths), and
  // making it an empty chunk of those types.
  bool fits(const std::vector<SqlType>& types, uint64_t capacity) const;
  // `owner`: what the types came from (a procedure's statement's vector), so the chunk is found
  // again for them without comparing layouts.
  void reuseFor(const std::vector<SqlType>& types, const void* owner = nullptr);
  const void* owner() const { return owner_; }
  uint64_t rowCount() const { return view_.count; }
  size_t bytes() const { return bytes_; }  // its memory
  uint32_t columnCount() const { return static_cast<uint32_t>(types_.size()); }
  const SqlType& type(uint32_t col) const { return types_[col]; }
  bool isNull(uint64_t row, uint32_t col) const { return view_.nulls[col][row] != 0; }
  const void* at(uint64_t row, uint32_t col) const {
    return static_cast<const char*>(view_.columns[col]) + row * types_[col].byteWidth();
  }
  template <typename T>
  T get(uint64_t row, uint32_t col) const { return *static_cast<const T*>(at(row, col)); }

 private:
  std::vector<SqlType> types_;
  size_t bytes_ = 0;
  std::unique_ptr<uint8_t[]> memory_;  // every column's values, then every column's NULL bytes
  std::vector<void*> columnPtrs_;
  std::vector<uint8_t*> nullPtrs_;
  ResultChunkView view_{};
  const void* owner_ = nullptr;
};

}  // namespace hyrax
