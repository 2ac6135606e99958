#include <catch2/catch.hpp>

#include <cstring>

#include "engine/catalog/catalog.hpp"
#include "engine/storage/table.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

TEST_CASE("tables append across chunks and truncate back exactly") {
  Table t("t", {{"a", SqlType::int64(false)}, {"s", SqlType::text(true)}});
  const uint64_t n = Table::kChunkRows + 100;
  for (uint64_t i = 0; i < n; ++i) {
    Value row[2] = {Value::int64(static_cast<int64_t>(i)),
                    i % 3 ? Value::string("value number " + std::to_string(i)) : Value::null(SqlType::text())};
    t.appendRow(row);
  }
  REQUIRE(t.rowCount() == n);
  REQUIRE(t.chunkCount() == 2);
  CHECK(t.getValue(Table::kChunkRows + 5, 0).asInt() == static_cast<int64_t>(Table::kChunkRows + 5));
  CHECK(t.getValue(3, 1).isNull());
  CHECK(t.getValue(4, 1).asString() == "value number 4");
  CHECK(t.nullBitmap(0, 0) == nullptr);  // NOT NULL columns have no bitmap
  // Generated code finds columns from chunkBases and the offsets, not by calls.
  auto inlineLayoutAgrees = [&] {
    bool ok = true;
    for (uint32_t k = 0; k < t.chunkCount(); ++k) {
      char* base = (*t.chunkBases())[k];
      ok = ok && base + t.columnOffset(0) == t.columnData(k, 0) && base + t.columnOffset(1) == t.columnData(k, 1);
      ok = ok && base + t.nullOffset(1) == reinterpret_cast<char*>(t.nullBitmap(k, 1));
    }
    return ok;
  };
  CHECK(inlineLayoutAgrees());
  // Every value survived the first chunk's move to huge pages when it filled, and the strings
  // (2.5 MB of them) span several heap blocks.
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < n; ++i) {
    Value a = t.getValue(i, 0), s = t.getValue(i, 1);
    bool ok = a.asInt() == static_cast<int64_t>(i) &&
              (i % 3 ? !s.isNull() && s.asString() == "value number " + std::to_string(i) : s.isNull());
    wrong += ok ? 0 : 1;
  }
  CHECK(wrong == 0);

  t.truncate(10);
  CHECK(t.rowCount() == 10);
  CHECK(t.chunkCount() == 1);
  CHECK(inlineLayoutAgrees());
  Value row[2] = {Value::int64(-1), Value::string("x")};
  t.appendRow(row);
  CHECK(t.getValue(10, 0).asInt() == -1);
  CHECK_FALSE(t.getValue(10, 1).isNull());  // the reused slot's NULL bit was cleared
  REQUIRE(t.getValue(9, 1).isNull());  // 9 % 3 == 0: NULL
  t.truncate(9);
  t.appendRow(row);
  CHECK_FALSE(t.getValue(9, 1).isNull());  // truncate cleared the bit of the row it took back
}

TEST_CASE("a string longer than a quarter heap block gets a block of its own and the heap goes on") {
  Table t("t", {{"s", SqlType::text(false)}});
  std::string big(3u << 20, 'x'), small = "a string longer than twelve bytes";
  for (const std::string* v : {&small, &big, &small}) {
    Value row[1] = {Value::string(*v)};
    t.appendRow(row);
  }
  CHECK(t.getValue(0, 0).asString() == small);
  CHECK(t.getValue(1, 0).asString() == big);
  CHECK(t.getValue(2, 0).asString() == small);
}

TEST_CASE("the catalog reports duplicate and missing tables") {
  Catalog c;
  c.createTable("a", {{"x", SqlType::int32()}});
  CHECK_THROWS_WITH(c.createTable("a", {}), Catch::Contains("already exists"));
  CHECK_THROWS_WITH(c.dropTable("b"), Catch::Contains("does not exist"));
  CHECK(c.findTable("a") != nullptr);
  c.dropTable("a");
  CHECK(c.findTable("a") == nullptr);
}

TEST_CASE("a row appended value by value (Table::put) reads back as written, NULLs and long strings too") {
  Table t("t", {{"a", SqlType::int32(false)}, {"s", SqlType::text(true)}, {"d", SqlType::date(true)}, {"b", SqlType::boolean(true)}});
  const uint64_t n = Table::kChunkRows + 10;  // into a second chunk
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t row = t.beginRow();
    Table::RowSlot at = t.slotOf(row);
    int32_t a = static_cast<int32_t>(i), d = static_cast<int32_t>(i % 1000);
    uint8_t b = i % 2;
    std::string text = "a long string number " + std::to_string(i);
    StringRef s = StringRef::make(text.data(), static_cast<uint32_t>(i % 3 == 1 ? 5 : text.size()));
    t.put(at, 0, &a);
    t.put(at, 1, i % 3 ? static_cast<const void*>(&s) : nullptr);
    t.put(at, 2, i % 5 ? static_cast<const void*>(&d) : nullptr);
    t.put(at, 3, &b);
  }
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < n; ++i) {
    std::string text = "a long string number " + std::to_string(i);
    Value s = t.getValue(i, 1), d = t.getValue(i, 2);
    bool ok = t.getValue(i, 0).asInt() == static_cast<int64_t>(i) && t.getValue(i, 3).asBool() == (i % 2 == 1);
    ok = ok && (i % 3 ? !s.isNull() && s.asString() == (i % 3 == 1 ? text.substr(0, 5) : text) : s.isNull());
    ok = ok && (i % 5 ? !d.isNull() && d.asInt() == static_cast<int64_t>(i % 1000) : d.isNull());
    wrong += ok ? 0 : 1;
  }
  CHECK(wrong == 0);
  // An UPDATE's overwrite turns NULL into a value and back; save() keeps a value's bytes and NULL.
  Table::RowSlot at = t.slotOf(Table::kChunkRows + 5);  // i = 65541: s is NULL (i % 3 == 0)
  REQUIRE(t.getValue(Table::kChunkRows + 5, 1).isNull());
  StringRef s = StringRef::make("now a long value, not NULL");
  t.overwrite(at, 1, &s);
  CHECK(t.getValue(Table::kChunkRows + 5, 1).asString() == "now a long value, not NULL");
  uint8_t saved[17];
  t.save(at, 1, saved);
  CHECK(saved[16] == 0);
  t.overwrite(at, 1, nullptr);
  CHECK(t.getValue(Table::kChunkRows + 5, 1).isNull());
  t.save(at, 1, saved);
  CHECK(saved[16] == 1);
  int32_t d = 77;
  t.overwrite(at, 2, &d);
  t.save(at, 2, saved);
  int32_t back = 0;
  std::memcpy(&back, saved, 4);
  CHECK((back == 77 && saved[16] == 0));
}

// Table::ascends and runStart (engine/storage/column_order.cpp): what lets the query driver give
// each run of a group key's equal values to one thread. A stale "ascends" after a write would
// split a group between threads, so every kind of write must make the table ask again.
TEST_CASE("a column's ascending order is found, kept until a write, and its runs begin where values change") {
  Table t("t", {{"k", SqlType::int32(false)}, {"n", SqlType::int64(true)}, {"s", SqlType::text(false)}, {"b", SqlType::boolean(false)}});
  // Runs of k: 0 x1, 1 x3, then 2 over 100,000 rows (across a chunk's end), then 3.. of 7 each.
  auto kAt = [](uint64_t r) -> int32_t {
    if (r < 1) return 0;
    if (r < 4) return 1;
    if (r < 100'004) return 2;
    return static_cast<int32_t>(3 + (r - 100'004) / 7);
  };
  const uint64_t n = 2 * Table::kChunkRows + 77;
  for (uint64_t r = 0; r < n; ++r) {
    Value row[4] = {Value::int32(kAt(r)), Value::int64(static_cast<int64_t>(n - r)), Value::string("s"), Value::boolean(r >= n / 2)};
    t.appendRow(row);
  }
  CHECK(t.ascends(0));
  CHECK_FALSE(t.ascends(1));  // falls at every row
  CHECK_FALSE(t.ascends(2));  // strings are never taken to ascend
  CHECK(t.ascends(3));        // false, then true
  // runStart: the first row at or after r whose value differs from the row before it.
  auto expected = [&](uint64_t r) {
    if (r == 0) return uint64_t{0};
    while (r < n && kAt(r) == kAt(r - 1)) ++r;
    return r;
  };
  uint64_t wrong = 0;
  for (uint64_t r : {0ul, 1ul, 2ul, 3ul, 4ul, 5ul, 16'384ul, 65'536ul, 100'003ul, 100'004ul, 100'005ul, 100'010ul, 100'011ul,
                     100'012ul, n - 8, n - 7, n - 1, n})
    wrong += t.runStart(0, r) != expected(r);
  for (uint64_t r = 0; r <= n; r += 997) wrong += t.runStart(0, r) != expected(r);
  CHECK(wrong == 0);
  CHECK(t.runStart(3, 1) == n / 2);  // a boolean's run of half the table
  CHECK(t.runStart(3, n / 2) == n / 2);

  // Every kind of write is seen: an overwrite that makes k fall, and its undo.
  const int32_t low = -5, before = kAt(70'000);
  t.overwriteValue(70'000, 0, &low, false);
  CHECK_FALSE(t.ascends(0));
  t.overwriteValue(70'000, 0, &before, false);
  CHECK(t.ascends(0));
  // An appended row below the last value, then truncated away.
  const uint64_t rows = t.rowCount();
  Value row[4] = {Value::int32(1), Value::int64(1), Value::string("s"), Value::boolean(true)};
  t.appendRow(row);
  CHECK_FALSE(t.ascends(0));
  t.truncate(rows);
  CHECK(t.ascends(0));
  // A delete that moves the last row into a hole.
  t.copyRow(rows - 1, 10);
  CHECK_FALSE(t.ascends(0));
  t.truncate(0);
  CHECK(t.ascends(0));  // no rows: nothing falls

  // A NULL anywhere: not taken to ascend (NULLs are one group wherever they are).
  Table u("u", {{"k", SqlType::int64(true)}});
  for (int64_t r = 0; r < 1000; ++r) {
    Value v[1] = {r == 500 ? Value::null(SqlType::int64()) : Value::int64(r)};
    u.appendRow(v);
  }
  CHECK_FALSE(u.ascends(0));
  const int64_t fill = 500;
  u.overwriteValue(500, 0, &fill, false);
  CHECK(u.ascends(0));
}
