// The ordered index against a brute-force model: random appends and deletes (which move the last
// row into the hole) through engine/txn, then range, prefix and point queries in both directions
// must return exactly the rows a scan of the table finds, in key order (ties by row number).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <tuple>

#include "engine/index/art_index.hpp"
#include "engine/storage/table.hpp"
#include "engine/txn/table_ops.hpp"
#include "engine/txn/undo_log.hpp"
#include "engine/types/string_ref.hpp"

using namespace hyrax;

namespace {

// Keys (a INT, s TEXT): few distinct values of `a` (many shared prefixes, Node4 up to Node256),
// strings with long shared prefixes (compressed paths longer than one node holds), embedded NUL
// bytes and the empty string; negative and extreme integers.
struct Fixture {
  Table t{"t", {{"a", SqlType::int32(true)}, {"s", SqlType::text(false)}}};
  ArtIndex* idx;
  UndoLog undo;
  std::mt19937 rng{7};
  Fixture() {
    idx = static_cast<ArtIndex*>(&t.addIndex(std::make_unique<ArtIndex>("t_a_s", t, std::vector<uint32_t>{0, 1}, false)));
  }
  int32_t randomA() {
    static const int32_t extremes[] = {INT32_MIN, -1, 0, 1, INT32_MAX};
    if (rng() % 10 == 0) return extremes[rng() % 5];
    return static_cast<int32_t>(rng() % 300) - 150;
  }
  std::string randomS() {
    static const std::string stems[] = {"", "x", "same-long-prefix-of-many-bytes-", std::string("nul\0in", 6), "zz"};
    std::string s = stems[rng() % 5];
    int extra = static_cast<int>(rng() % 4);
    for (int i = 0; i < extra; ++i) s += static_cast<char>('a' + rng() % 3);
    return s;
  }
  void append() {
    Value row[2] = {rng() % 20 == 0 ? Value::null(SqlType::int32()) : Value::int32(randomA()), Value::string(randomS())};
    uint64_t first = t.rowCount();
    t.appendRow(row);
    txn::finishAppend(undo, t, first);
  }
  // Rows of the table whose key lies in the range, in key order, by brute force.
  std::vector<uint64_t> expected(bool hasLo, int32_t lo, bool loIncl, bool hasHi, int32_t hi, bool hiIncl,
                                 const std::string* s, bool reverse) {
    std::vector<std::pair<std::pair<int32_t, std::string>, uint64_t>> rows;
    for (uint64_t r = 0; r < t.rowCount(); ++r) {
      if (t.isNull(r, 0)) continue;
      int32_t a = static_cast<int32_t>(t.getValue(r, 0).asInt());
      std::string str = t.getValue(r, 1).asString();
      if (hasLo && (loIncl ? a < lo : a <= lo)) continue;
      if (hasHi && (hiIncl ? a > hi : a >= hi)) continue;
      if (s && str != *s) continue;
      rows.push_back({{a, str}, r});
    }
    std::sort(rows.begin(), rows.end());
    std::vector<uint64_t> out;
    for (auto& r : rows) out.push_back(r.second);
    if (reverse) std::reverse(out.begin(), out.end());
    return out;
  }
};

// A probe: a INT then s TEXT, as generated code lays it out.
struct Probe {
  uint8_t bytes[20] = {};
  Probe(int32_t a, const std::string* s = nullptr) {
    std::memcpy(bytes, &a, 4);
    if (s) {
      StringRef r = StringRef::make(*s);
      std::memcpy(bytes + 4, static_cast<const void*>(&r), 16);
    }
  }
};

}  // namespace

TEST_CASE("the ordered index returns exactly the rows in a key range, in key order") {
  Fixture f;
  for (int round = 0; round < 30; ++round) {
    int adds = static_cast<int>(f.rng() % 400), dels = static_cast<int>(f.rng() % 300);
    for (int i = 0; i < adds; ++i) f.append();
    for (int i = 0; i < dels && f.t.rowCount() > 0; ++i) txn::removeRow(f.t, f.rng() % f.t.rowCount());
    uint64_t nonNull = 0;
    for (uint64_t r = 0; r < f.t.rowCount(); ++r) nonNull += !f.t.isNull(r, 0);
    REQUIRE(f.idx->size() == nonNull);
    REQUIRE_NOTHROW(f.idx->nodeCounts());  // every node's tag in step after the splits and merges
    for (int q = 0; q < 40; ++q) {
      bool hasLo = f.rng() % 3 != 0, hasHi = f.rng() % 3 != 0, loIncl = f.rng() % 2, hiIncl = f.rng() % 2;
      bool reverse = f.rng() % 2;
      int32_t lo = f.randomA(), hi = f.randomA();
      Probe pl(lo), ph(hi);
      KeyBound low{pl.bytes, hasLo ? 1u : 0u, loIncl}, high{ph.bytes, hasHi ? 1u : 0u, hiIncl};
      std::vector<uint64_t> got;
      f.idx->forEachInRange(low, high, reverse, [&](uint64_t r) {
        got.push_back(r);
        return true;
      });
      REQUIRE(got == f.expected(hasLo, lo, loIncl, hasHi, hi, hiIncl, nullptr, reverse));
      // The same range stopped after three rows: its first three.
      std::vector<uint64_t> firstThree;
      f.idx->forEachInRange(low, high, reverse, [&](uint64_t r) {
        firstThree.push_back(r);
        return firstThree.size() < 3;
      });
      got.resize(std::min<size_t>(got.size(), 3));
      REQUIRE(firstThree == got);
    }
    // Equality on the first column (a prefix of the key), both directions, stopped early too.
    for (int q = 0; q < 40; ++q) {
      int32_t a = f.randomA();
      bool reverse = f.rng() % 2;
      Probe p(a);
      KeyBound k{p.bytes, 1, true};
      std::vector<uint64_t> got, firstTwo;
      f.idx->forEachInRange(k, k, reverse, [&](uint64_t r) {
        got.push_back(r);
        return true;
      });
      REQUIRE(got == f.expected(true, a, true, true, a, true, nullptr, reverse));
      f.idx->forEachInRange(k, k, reverse, [&](uint64_t r) {
        firstTwo.push_back(r);
        return firstTwo.size() < 2;
      });
      got.resize(std::min<size_t>(got.size(), 2));
      REQUIRE(firstTwo == got);
    }
    // Full-key equality (both columns) on keys present and absent.
    for (int q = 0; q < 40; ++q) {
      int32_t a = f.randomA();
      std::string s = f.randomS();
      Probe p(a, &s);
      std::vector<uint64_t> got;
      f.idx->forEachEqual(p.bytes, [&](uint64_t r) { got.push_back(r); });
      auto want = f.expected(true, a, true, true, a, true, &s, false);
      REQUIRE(got == want);
      REQUIRE(f.idx->findFirst(p.bytes) == (want.empty() ? kNoRow : want.front()));
    }
  }
  // Emptied, the tree holds no nodes.
  while (f.t.rowCount() > 0) txn::removeRow(f.t, f.t.rowCount() - 1);
  CHECK(f.idx->size() == 0);
  auto counts = f.idx->nodeCounts();
  CHECK(counts[0] + counts[1] + counts[2] + counts[3] == 0);
}

TEST_CASE("ordered index nodes grow through all four sizes and shrink back") {
  Table t("g", {{"k", SqlType::int64(false)}});
  auto& idx = static_cast<ArtIndex&>(t.addIndex(std::make_unique<ArtIndex>("g_k", t, std::vector<uint32_t>{0}, true)));
  UndoLog undo;
  for (int64_t k = 0; k < 1000; ++k) {
    Value v[1] = {Value::int64(k - 300)};
    t.appendRow(v);
    txn::finishAppend(undo, t, t.rowCount() - 1);
  }
  auto counts = idx.nodeCounts();
  CHECK(counts[3] >= 1);  // 256 children under the last byte: Node256
  // A duplicate is refused and names the row holding the key.
  Value dup[1] = {Value::int64(-300)};
  t.appendRow(dup);
  CHECK(idx.insert(t.rowCount() - 1) == 0);
  t.truncate(t.rowCount() - 1);
  // Thin out to a handful per node: the nodes become smaller kinds.
  for (uint64_t r = t.rowCount(); r-- > 0;)
    if (r % 50 != 0) txn::removeRow(t, r);
  CHECK(idx.size() == 20);
  counts = idx.nodeCounts();
  CHECK(counts[3] == 0);
  CHECK(counts[2] == 0);
  int64_t prev = INT64_MIN;
  uint64_t seen = 0;
  idx.forEachInRange({}, {}, false, [&](uint64_t r) {
    int64_t k = t.getValue(r, 0).asInt();
    CHECK(k > prev);
    prev = k;
    ++seen;
    return true;
  });
  CHECK(seen == 20);
}

TEST_CASE("an ordered index over fixed-width columns of every kind orders as SQL does") {
  // (SMALLINT, DOUBLE, BOOLEAN, DATE, BIGINT): the encoding written in place for keys without a
  // string; a scan of the whole index must give the rows sorted by their values, then row number.
  Table t("f", {{"a", SqlType::int16(false)}, {"b", SqlType::float64(false)}, {"c", SqlType::boolean(false)},
                {"d", SqlType::date(false)}, {"e", SqlType::int64(false)}});
  auto& idx = static_cast<ArtIndex&>(
      t.addIndex(std::make_unique<ArtIndex>("f_all", t, std::vector<uint32_t>{0, 1, 2, 3, 4}, false)));
  UndoLog undo;
  std::mt19937 rng(11);
  const double doubles[] = {-1e300, -2.5, -0.0, 0.0, 1e-9, 3.25, 1e300};
  const int64_t bigs[] = {INT64_MIN, -1, 0, 1, INT64_MAX};
  using Key = std::tuple<int64_t, double, int64_t, int64_t, int64_t>;
  std::vector<std::pair<Key, uint64_t>> want;
  for (int i = 0; i < 600; ++i) {
    auto a = static_cast<int16_t>(static_cast<int>(rng() % 7) - 3 + (rng() % 10 == 0 ? INT16_MIN + 3 : 0));
    double b = doubles[rng() % 7];
    bool c = rng() % 2;
    auto d = static_cast<int32_t>(rng() % 5) - 2;
    int64_t e = bigs[rng() % 5];
    Value row[5] = {Value::int16(a), Value::float64(b), Value::boolean(c), Value::date(d), Value::int64(e)};
    t.appendRow(row);
    txn::finishAppend(undo, t, t.rowCount() - 1);
    want.push_back({{a, b == 0 ? 0.0 : b, c, d, e}, t.rowCount() - 1});
  }
  std::sort(want.begin(), want.end());
  std::vector<uint64_t> got, expected;
  for (auto& w : want) expected.push_back(w.second);
  idx.forEachInRange({}, {}, false, [&](uint64_t r) {
    got.push_back(r);
    return true;
  });
  CHECK(got == expected);
  // Every row found again by its full key.
  uint64_t missed = 0;
  for (uint64_t r = 0; r < t.rowCount(); ++r) {
    uint8_t probe[2 + 8 + 1 + 4 + 8];
    std::memcpy(probe, t.valuePtr(r, 0), 2);
    std::memcpy(probe + 2, t.valuePtr(r, 1), 8);
    std::memcpy(probe + 10, t.valuePtr(r, 2), 1);
    std::memcpy(probe + 11, t.valuePtr(r, 3), 4);
    std::memcpy(probe + 15, t.valuePtr(r, 4), 8);
    bool found = false;
    idx.forEachEqual(probe, [&](uint64_t x) { found = found || x == r; });
    missed += found ? 0 : 1;
  }
  CHECK(missed == 0);
}

TEST_CASE("a unique index over INTEGER and DATE columns finds each row by its key, negative values too") {
  // Such keys are encoded word by word (IndexKey's all-INTEGER path); rows are inserted with the
  // general encoding, so a difference between the two would show as a miss or a wrong row.
  Table t("k", {{"a", SqlType::int32(false)}, {"d", SqlType::date(false)}, {"b", SqlType::int32(false)}});
  auto& idx = static_cast<ArtIndex&>(
      t.addIndex(std::make_unique<ArtIndex>("k_pkey", t, std::vector<uint32_t>{0, 1, 2}, true)));
  UndoLog undo;
  const int32_t values[] = {INT32_MIN, -70000, -256, -1, 0, 1, 255, 256, 65536, INT32_MAX};
  for (int32_t a : values)
    for (int32_t d : {-3, 0, 20000})
      for (int32_t b : values) {
        Value row[3] = {Value::int32(a), Value::date(d), Value::int32(b)};
        t.appendRow(row);
        txn::finishAppend(undo, t, t.rowCount() - 1);
      }
  uint64_t wrong = 0;
  for (uint64_t r = 0; r < t.rowCount(); ++r) {
    uint8_t probe[12];
    std::memcpy(probe, t.valuePtr(r, 0), 4);
    std::memcpy(probe + 4, t.valuePtr(r, 1), 4);
    std::memcpy(probe + 8, t.valuePtr(r, 2), 4);
    wrong += idx.findFirst(probe) == r ? 0 : 1;
  }
  CHECK(wrong == 0);
  int32_t absent[3] = {2, 0, 2};
  CHECK(idx.findFirst(reinterpret_cast<const uint8_t*>(absent)) == kNoRow);
}
