#include "engine/index/index_key.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

#include "engine/runtime/runtime.hpp"
#include "engine/storage/table.hpp"
#include "engine/types/float_order.hpp"
#include "engine/types/ordered_bytes.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

namespace {

uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  return h;
}

// Integers hash by value whatever their width, so a probe and a row agree.
uint64_t hashValue(const SqlType& t, const void* p) {
  switch (t.id) {
    case TypeId::Bool: return mix(*static_cast<const uint8_t*>(p));
    case TypeId::Int16: { int16_t x; std::memcpy(&x, p, 2); return mix(static_cast<uint64_t>(x)); }
    case TypeId::Int32:
    case TypeId::Date: { int32_t x; std::memcpy(&x, p, 4); return mix(static_cast<uint64_t>(static_cast<int64_t>(x))); }
    case TypeId::Float32: { float x; std::memcpy(&x, p, 4); return mix(std::bit_cast<uint32_t>(canonicalFloat(x))); }
    case TypeId::Float64: { double x; std::memcpy(&x, p, 8); return mix(std::bit_cast<uint64_t>(canonicalFloat(x))); }
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Text: { StringRef s; std::memcpy(static_cast<void*>(&s), p, 16); return hyrax_rt_hash_string(s.lo(), s.hi()); }
    default: { int64_t x; std::memcpy(&x, p, 8); return mix(static_cast<uint64_t>(x)); }
  }
}

template <typename T>
int cmp3(const void* a, const void* b) {
  T x, y;
  std::memcpy(&x, a, sizeof(T));
  std::memcpy(&y, b, sizeof(T));
  return x < y ? -1 : (y < x ? 1 : 0);
}

int compareValue(const SqlType& t, const void* a, const void* b) {
  switch (t.id) {
    case TypeId::Bool: return cmp3<uint8_t>(a, b);
    case TypeId::Int16: return cmp3<int16_t>(a, b);
    case TypeId::Int32:
    case TypeId::Date: return cmp3<int32_t>(a, b);
    case TypeId::Float32: { float x, y; std::memcpy(&x, a, 4); std::memcpy(&y, b, 4); return compareFloats(x, y); }
    case TypeId::Float64: { double x, y; std::memcpy(&x, a, 8); std::memcpy(&y, b, 8); return compareFloats(x, y); }
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Text: {
      StringRef x, y;
      std::memcpy(static_cast<void*>(&x), a, 16);
      std::memcpy(static_cast<void*>(&y), b, 16);
      int c = x.view().compare(y.view());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default: return cmp3<int64_t>(a, b);
  }
}

// A fixed-width value (not a string) encoded at `at` (ordered_bytes.hpp); returns the end.
uint8_t* encodeFixed(TypeId id, const void* p, uint8_t* at) { return at + putOrderedFixed(id, p, at); }

void encodeValue(const SqlType& t, const void* p, KeyBytes& out) {
  switch (t.id) {
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Text: {
      StringRef s;
      std::memcpy(static_cast<void*>(&s), p, 16);
      for (char c : s.view()) {
        out.push_back(static_cast<uint8_t>(c));
        if (c == 0) out.push_back(1);
      }
      out.push_back(0);
      out.push_back(0);
      return;
    }
    default: {
      const size_t at = out.size();
      out.resize(at + 8);  // one capacity check, then the bytes in place
      out.resize(at + putOrderedFixed(t.id, p, out.data() + at));
      return;
    }
  }
}

}  // namespace

IndexKey::IndexKey(const Table& table, std::vector<uint32_t> columns) : table_(table), columns_(std::move(columns)) {
  uint32_t end = 0;
  for (uint32_t c : columns_) {
    const SqlType& t = table_.columns()[c].type;
    // Equal intervals may differ in their bytes ('1 mon' = '30 days'): keys would need the span.
    if (t.id == TypeId::Interval)
      throw Error(sqlstate::FeatureNotSupported, "an index or key on an INTERVAL column is not supported yet");
    types_.push_back(t.id);
    nullable_ = nullable_ || t.nullable;
    offsets_.push_back(probeBytes_);
    probeBytes_ += t.byteWidth();
    // encodeValue's widths: fixed for all but strings.
    if (end != UINT32_MAX) end = t.isString() ? UINT32_MAX : end + orderedFixedWidth(t.id);
    encodedEnd_.push_back(end);
  }
  int32Words_ = !columns_.empty() && std::all_of(types_.begin(), types_.end(), [](TypeId id) {
    return id == TypeId::Int32 || id == TypeId::Date;
  });
}

const void* IndexKey::valueAt(uint64_t row, uint32_t k) const { return table_.valuePtr(row, columns_[k]); }
const SqlType& IndexKey::typeAt(uint32_t k) const { return table_.columns()[columns_[k]].type; }

template <typename ValueOf>
uint64_t IndexKey::hashKey(ValueOf value) const {
  uint64_t h = 0x2545F4914F6CDD1DULL;
  for (uint32_t k = 0; k < columns_.size(); ++k) h = (h ^ hashValue(typeAt(k), value(k))) * 0x9E3779B97F4A7C15ULL;
  return mix(h);
}

bool IndexKey::rowHasNull(uint64_t row) const {
  if (!nullable_) return false;  // a primary key's columns: every index operation asks
  for (uint32_t c : columns_)
    if (table_.isNull(row, c)) return true;
  return false;
}

uint64_t IndexKey::hashRow(uint64_t row) const {
  return hashKey([&](uint32_t k) { return valueAt(row, k); });
}

uint64_t IndexKey::hashProbe(const uint8_t* probe) const {
  return hashKey([&](uint32_t k) { return static_cast<const void*>(probe + offsets_[k]); });
}

uint32_t IndexKey::firstUnverifiedColumn(size_t bytes) const {
  uint32_t k = 0;
  while (k < encodedEnd_.size() && encodedEnd_[k] <= bytes) ++k;
  return k;
}

bool IndexKey::rowsEqual(uint64_t a, uint64_t b, uint32_t from) const {
  for (uint32_t k = from; k < columns_.size(); ++k)
    if (compareValue(typeAt(k), valueAt(a, k), valueAt(b, k)) != 0) return false;
  return true;
}

bool IndexKey::rowEqualsProbe(uint64_t row, const uint8_t* probe, uint32_t from) const {
  for (uint32_t k = from; k < columns_.size(); ++k)
    if (compareValue(typeAt(k), valueAt(row, k), probe + offsets_[k]) != 0) return false;
  return true;
}

template <typename ValueOf>
uint8_t* IndexKey::encodeFixedColumns(uint32_t columns, ValueOf value, uint8_t* out) const {
  for (uint32_t k = 0; k < columns; ++k) out = encodeFixed(types_[k], value(k), out);
  return out;
}

// Keys of fixed-width columns only (most: integers, dates) grow `out` once and are written in
// place; a key with a string goes value by value.
template <typename ValueOf>
void IndexKey::encode(uint32_t columns, ValueOf value, KeyBytes& out) const {
  if (columns == 0) return;
  if (uint32_t bytes = encodedEnd_[columns - 1]; bytes != UINT32_MAX) {
    size_t at = out.size();
    out.resize(at + bytes, boost::container::default_init);
    encodeFixedColumns(columns, value, out.data() + at);
    return;
  }
  for (uint32_t k = 0; k < columns; ++k) encodeValue(typeAt(k), value(k), out);
}

void IndexKey::encodeRow(uint64_t row, KeyBytes& out) const {
  encode(static_cast<uint32_t>(columns_.size()), [&](uint32_t k) { return valueAt(row, k); }, out);
}

bool IndexKey::encodeFixedProbe(const uint8_t* probe, uint8_t* out, size_t capacity, size_t& size) const {
  if (columns_.empty() || encodedEnd_.back() == UINT32_MAX || encodedEnd_.back() > capacity) return false;
  if (int32Words_) {  // most keys (TPC-C's all): 4-byte words in the probe, encodeFixed's bytes
    for (uint32_t at = 0; at < probeBytes_; at += 4) {
      uint32_t x;
      std::memcpy(&x, probe + at, 4);
      x = __builtin_bswap32(x ^ 0x80000000u);
      if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap32(x);
      std::memcpy(out + at, &x, 4);
    }
    size = probeBytes_;
    return true;
  }
  uint32_t columns = static_cast<uint32_t>(columns_.size());
  auto value = [&](uint32_t k) { return static_cast<const void*>(probe + offsets_[k]); };
  size = static_cast<size_t>(encodeFixedColumns(columns, value, out) - out);
  return true;
}

void IndexKey::encodeProbe(const uint8_t* probe, uint32_t columns, KeyBytes& out) const {
  encode(columns, [&](uint32_t k) { return static_cast<const void*>(probe + offsets_[k]); }, out);
}

void IndexKey::writeProbe(uint64_t row, uint8_t* out) const {
  for (uint32_t k = 0; k < columns_.size(); ++k) std::memcpy(out + offsets_[k], valueAt(row, k), typeAt(k).byteWidth());
}

}  // namespace hyrax
