#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/runtime/memory_budget.hpp"
#include "engine/runtime/row_sort.hpp"
#include "engine/types/float_order.hpp"
#include "engine/types/sql_type.hpp"
#include "engine/types/string_ref.hpp"

using namespace hyrax;

namespace {

// A row of every type a key may be, each with a NULL byte after it (as codegen's RowLayout lays
// rows out), compared in SQL's order by a comparator written here from the types' rules.
struct Column {
  TypeId type;
  uint32_t offset;
  uint32_t length;  // CHAR(n)/VARCHAR(n)
};
const std::vector<Column> kColumns = {
    {TypeId::Bool, 0, 0},     {TypeId::Int16, 2, 0},     {TypeId::Int32, 8, 0},    {TypeId::Int64, 16, 0},
    {TypeId::Decimal, 32, 0}, {TypeId::Date, 44, 0},     {TypeId::Float32, 52, 0}, {TypeId::Float64, 64, 0},
    {TypeId::Char, 80, 6},    {TypeId::Varchar, 112, 3}, {TypeId::Text, 144, 0},   {TypeId::Interval, 176, 0},
    {TypeId::Timestamp, 200, 0}};
constexpr uint32_t kRowSize = 216;
uint32_t nullAt(const Column& c) { return c.offset + SqlType{c.type}.byteWidth(); }

template <typename T>
T at(const void* row, uint32_t offset) {
  T v;
  std::memcpy(&v, static_cast<const char*>(row) + offset, sizeof v);
  return v;
}

template <typename T>
int order(T a, T b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

int compareValues(const Column& c, const void* x, const void* y) {
  switch (c.type) {
    case TypeId::Bool: return order(at<uint8_t>(x, c.offset), at<uint8_t>(y, c.offset));
    case TypeId::Int16: return order(at<int16_t>(x, c.offset), at<int16_t>(y, c.offset));
    case TypeId::Int32:
    case TypeId::Date: return order(at<int32_t>(x, c.offset), at<int32_t>(y, c.offset));
    case TypeId::Float32: return compareFloats(at<float>(x, c.offset), at<float>(y, c.offset));
    case TypeId::Float64: return compareFloats(at<double>(x, c.offset), at<double>(y, c.offset));
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Text: {
      const StringRef sa = at<StringRef>(x, c.offset), sb = at<StringRef>(y, c.offset);  // (short ones hold their bytes)
      const std::string_view a = sa.view(), b = sb.view();
      return a < b ? -1 : a > b ? 1 : 0;  // bytes as unsigned, then the shorter first
    }
    case TypeId::Interval: return order(at<int64_t>(x, c.offset), at<int64_t>(y, c.offset));  // a stand-in
    default: return order(at<int64_t>(x, c.offset), at<int64_t>(y, c.offset));
  }
}

std::vector<SortKeyColumn> gKeys;  // the comparator's keys (a RowCompare is a plain function)

int32_t compareRows(const void* x, const void* y) {
  for (const SortKeyColumn& k : gKeys) {
    const Column& c = *std::find_if(kColumns.begin(), kColumns.end(), [&](const Column& c) { return c.offset == k.offset; });
    const bool nx = at<uint8_t>(x, nullAt(c)) != 0, ny = at<uint8_t>(y, nullAt(c)) != 0;
    const bool nullsFirst = (k.kind & kSortNullsFirst) != 0;
    int r;
    if (nx || ny) r = nx && ny ? 0 : nx ? (nullsFirst ? -1 : 1) : (nullsFirst ? 1 : -1);
    else r = compareValues(c, x, y) * ((k.kind & kSortDescending) ? -1 : 1);
    if (r) return r;
  }
  return 0;
}

// Values from small domains, so that keys tie often and the order of ties (stability) shows;
// the edges of each type; strings with shared prefixes, NUL bytes and bytes above 0x7F, shorter and
// longer than the room a key gives them.
struct RowMaker {
  std::mt19937_64 rng;
  std::deque<std::string> strings;
  explicit RowMaker(uint64_t seed) : rng(seed) {}
  uint64_t pick(uint64_t n) { return rng() % n; }

  template <typename T>
  void put(char* row, uint32_t offset, T v) {
    std::memcpy(row + offset, &v, sizeof v);
  }
  std::string text() {
    static const char* kStems[] = {"", "a", "ab", "STANDARD POLISHED ", "STANDARD POLISHED COPPER", "zz"};
    std::string s = kStems[pick(6)];
    for (uint64_t n = pick(4); n > 0; --n) {
      const uint64_t c = pick(5);
      s += c == 0 ? '\0' : c == 1 ? '\xC3' : static_cast<char>('a' + pick(3));
    }
    if (pick(8) == 0) s.append(40, 'x');  // longer than any room
    return s;
  }
  void fill(char* row) {
    std::memset(row, 0, kRowSize);
    for (const Column& c : kColumns) {
      if (pick(6) == 0) {
        row[nullAt(c)] = 1;
        if (pick(2)) continue;  // a NULL's value bytes: zero or left over, the key must not care
      }
      const uint32_t o = c.offset;
      switch (c.type) {
        case TypeId::Bool: put<uint8_t>(row, o, static_cast<uint8_t>(pick(2))); break;
        case TypeId::Int16: {
          const int16_t edges[] = {std::numeric_limits<int16_t>::min(), -1, 0, 1, std::numeric_limits<int16_t>::max()};
          put<int16_t>(row, o, pick(2) ? edges[pick(5)] : static_cast<int16_t>(pick(7)) - 3);
          break;
        }
        case TypeId::Int32:
        case TypeId::Date: {
          const int32_t edges[] = {std::numeric_limits<int32_t>::min(), -256, 0, 255, std::numeric_limits<int32_t>::max()};
          put<int32_t>(row, o, pick(2) ? edges[pick(5)] : static_cast<int32_t>(pick(7)) - 3);
          break;
        }
        case TypeId::Float32: {
          const float edges[] = {-std::numeric_limits<float>::infinity(), -1.5f, -0.0f, 0.0f, 1e-30f, 2.5f,
                                 std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                                 -std::numeric_limits<float>::quiet_NaN()};
          put<float>(row, o, edges[pick(9)]);
          break;
        }
        case TypeId::Float64: {
          const double edges[] = {-std::numeric_limits<double>::infinity(), -1.5, -0.0, 0.0, 1e-300, 2.5,
                                  std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                                  -std::numeric_limits<double>::quiet_NaN()};
          put<double>(row, o, edges[pick(9)]);
          break;
        }
        case TypeId::Char:
        case TypeId::Varchar:
        case TypeId::Text: {
          const std::string& s = strings.emplace_back(text());
          put<StringRef>(row, o, StringRef::make(s));
          break;
        }
        default: {
          const int64_t edges[] = {std::numeric_limits<int64_t>::min(), -1, 0, 1, std::numeric_limits<int64_t>::max()};
          put<int64_t>(row, o, pick(2) ? edges[pick(5)] : static_cast<int64_t>(pick(7)) - 3);
          break;
        }
      }
    }
  }
};

}  // namespace

TEST_CASE("normalized sort keys order rows exactly as the comparator does, ties kept in arrival order") {
  // Key lists at random over every type (intervals are not encoded: a key from there on is a
  // prefix), directions and NULL places, some longer than a key's 64 bytes; rows at random, on one
  // thread and in two runs merged; the order must be the comparator's stable order, row for row.
  std::mt19937_64 rng(7);
  for (int round = 0; round < 60; ++round) {
    gKeys.clear();
    const size_t keyCount = 1 + rng() % 5;
    for (size_t k = 0; k < keyCount; ++k) {
      const Column& c = kColumns[rng() % kColumns.size()];
      const uint32_t kind = static_cast<uint32_t>(c.type) | (rng() % 2 ? kSortDescending : 0) | (rng() % 2 ? kSortNullsFirst : 0);
      gKeys.push_back({kind, c.offset, static_cast<int32_t>(nullAt(c)), c.length});
    }
    const size_t rows = round % 3 == 0 ? 20'000 : 1 + rng() % 3000;
    INFO("round " << round << ", " << keyCount << " keys, " << rows << " rows");
    RowMaker maker(static_cast<uint64_t>(round));
    std::vector<char> data(rows * kRowSize);
    std::vector<void*> order;
    for (size_t i = 0; i < rows; ++i) {
      maker.fill(&data[i * kRowSize]);
      order.push_back(&data[i * kRowSize]);
    }
    std::vector<void*> expected = order;
    std::stable_sort(expected.begin(), expected.end(), [](const void* x, const void* y) { return compareRows(x, y) < 0; });
    const SortKeyEncoder encoder(gKeys.data(), static_cast<uint32_t>(gKeys.size()));
    for (uint32_t threads : {1u, 2u}) {
      INFO(threads << " threads, " << encoder.words() << " words");
      std::vector<void*> sorted = order;
      MemoryBudget budget;
      sortRows(sorted, compareRows, &encoder, threads, &budget);
      CHECK(budget.used() == 0);  // the keys' memory given back
      REQUIRE(sorted == expected);
    }
  }
}

TEST_CASE("normalized sort keys say when they are complete") {
  // An INTEGER and a VARCHAR(3): complete while the string fits its room, not when it is longer;
  // an INTERVAL first is not encoded at all (no words: the comparator sorts alone).
  char row[kRowSize] = {};
  std::string shortText = "ab", longText = "abcd";
  const SortKeyColumn keys[] = {{static_cast<uint32_t>(TypeId::Int32), 8, -1, 0},
                                {static_cast<uint32_t>(TypeId::Varchar), 112, -1, 3}};
  const SortKeyEncoder encoder(keys, 2);
  REQUIRE(encoder.words() == 2);  // 4 bytes, 3 characters and a length, the last byte: 9
  uint64_t key[SortKeyEncoder::kMaxBytes / 8];
  StringRef s = StringRef::make(shortText);
  std::memcpy(row + 112, &s, sizeof s);
  CHECK(encoder.encode(row, key));
  s = StringRef::make(longText);
  std::memcpy(row + 112, &s, sizeof s);
  CHECK_FALSE(encoder.encode(row, key));
  const SortKeyColumn interval[] = {{static_cast<uint32_t>(TypeId::Interval), 176, -1, 0}, keys[0]};
  CHECK(SortKeyEncoder(interval, 2).words() == 0);
}

TEST_CASE("a sort whose keys would pass the memory limit sorts with the comparator alone") {
  // 5,000 rows by an INTEGER: the keys take 48 bytes a row, more than the budget has; the order
  // is still the comparator's, and nothing stays charged.
  gKeys = {{static_cast<uint32_t>(TypeId::Int32) | kSortDescending, 8, static_cast<int32_t>(nullAt(kColumns[2])), 0}};
  RowMaker maker(3);
  std::vector<char> data(5000 * kRowSize);
  std::vector<void*> rows;
  for (size_t i = 0; i < 5000; ++i) {
    maker.fill(&data[i * kRowSize]);
    rows.push_back(&data[i * kRowSize]);
  }
  std::vector<void*> expected = rows;
  std::stable_sort(expected.begin(), expected.end(), [](const void* x, const void* y) { return compareRows(x, y) < 0; });
  const SortKeyEncoder encoder(gKeys.data(), 1);
  REQUIRE(encoder.words() == 1);
  MemoryBudget budget(100'000);
  sortRows(rows, compareRows, &encoder, 1, &budget);
  CHECK(rows == expected);
  CHECK(budget.used() == 0);
}
