#pragma once
// Fixed-width values as bytes whose plain unsigned order (memcmp's) is SQL's order of the values,
// for the ordered index keys (engine/index/index_key.cpp) and the sorts' normalized keys
// (engine/runtime/row_sort.cpp): integers, dates, decimals (unscaled), times and timestamps
// big-endian with the sign bit flipped; booleans one byte; floats by orderedBits (NaN above
// Infinity, -0 as 0). Strings, intervals and arrays each encode their own way.
#include <cstdint>
#include <cstring>

#include "engine/types/float_order.hpp"
#include "engine/types/sql_type.hpp"

namespace hyrax {

// The low `bytes` bytes of x, most significant first.
inline void putBigEndian(uint8_t* at, uint64_t x, uint32_t bytes) {
  for (uint32_t i = bytes; i-- > 0; x >>= 8) at[i] = static_cast<uint8_t>(x);
}

// The bytes putOrderedFixed writes for a value of `id`; 0 for the types it does not encode (the
// NULL type, intervals: compared by their span, arrays, strings).
inline uint32_t orderedFixedWidth(TypeId id) {
  switch (id) {
    case TypeId::Bool: return 1;
    case TypeId::Int16: return 2;
    case TypeId::Int32:
    case TypeId::Date:
    case TypeId::Float32: return 4;
    case TypeId::Int64:
    case TypeId::Decimal:  // at most 18 digits: an int64 at the column's scale
    case TypeId::Timestamp:
    case TypeId::Time:
    case TypeId::Float64: return 8;
    default: return 0;
  }
}

// The value of type `id` at `p` (one orderedFixedWidth encodes; 8-byte ones read as a signed
// integer) written at `at`; returns the bytes written (orderedFixedWidth(id)).
inline uint32_t putOrderedFixed(TypeId id, const void* p, uint8_t* at) {
  auto read = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (id) {
    case TypeId::Bool: at[0] = read(uint8_t{}) ? 1 : 0; return 1;
    case TypeId::Int16: putBigEndian(at, static_cast<uint16_t>(read(int16_t{})) ^ 0x8000u, 2); return 2;
    case TypeId::Int32:
    case TypeId::Date: putBigEndian(at, static_cast<uint32_t>(read(int32_t{})) ^ 0x80000000u, 4); return 4;
    case TypeId::Float32: putBigEndian(at, orderedBits(read(float{})), 4); return 4;
    case TypeId::Float64: putBigEndian(at, orderedBits(read(double{})), 8); return 8;
    default: putBigEndian(at, static_cast<uint64_t>(read(int64_t{})) ^ (uint64_t{1} << 63), 8); return 8;
  }
}

}  // namespace hyrax
