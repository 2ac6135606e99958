#include "engine/storage/statistics.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>
#include <cmath>
#include <cstring>

#include "engine/storage/table.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/util/machine_cores.hpp"

namespace hyrax {

namespace {

uint64_t mix(uint64_t x) {  // a 64-bit finalizer: every input bit moves every output bit
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDULL;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ULL;
  return x ^ (x >> 33);
}

// One multiply and shift per 8 bytes, then the finalizer once: HyperLogLog needs well-spread bits
// at the end, not a full mix per word (which made hashing a sixth of a COPY's work).
uint64_t hashBytes(const char* p, uint32_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
  uint32_t i = 0;
  auto step = [&h](uint64_t w) {
    h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 29;
  };
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    step(w);
  }
  if (i < n) {
    uint64_t w = 0;
    std::memcpy(&w, p + i, n - i);
    step(w);
  }
  return mix(h);
}

constexpr uint32_t kHllBits = 12, kHllRegisters = 1u << kHllBits;

double numeric(const SqlType& t, const char* p) {
  switch (t.id) {
    case TypeId::Bool:
    case TypeId::Int16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return t.id == TypeId::Bool ? static_cast<uint8_t>(*p) : v;
    }
    case TypeId::Int32:
    case TypeId::Date: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case TypeId::Int64:
    case TypeId::Decimal:
    case TypeId::Timestamp:
    case TypeId::Time: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
    case TypeId::Float32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case TypeId::Float64: {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    default: return 0;
  }
}

}  // namespace

namespace {

ColumnStatistics columnStatistics(Table& t, uint32_t c) {
  const SqlType& type = t.columns()[c].type;
  const uint32_t width = type.byteWidth();
  ColumnStatisticsBuilder builder(type);
  for (uint32_t k = 0; k < t.chunkCount(); ++k) {
    const char* data = static_cast<const char*>(t.columnData(k, c));
    const uint8_t* nullBits = t.nullBitmap(k, c);
    const uint32_t n = t.chunkRows(k);
    for (uint32_t r = 0; r < n; ++r)
      builder.add(data + static_cast<size_t>(r) * width, nullBits && (nullBits[r >> 3] >> (r & 7) & 1));
  }
  return builder.finish(t.rowCount());
}

}  // namespace

ColumnStatisticsBuilder::ColumnStatisticsBuilder(const SqlType& type)
    : type_(type), width_(type.byteWidth()), min_(INFINITY), max_(-INFINITY), registers_(kHllRegisters, 0) {}
ColumnStatisticsBuilder::~ColumnStatisticsBuilder() = default;
ColumnStatisticsBuilder::ColumnStatisticsBuilder(ColumnStatisticsBuilder&&) noexcept = default;

void ColumnStatisticsBuilder::add(const void* value, bool isNull) {
  if (isNull) {
    ++nulls_;
    return;
  }
  const char* p = static_cast<const char*>(value);
  uint64_t h;
  if (type_.isVarBytes()) {
    StringRef sr;
    std::memcpy(static_cast<void*>(&sr), p, sizeof(sr));
    h = hashBytes(sr.data(), sr.len);
  } else if (width_ > sizeof(uint64_t)) {  // INTERVAL's two words: its days and months count too
    h = hashBytes(p, width_);
  } else {
    uint64_t bits = 0;
    std::memcpy(&bits, p, width_);
    h = mix(bits);
    if (type_.isNumeric() || (type_.isDateTime())) {
      // Finite values only: a float column's Infinity and -Infinity made the range infinite, and
      // estimates from it NaN ((c - min) / (max - min)), on which the planner passed over an
      // index range scan for a 20-row range; NaN compares false and never entered.
      const double v = numeric(type_, p);
      if (std::isfinite(v)) {
        min_ = std::min(min_, v);
        max_ = std::max(max_, v);
      }
    }
  }
  // HyperLogLog: the register named by the top bits keeps the longest run of leading zeros after.
  uint32_t idx = static_cast<uint32_t>(h >> (64 - kHllBits));
  uint64_t rest = h << kHllBits;
  auto rank = static_cast<uint8_t>(rest == 0 ? 64 - kHllBits + 1 : __builtin_clzll(rest) + 1);
  if (rank > registers_[idx]) registers_[idx] = rank;
}

void ColumnStatisticsBuilder::merge(const ColumnStatisticsBuilder& other) {
  nulls_ += other.nulls_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  for (size_t i = 0; i < registers_.size(); ++i) registers_[i] = std::max(registers_[i], other.registers_[i]);
}

ColumnStatistics ColumnStatisticsBuilder::finish(uint64_t rows) const {
  const double m = kHllRegisters;
  double sum = 0;
  uint32_t zeros = 0;
  for (uint8_t r : registers_) {
    sum += std::ldexp(1.0, -r);
    zeros += r == 0;
  }
  double estimate = 0.7213 / (1 + 1.079 / m) * m * m / sum;
  if (estimate <= 2.5 * m && zeros) estimate = m * std::log(m / zeros);  // small ranges: linear counting
  ColumnStatistics cs;
  uint64_t nonNull = rows - nulls_;
  cs.distinct = std::min(static_cast<double>(nonNull), std::max(nonNull ? 1.0 : 0.0, std::round(estimate)));
  cs.nullFraction = rows ? static_cast<double>(nulls_) / static_cast<double>(rows) : 0;
  cs.hasRange = nonNull > 0 && (type_.isNumeric() || type_.isDateTime()) && min_ <= max_;  // (not all NaN or infinite)
  cs.min = min_;
  cs.max = max_;
  return cs;
}

// Below this many rows a column's statistics take well under a millisecond, less than starting
// a thread for it.
constexpr uint64_t kParallelMinRows = 100'000;

TableStatistics gatherStatistics(const Table& table) {
  auto& t = const_cast<Table&>(table);  // chunk accessors are non-const; nothing is written
  TableStatistics s;
  s.rows = t.rowCount();
  const auto columns = static_cast<uint32_t>(t.columns().size());
  s.columns.resize(columns);
  // Columns are independent and only read: one thread per core takes the next column.
  std::atomic<uint32_t> next{0};
  auto work = [&] {
    for (uint32_t c; (c = next.fetch_add(1)) < columns;) s.columns[c] = columnStatistics(t, c);
  };
  unsigned threads = std::min(machineCores(), columns);
  if (s.rows < kParallelMinRows) threads = 1;
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  return s;
}

}  // namespace hyrax
