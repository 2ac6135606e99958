// Morsel-driven parallelism (codegen/translate/query_driver.cpp): a query whose
// pipelines run on two threads, each morsel (table chunk) taken by whichever is free and each
// thread filling a sink of its own, answers exactly as on one thread: rows, their order where
// ORDER BY asks, errors, and EXPLAIN ANALYZE's row counts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <regex>
#include <string>

#include "sql/api/database.hpp"

using namespace hyrax;

namespace {

// Every row, every column; rows sorted unless the query orders them.
std::string rows(const QueryResult& r, bool ordered) {
  std::vector<std::string> lines;
  for (uint64_t i = 0; i < r.rowCount(); ++i) {
    std::string s;
    for (size_t c = 0; c < r.columns().size(); ++c) s += (c ? "|" : "") + (r.isNull(i, c) ? "NULL" : r.text(i, c));
    lines.push_back(s);
  }
  if (!ordered) std::sort(lines.begin(), lines.end());
  std::string all;
  for (auto& l : lines) all += l + "\n";
  return all;
}

// 2^19 rows in t (8 table chunks: 8 morsels for each scan), with NULLs, strings and a
// second table for joins that matches some rows.
void load(Connection& con) {
  con.execute("CREATE TABLE t (a BIGINT, g INTEGER, s VARCHAR(20), n INTEGER, d DECIMAL(10,2))");
  con.execute("INSERT INTO t VALUES (0, 0, 'x0', NULL, 0.5)");
  for (int i = 0; i < 19; ++i) {
    std::string a = "(a + " + std::to_string(1 << i) + ")";
    con.execute("INSERT INTO t SELECT " + a + ", " + a + " % 1000, 'x' || (" + a + " % 77), CASE WHEN " + a +
                " % 3 = 0 THEN NULL ELSE " + a + " % 500 END, " + a + " % 10000 / 100.0 FROM t");
  }
  con.execute("CREATE TABLE d (k INTEGER, v VARCHAR(10))");
  con.execute("INSERT INTO d SELECT g + 300, 'v' || g FROM t WHERE a < 1000");
  // A table with a primary key (t's rows) and one that matches each g three times.
  con.execute("CREATE TABLE p (id BIGINT PRIMARY KEY, g INTEGER, s VARCHAR(20))");
  con.execute("INSERT INTO p SELECT a, g, s FROM t");
  con.execute("CREATE TABLE e (k INTEGER, x INTEGER)");
  con.execute("INSERT INTO e SELECT g, a % 11 FROM t WHERE a < 3000");
  con.execute("ANALYZE");  // estimates: 1000 groups of g, so that aggregations go parallel
}

}  // namespace

TEST_CASE("queries on two threads answer as on one", "[parallel]") {
  Database db;
  Connection one(db), two(db);
  load(one);
  for (Connection* c : {&one, &two}) c->execute("SET analytics = 'inline'");
  one.execute("SET threads = 1");
  two.execute("SET threads = 2");
  struct Q {
    const char* sql;
    bool ordered;
  } queries[] = {
      {"SELECT g, sum(a), count(*), count(n), avg(n), min(s), max(s), sum(d), min(d) FROM t GROUP BY g", false},
      {"SELECT count(*), sum(a), avg(d), min(n), max(n) FROM t", true},
      {"SELECT count(*) FROM t WHERE n IS NULL", true},
      {"SELECT s, count(DISTINCT g) FROM t GROUP BY s", false},
      {"SELECT a, s || '-' || upper(s) FROM t WHERE a % 9973 = 1", false},
      {"SELECT a, s FROM t ORDER BY s DESC, a LIMIT 40", true},
      {"SELECT g, a FROM t ORDER BY g, a DESC", true},
      {"SELECT t.a, d.v FROM t JOIN d ON t.g = d.k WHERE t.a % 7 = 0", false},
      {"SELECT d.v, count(t.a) FROM d LEFT JOIN t ON t.g = d.k GROUP BY d.v", false},
      {"SELECT count(*), count(d.k) FROM t LEFT JOIN d ON t.g = d.k", true},
      {"SELECT count(*) FROM t RIGHT JOIN d ON t.g = d.k AND t.a < 100000", true},
      {"SELECT count(*), count(t.a), count(d.k) FROM t FULL JOIN d ON t.g = d.k AND t.n = 7", true},
      {"SELECT count(*) FROM t WHERE EXISTS (SELECT 1 FROM d WHERE d.k = t.g)", true},
      {"SELECT count(*) FROM t WHERE g NOT IN (SELECT k FROM d)", true},
      {"SELECT k FROM d WHERE EXISTS (SELECT 1 FROM t WHERE t.g = d.k AND t.a > 500000)", false},
      {"SELECT g, (SELECT max(a) FROM t t2 WHERE t2.g = t.g) FROM t WHERE a < 50", false},
      {"SELECT a FROM t WHERE g = 3 UNION ALL SELECT a FROM t WHERE g = 4", false},
      {"SELECT g FROM t INTERSECT SELECT k FROM d", false},
      {"SELECT a FROM t WHERE a > 300000 LIMIT 5", false},
      // Many groups: the groups' pipeline (16,384 entries a morsel) runs on both threads too.
      {"SELECT a % 100000, count(*), sum(a), max(s) FROM t GROUP BY 1", false},
      {"SELECT count(*), sum(x.c) FROM (SELECT a % 100000 AS k, count(*) AS c FROM t GROUP BY 1) x JOIN t ON t.a = x.k", true},
      {"SELECT count(*), count(t1.a), count(t2.a) FROM t t1 FULL JOIN t t2 ON t1.a = t2.a + 400000", true},
      // One aggregate fed by a serial pipeline (d: one chunk) and then a parallel one.
      {"SELECT k, count(*) FROM (SELECT k - 300 AS k FROM d UNION ALL SELECT a % 20000 FROM t) u GROUP BY k", false},
      // Many groups (more than a thread's rows / 16): each thread pre-aggregates into a small table
      // that spills its groups into partitions, merged a partition per thread. A group's rows are
      // on both threads and in several spills; NULL keys are one group.
      {"SELECT a, min(s), max(n), count(n) FROM t GROUP BY a", false},
      {"SELECT CASE WHEN a % 7 = 0 THEN NULL ELSE a % 60000 END, count(*), count(n), avg(n), sum(d), avg(d), min(d), max(s) "
       "FROM t GROUP BY 1",
       false},
      {"SELECT s || '/' || (a % 40000), n, count(*), sum(a) FROM t GROUP BY 1, 2", false},
      {"SELECT d + a % 30000, g % 2, count(*), max(a), min(n) FROM t GROUP BY 1, 2", false},
      {"SELECT a % 50000, count(DISTINCT g), sum(DISTINCT n), count(*) FROM t GROUP BY 1", false},
      {"SELECT a % 100000, sum(a), min(s) FROM t GROUP BY 1 HAVING count(*) > 5 AND min(s) < 'x5'", false},
      {"SELECT count(*), count(c), sum(c) FROM (SELECT a % 100000 AS k, count(*) AS c FROM t WHERE a * 3 = 1 GROUP BY 1) x", true},
      {"SELECT count(*), sum(c), max(k) FROM (SELECT a % 100000 AS k, count(*) AS c FROM t GROUP BY 1) x", true},
      // Grouped by the build side's columns: each join entry points at its group, a group of the
      // thread's own table (a d row's t rows are in every chunk: both threads meet each entry).
      {"SELECT d.k, d.v, count(*), sum(t.a), min(t.s) FROM t JOIN d ON t.g = d.k GROUP BY d.k, d.v", false},
      {"SELECT d.k, count(t.a), sum(t.n) FROM d LEFT JOIN t ON t.g = d.k AND t.a % 5 = 0 GROUP BY d.k", false},
      // Grouped by the scanned table's primary key: no two threads make one group (no merge).
      {"SELECT p.id, p.s, count(*), sum(e.x), max(e.x) FROM p JOIN e ON p.g = e.k GROUP BY p.id, p.s", false},
      {"SELECT p.id, count(e.k), min(e.x) FROM p LEFT JOIN e ON p.g = e.k AND e.x > 5 GROUP BY p.id", false},
      {"SELECT p.g % 7, count(*), sum(c) FROM (SELECT p.id, p.g, count(*) AS c FROM p JOIN e ON p.g = e.k GROUP BY p.id, p.g) "
       "p GROUP BY 1",
       false},
      // WITH queries read twice: computed once into a buffer (filled on both threads), every read
      // a pipeline over its rows (on both threads too when they are many).
      {"WITH c AS (SELECT a, g, s FROM t WHERE n IS NOT NULL) SELECT count(*), sum(c1.a), max(c2.s) FROM c c1 JOIN c c2 "
       "ON c1.a = c2.a + 1",
       true},
      {"WITH c AS (SELECT g, count(*) AS n, sum(a) AS s FROM t GROUP BY g) SELECT c1.g, c1.n, c2.s FROM c c1 JOIN c c2 "
       "ON c1.g = c2.g + 1",
       false},
      {"WITH c AS (SELECT a % 1000 AS k, a, n, s FROM t) SELECT k, count(*), sum(n), min(s) FROM c WHERE a < 1000 GROUP BY k "
       "UNION ALL SELECT k, count(*), sum(n), max(s) FROM c WHERE a > 500000 GROUP BY k",
       false},
      // ~21,000 rows: sorted in two runs and merged (row_sort.cpp's kParallelSortRows), by a string first.
      {"SELECT s, a FROM t WHERE a % 25 = 0 ORDER BY s DESC, a", true},
  };
  for (const Q& q : queries) {
    INFO(q.sql);
    std::string expected = rows(one.execute(q.sql), q.ordered);
    CHECK(!expected.empty());
    CHECK(rows(two.execute(q.sql), q.ordered) == expected);
  }
  // Aggregations, joins' builds and probes, sorts and results each ran on two threads somewhere above.
  for (size_t q : {0, 6, 7, 9}) {
    INFO(queries[q].sql);
    CHECK(rows(two.execute(std::string("EXPLAIN ANALYZE ") + queries[q].sql), true).find("Parallel: none") == std::string::npos);
  }
  // Sorted rows into the result on both threads, each morsel's rows a run of chunks put back in
  // the morsels' order (row for row the same above): 524,288 rows, and a sort below a join and a
  // filter. Into a WITH query's buffer they stay on one thread (its readers see that order).
  {
    std::string plan = rows(two.execute(std::string("EXPLAIN ANALYZE ") + queries[6].sql), true);
    INFO(plan);
    CHECK(std::regex_search(plan, std::regex("buffered rows -> result, 2 threads, [0-9]+ morsels")));
    const char* q = "SELECT x.a, x.s, d.v FROM (SELECT a, g, s FROM t ORDER BY s, a DESC) x JOIN d ON x.g = d.k - 300 "
                    "WHERE x.a % 3 <> 0";
    CHECK(rows(two.execute(q), true) == rows(one.execute(q), true));
    const char* cte = "WITH c AS (SELECT a, s FROM t ORDER BY s DESC, a) SELECT a, s FROM c WHERE a < 10 UNION ALL "
                      "SELECT a, s FROM c WHERE a > 500000";
    std::string plan2 = rows(two.execute(std::string("EXPLAIN ANALYZE ") + cte), true);
    INFO(plan2);
    CHECK(std::regex_search(plan2, std::regex("buffered rows -> buffer, 1 thread")));
  }
  // Pipelines that ran on one thread before: the aggregations whose groups join entries point at,
  // probes that only mark the entries they match (a right semi join); and an aggregation grouped by
  // the scanned table's primary key, whose threads' tables are adopted without a merge.
  // (d and e are one slice each, so their builds stay on one thread; p's groups are output by two.)
  struct Ran {
    const char* sql;
    const char* parallel;
  } ran[] = {
      {"SELECT d.k, d.v, count(*), sum(t.a), min(t.s) FROM t JOIN d ON t.g = d.k GROUP BY d.k, d.v", "1 pipeline"},
      {"SELECT d.k, count(t.a), sum(t.n) FROM d LEFT JOIN t ON t.g = d.k AND t.a % 5 = 0 GROUP BY d.k", "1 pipeline"},
      {"SELECT k FROM d WHERE EXISTS (SELECT 1 FROM t WHERE t.g = d.k AND t.a > 500000)", "1 pipeline"},
      {"SELECT p.id, count(e.k), min(e.x) FROM p LEFT JOIN e ON p.g = e.k AND e.x > 5 GROUP BY p.id", "2 pipelines"},
      // A WITH query read twice: the pipeline that fills its buffer and both reads of it.
      {"WITH c AS (SELECT a, g, s FROM t WHERE n IS NOT NULL) SELECT count(*), sum(c1.a), max(c2.s) FROM c c1 JOIN c c2 "
       "ON c1.a = c2.a + 1",
       "3 pipelines"},
  };
  for (const Ran& r : ran) {
    std::string plan = rows(two.execute(std::string("EXPLAIN ANALYZE ") + r.sql), true);
    INFO(plan);
    CHECK(plan.find(std::string("Parallel: ") + r.parallel + " on up to 2 threads") != std::string::npos);
  }
  // Every row its own group (a is unique): the groups are t's rows, on either path.
  CHECK(rows(one.execute("SELECT a, min(s), max(n), count(n) FROM t GROUP BY a"), false) ==
        rows(one.execute("SELECT a, s, n, CASE WHEN n IS NULL THEN 0 ELSE 1 END FROM t"), false));
  // The many groups' aggregation ran on both threads too, not only the pipeline over its groups.
  {
    const char* q = "SELECT count(*), sum(c), max(k) FROM (SELECT a % 100000 AS k, count(*) AS c FROM t GROUP BY 1) x";
    std::string plan = rows(two.execute(std::string("EXPLAIN ANALYZE ") + q), true);
    INFO(plan);
    CHECK(plan.find("Parallel: 2 pipelines on up to 2 threads") != std::string::npos);
    // Each pipeline's line: the scan into the aggregation pre-aggregated on both threads, then
    // its groups into the outer aggregation; at one thread nothing merged.
    CHECK(std::regex_search(plan, std::regex("Pipeline 1: [0-9.]+ ms, table -> aggregation, 2 threads, [0-9]+ morsels, "
                                             "pre-aggregated in partitions, merged \\([0-9.]+ ms\\)")));
    CHECK(std::regex_search(plan, std::regex("Pipeline 2: [0-9.]+ ms, hash entries -> aggregation, 2 threads")));
    std::string plan1 = rows(one.execute(std::string("EXPLAIN ANALYZE ") + q), true);
    INFO(plan1);
    CHECK(std::regex_search(plan1, std::regex("Pipeline 1: [0-9.]+ ms, table -> aggregation, 1 thread, [0-9]+ morsels?\n")));
  }
  // EXPLAIN ANALYZE counts every operator's rows over all threads, and says the pipelines ran on two.
  std::string plan1 = rows(one.execute(std::string("EXPLAIN ANALYZE ") + queries[7].sql), true);
  std::string plan2 = rows(two.execute(std::string("EXPLAIN ANALYZE ") + queries[7].sql), true);
  auto operators = [](const std::string& p) { return p.substr(0, p.find("Result rows")); };
  CHECK(operators(plan1) == operators(plan2));
  CHECK(plan1.find("Parallel: none") != std::string::npos);
  CHECK(plan2.find("Parallel: 1 pipeline on up to 2 threads") != std::string::npos);  // d's one chunk: serial
}

// An aggregation grouped by a join's build columns finds a row's group through the join entry
// (AggregateTranslator::consume): each thread keeps its group's address in a slot of the entry of
// its own (threads modulo the entry's 1, 2 or 4 slots; threads sharing a slot find the other's
// groups by their keys). Every row of t matches one of q's 1,000 entries, in every morsel, so all
// threads meet every entry. The answers are the same grouping without a join, on any number of
// threads (3 and 8: more threads than slots), each tier.
TEST_CASE("groups that join entries point at answer alike on any number of threads", "[parallel]") {
  Database db;
  Connection con(db);
  load(con);
  con.execute("SET analytics = 'inline'");
  con.execute("CREATE TABLE q (g INTEGER, w VARCHAR(10))");
  con.execute("INSERT INTO q SELECT DISTINCT g, 'w' || g FROM t");
  con.execute("ANALYZE q");
  con.execute("SET threads = 1");
  const std::string inner = rows(con.execute("SELECT g, 'w' || g, count(*), sum(a), min(s), count(n) FROM t GROUP BY g"), false);
  const std::string outer =
      rows(con.execute("SELECT q.g, count(t.a), sum(t.n) FROM q LEFT JOIN (SELECT g, a, n FROM t WHERE a % 5 = 0 AND g < 700) t "
                       "ON t.g = q.g GROUP BY q.g"),
           false);
  REQUIRE(std::count(inner.begin(), inner.end(), '\n') == 1000);
  for (const char* tier : {"interpreted", "cheap", "optimized"}) {
    con.execute(std::string("SET compile_tier = '") + tier + "'");
    for (int threads : {1, 2, 3, 4, 8}) {
      INFO(tier << ", threads " << threads);
      con.execute("SET threads = " + std::to_string(threads));
      CHECK(rows(con.execute("SELECT q.g, q.w, count(*), sum(t.a), min(t.s), count(t.n) FROM t JOIN q ON t.g = q.g "
                             "GROUP BY q.g, q.w"),
                 false) == inner);
      CHECK(rows(con.execute("SELECT q.g, count(t.a), sum(t.n) FROM q LEFT JOIN t ON t.g = q.g AND t.a % 5 = 0 AND t.g < 700 "
                             "GROUP BY q.g"),
                 false) == outer);
    }
  }
  // The aggregation ran on more than one thread (not left to one because of the pointers).
  con.execute("SET threads = 2");
  std::string plan = rows(con.execute("EXPLAIN ANALYZE SELECT q.g, count(*) FROM t JOIN q ON t.g = q.g GROUP BY q.g"), true);
  INFO(plan);
  CHECK(std::regex_search(plan, std::regex("table -> aggregation, 2 threads")));
}

TEST_CASE("rows that cost much are handed out in smaller morsels, each row read once", "[parallel]") {
  Database db;
  Connection con(db);
  con.execute("SET analytics = 'inline'");
  // 2^17 + 1 rows: two full table chunks and one row of a third, eight usual morsels and one.
  con.execute("CREATE TABLE h (a BIGINT, s VARCHAR(20))");
  con.execute("INSERT INTO h SELECT x, 'x' || (x % 77) FROM generate_series(0, 131072) x");
  // About a microsecond a row: a usual morsel of 16,384 rows would take some 16 ms.
  const char* heavy = "SELECT count(*), sum(a), min(a), max(a) FROM h WHERE md5(repeat(s, 40)) <> ''";
  con.execute("SET compile_tier = 'optimized'");
  con.execute("SET threads = 2");
  CHECK(rows(con.execute(heavy), true) == "131073|8590000128|0|131072\n");
  std::string plan = rows(con.execute(std::string("EXPLAIN ANALYZE ") + heavy), true);
  INFO(plan);
  std::smatch m;
  REQUIRE(std::regex_search(plan, m, std::regex("Pipeline 1: [0-9.]+ ms, table -> aggregation, 2 threads, ([0-9]+) morsels")));
  CHECK(std::stoi(m[1]) >= 18);  // at least twice the usual nine
  // Morsels of any size cover the rows once, across chunk ends: the same as one call on one thread.
  const char* edges = "SELECT count(*), sum(a), count(DISTINCT a), min(a), max(a) FROM h WHERE md5(s || a) <> 'x'";
  const std::string twoThreads = rows(con.execute(edges), true);
  con.execute("SET threads = 1");
  CHECK(rows(con.execute(edges), true) == twoThreads);
  CHECK(twoThreads == "131073|8590000128|131073|0|131072\n");
  con.execute("SET compile_tier = 'adaptive'");  // morsel by morsel while the tiers may switch
  con.execute("SET statement_cache = 'off'");
  CHECK(rows(con.execute(heavy), true) == "131073|8590000128|0|131072\n");
  // A switch to optimized code inside the parallel pipeline is dated when a worker first ran it,
  // not when the pipeline had ended and the session's thread saw it.
  con.execute("SET threads = 2");
  plan = rows(con.execute(std::string("EXPLAIN ANALYZE ") + heavy), true);
  std::smatch at, p1;
  INFO(plan);
  REQUIRE(std::regex_search(plan, p1, std::regex("Pipeline 1: ([0-9.]+) ms, table -> aggregation, 2 threads")));
  if (std::regex_search(plan, at, std::regex("optimized code \\([0-9.]+ ms in the background\\) from ([0-9.]+) ms into the run")))
    CHECK(std::stod(at[1]) + 0.5 < std::stod(p1[1]));  // at least the optimized morsels' time before the end
}

TEST_CASE("parallel pipelines switch from cheap to optimized code in their middle and answer the same", "[parallel]") {
  setenv("HYRAX_TEST_SWITCH_AFTER_MORSELS", "4", 1);
  Database db;
  Connection two(db);
  unsetenv("HYRAX_TEST_SWITCH_AFTER_MORSELS");
  Connection one(db);
  load(one);
  one.execute("SET analytics = 'inline'");
  one.execute("SET threads = 1");
  one.execute("SET compile_tier = 'optimized'");
  two.execute("SET analytics = 'inline'");
  two.execute("SET threads = 2");
  two.execute("SET compile_tier = 'adaptive'");
  // Cheap code, then optimized code; or the interpreter, then cheap code, then optimized code.
  for (const char* first : {"cheap", "interpreter"}) {
    two.execute(std::string("SET first_tier = '") + first + "'");
    for (const char* q : {"SELECT g, sum(a), count(*), count(n), min(s), max(d) FROM t GROUP BY g",
                          "SELECT count(*), sum(t.a) FROM t JOIN d ON t.g = d.k", "SELECT a, s FROM t ORDER BY s, a LIMIT 30"}) {
      INFO(first << ": " << q);
      const bool ordered = std::string(q).find("ORDER BY") != std::string::npos;
      CHECK(rows(two.execute(q), ordered) == rows(one.execute(q), ordered));
      std::string plan = rows(two.execute(std::string("EXPLAIN ANALYZE ") + q), true);
      INFO(plan);
      CHECK(plan.find(std::string("Compile tiers: ") + first) != std::string::npos);
    }
  }
}

TEST_CASE("a long generate_series runs in morsels: machine code takes over, hash tables fill on two threads, rows keep their order", "[parallel]") {
  setenv("HYRAX_TEST_SWITCH_AFTER_MORSELS", "4", 1);
  Database db;
  Connection con(db);
  unsetenv("HYRAX_TEST_SWITCH_AFTER_MORSELS");
  Connection one(db);
  for (Connection* c : {&con, &one}) c->execute("SET analytics = 'inline'");
  con.execute("SET threads = 2");
  one.execute("SET threads = 1");
  // Before, the whole series was one call: it stayed in the interpreter however long it ran.
  const char* q = "SELECT count(*), sum(g), min(g), max(g) FROM generate_series(1, 1000000) g";
  CHECK(rows(con.execute(q), true) == "1000000|500000500000|1|1000000\n");
  std::string plan = rows(con.execute(std::string("EXPLAIN ANALYZE ") + q), true);
  INFO(plan);
  CHECK(std::regex_search(plan, std::regex("Compile tiers: interpreter first.*cheap code")));
  CHECK(std::regex_search(plan, std::regex("Pipeline 1: [0-9.]+ ms, series -> aggregation, 2 threads, [0-9]+ morsels")));
  // Each morsel makes the VALUES row again; its count stays the one row it has.
  CHECK(std::regex_search(plan, std::regex("Values \\(1 rows\\) +\\(rows=1 actual=1\\)")));
  CHECK(std::regex_search(plan, std::regex("generate_series\\(1, 1000000\\) +\\(rows=1000000 actual=1000000\\)")));
  // Into the result on one thread, in the series' order, as PostgreSQL gives it.
  QueryResult r = con.execute("SELECT g FROM generate_series(-5, 99994) g");
  REQUIRE(r.rowCount() == 100000);
  bool inOrder = true;
  for (uint64_t i = 0; i < r.rowCount(); ++i) inOrder = inOrder && r.text(i, 0) == std::to_string(static_cast<int64_t>(i) - 5);
  CHECK(inOrder);
  // Empty series, NULL bounds, parameters, a join against a table, the same on one thread.
  con.execute("CREATE TABLE t (a BIGINT)");
  con.execute("INSERT INTO t SELECT g * 3 FROM generate_series(1, 200000) g");
  con.execute("PREPARE gs AS SELECT count(*), sum(g) FROM generate_series($1, $2) g");
  one.execute("PREPARE gs AS SELECT count(*), sum(g) FROM generate_series($1, $2) g");
  for (const char* query : {"SELECT count(*), sum(g) FROM generate_series(5, 1) g",
                            "SELECT count(*), sum(g) FROM generate_series(1, CAST(NULL AS INTEGER)) g",
                            "EXECUTE gs(10, 200000)", "EXECUTE gs(200000, 10)", "EXECUTE gs(NULL, 10)",
                            "SELECT count(*), sum(g) FROM t JOIN generate_series(1, 300000) g ON t.a = g",
                            "SELECT g % 7, count(*) FROM generate_series(1, 123456) g GROUP BY g % 7"}) {
    INFO(query);
    CHECK(rows(con.execute(query), false) == rows(one.execute(query), false));
  }
  CHECK(rows(con.execute("EXECUTE gs(10, 200000)"), true) == "199991|20000099955\n");
  CHECK(rows(con.execute("SELECT count(*), sum(g) FROM t JOIN generate_series(1, 300000) g ON t.a = g"), true) ==
        "100000|15000150000\n");
}

TEST_CASE("an error on a helper thread fails the query with its SQLSTATE and changes nothing", "[parallel]") {
  Database db;
  Connection con(db);
  load(con);
  con.execute("SET analytics = 'inline'");
  con.execute("SET threads = 2");
  try {
    con.execute("SELECT sum(100 / (a - 400000)) FROM t");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "22012");
  }
  try {
    con.execute("SELECT sum(a * 4611686018427387904) FROM t WHERE a > 1");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "22003");
  }
  // Many groups, each row's value fine alone: a group's sum overflows wherever its rows meet (a
  // thread's small table, or the merge of its partition).
  try {
    con.execute("SELECT a % 100000, sum(4611686018427387904 + a % 2) FROM t GROUP BY 1");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "22003");
  }
  CHECK(con.execute("SELECT count(*) FROM t").text(0, 0) == "524288");
}

TEST_CASE("a pipeline that calls nextval stays on the session's thread (its sequence session is there)", "[parallel]") {
  Database db;
  Connection con(db);
  load(con);
  con.execute("SET analytics = 'inline'");
  con.execute("SET threads = 2");
  con.execute("CREATE SEQUENCE s");
  const char* q = "SELECT count(*), max(nextval('s')) FROM t";
  QueryResult r = con.execute(q);
  CHECK(r.text(0, 0) == "524288");
  CHECK(r.text(0, 1) == "524288");
  std::string plan = rows(con.execute(std::string("EXPLAIN ANALYZE ") + q), true);
  INFO(plan);
  CHECK(plan.find("Parallel: none") != std::string::npos);
}

TEST_CASE("threads is a setting: 1 to 256, the machine's cores by default", "[parallel]") {
  Database db;
  Connection con(db);
  CHECK(std::stoi(con.execute("SHOW threads").text(0, 0)) >= 1);
  con.execute("SET threads = 3");
  CHECK(con.execute("SHOW threads").text(0, 0) == "3");
  for (const char* bad : {"0", "257", "two", "1.5"}) {
    INFO(bad);
    try {
      con.execute(std::string("SET threads = '") + bad + "'");
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.sqlstate() == "22023");
    }
  }
}

TEST_CASE("COPY FROM parsed on two threads loads what one thread loads, in order, or fails as it does", "[parallel]") {
  // About 3 MB: several 1 MiB chunks, each parsed by whichever thread is free. A serial column
  // numbers rows as they are appended (in input order on the session's thread).
  std::string data;
  for (int i = 0; i < 60000; ++i)
    data += std::to_string(i) + "\t" + (i % 7 ? "text with a \\t tab and more, row " + std::to_string(i) : "\\N") + "\t" +
            std::to_string(i % 1000) + ".25\n";
  auto loadWith = [&](int threads, const std::string& input) {
    Database db;
    Connection con(db);
    con.execute("SET threads = " + std::to_string(threads));
    con.execute("CREATE TABLE c (id INTEGER NOT NULL, s TEXT, d DECIMAL(8,2), n SERIAL)");
    std::istringstream in(input);
    con.setCopyStreams(&in, nullptr);
    std::string error;
    try {
      con.execute("COPY c (id, s, d) FROM STDIN");
    } catch (const Error& e) {
      error = e.sqlstate() + " " + e.message();
    }
    return std::make_pair(error, rows(con.execute("SELECT id, s, d, n FROM c ORDER BY n"), true));
  };
  auto one = loadWith(1, data), two = loadWith(2, data);
  CHECK(one.first.empty());
  CHECK(two == one);
  CHECK(two.second.rfind("0|NULL|0.25|1\n1|text with a \t tab and more, row 1|1.25|2\n", 0) == 0);
  // A bad value near the end: the same error (file line), and nothing loaded.
  std::string bad = data;
  bad.replace(bad.find("\n59000\t") + 1, 5, "59x00");
  auto oneBad = loadWith(1, bad), twoBad = loadWith(2, bad);
  CHECK(twoBad == oneBad);
  CHECK(twoBad.first.find("22P02 COPY c, STDIN line 59001, column 1 (id)") == 0);
  CHECK(twoBad.second.empty());
}

// A group key the scanned table holds in ascending order (Table::ascends): on two threads each
// morsel begins where a run of its values begins (Table::runStart), so each group is one thread's
// and the threads' tables are adopted without a merge, where the groups are too many to merge (few
// groups in long runs would leave a thread idle). Runs here are 1 to 100,000 rows long and
// begin anywhere against the 16,384-row morsels and 65,536-row chunks: a run split between two
// threads would come back as two groups. Once a write breaks the order the usual ways answer.
TEST_CASE("an aggregation grouped by an ascending column gives each run to one thread", "[parallel]") {
  Database db;
  Connection one(db), two(db);
  for (Connection* c : {&one, &two}) c->execute("SET analytics = 'inline'");
  one.execute("SET threads = 1");
  two.execute("SET threads = 2");
  one.execute("CREATE TABLE r (k BIGINT NOT NULL, v INTEGER, s VARCHAR(10), d DATE NOT NULL)");
  // Runs of 3 rows, one of 100,000, of 16,384 and 16,385, of 1, 2, 3, ... 316: 513,846 rows in
  // 66,994 groups of k, too many to merge (Driver::worthMerging), so the morsels align to k's runs.
  one.execute("INSERT INTO r SELECT i / 3, i % 97, 'x' || (i % 13), DATE '2020-01-01' + (i / 5000)::integer "
              "FROM generate_series(0, 199999) i");
  one.execute("INSERT INTO r SELECT 1000000, i % 89, NULL, DATE '2030-01-01' FROM generate_series(0, 99999) i");
  one.execute("INSERT INTO r SELECT 2000000 + i / 16384, i, 'y', DATE '2030-01-02' FROM generate_series(0, 65535) i");
  one.execute("INSERT INTO r SELECT 3000000 + i / 16385, i % 1000, 'z' || (i % 3), DATE '2030-01-03' FROM generate_series(0, 98309) i");
  one.execute("INSERT INTO r SELECT 4000000 + floor((sqrt(8.0 * i + 1) - 1) / 2), i % 7, 'w', DATE '2030-01-04' "
              "FROM generate_series(0, 49999) i");
  one.execute("ANALYZE");
  const char* queries[] = {
      "SELECT k, count(*), sum(v), min(s), max(s) FROM r GROUP BY k",
      "SELECT k, v % 3, count(*), sum(v) FROM r GROUP BY k, v % 3",
      "SELECT d, count(*), count(s), sum(k) FROM r GROUP BY d",
      "SELECT count(*), sum(c), max(c) FROM (SELECT k, count(*) AS c FROM r WHERE v > 10 GROUP BY k) x",
  };
  auto same = [&] {
    for (const char* q : queries) {
      INFO(q);
      std::string expected = rows(one.execute(q), false);
      CHECK(!expected.empty());
      CHECK(rows(two.execute(q), false) == expected);
    }
  };
  same();
  // 66,994 groups of k: none came back twice.
  CHECK(one.execute("SELECT count(*) FROM (SELECT k FROM r GROUP BY k) x").text(0, 0) ==
        two.execute("SELECT count(*) FROM (SELECT k FROM r GROUP BY k) x").text(0, 0));
  auto plan = [&](const char* q) { return rows(two.execute(std::string("EXPLAIN ANALYZE ") + q), true); };
  const std::regex aligned("Pipeline 1: [0-9.]+ ms, table -> aggregation, 2 threads, [0-9]+ morsels, morsels aligned to a "
                           "group key's runs, groups adopted");
  {
    std::string p = plan(queries[0]);
    INFO(p);
    CHECK(std::regex_search(p, aligned));
  }
  // A write that makes k fall: every group still once, by a merge.
  two.execute("UPDATE r SET k = -1 WHERE k = 1000000 AND v = 5");
  same();
  {
    std::string p = plan(queries[0]);
    INFO(p);
    CHECK_FALSE(std::regex_search(p, aligned));
  }
  // ... and after it is put back, in a transaction rolled back, the order is found again.
  two.execute("UPDATE r SET k = 1000000 WHERE k = -1");
  const std::string groups = one.execute("SELECT count(*) FROM (SELECT k FROM r GROUP BY k) x").text(0, 0);
  two.execute("BEGIN");
  two.execute("INSERT INTO r VALUES (5, 1, 'late', DATE '2020-01-01')");  // k = 5 once more, at the end
  CHECK(two.execute("SELECT count(*) FROM (SELECT k FROM r GROUP BY k) x").text(0, 0) == groups);
  CHECK(two.execute("SELECT count(*) FROM r WHERE k = 5").text(0, 0) == "4");
  CHECK(two.execute("SELECT k, count(*) FROM r WHERE k < 7 GROUP BY k ORDER BY k").text(5, 1) == "4");
  two.execute("ROLLBACK");
  same();
  {
    std::string p = plan(queries[0]);
    INFO(p);
    CHECK(std::regex_search(p, aligned));
  }
}
