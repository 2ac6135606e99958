// Prepared queries (the extended query protocol's Parse/Bind/Execute, and PREPARE/EXECUTE) on
// snapshots: one that reads a big table runs there with its parameters, a point query stays on
// the executor, and in a READ ONLY block every one reads the block's snapshot.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sql/api/database.hpp"
#include "sql/test/result_text.hpp"
#include "sql/test/same_answer.hpp"

using namespace hyrax;
using test::allText;
using test::checkSame;

namespace {
void fillBig(Connection& con) {
  con.execute("CREATE TABLE big (id INTEGER PRIMARY KEY, g INTEGER, amount DECIMAL(10,2), f DOUBLE PRECISION, "
              "name VARCHAR(20), day DATE)");
  con.execute("INSERT INTO big VALUES (1, 1, 1.25, 0.5, 'one', DATE '2024-01-01')");
  // 65,536 rows (past the 50,000 a scan needs to count as big)
  for (int i = 0; i < 16; ++i)
    con.execute("INSERT INTO big SELECT id + (SELECT max(id) FROM big), (id * 7) % 13, amount + 1, f * 1.5, "
                "name || 'x', day + 1 FROM big");
  con.execute("ANALYZE big");
}
}  // namespace

TEST_CASE("a prepared query over a big table runs on a snapshot with its parameters; a point query stays inline") {
  Database db;
  Connection con(db);
  fillBig(con);
  const std::string report =
      "SELECT g, count(*), sum(amount), sum(f), min(name), max(day) FROM big "
      "WHERE amount > $1 AND name LIKE $2 AND day >= $3 AND f < $4 AND g <> $5 GROUP BY g ORDER BY g";
  con.prepareStatement("report", report, {});
  const std::vector<Value> args = {Value::string("3.5"), Value::string("one%"), Value::string("2024-01-03"),
                                   Value::string("1e300"), Value::string("5")};
  QueryResult onSnapshot = con.executeStatement("report", args);
  CHECK(onSnapshot.ranOn.snapshotAgeMs >= 0);
  Connection inl(db);
  inl.execute("SET analytics = 'inline'");
  inl.prepareStatement("report", report, {});
  QueryResult inlineResult = inl.executeStatement("report", args);
  CHECK(inlineResult.ranOn.snapshotAgeMs < 0);
  CHECK(inlineResult.rowCount() == 12);
  checkSame(onSnapshot, inlineResult);
  // A NULL parameter travels as NULL: no row has amount > NULL.
  QueryResult none = con.executeStatement("report", {Value(), Value::string("one%"), Value::string("2024-01-03"),
                                                     Value::string("1"), Value::string("5")});
  CHECK(none.ranOn.snapshotAgeMs >= 0);
  CHECK(none.rowCount() == 0);
  // A point query through the primary key: on the executor, where it takes microseconds.
  con.prepareStatement("point", "SELECT name FROM big WHERE id = $1", {});
  QueryResult point = con.executeStatement("point", {Value::string("3")});
  CHECK(point.ranOn.snapshotAgeMs < 0);
  CHECK(allText(point) == "onex\n");
  // Inside a transaction block that writes, the report runs inline and sees the block's writes.
  con.execute("BEGIN");
  con.execute("DELETE FROM big WHERE g = 1");
  QueryResult inBlock = con.executeStatement("report", args);
  CHECK(inBlock.ranOn.snapshotAgeMs < 0);
  CHECK(inBlock.rowCount() == 11);
  con.execute("ROLLBACK");
}

TEST_CASE("a prepared query in a READ ONLY block reads the block's snapshot, compiled there when the snapshot is older") {
  Database db;
  Connection con(db), writer(db);
  fillBig(con);
  con.execute("BEGIN READ ONLY");
  CHECK(allText(con.execute("SELECT count(*) FROM big")) == "65536\n");  // pins the block's snapshot
  writer.execute("INSERT INTO big VALUES (100000, 1, 1, 1, 'late', DATE '2024-01-01')");
  // Prepared after the block's snapshot was forked: its code is not in that snapshot, so the
  // worker compiles the text for the parameters' types. A point query too reads the snapshot.
  con.prepareStatement("count", "SELECT count(*) FROM big WHERE id >= $1", {});
  QueryResult inBlock = con.executeStatement("count", {Value::int32(1)});
  CHECK(inBlock.ranOn.snapshotAgeMs >= 0);
  CHECK(allText(inBlock) == "65536\n");
  con.prepareStatement("point", "SELECT name FROM big WHERE id = $1", {});
  CHECK(allText(con.executeStatement("point", {Value::int32(100000)})) == "");
  con.execute("COMMIT");
  CHECK(allText(con.executeStatement("count", {Value::int32(1)})) == "65537\n");
  CHECK(allText(con.executeStatement("point", {Value::int32(100000)})) == "late\n");
}

TEST_CASE("EXECUTE of a prepared SELECT reads a big table on a snapshot, and a READ ONLY block's snapshot in the block") {
  Database db;
  Connection con(db), writer(db);
  fillBig(con);
  con.execute("PREPARE report (INTEGER, TEXT) AS SELECT g, count(*), sum(amount) FROM big WHERE g <> $1 AND name LIKE $2 "
              "GROUP BY g ORDER BY g");
  QueryResult onSnapshot = con.execute("EXECUTE report (5, 'one%')");
  CHECK(onSnapshot.ranOn.snapshotAgeMs >= 0);
  Connection inl(db);
  inl.execute("SET analytics = 'inline'");
  inl.execute("PREPARE report (INTEGER, TEXT) AS SELECT g, count(*), sum(amount) FROM big WHERE g <> $1 AND name LIKE $2 "
              "GROUP BY g ORDER BY g");
  QueryResult inlineResult = inl.execute("EXECUTE report (5, 'one%')");
  CHECK(inlineResult.ranOn.snapshotAgeMs < 0);
  CHECK(inlineResult.rowCount() == 12);
  checkSame(onSnapshot, inlineResult);
  con.execute("PREPARE point (INTEGER) AS SELECT name FROM big WHERE id = $1");
  QueryResult point = con.execute("EXECUTE point (3)");
  CHECK(point.ranOn.snapshotAgeMs < 0);  // a point query stays on the executor
  CHECK(allText(point) == "onex\n");
  // In a READ ONLY block: the block's snapshot, for a statement prepared after it was forked too
  // (the worker compiles the PREPARE's statement), and for a point query.
  con.execute("BEGIN READ ONLY");
  CHECK(allText(con.execute("SELECT count(*) FROM big")) == "65536\n");
  writer.execute("INSERT INTO big VALUES (100000, 1, 1, 1, 'late', DATE '2024-01-01')");
  con.execute("PREPARE total (INTEGER) AS SELECT count(*) FROM big WHERE id >= $1");
  CHECK(allText(con.execute("EXECUTE total (1)")) == "65536\n");
  CHECK(allText(con.execute("EXECUTE point (100000)")) == "");
  con.execute("COMMIT");
  CHECK(allText(con.execute("EXECUTE total (1)")) == "65537\n");
  CHECK(allText(con.execute("EXECUTE point (100000)")) == "late\n");
}
