#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <regex>
#include <thread>

#include "engine/catalog/catalog.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/txn/undo_log.hpp"
#include "sql/api/database.hpp"
#include "sql/test/result_text.hpp"
#include "sql/api/procedure.hpp"

using namespace hyrax;
using test::allText;

TEST_CASE("results carry names, types, tags and phase times") {
  Database db;
  Connection con(db);
  CHECK(con.execute("CREATE TABLE t (a INTEGER, b DECIMAL(6,2))").tag() == "CREATE TABLE");
  CHECK(con.execute("INSERT INTO t VALUES (1, 2.5), (2, NULL)").tag() == "INSERT 0 2");
  QueryResult r = con.execute("SELECT a AS x, b * 2, count(*) FROM t GROUP BY a, b ORDER BY x");
  REQUIRE(r.columns().size() == 3);
  CHECK(r.columns()[0].name == "x");
  CHECK(r.columns()[1].name == "?column?");
  CHECK(r.columns()[2].name == "count");
  CHECK(r.columns()[1].type.id == TypeId::Decimal);
  CHECK(r.columns()[1].type.scale == 2);
  CHECK(r.tag() == "SELECT 2");
  CHECK(r.text(0, 1) == "5.00");
  CHECK(r.isNull(1, 1));
  CHECK(r.times.execute >= 0);
  CHECK(r.times.codegen > 0);
  // A small query starts in the interpreter; its machine code comes only when worth it.
  con.execute("SET first_tier = 'cheap'");
  CHECK(con.execute("SELECT a FROM t WHERE a > 1").times.machineCode > 0);
}

TEST_CASE("unaliased columns are named as PostgreSQL 15 names them") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE t (a INTEGER, b VARCHAR(5))");
  con.execute("INSERT INTO t VALUES (1, 'x')");
  // Every expected name below is what PostgreSQL 15 printed for the same select list.
  QueryResult r = con.execute(
      "SELECT a::bigint, cast(b AS varchar(3)), 1::int, 2::smallint, 1.5::real, 1.5::double precision, "
      "cast(1.5 AS numeric(3,1)), 'a'::char(2), 'a'::varchar, 'x'::text, DATE '2020-01-01', TIMESTAMP '2020-01-01', "
      "TIME '10:00', INTERVAL '1 day', true::boolean, cast(CASE WHEN true THEN 1 END AS bigint), cast(NULL AS int), "
      "trim(b), trim(LEADING 'x' FROM b), trim(TRAILING FROM b), (SELECT 1::int), (SELECT a FROM t), max(a)::int, "
      "CASE WHEN a > 0 THEN 1 END, a + 1, 1.5 FROM t GROUP BY a, b");
  std::vector<std::string> names;
  for (const auto& c : r.columns()) names.push_back(c.name);
  CHECK(names == std::vector<std::string>{"a",     "b",    "int4",      "int2",     "float4", "float8", "numeric",
                                          "bpchar", "varchar", "text",  "date",     "timestamp", "time", "interval",
                                          "bool",  "int8", "int4",      "btrim",    "ltrim",  "rtrim", "int4",
                                          "a",     "max",  "case",      "?column?", "?column?"});
  // CREATE TABLE AS takes the same names.
  con.execute("CREATE TABLE c AS SELECT 1::int, DATE '2020-01-01', trim(' a ')");
  QueryResult c = con.execute("SELECT * FROM c");
  REQUIRE(c.columns().size() == 3);
  CHECK(c.columns()[0].name == "int4");
  CHECK(c.columns()[1].name == "date");
  CHECK(c.columns()[2].name == "btrim");
  // The string functions, OVERLAY's keyword form included (PostgreSQL 15's names again).
  QueryResult f = con.execute(
      "SELECT overlay('a' PLACING 'b' FROM 1), concat_ws(',', 'a'), regexp_like('a', 'a'), regexp_replace('a', 'a', "
      "'b'), starts_with('a', 'a'), to_hex(1), md5('a'), translate('a', 'a', 'b'), initcap('a'), reverse('a'), "
      "repeat('a', 1)");
  names.clear();
  for (const auto& col : f.columns()) names.push_back(col.name);
  CHECK(names == std::vector<std::string>{"overlay", "concat_ws", "regexp_like", "regexp_replace", "starts_with", "to_hex",
                                          "md5", "translate", "initcap", "reverse", "repeat"});
}

TEST_CASE("results span many chunks") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE t (a INTEGER)");
  con.execute("INSERT INTO t VALUES (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)");
  for (int i = 0; i < 9; ++i) con.execute("INSERT INTO t SELECT a + 1000 FROM t");  // 5120 rows
  QueryResult r = con.execute("SELECT a FROM t ORDER BY a DESC");
  REQUIRE(r.rowCount() == 5120);
  CHECK(r.chunks().size() > 1);
  CHECK(r.value(0, 0).asInt() == 9010);
  CHECK(r.value(5119, 0).asInt() == 1);
}

TEST_CASE("EXPLAIN shows estimates, EXPLAIN ANALYZE actual rows and phases, LLVM and ASM the code") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE a (k INTEGER, v TEXT)");
  con.execute("CREATE TABLE b (k INTEGER)");
  con.execute("INSERT INTO a VALUES (1, 'x'), (2, 'y'), (3, 'z')");
  con.execute("INSERT INTO b VALUES (1), (3)");
  std::string plan = allText(con.execute("EXPLAIN SELECT v FROM a, b WHERE a.k = b.k AND a.k > 1"));
  CHECK(plan.find("HashJoin") != std::string::npos);
  CHECK(plan.find("rows=") != std::string::npos);
  CHECK(plan.find("TableScan a") != std::string::npos);
  std::string analyzed = allText(con.execute("EXPLAIN ANALYZE SELECT v FROM a, b WHERE a.k = b.k"));
  CHECK(analyzed.find("actual=2") != std::string::npos);
  CHECK(analyzed.find("Machine code:") != std::string::npos);
  CHECK(analyzed.find("Execute:") != std::string::npos);
  std::string ir = allText(con.execute("EXPLAIN (LLVM) SELECT count(*) FROM a"));
  CHECK(ir.find("define") != std::string::npos);
  CHECK(ir.find("pipeline") != std::string::npos);
  std::string asmText = allText(con.execute("EXPLAIN (ASM) SELECT count(*) FROM a"));
  CHECK(asmText.find("pipeline") != std::string::npos);
}

// A filter that leaves a column few values (`= constant`, `IN (constants)`) caps that column's
// distinct count above it: groups by it are estimated from what is left (TPC-H Q16: p_size IN (8
// sizes) grouped with 25 brands and 150 types, 100,017 groups estimated for 18,314).
TEST_CASE("EXPLAIN estimates groups by a filtered column from the values the filter leaves") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE f (a INTEGER, b INTEGER, c INTEGER)");
  con.execute("INSERT INTO f SELECT i % 50, i % 40, i FROM generate_series(1, 100000) i");
  con.execute("ANALYZE");
  auto groups = [&](const std::string& where) {
    std::string plan = allText(con.execute("EXPLAIN SELECT a, b, count(*) FROM f " + where + " GROUP BY a, b"));
    INFO(plan);
    std::smatch m;
    REQUIRE(std::regex_search(plan, m, std::regex("HashAggregate[^\\n]*\\(rows=([0-9]+)\\)")));
    return std::stod(m[1]);
  };
  const double all = groups("");
  CHECK(all > 1500);                      // 50 x 40 (HyperLogLog's counts: about)
  CHECK(groups("WHERE a IN (1, 2, 3)") < 200);  // 3 x 40
  CHECK(groups("WHERE a = 7 AND c > 0") < 60);  // 1 x 40
  CHECK(groups("WHERE a = 7 AND b IN (1, 2)") < 5);
  CHECK(groups("WHERE a NOT IN (1, 2, 3)") > 1500);  // no cap: most values are left
  CHECK(groups("WHERE a = 7 OR b = 3") > 1500);      // nor under an OR
}

TEST_CASE("EXPLAIN shows a WITH query read twice once, its reads as scans of it with estimates and actual rows") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE a (k INTEGER, v INTEGER)");
  con.execute("INSERT INTO a VALUES (1, 10), (1, 20), (2, 5), (3, 40), (NULL, 1)");
  con.execute("ANALYZE");  // the estimates: k's 3 values (NULL is a group too: 4 actual rows)
  const char* q = "WITH r AS (SELECT k, sum(v) AS total FROM a GROUP BY k) "
                  "SELECT x.k, y.total FROM r x JOIN r y ON x.k = y.k + 1";
  std::string plan = allText(con.execute(std::string("EXPLAIN ") + q));
  INFO(plan);
  CHECK(plan.find("Materialize r (k, sum)  (rows=3)") != std::string::npos);
  CHECK(plan.find("TableScan a") == plan.rfind("TableScan a"));  // computed once
  CHECK(plan.find("CteScan r AS x  (rows=3)") != std::string::npos);
  CHECK(plan.find("CteScan r AS y  (rows=3)") != std::string::npos);
  std::string analyzed = allText(con.execute(std::string("EXPLAIN ANALYZE ") + q));
  INFO(analyzed);
  CHECK(analyzed.find("Materialize r (k, sum)  (rows=3 actual=4)") != std::string::npos);
  CHECK(analyzed.find("CteScan r AS x  (rows=3 actual=4)") != std::string::npos);
  CHECK(analyzed.find("CteScan r AS y  (rows=3 actual=4)") != std::string::npos);
  // Read once: inlined, as a derived table (the filter reaches the scan).
  std::string once = allText(con.execute("EXPLAIN WITH r AS (SELECT k, v FROM a) SELECT v FROM r WHERE k = 2"));
  INFO(once);
  CHECK(once.find("CteScan") == std::string::npos);
  CHECK(once.find("With") == std::string::npos);
  CHECK(once.find("Filter k = 2") != std::string::npos);
  // Not read: bound (its errors count) but not in the plan.
  std::string unread = allText(con.execute("EXPLAIN WITH r AS (SELECT k, v FROM a), u AS (SELECT v / 0 FROM a) SELECT v FROM r"));
  INFO(unread);
  CHECK(unread.find("CteScan") == std::string::npos);
  CHECK(unread.find("With") == std::string::npos);
  CHECK(unread.find("/") == std::string::npos);
}

namespace {
// `sql` fails with 42703 at `line`, `column`.
void checkUndefinedColumnAt(Connection& con, const std::string& sql, uint32_t line, uint32_t column) {
  INFO(sql);
  try {
    con.execute(sql);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "42703");
    CHECK(e.pos().line == line);
    CHECK(e.pos().column == column);
  }
}
}  // namespace

TEST_CASE("errors carry SQLSTATE and the position of the offending name") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE t (a INTEGER)");
  checkUndefinedColumnAt(con, "SELECT a,\n       nothere FROM t", 2, 8);
  // In a WITH query that nothing reads: bound all the same, its error where it is.
  checkUndefinedColumnAt(con, "WITH w AS (SELECT 1 FROM t),\n     u AS (SELECT a, nothere FROM t)\nSELECT 1", 2, 22);
  // A later WITH query of the list is no table there: PostgreSQL's detail says why.
  try {
    con.execute("WITH w AS (SELECT * FROM u), u AS (SELECT 1) SELECT 1");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "42P01");
    CHECK(e.detail() == "There is a WITH item named \"u\", but it cannot be referenced from this part of the query.");
  }
  auto results = con.executeScript("INSERT INTO t VALUES (1); SELECT a FROM t;");
  REQUIRE(results.size() == 2);
  CHECK(results[1].rowCount() == 1);
}

namespace {
// What the shell does on Ctrl-C: cancel the running statement from another thread, 200 ms in.
std::thread cancelSoon(Connection& con) {
  return std::thread([&con] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    con.cancel();
  });
}
// Runs `sql` while another thread cancels it soon after it started: it must fail with 57014.
void runCancelled(Connection& con, const char* sql) {
  std::thread canceller = cancelSoon(con);
  std::string state = "none";
  try {
    con.execute(sql);
  } catch (const Error& e) {
    state = e.sqlstate();
  }
  canceller.join();
  INFO(sql);
  CHECK(state == "57014");
}
}  // namespace

TEST_CASE("a cancelled statement stops with 57014 and the session goes on") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE t (a INTEGER)");
  con.execute("INSERT INTO t VALUES (1),(2),(3)");
  // cancel() before execute() is reset at the start of each statement: this one runs.
  con.cancel();
  CHECK(con.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 3);

  // A cross product of 4000 x 4000 x 4000 rows (6.4e10 combinations, minutes of work) is cancelled
  // from another thread, as the shell does on Ctrl-C, and stops promptly.
  con.execute("CREATE TABLE big (x INTEGER)");
  con.execute("INSERT INTO big SELECT a FROM t");
  for (int i = 0; i < 11; ++i) con.execute("INSERT INTO big SELECT x FROM big");  // 3 * 2^11 rows
  auto start = std::chrono::steady_clock::now();
  runCancelled(con, "SELECT count(*) FROM big b1, big b2, big b3 WHERE b1.x + b2.x + b3.x > 0");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 10);  // generous on a loaded machine; uncancelled it would run for minutes
  CHECK(con.execute("SELECT count(*) FROM big").value(0, 0).asInt() == 3 * 2048);

  // COPY FROM endless input (no line ever ends) is cancelled too, and loads nothing.
  runCancelled(con, "COPY t FROM '/dev/zero'");
  CHECK(con.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 3);

  // An EXCEPTION block never catches a cancel: an endless loop inside one stops, its handler does
  // not run, and the call's writes are undone.
  con.execute("CREATE PROCEDURE spin() AS $$ BEGIN LOOP INSERT INTO t VALUES (0); END LOOP; "
              "EXCEPTION WHEN OTHERS THEN INSERT INTO t VALUES (-1); END $$ LANGUAGE plpgsql");
  runCancelled(con, "CALL spin()");
  CHECK(con.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 3);
}

TEST_CASE("a function's string result stays valid while later calls of it run") {
  // Calls reuse the context (and arena) of the previous call unless a result still holds it.
  Database db;
  Connection con(db);
  con.execute("CREATE FUNCTION label(n INTEGER) RETURNS TEXT AS $$ BEGIN RETURN 'a rather long label number ' || n; "
              "END $$ LANGUAGE plpgsql");
  QueryResult first = con.execute("SELECT label(1)");
  QueryResult second = con.execute("SELECT label(2)");
  std::vector<QueryResult> more;
  for (int i = 3; i < 10; ++i) more.push_back(con.call("label", {Value::int32(i)}));
  CHECK(first.text(0, 0) == "a rather long label number 1");
  CHECK(second.text(0, 0) == "a rather long label number 2");
  CHECK(more.back().text(0, 0) == "a rather long label number 9");
}

// Compiled code calls a stored function through a handle (one per call site): resolved on the
// first call, then used without a lookup until the catalog changes; a replaced function is
// resolved again, a dropped one fails with 42883.
TEST_CASE("a routine handle resolves once and again only after the catalog changed") {
  Database db;
  Connection con(db);
  con.execute("CREATE FUNCTION f(n INTEGER) RETURNS INTEGER AS $$ BEGIN RETURN n + 1; END $$ LANGUAGE plpgsql");
  UndoLog undo;
  sql::SessionRoutines routines(db.routines(), db.catalog(), undo, nullptr);
  QueryContext ctx;
  RoutineHandle handle("f");
  auto call = [&](int32_t n) {
    ValueSlot arg{}, out{};
    std::memcpy(arg.bytes(), &n, sizeof n);
    routines.call(ctx, handle, &arg, 1, &out);
    int32_t v;
    std::memcpy(&v, out.bytes(), sizeof v);
    return v;
  };
  CHECK(call(1) == 2);
  std::shared_ptr<void> first = handle.resolved.lock();
  REQUIRE(first);
  CHECK(call(2) == 3);
  CHECK(handle.resolved.lock() == first);  // no second lookup
  con.execute("CREATE OR REPLACE FUNCTION f(n INTEGER) RETURNS INTEGER AS $$ BEGIN RETURN n * 10; END $$ LANGUAGE plpgsql");
  CHECK(call(2) == 20);
  CHECK(handle.resolved.lock() != first);
  con.execute("DROP FUNCTION f");
  try {
    call(3);
    FAIL("a dropped function ran");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "42883");
  }
  con.execute("CREATE FUNCTION f(n INTEGER) RETURNS INTEGER AS $$ BEGIN RETURN -n; END $$ LANGUAGE plpgsql");
  CHECK(call(4) == -4);
}

TEST_CASE("a procedure called many times keeps giving the same answers") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, s VARCHAR(40))");
  con.execute("CREATE PROCEDURE put(n INTEGER) AS $$ DECLARE total INTEGER := 0; r RECORD; BEGIN "
              "INSERT INTO t VALUES (n, 'row number ' || n || ' with a long text'); "
              "FOR r IN SELECT k FROM t WHERE k <= n LOOP total := total + r.k; END LOOP; "
              "IF total <> n * (n + 1) / 2 THEN RAISE EXCEPTION 'sum % for %', total, n; END IF; END $$ LANGUAGE plpgsql");
  for (int i = 1; i <= 200; ++i) con.call("put", {Value::int32(i)});
  CHECK(con.execute("SELECT count(*), sum(k) FROM t").text(0, 1) == "20100");
  CHECK(con.execute("SELECT s FROM t WHERE k = 137").text(0, 0) == "row number 137 with a long text");
}

// Writes of one row (an INSERT of one VALUES row with parameters, an UPDATE or DELETE by primary
// key) hand their row from the generated code to the table: the same tags, errors with their
// DETAIL lines, and a failed row leaves table and index as they were.
TEST_CASE("one-row writes report their counts and constraint errors, and a failed one leaves nothing") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE p (id INTEGER PRIMARY KEY, name VARCHAR(4) NOT NULL, qty INTEGER CHECK (qty >= 0))");
  con.execute("CREATE TABLE c (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p (id) ON DELETE CASCADE)");
  con.execute("PREPARE ins AS INSERT INTO p VALUES ($1, $2, $3)");
  con.execute("PREPARE child AS INSERT INTO c VALUES ($1, $2)");
  auto error = [&](const std::string& sql) {
    try {
      con.execute(sql);
    } catch (const Error& e) {
      return e.sqlstate() + " " + e.message() + " | " + e.detail();
    }
    return std::string("no error");
  };
  CHECK(con.execute("EXECUTE ins(1, 'a', 5)").tag() == "INSERT 0 1");
  CHECK(con.execute("UPDATE p SET qty = qty + 1 WHERE id = 1").tag() == "UPDATE 1");
  CHECK(con.execute("UPDATE p SET qty = qty + 1 WHERE id = 9").tag() == "UPDATE 0");
  CHECK(con.execute("DELETE FROM p WHERE id = 9").tag() == "DELETE 0");
  CHECK(error("EXECUTE ins(1, 'b', 1)") ==
        "23505 duplicate key value violates unique constraint \"p_pkey\" | Key (id)=(1) already exists.");
  CHECK(error("EXECUTE ins(2, NULL, 1)").starts_with("23502 null value in column \"name\""));
  CHECK(error("EXECUTE ins(2, 'toolong', 1)").starts_with("22001 "));
  CHECK(error("UPDATE p SET qty = -1 WHERE id = 1") ==
        "23514 new row for relation \"p\" violates check constraint \"p_qty_check\" | Failing row contains (1, a, -1).");
  CHECK(error("EXECUTE child(10, 7)") ==
        "23503 insert or update on table \"c\" violates foreign key constraint \"c_pid_fkey\" | "
        "Key (pid)=(7) is not present in table \"p\".");
  CHECK(con.execute("SELECT count(*), sum(qty) FROM p").text(0, 1) == "6");
  CHECK(con.execute("EXECUTE ins(2, 'b', 1)").tag() == "INSERT 0 1");  // the failed rows' key is free
  CHECK(con.execute("SELECT name FROM p WHERE id = 2").text(0, 0) == "b");
  con.execute("BEGIN");
  con.execute("EXECUTE ins(3, 'c', 1)");
  CHECK(con.execute("UPDATE p SET id = 4 WHERE id = 3").tag() == "UPDATE 1");
  con.execute("ROLLBACK");
  CHECK(con.execute("SELECT count(*) FROM p WHERE id >= 3").text(0, 0) == "0");
  CHECK(con.execute("EXECUTE child(10, 1)").tag() == "INSERT 0 1");
  CHECK(con.execute("DELETE FROM p WHERE id = 1").tag() == "DELETE 1");
  CHECK(con.execute("SELECT count(*) FROM c").text(0, 0) == "0");  // cascaded
}

TEST_CASE("a started call runs while the caller goes on, and finishes with its result or error") {
  Database db;
  Connection con(db), other(db);
  con.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v INTEGER)");
  con.execute("CREATE PROCEDURE put(n INTEGER) AS $$ BEGIN INSERT INTO t VALUES (n, n * 10); "
              "IF n < 0 THEN RAISE EXCEPTION 'negative %', n; END IF; END $$ LANGUAGE plpgsql");
  con.execute("CREATE FUNCTION twice(n INTEGER) RETURNS INTEGER AS $$ BEGIN RETURN n * 2; END $$ LANGUAGE plpgsql");
  // Calls started one after another, each prepared while the previous one ran.
  for (int i = 1; i <= 100; ++i) {
    con.startCall("put", {Value::int32(i)});
    CHECK(con.finishCall().tag() == "CALL");
  }
  con.startCall("twice", {Value::int32(21)});
  CHECK(con.finishCall().text(0, 0) == "42");
  // One at a time per connection; other connections are not held up.
  con.startCall("put", {Value::int32(101)});
  CHECK_THROWS_WITH(con.startCall("put", {Value::int32(102)}), Catch::Contains("has not finished"));
  CHECK_THROWS_WITH(con.execute("SELECT 1"), Catch::Contains("has not finished"));
  CHECK_THROWS_WITH(con.call("put", {Value::int32(102)}), Catch::Contains("has not finished"));
  CHECK(other.execute("SELECT count(*) FROM t").rowCount() == 1);
  con.finishCall();
  CHECK_THROWS_WITH(con.finishCall(), Catch::Contains("no call was started"));
  // The error comes from finishCall, and the call's writes are undone.
  con.startCall("put", {Value::int32(-5)});
  try {
    con.finishCall();
    FAIL("the call should have failed");
  } catch (const Error& e) {
    CHECK(std::string(e.sqlstate()) == "P0001");
    CHECK(std::string(e.what()).find("negative -5") != std::string::npos);
  }
  CHECK(con.execute("SELECT count(*), sum(v) FROM t").text(0, 0) == "101");
  CHECK(con.execute("SELECT count(*) FROM t WHERE k = -5").text(0, 0) == "0");
  // A connection dropped with a call under way waits for it first (and `con`, which would
  // otherwise share a snapshot up to 100 ms old, asks for one that shows every commit so far).
  con.execute("SET snapshot_max_age = 0");
  {
    Connection brief(db);
    brief.startCall("put", {Value::int32(500)});
  }
  CHECK(con.execute("SELECT v FROM t WHERE k = 500").text(0, 0) == "5000");
}

TEST_CASE("joins and aggregations over big hash tables (prefetching buckets ahead) give exact answers") {
  // Over 100,000 groups and build rows: the generated code prefetches the bucket a row 16 rows
  // ahead will need. Answers are checked against arithmetic.
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE a (k INTEGER NOT NULL, v INTEGER NOT NULL)");
  con.execute("CREATE TABLE b (k INTEGER NOT NULL, w INTEGER NOT NULL)");
  con.execute("INSERT INTO a VALUES (0, 1)");
  for (int i = 0; i < 18; ++i) con.execute("INSERT INTO a SELECT k + " + std::to_string(1 << i) + ", v FROM a");  // k = 0 .. 2^18-1
  con.execute("INSERT INTO b SELECT k * 2, k FROM a");  // even keys up to 2^19
  con.execute("ANALYZE");
  const int64_t n = int64_t{1} << 18;
  // Grouping 2^18 rows by k % 150000: 150,000 groups.
  QueryResult g = con.execute("SELECT count(*), sum(c), max(c) FROM (SELECT k % 150000 AS m, count(*) AS c FROM a GROUP BY k % 150000) x");
  CHECK(g.text(0, 0) == "150000");
  CHECK(g.text(0, 1) == std::to_string(n));
  CHECK(g.text(0, 2) == "2");
  // Grouping by the key itself, straight from the scan.
  QueryResult h = con.execute("SELECT count(*), sum(s) FROM (SELECT k, sum(v) AS s FROM a GROUP BY k) x");
  CHECK(h.text(0, 0) == std::to_string(n));
  CHECK(h.text(0, 1) == std::to_string(n));
  // A join probing the 2^18-row table with every row of a: the even keys below 2^18 match.
  QueryResult j = con.execute("SELECT count(*), sum(w) FROM a JOIN b ON a.k = b.k");
  CHECK(j.text(0, 0) == std::to_string(n / 2));
  CHECK(j.text(0, 1) == std::to_string((n / 2) * (n / 2 - 1) / 2));
}

TEST_CASE("SQL text and COPY input that are not UTF-8 are refused with 22021, and nothing is stored") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE t (s TEXT, c CHAR(3))");
  auto stateOf = [&](const std::string& sql, Error* out = nullptr) {
    try {
      con.execute(sql);
    } catch (const Error& e) {
      if (out) *out = e;
      return std::string(e.sqlstate());
    }
    return std::string("none");
  };
  Error e("", "");
  CHECK(stateOf("INSERT INTO t VALUES ('ok', 'a'),\n  ('bad \xC3\x28 byte', 'b')", &e) == "22021");
  CHECK(e.message() == "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28");
  CHECK(e.pos().line == 2);
  CHECK(e.pos().column == 9);  // the byte 0xc3
  CHECK(stateOf("SELECT 'x' -- a comment in Latin-1: caf\xE9") == "22021");
  CHECK(stateOf("SELECT '\xED\xA0\x80'") == "22021");  // a surrogate
  CHECK(con.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 0);
  CHECK(con.execute("SELECT 'h\xC3\xA9llo \xF0\x9F\x98\x80'").text(0, 0) == "h\xC3\xA9llo \xF0\x9F\x98\x80");
  // COPY: the file's line and column are named, and no row of the load is kept.
  std::istringstream in("fine\tabc\ncaf\xE9\tx\n");
  con.setCopyStreams(&in, nullptr);
  CHECK(stateOf("COPY t FROM STDIN", &e) == "22021");
  CHECK(e.message().find("line 2") != std::string::npos);
  CHECK(e.message().find("invalid byte sequence for encoding \"UTF8\": 0xe9") != std::string::npos);
  CHECK(con.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 0);
  std::istringstream good("fine\tabc\n\xC3\xA9t\xC3\xA9\tx\n");
  con.setCopyStreams(&good, nullptr);
  CHECK(con.execute("COPY t FROM STDIN").tag() == "COPY 2");
}

TEST_CASE("a result keeps the long strings it shows after their table is dropped") {
  // Long strings (over 12 bytes) in a result point into the table's string heap; a session sends
  // them after its turn, when another session's DROP TABLE may have freed the table.
  Database db;
  Connection con(db), other(db);
  const std::string big(3 << 20, 'x');  // past the first block, into the huge-page blocks too
  con.execute("SET analytics = 'inline'");  // a snapshot's answer is a copy
  con.execute("CREATE TABLE t (k INTEGER, s TEXT)");
  con.execute("INSERT INTO t VALUES (1, 'a string longer than twelve bytes'), (2, '" + big + "')");
  QueryResult r = con.execute("SELECT s FROM t ORDER BY k");
  QueryResult w = con.execute("SELECT s FROM t WHERE k = 1");
  other.execute("DROP TABLE t");
  other.execute("CREATE TABLE u (s TEXT)");
  other.execute("INSERT INTO u VALUES ('another long string that may reuse the memory')");
  CHECK(r.text(0, 0) == "a string longer than twelve bytes");
  CHECK(r.text(1, 0) == big);
  CHECK(w.text(0, 0) == "a string longer than twelve bytes");
}

TEST_CASE("a stored function's string result outlives its table's DROP") {
  Database db;
  Connection con(db), other(db);
  con.execute("SET analytics = 'inline'");
  con.execute("CREATE TABLE t (k INTEGER, s TEXT)");
  con.execute("INSERT INTO t VALUES (1, 'a string longer than twelve bytes')");
  con.execute("CREATE FUNCTION name_of(n INTEGER) RETURNS TEXT AS $$ DECLARE v TEXT; BEGIN SELECT s INTO v FROM t WHERE k = n; RETURN v; END $$ LANGUAGE plpgsql");
  QueryResult r = con.execute("SELECT name_of(1)");
  other.execute("DROP FUNCTION name_of");
  other.execute("DROP TABLE t");
  CHECK(r.text(0, 0) == "a string longer than twelve bytes");
}
