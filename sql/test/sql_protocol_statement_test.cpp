// The extended query protocol's statements (Connection::prepareStatement, describeStatement,
// executeStatement, closeStatement): what a PostgreSQL server's Parse, Describe, Bind/Execute and
// Close do with them.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "sql/api/database.hpp"
#include "sql/test/result_text.hpp"
#include "test/sqlstate_of.hpp"

using namespace hyrax;
using test::sqlstateOf;
using test::allText;

TEST_CASE("a prepared SELECT is described without running, then runs with parameters", "[protocol]") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE t (id INTEGER, name VARCHAR(20), price DECIMAL(8,2))");
  con.execute("INSERT INTO t VALUES (1, 'one', 1.50), (2, 'two', 2.25), (3, NULL, 3.00)");
  Connection::StatementDescription d =
      con.prepareStatement("q", "SELECT name, price * 2 AS double_price FROM t WHERE id >= $1 AND price < $2 ORDER BY id");
  REQUIRE(d.parameters.size() == 2);
  CHECK(d.parameters[0].id == TypeId::Int32);    // inferred from id
  CHECK(d.parameters[1].id == TypeId::Decimal);  // from price
  CHECK(d.parameters[1].scale == 2);
  REQUIRE(d.columns.size() == 2);
  CHECK(d.columnsKnown);
  CHECK(d.columns[0].name == "name");
  CHECK(d.columns[0].type.id == TypeId::Varchar);
  CHECK(d.columns[1].name == "double_price");
  CHECK(d.columns[1].type.id == TypeId::Decimal);
  CHECK(con.describeStatement("q").columns.size() == 2);

  QueryResult r = con.executeStatement("q", {Value::int32(2), Value::decimal(1000, 8, 2)});
  CHECK(r.tag() == "SELECT 2");
  CHECK(allText(r) == "two\nNULL\n");
  CHECK(r.text(0, 1) == "4.50");
  // Values of other types are CAST to the parameter's (text as a client's text format sends it).
  r = con.executeStatement("q", {Value::string("1"), Value::string("2.00")});
  CHECK(allText(r) == "one\n");
  CHECK(sqlstateOf([&] { con.executeStatement("q", {Value::string("x"), Value::string("2")}); }) == "22P02");
  // NULL: no row matches.
  CHECK(con.executeStatement("q", {Value::null(SqlType::int32()), Value::string("9")}).rowCount() == 0);
}

TEST_CASE("declared parameter types win over inference; an untypable parameter is 42P18", "[protocol]") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE t (a INTEGER, b TEXT)");
  auto d = con.prepareStatement("", "SELECT $1 + a FROM t", {SqlType::int64()});
  REQUIRE(d.parameters.size() == 1);
  CHECK(d.parameters[0].id == TypeId::Int64);
  CHECK(d.columns[0].type.id == TypeId::Int64);
  // A gap (no OID given, 0 in Parse) is inferred.
  d = con.prepareStatement("", "INSERT INTO t VALUES ($1, $2)", {std::nullopt, SqlType::text()});
  REQUIRE(d.parameters.size() == 2);
  CHECK(d.parameters[0].id == TypeId::Int32);
  CHECK(d.parameters[1].id == TypeId::Text);
  CHECK(d.columns.empty());
  CHECK(con.executeStatement("", {Value::int32(7), Value::null(SqlType::text())}).tag() == "INSERT 0 1");
  CHECK(allText(con.execute("SELECT a FROM t WHERE b IS NULL")) == "7\n");
  // Neither declared nor typed by its place: TEXT, as PostgreSQL does for SELECT $1 (it refuses
  // $2 IS NULL with 42P18; hyrax takes it as text too).
  d = con.prepareStatement("", "SELECT $1, $2 IS NULL, a FROM t WHERE a = $3");
  REQUIRE(d.parameters.size() == 3);
  CHECK(d.parameters[0].id == TypeId::Text);
  CHECK(d.parameters[1].id == TypeId::Text);
  CHECK(d.parameters[2].id == TypeId::Int32);  // its place types it
  CHECK(d.columns[0].type.id == TypeId::Text);
  QueryResult r = con.executeStatement("", {Value::string("x"), Value::null(SqlType::text()), Value::int32(7)});
  CHECK(r.text(0, 0) == "x");
  CHECK(r.text(0, 1) == "true");
  // Compiled again after a schema change (from the cache's entry too), with the same types.
  con.prepareStatement("", "SELECT $1 FROM t");
  CHECK(con.prepareStatement("untyped", "SELECT $1 FROM t").times.codegen == 0);
  con.execute("CREATE INDEX ta ON t (a)");
  CHECK(allText(con.executeStatement("untyped", {Value::string("y")})) == "y\n");
}

TEST_CASE("the unnamed statement is replaced, named ones must be closed first", "[protocol]") {
  Database db;
  Connection con(db);
  con.prepareStatement("", "SELECT 1 AS one");
  CHECK(con.describeStatement("").columns[0].name == "one");
  con.prepareStatement("", "SELECT 2 AS two");
  CHECK(con.describeStatement("").columns[0].name == "two");
  CHECK(allText(con.executeStatement("", {})) == "2\n");
  // A Parse that fails still drops the unnamed statement before it.
  CHECK(sqlstateOf([&] { con.prepareStatement("", "SELECT nothere"); }) == "42703");
  CHECK(sqlstateOf([&] { con.executeStatement("", {}); }) == "26000");
  con.prepareStatement("s", "SELECT 3");
  CHECK(sqlstateOf([&] { con.prepareStatement("s", "SELECT 4"); }) == "42P05");
  con.closeStatement("s");
  con.closeStatement("s");  // closing what is not there is no error (Close in PostgreSQL)
  CHECK(sqlstateOf([&] { con.executeStatement("s", {}); }) == "26000");
  CHECK(sqlstateOf([&] { con.describeStatement("s"); }) == "26000");
  con.prepareStatement("s", "SELECT 4");
  CHECK(allText(con.executeStatement("s", {})) == "4\n");
}

TEST_CASE("a wrong number of parameters is a protocol violation", "[protocol]") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE t (a INTEGER)");
  con.prepareStatement("ins", "INSERT INTO t VALUES ($1)");
  CHECK(sqlstateOf([&] { con.executeStatement("ins", {}); }) == "08P01");
  CHECK(sqlstateOf([&] { con.executeStatement("ins", {Value::int32(1), Value::int32(2)}); }) == "08P01");
  con.prepareStatement("begin", "BEGIN");
  CHECK(sqlstateOf([&] { con.executeStatement("begin", {Value::int32(1)}); }) == "08P01");
  CHECK(allText(con.execute("SELECT count(*) FROM t")) == "0\n");
}

TEST_CASE("DDL, SET and transaction control go through prepared statements too", "[protocol]") {
  Database db;
  Connection con(db);
  auto d = con.prepareStatement("", "CREATE TABLE t (a INTEGER)");
  CHECK(d.parameters.empty());
  CHECK(d.columns.empty());
  CHECK(con.executeStatement("", {}).tag() == "CREATE TABLE");
  d = con.prepareStatement("", "SHOW statement_timeout");
  REQUIRE(d.columns.size() == 1);
  CHECK(d.columns[0].name == "statement_timeout");
  CHECK(con.executeStatement("", {}).columns().size() == 1);
  CHECK(con.prepareStatement("", "EXPLAIN SELECT a FROM t").columns[0].name == "QUERY PLAN");

  con.prepareStatement("begin", "BEGIN");
  con.prepareStatement("rollback", "ROLLBACK");
  con.prepareStatement("commit", "COMMIT");
  con.prepareStatement("ins", "INSERT INTO t VALUES ($1)");
  CHECK(con.executeStatement("begin", {}).tag() == "BEGIN");
  CHECK(con.transactionState() == Connection::TransactionState::InBlock);
  con.executeStatement("ins", {Value::int32(1)});
  CHECK(con.executeStatement("rollback", {}).tag() == "ROLLBACK");
  CHECK(allText(con.execute("SELECT count(*) FROM t")) == "0\n");

  // A failed execute fails the block; only its end is accepted, also through Parse.
  con.executeStatement("begin", {});
  con.executeStatement("ins", {Value::int32(1)});
  CHECK(sqlstateOf([&] { con.executeStatement("ins", {Value::string("nan?")}); }) == "22P02");
  CHECK(con.transactionState() == Connection::TransactionState::Failed);
  CHECK(sqlstateOf([&] { con.executeStatement("ins", {Value::int32(2)}); }) == "25P02");
  CHECK(sqlstateOf([&] { con.prepareStatement("", "SELECT 1"); }) == "25P02");
  con.prepareStatement("", "ROLLBACK");
  CHECK(con.executeStatement("commit", {}).tag() == "ROLLBACK");
  CHECK(con.transactionState() == Connection::TransactionState::Idle);
  CHECK(allText(con.execute("SELECT count(*) FROM t")) == "0\n");

  // An error while preparing inside a block fails it too, as in PostgreSQL.
  con.executeStatement("begin", {});
  CHECK(sqlstateOf([&] { con.prepareStatement("", "SELECT nothere FROM t"); }) == "42703");
  CHECK(con.transactionState() == Connection::TransactionState::Failed);
  con.executeStatement("rollback", {});
}

TEST_CASE("errors of prepared statements keep SQLSTATE and position", "[protocol]") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE t (a INTEGER)");
  try {
    con.prepareStatement("", "SELECT a,\n  nothere FROM t");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "42703");
    CHECK(e.pos().line == 2);
    CHECK(e.pos().column == 3);
  }
  try {
    con.prepareStatement("", "SELEC 1");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "42601");
    CHECK(e.pos().line == 1);
    CHECK(e.pos().column == 1);
  }
  con.prepareStatement("div", "SELECT 10 / $1 FROM t", {SqlType::int32()});
  con.execute("INSERT INTO t VALUES (1)");
  CHECK(sqlstateOf([&] { con.executeStatement("div", {Value::int32(0)}); }) == "22012");
}

TEST_CASE("the same text prepared again reuses its code; a schema change compiles again", "[protocol]") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE t (a INTEGER)");
  con.execute("INSERT INTO t VALUES (5)");
  const char* q = "SELECT a + $1 FROM t";
  CHECK(con.prepareStatement("", q).times.codegen > 0);
  CHECK(con.prepareStatement("", q).times.codegen == 0);
  CHECK(con.prepareStatement("", q, {SqlType::int64()}).times.codegen > 0);  // other declared types: other code
  CHECK(allText(con.executeStatement("", {Value::int64(1)})) == "6\n");
  // Compiled against the old schema, run after a change: compiled again, same result type.
  con.prepareStatement("keep", q);
  con.execute("CREATE INDEX ta ON t (a)");
  CHECK(allText(con.executeStatement("keep", {Value::int32(2)})) == "7\n");
  // A result type that changed cannot be given to a client that decodes by the old one.
  con.execute("DROP TABLE t");
  con.execute("CREATE TABLE t (a BIGINT)");
  CHECK(sqlstateOf([&] { con.executeStatement("keep", {Value::int32(2)}); }) == "0A000");
}

TEST_CASE("the statements clients send most take their parameters' types from where they stand", "[protocol]") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE t (a INTEGER PRIMARY KEY, b VARCHAR(10), c TIMESTAMP)");
  auto d = con.prepareStatement("ins", "INSERT INTO t (a, b, c) VALUES ($1, $2, $3)");
  REQUIRE(d.parameters.size() == 3);
  CHECK(d.parameters[2].id == TypeId::Timestamp);
  for (int i = 1; i <= 5; ++i)
    con.executeStatement("ins", {Value::int32(i), Value::string("v" + std::to_string(i)), Value::string("2024-01-0" + std::to_string(i))});
  d = con.prepareStatement("sel", "SELECT a, b FROM t WHERE a BETWEEN $1 AND $2 ORDER BY a");
  REQUIRE(d.parameters.size() == 2);
  CHECK(d.parameters[1].id == TypeId::Int32);
  CHECK(allText(con.executeStatement("sel", {Value::int32(2), Value::int64(3)})) == "2\n3\n");
  // LIMIT $n: BIGINT, as PostgreSQL types it.
  d = con.prepareStatement("", "SELECT a FROM t ORDER BY a LIMIT $1");
  REQUIRE(d.parameters.size() == 1);
  CHECK(d.parameters[0].id == TypeId::Int64);
  CHECK(allText(con.executeStatement("", {Value::int64(2)})) == "1\n2\n");
  d = con.prepareStatement("upd", "UPDATE t SET b = $1 WHERE a = $2");
  CHECK(d.parameters[0].id == TypeId::Varchar);
  CHECK(con.executeStatement("upd", {Value::string("new"), Value::int32(3)}).tag() == "UPDATE 1");
  CHECK(sqlstateOf([&] { con.executeStatement("upd", {Value::string("much too long"), Value::int32(3)}); }) == "22001");
  CHECK(con.prepareStatement("", "DELETE FROM t WHERE a = $1").parameters[0].id == TypeId::Int32);
  CHECK(con.executeStatement("", {Value::int32(5)}).tag() == "DELETE 1");
  CHECK(con.prepareStatement("", "SELECT count(*) FROM t WHERE b LIKE $1").parameters[0].isString());
  CHECK(allText(con.executeStatement("", {Value::string("v%")})) == "3\n");
  CHECK(con.prepareStatement("", "SELECT $1::int + 1").parameters[0].id == TypeId::Int32);
  CHECK(allText(con.executeStatement("", {Value::string("41")})) == "42\n");
  CHECK(con.prepareStatement("", "SELECT c FROM t WHERE c > $1").parameters[0].id == TypeId::Timestamp);
  CHECK(allText(con.executeStatement("", {Value::string("2024-01-03")})) == "2024-01-04 00:00:00\n");
}

TEST_CASE("CALL p($1, ...) and SELECT f($1) take their parameters' types from the routine", "[protocol]") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE stock (item INTEGER, qty INTEGER, note VARCHAR(10))");
  con.execute("CREATE PROCEDURE restock(i INTEGER, n INTEGER, why VARCHAR(10)) AS $$ BEGIN "
              "INSERT INTO stock VALUES (i, n, why); END $$ LANGUAGE plpgsql");
  con.execute("CREATE FUNCTION twice(x BIGINT) RETURNS BIGINT AS $$ BEGIN RETURN 2 * x; END $$ LANGUAGE plpgsql");
  // Parameters and constants mixed, out of order; a text value cast to the parameter's type.
  Connection::StatementDescription d = con.prepareStatement("r", "CALL restock($2, 5, $1)");
  REQUIRE(d.parameters.size() == 2);
  CHECK(d.parameters[0].id == TypeId::Varchar);
  CHECK(d.parameters[1].id == TypeId::Int32);
  con.executeStatement("r", {Value::string("first"), Value::int32(7)});
  con.executeStatement("r", {Value::null(SqlType::varchar(10)), Value::string("8")});
  CHECK(allText(con.execute("SELECT CAST(item AS VARCHAR(9)) || '|' || CAST(qty AS VARCHAR(9)) || '|' || "
                            "COALESCE(note, 'NULL') FROM stock ORDER BY item")) == "7|5|first\n8|5|NULL\n");
  d = con.prepareStatement("f", "SELECT twice($1)");
  REQUIRE(d.parameters.size() == 1);
  CHECK(d.parameters[0].id == TypeId::Int64);
  CHECK(con.executeStatement("f", {Value::int64(21)}).text(0, 0) == "42");
  // The routine's own errors, a wrong kind of call, a missing routine, a wrong count.
  CHECK(sqlstateOf([&] { con.executeStatement("f", {Value::string("x")}); }) == "22P02");
  CHECK(sqlstateOf([&] { con.prepareStatement("", "SELECT restock($1, 1, 'a')"); }) == "42809");
  CHECK(sqlstateOf([&] { con.prepareStatement("", "CALL nothere($1)"); }) == "42883");
  CHECK(sqlstateOf([&] { con.prepareStatement("", "CALL restock($1, 1)"); }) == "42883");
  CHECK(sqlstateOf([&] { con.executeStatement("r", {Value::string("a")}); }) == "08P01");
  // Without parameters a CALL still runs as text.
  con.prepareStatement("plain", "CALL restock(9, 1, 'x')");
  con.executeStatement("plain", {});
  CHECK(allText(con.execute("SELECT count(*) FROM stock")) == "3\n");
}
