// A result is read after its statement's turn (a server sends it then), when another session's
// statements may have dropped, emptied or changed what its strings pointed into. Each case keeps
// a result, lets the other connection DROP or change the table, then reads every value; long
// strings (over 12 bytes) point outside the 16-byte value. Meant for the `asan` preset too,
// which reports a read of freed memory that a release build may read by luck.
#include <catch2/catch.hpp>

#include <string>

#include "sql/api/database.hpp"
#include "sql/test/result_text.hpp"

using namespace hyrax;
using test::allText;

namespace {

const std::string kLong1 = "the first string, longer than twelve bytes";
const std::string kLong2 = "the second string, longer than twelve bytes";

// Two sessions on one database, queries inline (a snapshot's answer is a copy of its own) and a
// table t(k, s) of two long strings.
struct TwoSessions {
  Database db;
  Connection con{db}, other{db};
  TwoSessions() {
    con.execute("SET analytics = 'inline'");
    con.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, s TEXT)");
    con.execute("INSERT INTO t VALUES (1, '" + kLong1 + "'), (2, '" + kLong2 + "')");
  }
  // What reuses freed memory: a new table's strings.
  void dropAndReuse(const std::string& dropSql = "DROP TABLE t") {
    other.execute(dropSql);
    other.execute("CREATE TABLE filler (s TEXT)");
    other.execute("INSERT INTO filler VALUES ('" + std::string(200, 'z') + "')");
  }
};

}  // namespace

TEST_CASE("a protocol statement's result keeps its strings after another session drops the table") {
  TwoSessions s;
  s.con.prepareStatement("q", "SELECT s, k FROM t WHERE k >= $1 ORDER BY k", {});
  QueryResult r = s.con.executeStatement("q", {Value::int32(1)});
  s.dropAndReuse();
  CHECK(allText(r) == kLong1 + "\n" + kLong2 + "\n");
}

TEST_CASE("an EXECUTE'd statement's result and its string parameter outlive a DROP") {
  TwoSessions s;
  s.con.execute("PREPARE q(TEXT) AS SELECT s, $1 FROM t WHERE k = 2");
  const std::string param = "a parameter longer than twelve bytes";
  QueryResult r = s.con.execute("EXECUTE q('" + param + "')");
  s.con.execute("DEALLOCATE q");
  s.dropAndReuse();
  REQUIRE(r.rowCount() == 1);
  CHECK(r.text(0, 0) == kLong2);
  CHECK(r.text(0, 1) == param);
}

TEST_CASE("strings a query computed, sorted, grouped or joined outlive a DROP of their tables") {
  TwoSessions s;
  s.con.execute("CREATE TABLE u (k INTEGER, s TEXT)");
  s.con.execute("INSERT INTO u VALUES (1, 'u''s first long string, over twelve'), (2, 'u''s second long string, over twelve')");
  s.con.execute("CREATE VIEW v AS SELECT k, s FROM t WHERE k > 1");
  QueryResult joined = s.con.execute("SELECT t.s, u.s FROM t JOIN u ON t.k = u.k ORDER BY t.k");
  QueryResult grouped = s.con.execute("SELECT min(s), max(s), string_agg(s || '', '|') FROM t WHERE k = 2 OR s = 'none'");
  QueryResult distinct = s.con.execute("SELECT DISTINCT upper(s) AS x FROM t ORDER BY x");
  QueryResult viewed = s.con.execute("SELECT s FROM v");
  QueryResult cte = s.con.execute("WITH c AS (SELECT s || '!' AS x FROM t) SELECT x FROM c ORDER BY x");
  s.other.execute("DROP VIEW v");
  s.other.execute("DROP TABLE u");
  s.dropAndReuse();
  REQUIRE(joined.rowCount() == 2);
  CHECK(joined.text(1, 0) == kLong2);
  CHECK(joined.text(1, 1) == "u's second long string, over twelve");
  CHECK(grouped.text(0, 0) == kLong2);
  CHECK(grouped.text(0, 1) == kLong2);
  CHECK(grouped.text(0, 2) == kLong2);
  CHECK(allText(distinct) == "THE FIRST STRING, LONGER THAN TWELVE BYTES\nTHE SECOND STRING, LONGER THAN TWELVE BYTES\n");
  CHECK(allText(viewed) == kLong2 + "\n");
  CHECK(allText(cte) == kLong1 + "!\n" + kLong2 + "!\n");
}

TEST_CASE("a result of a table created and rolled back in the same block outlives the rollback") {
  Database db;
  Connection con(db);
  con.execute("SET analytics = 'inline'");
  con.execute("BEGIN");
  con.execute("CREATE TABLE t (s TEXT)");
  con.execute("INSERT INTO t VALUES ('" + kLong1 + "')");
  QueryResult r = con.execute("SELECT s FROM t");
  con.execute("ROLLBACK");
  con.execute("CREATE TABLE t (s TEXT)");
  con.execute("INSERT INTO t VALUES ('" + std::string(100, 'q') + "')");
  CHECK(allText(r) == kLong1 + "\n");
}

TEST_CASE("a result's strings keep the values they had after an UPDATE or DELETE of their rows") {
  TwoSessions s;
  QueryResult r = s.con.execute("SELECT s FROM t ORDER BY k");
  s.other.execute("UPDATE t SET s = s || ' and then some more characters' WHERE k = 1");
  s.other.execute("DELETE FROM t WHERE k = 2");
  s.other.execute("INSERT INTO t VALUES (3, '" + std::string(300, 'y') + "')");
  CHECK(allText(r) == kLong1 + "\n" + kLong2 + "\n");
}

TEST_CASE("stored functions' string results outlive a DROP of the table and the function") {
  TwoSessions s;
  // A value read from the table, one passed in, and one a query made, each returned; and a
  // function that a query calls per row.
  s.con.execute("CREATE FUNCTION from_table(n INTEGER) RETURNS TEXT AS $$ DECLARE v TEXT; BEGIN "
                "SELECT s INTO v FROM t WHERE k = n; RETURN v; END $$ LANGUAGE plpgsql");
  s.con.execute("CREATE FUNCTION echo(x TEXT) RETURNS TEXT AS $$ BEGIN RETURN x; END $$ LANGUAGE plpgsql");
  s.con.execute("CREATE FUNCTION looped() RETURNS TEXT AS $$ DECLARE v TEXT; r RECORD; BEGIN "
                "FOR r IN SELECT s FROM t ORDER BY k LOOP v := r.s; END LOOP; RETURN v; END $$ LANGUAGE plpgsql");
  const std::string arg = "an argument longer than twelve bytes";
  QueryResult read = s.con.execute("SELECT from_table(2)");
  QueryResult echoed = s.con.execute("SELECT echo('" + arg + "')");
  QueryResult called = s.con.call("echo", {Value::string(arg)});
  QueryResult looped = s.con.execute("SELECT looped()");
  QueryResult perRow = s.con.execute("SELECT from_table(k) FROM t ORDER BY k");
  s.other.execute("DROP FUNCTION from_table");
  s.other.execute("DROP FUNCTION echo");
  s.other.execute("DROP FUNCTION looped");
  s.dropAndReuse();
  CHECK(read.text(0, 0) == kLong2);
  CHECK(echoed.text(0, 0) == arg);
  CHECK(called.text(0, 0) == arg);
  CHECK(looped.text(0, 0) == kLong2);
  CHECK(allText(perRow) == kLong1 + "\n" + kLong2 + "\n");
}

TEST_CASE("a snapshot's answer outlives a DROP of the table it read") {
  Database db;
  Connection con(db), other(db);
  con.execute("CREATE TABLE t (k INTEGER, s TEXT)");
  con.execute("INSERT INTO t VALUES (1, '" + kLong1 + "'), (2, '" + kLong2 + "')");
  con.execute("SET analytics = 'snapshot'");
  QueryResult r = con.execute("SELECT s FROM t ORDER BY k");
  other.execute("DROP TABLE t");
  CHECK(allText(r) == kLong1 + "\n" + kLong2 + "\n");
}
