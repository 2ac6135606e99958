#include <catch2/catch.hpp>

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

  t.truncate(10);
  CHECK(t.rowCount() == 10);
  CHECK(t.chunkCount() == 1);
  Value row[2] = {Value::int64(-1), Value::string("x")};
  t.appendRow(row);
  CHECK(t.getValue(10, 0).asInt() == -1);
  CHECK_FALSE(t.getValue(10, 1).isNull());  // the reused slot's NULL bit was cleared
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
