// The statement cache (sql/api/statement_cache.hpp): the same text again runs the code compiled
// the first time, with the data of now; a schema change or a table that grew past twofold makes
// it compile again.
#include <catch2/catch.hpp>

#include <string>

#include "sql/api/database.hpp"

using namespace hyrax;

namespace {
bool compiled(const QueryResult& r) { return r.times.codegen > 0; }
}  // namespace

TEST_CASE("the same statement text runs its compiled code again, on the data of now") {
  Database db;
  Connection con(db);
  con.execute("SET analytics = 'inline'");
  con.execute("CREATE TABLE t (a INTEGER)");
  con.execute("INSERT INTO t VALUES (1), (2), (3)");
  const char* q = "SELECT count(*), sum(a) FROM t WHERE a > 1";
  QueryResult first = con.execute(q);
  CHECK(compiled(first));
  CHECK(first.text(0, 1) == "5");
  con.execute("INSERT INTO t VALUES (10)");
  QueryResult second = con.execute(q);
  CHECK_FALSE(compiled(second));
  CHECK(second.text(0, 0) == "3");
  CHECK(second.text(0, 1) == "15");
  // Another text (one more space) compiles; so does the same text at another place of a script.
  CHECK(compiled(con.execute("SELECT count(*),  sum(a) FROM t WHERE a > 1")));
  CHECK(compiled(con.execute(q, SourcePos{3, 1})));
  // A schema change: compiled again, against the new schema.
  con.execute("CREATE INDEX ta ON t (a)");
  QueryResult third = con.execute(q);
  CHECK(compiled(third));
  CHECK(third.text(0, 1) == "15");
  // A table that grew more than twofold (and by more than 1,000 rows): compiled again.
  CHECK_FALSE(compiled(con.execute(q)));
  for (int i = 0; i < 12; ++i) con.execute("INSERT INTO t SELECT a + 100 FROM t");
  QueryResult grown = con.execute(q);
  CHECK(compiled(grown));
  CHECK(grown.text(0, 0) == "16383");
  // Another compile tier is another entry.
  con.execute("SET compile_tier = 'cheap'");
  CHECK(compiled(con.execute(q)));
  CHECK_FALSE(compiled(con.execute(q)));
  // Off: every run compiles.
  con.execute("SET statement_cache = off");
  CHECK(compiled(con.execute(q)));
  CHECK(compiled(con.execute(q)));
}

TEST_CASE("a cached statement whose table was dropped and made again compiles against the new one") {
  Database db;
  Connection con(db);
  con.execute("SET analytics = 'inline'");
  con.execute("CREATE TABLE t (a INTEGER)");
  con.execute("INSERT INTO t VALUES (1)");
  CHECK(con.execute("SELECT a FROM t").text(0, 0) == "1");
  con.execute("DROP TABLE t");
  con.execute("CREATE TABLE t (x VARCHAR(5), a INTEGER)");
  con.execute("INSERT INTO t VALUES ('z', 7)");
  QueryResult r = con.execute("SELECT a FROM t");
  CHECK(compiled(r));
  CHECK(r.text(0, 0) == "7");
}
