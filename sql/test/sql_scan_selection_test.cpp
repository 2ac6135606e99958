// A table scan under a selective filter (or a selective hash join: the last test case) first narrows each block of rows to those whose columns
// lie in the filter's constant ranges (or compare so with another column of the row) (engine/runtime/scan_selection.cpp, chosen in
// codegen/translate/scan_translator.cpp), and the generated code sees only those. The rows it
// keeps must be exactly those the filter keeps: every column type it takes (ranges of integers,
// DECIMALs, dates and times; equalities and IN lists of integers and strings, short, long and
// CHAR), NULLs, bounds at the ends of a type's range, constants on either side, ranges that meet nothing, other
// conjuncts beside them, on one thread and two, in the interpreter and both tiers of machine
// code. Each answer is checked against the same condition written so that no scan can take it
// apart (CASE WHEN ... THEN 1 END = 1), which the generated code evaluates row by row.
#include <catch2/catch.hpp>

#include <string>

#include "sql/api/database.hpp"
#include "sql/test/same_answer.hpp"
#include "sql/test/result_text.hpp"

using namespace hyrax;

namespace {

constexpr const char* kRows = "200000";  // four chunks of 65,536 rows, blocks of 4,096 in each

void load(Connection& con) {
  con.execute("SET analytics = 'inline'");
  con.execute("SET statement_cache = off");
  con.execute(
      "CREATE TABLE s (i INTEGER NOT NULL, n INTEGER, sm SMALLINT NOT NULL, b BIGINT NOT NULL, d DECIMAL(12,2) NOT NULL, "
      "dt DATE NOT NULL, ts TIMESTAMP, name VARCHAR(20) NOT NULL, lname VARCHAR(40) NOT NULL, c CHAR(6) NOT NULL, "
      "ns VARCHAR(10), sm2 SMALLINT NOT NULL, b2 BIGINT, d2 DECIMAL(12,2), dt2 DATE NOT NULL, ts2 TIMESTAMP NOT NULL)");
  // n: every 7th NULL; sm spans SMALLINT's whole range; b crosses zero; ts every 5th NULL;
  // strings short (stored whole in their 16 bytes) and long (lname), CHAR (c), with NULLs (ns);
  // a second column of each integer type for comparisons of two columns, b2 with NULLs.
  con.execute(std::string("INSERT INTO s SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 1000 END, "
                          "CAST(i % 65536 - 32768 AS SMALLINT), CAST(i AS BIGINT) * 100003 - 10000000000, "
                          "CAST(i % 10000 AS DECIMAL(12,2)) / 100, DATE '1990-01-01' + i % 3000, "
                          "CASE WHEN i % 5 = 0 THEN NULL ELSE TIMESTAMP '2000-01-01 00:00:00' + i * INTERVAL '1 minute' END, "
                          "'n' || CAST(i % 100 AS VARCHAR), 'a long name number ' || CAST(i % 50 AS VARCHAR), "
                          "'c' || CAST(i % 30 AS VARCHAR), CASE WHEN i % 3 = 0 THEN NULL ELSE 'x' || CAST(i % 40 AS VARCHAR) END, "
                          "CAST(i % 1000 - 500 AS SMALLINT), CASE WHEN i % 9 = 0 THEN NULL ELSE CAST(i AS BIGINT) * 100002 - 9999000000 END, "
                          "CASE WHEN i % 13 = 0 THEN NULL ELSE CAST(i % 5000 AS DECIMAL(12,2)) / 50 END, DATE '1992-01-01' + i % 1000, "
                          "TIMESTAMP '2000-01-01 00:00:00' + (i % 20000) * INTERVAL '7 minute' "
                          "FROM generate_series(0, ") +
              kRows + " - 1) AS x(i)");
  con.execute("ANALYZE");
}

struct Case {
  const char* where;      // the conjuncts as a scan takes them apart
  const char* reference;  // the same condition, evaluated row by row
  const char* columns;    // what EXPLAIN ANALYZE names ("" when no scan should narrow)
};

const Case kCases[] = {
    {"i BETWEEN 1000 AND 1999", "CASE WHEN i BETWEEN 1000 AND 1999 THEN 1 END = 1", "s (i)"},
    {"i >= 70000 AND i < 70010", "CASE WHEN i >= 70000 AND i < 70010 THEN 1 END = 1", "s (i)"},
    {"2000 > i AND 1990 <= i", "CASE WHEN 2000 > i AND 1990 <= i THEN 1 END = 1", "s (i)"},
    {"i > 2147483647", "CASE WHEN i > 2147483647 THEN 1 END = 1", "s (i)"},
    {"i < -2147483648", "CASE WHEN i < -2147483648 THEN 1 END = 1", "s (i)"},
    {"i > 100 AND i < 50", "CASE WHEN i > 100 AND i < 50 THEN 1 END = 1", "s (i)"},
    {"i = 131071", "CASE WHEN i = 131071 THEN 1 END = 1", "s (i)"},
    {"n = 5", "CASE WHEN n = 5 THEN 1 END = 1", "s (n)"},
    {"n < 3 AND i > 190000", "CASE WHEN n < 3 AND i > 190000 THEN 1 END = 1", "s (i, n)"},
    {"sm < -32760", "CASE WHEN sm < -32760 THEN 1 END = 1", "s (sm)"},
    {"sm >= 32767", "CASE WHEN sm >= 32767 THEN 1 END = 1", "s (sm)"},
    {"b BETWEEN -100000 AND 100000000", "CASE WHEN b BETWEEN -100000 AND 100000000 THEN 1 END = 1", "s (b)"},
    {"d BETWEEN 12.50 AND 12.75", "CASE WHEN d BETWEEN 12.50 AND 12.75 THEN 1 END = 1", "s (d)"},
    {"dt >= DATE '1995-01-01' AND dt < DATE '1995-02-01' AND name LIKE 'n1%'",
     "CASE WHEN dt >= DATE '1995-01-01' AND dt < DATE '1995-02-01' AND name LIKE 'n1%' THEN 1 END = 1", "s (dt, name)"},
    {"ts < TIMESTAMP '2000-01-02 00:00:00'", "CASE WHEN ts < TIMESTAMP '2000-01-02 00:00:00' THEN 1 END = 1", "s (ts)"},
    {"i < 5000 AND (n = 3 OR n IS NULL) AND d > 1.00",
     "CASE WHEN i < 5000 AND (n = 3 OR n IS NULL) AND d > 1.00 THEN 1 END = 1", "s (i, d)"},
    // Equalities and IN lists: integers (a list longer than 16 is searched), strings short and
    // long, CHAR, with NULLs in the column and in the list.
    {"i IN (5, 70000, 199999, -3)", "CASE WHEN i IN (5, 70000, 199999, -3) THEN 1 END = 1", "s (i)"},
    {"sm IN (-32768, 32767, 0) AND i < 100000", "CASE WHEN sm IN (-32768, 32767, 0) AND i < 100000 THEN 1 END = 1", "s (i, sm)"},
    {"n IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20)",
     "CASE WHEN n IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20) THEN 1 END = 1", "s (n)"},
    {"n IN (3, NULL)", "CASE WHEN n IN (3, NULL) THEN 1 END = 1", "s (n)"},
    {"name = 'n15'", "CASE WHEN name = 'n15' THEN 1 END = 1", "s (name)"},
    {"name IN ('n1', 'n22', 'n99', 'n100', '')", "CASE WHEN name IN ('n1', 'n22', 'n99', 'n100', '') THEN 1 END = 1", "s (name)"},
    {"lname = 'a long name number 7'", "CASE WHEN lname = 'a long name number 7' THEN 1 END = 1", "s (lname)"},
    {"lname IN ('a long name number 3', 'a long name number 44', 'a long name', 'short') AND i > 1000",
     "CASE WHEN lname IN ('a long name number 3', 'a long name number 44', 'a long name', 'short') AND i > 1000 THEN 1 END = 1",
     "s (i, lname)"},
    {"c = 'c7'", "CASE WHEN c = 'c7' THEN 1 END = 1", "s (c)"},
    {"c IN ('c1', 'c29   ')", "CASE WHEN c IN ('c1', 'c29   ') THEN 1 END = 1", "s (c)"},
    {"ns = 'x5'", "CASE WHEN ns = 'x5' THEN 1 END = 1", "s (ns)"},
    {"ns IN ('x1', NULL, 'x39') AND n < 500", "CASE WHEN ns IN ('x1', NULL, 'x39') AND n < 500 THEN 1 END = 1", "s (n, ns)"},
    // LIKE with a pattern of literal pieces, decided below even where it keeps most rows (a
    // search a row is worth a loop of its own); the filter's other conjuncts then stay in the
    // generated code unless the filter is selective. NOT LIKE, NULLs (out either way), short and
    // long strings, a VARCHAR cast to TEXT, a pattern that matches everything.
    {"name LIKE 'n1%'", "CASE WHEN name LIKE 'n1%' THEN 1 END = 1", "s (name)"},
    {"lname NOT LIKE '%number 1%'", "CASE WHEN lname NOT LIKE '%number 1%' THEN 1 END = 1", "s (lname)"},
    {"lname LIKE 'a long%er 4%' AND i < 100000", "CASE WHEN lname LIKE 'a long%er 4%' AND i < 100000 THEN 1 END = 1",
     "s (i, lname)"},
    {"i >= 0 AND lname NOT LIKE '%7'", "CASE WHEN i >= 0 AND lname NOT LIKE '%7' THEN 1 END = 1", "s (lname)"},
    {"ns LIKE '%3%'", "CASE WHEN ns LIKE '%3%' THEN 1 END = 1", "s (ns)"},
    {"ns NOT LIKE 'x1%'", "CASE WHEN ns NOT LIKE 'x1%' THEN 1 END = 1", "s (ns)"},
    {"CAST(lname AS TEXT) LIKE '%number 4'", "CASE WHEN CAST(lname AS TEXT) LIKE '%number 4' THEN 1 END = 1", "s (lname)"},
    {"name LIKE '%' AND ns LIKE 'x2_'", "CASE WHEN name LIKE '%' AND ns LIKE 'x2_' THEN 1 END = 1", "s (name)"},
    // Two columns of the row compared (TPC-H Q4's l_commitdate < l_receiptdate): every operator,
    // either order, NULLs on either side, each integer width, DECIMAL, DATE, TIMESTAMP.
    {"n < i", "CASE WHEN n < i THEN 1 END = 1", "s (n with i)"},
    {"i <= n AND i < 150000", "CASE WHEN i <= n AND i < 150000 THEN 1 END = 1", "s (i, i with n)"},
    {"i > n", "CASE WHEN i > n THEN 1 END = 1", "s (n with i)"},
    {"n >= i", "CASE WHEN n >= i THEN 1 END = 1", "s (i with n)"},
    {"i = n", "CASE WHEN i = n THEN 1 END = 1", "s (i with n)"},
    {"sm >= sm2", "CASE WHEN sm >= sm2 THEN 1 END = 1", "s (sm2 with sm)"},
    {"sm2 = sm AND dt < DATE '1991-01-01'", "CASE WHEN sm2 = sm AND dt < DATE '1991-01-01' THEN 1 END = 1", "s (dt, sm2 with sm)"},
    {"b2 > b", "CASE WHEN b2 > b THEN 1 END = 1", "s (b with b2)"},
    {"b < b2", "CASE WHEN b < b2 THEN 1 END = 1", "s (b with b2)"},
    {"d2 <= d", "CASE WHEN d2 <= d THEN 1 END = 1", "s (d2 with d)"},
    {"dt2 < dt", "CASE WHEN dt2 < dt THEN 1 END = 1", "s (dt2 with dt)"},
    {"ts2 > ts AND dt2 >= dt", "CASE WHEN ts2 > ts AND dt2 >= dt THEN 1 END = 1", "s (ts with ts2, dt with dt2)"},
};

// f(threads, tier) for 1 and 2 threads in the interpreter, each tier of machine code and adaptively.
template <typename F>
void everyWay(Connection& con, const F& f) {
  for (const char* threads : {"1", "2"})
    for (const char* tier : {"interpreted", "cheap", "optimized", "auto"}) {
      con.execute(std::string("SET threads = ") + threads);
      con.execute(std::string("SET compile_tier = '") + tier + "'");
      f(threads, tier);
    }
}

std::string explainAnalyze(Connection& con, const std::string& sql) {
  return test::allText(con.execute("EXPLAIN ANALYZE " + sql));
}

std::string sumsWhere(const std::string& where) {
  return "SELECT count(*), sum(i), sum(n), min(sm), max(b), sum(d), min(dt), max(ts), min(lname), max(c), min(ns) FROM s WHERE " +
         where;
}

}  // namespace

TEST_CASE("a scan's selection vector keeps exactly the rows its filter keeps", "[selection]") {
  Database db;
  Connection con(db);
  load(con);
  everyWay(con, [&](const char* threads, const char* tier) {
      for (const Case& c : kCases) {
        INFO(c.where << " at threads " << threads << ", " << tier);
        QueryResult expected = con.execute(sumsWhere(c.reference));
        QueryResult got = con.execute(sumsWhere(c.where));
        test::checkSame(got, expected);
        // The rows themselves, in order, where there are few.
        const std::string rows = "SELECT i, n, ts, name, c FROM s WHERE ";
        if (std::stoll(expected.text(0, 0)) <= 2000)
          test::checkSame(con.execute(rows + c.where + " ORDER BY i"), con.execute(rows + c.reference + " ORDER BY i"));
      }
  });
  // The answers are not all empty: the cases above meet rows at both ends of each range.
  CHECK(con.execute(sumsWhere(kCases[0].where)).text(0, 0) == "1000");
  CHECK(con.execute(sumsWhere(kCases[6].where)).text(0, 0) == "1");
  CHECK(con.execute(sumsWhere("n = 5")).text(0, 0) == con.execute("SELECT count(*) FROM s WHERE i % 1000 = 5 AND i % 7 <> 0").text(0, 0));
  CHECK(con.execute(sumsWhere("lname = 'a long name number 7'")).text(0, 0) == "4000");
  CHECK(con.execute(sumsWhere("c IN ('c1', 'c29   ')")).text(0, 0) ==
        con.execute("SELECT count(*) FROM s WHERE i % 30 IN (1, 29)").text(0, 0));
}

TEST_CASE("EXPLAIN ANALYZE names the scans a selection vector narrowed, and counts every row read", "[selection]") {
  Database db;
  Connection con(db);
  load(con);
  con.execute("SET threads = 2");
  for (const Case& c : kCases) {
    INFO(c.where);
    const std::string plan = explainAnalyze(con, sumsWhere(c.where));
    CHECK(plan.find(std::string("Selection vectors: ") + c.columns) != std::string::npos);
    CHECK(plan.find(std::string("actual=") + kRows + ")") != std::string::npos);  // the scan read them all
  }
  // A filter that keeps most rows is left to the generated code (the narrowing would cost more
  // than it saves), as is a condition no range describes.
  // A LIKE whose pattern needs the general matcher ('_', escapes) or whose operand is not the
  // stored column (CHAR, compared as text without its padding) stays there too.
  // Two columns compared are taken apart only when both are stored alike: not a SMALLINT with an
  // INTEGER, a DATE with a TIMESTAMP, a DECIMAL with an expression.
  for (const char* where : {"i > 10", "i <> 5", "i + 1 < 3", "name < 'n2'", "n NOT IN (1, 2)", "name <> 'n1'",
                            "name LIKE 'n_5'", "lower(name) LIKE 'n1%'", "c LIKE 'c2%'", "sm < i", "dt < ts", "d < d2 * 2",
                            "name < lname"}) {
    INFO(where);
    const std::string plan = explainAnalyze(con, sumsWhere(where));
    CHECK(plan.find("Selection vectors:") == std::string::npos);
  }
}

namespace {

// A small table a big scan joins with: keys that meet s's columns (a few hundred of 200,000
// rows), duplicates, negatives, values beyond INTEGER's range, NULLs.
void loadKeys(Connection& con) {
  // kn and ks2: second keys that meet s's n and sm in the rows whose i is ki, for half of them.
  con.execute("CREATE TABLE k (ki INTEGER, kb BIGINT NOT NULL, ks SMALLINT, label VARCHAR(5) NOT NULL, kn INTEGER, ks2 SMALLINT)");
  con.execute("INSERT INTO k SELECT CASE WHEN j % 11 = 0 THEN NULL ELSE j * 613 - 900 END, "
              "CASE WHEN j % 3 = 0 THEN CAST(j AS BIGINT) * 100003 - 10000000000 ELSE CAST(j AS BIGINT) * 5000000000 END, "
              "CAST(j * 97 - 32768 AS SMALLINT), CASE WHEN j % 4 = 0 THEN 'x' ELSE 'y' END, "
              "CASE WHEN j % 2 = 0 THEN (j * 613 - 900) % 1000 WHEN j % 5 = 1 THEN NULL ELSE 7 END, "
              "CASE WHEN j < 2 THEN 0 WHEN j % 3 = 0 THEN 5 ELSE CAST((j * 613 - 900) % 65536 - 32768 AS SMALLINT) END "
              "FROM generate_series(0, 299) AS g(j)");
  con.execute("INSERT INTO k SELECT ki, kb, ks, label, kn, ks2 FROM k WHERE ki % 5 = 2");  // duplicate keys
  con.execute("ANALYZE");
}

// s's rows, every one, through a filter no scan takes apart and a LIMIT: the join above is
// neither the scan's parent nor the filter's, so its rows go to the join one by one.
constexpr const char* kAllOfS = "(SELECT * FROM s WHERE CASE WHEN i >= 0 OR i < 0 THEN 1 END = 1 LIMIT 1000000000) AS s";

struct JoinCase {
  std::string select;   // with {s} where s is read
  int narrowed;         // whether the scan of s should be narrowed by the join's table (-1: either)
};

// {s} (and {s2}: s again, as s2) read as `s`, or as every row of s through kAllOfS.
std::string withS(const std::string& sql, const std::string& s) {
  std::string out = sql;
  for (size_t at; (at = out.find("{s}")) != std::string::npos;) out.replace(at, 3, s);
  const std::string s2 = s == "s" ? "s AS s2" : std::string(kAllOfS) + "2";  // (it ends in "AS s")
  for (size_t at; (at = out.find("{s2}")) != std::string::npos;) out.replace(at, 4, s2);
  return out;
}

}  // namespace

TEST_CASE("a scan narrowed by the hash join above keeps exactly the rows that join", "[selection]") {
  Database db;
  Connection con(db);
  load(con);
  loadKeys(con);
  const std::vector<JoinCase> cases = {
      {"SELECT count(*), sum(s.i), sum(k.kb), min(s.name) FROM {s} JOIN k ON s.i = k.ki", 1},
      {"SELECT count(*), sum(s.i), sum(s.n), max(k.ki) FROM {s} JOIN k ON s.n = k.ki", 1},       // NULLs on both sides
      {"SELECT count(*), sum(s.i), min(s.sm) FROM {s} JOIN k ON s.sm = k.ks", 1},                // SMALLINT
      {"SELECT count(*), sum(s.i), max(s.b) FROM {s} JOIN k ON s.b = k.kb", 1},                  // BIGINT, beyond INTEGER
      {"SELECT count(*), sum(s.i) FROM {s} JOIN k ON s.i = k.kb", -1},  // INTEGER = BIGINT (estimated unselective)
      {"SELECT count(*), sum(s.i), min(k.label) FROM {s} JOIN k ON s.i = k.ki AND k.label = 'x'", 1},
      {"SELECT count(*), sum(s.i) FROM {s} WHERE s.i IN (SELECT ki FROM k)", 1},
      {"SELECT count(*), sum(s.i) FROM {s} WHERE EXISTS (SELECT 1 FROM k WHERE k.ki = s.n)", 1},
      {"SELECT s.i, k.kb FROM {s} JOIN k ON s.i = k.ki ORDER BY s.i, k.kb", 1},
      // An aggregate that skips the groups the join above does not hold (as TPC-H Q17's): its
      // scan is narrowed by the join's table too.
      {"SELECT count(*), sum(g.c), sum(g.sn) FROM k JOIN (SELECT n, count(*) AS c, sum(i) AS sn FROM {s} GROUP BY n) g ON g.n = k.ki", -1},
      {"SELECT count(*), sum(s.i) FROM s JOIN k ON s.i = k.ki WHERE s.i > (SELECT avg(s2.i) - 1000 FROM {s2} WHERE s2.n = k.ki)", -1},
      // A filter between the scan and the join: its tests first, then the join's table (TPC-H
      // Q3's lineitem, Q4's with l_commitdate < l_receiptdate).
      {"SELECT count(*), sum(s.i), sum(k.kb) FROM {s} JOIN k ON s.i = k.ki WHERE s.dt < DATE '1997-01-01'", 1},
      {"SELECT count(*), sum(s.n), min(k.label) FROM {s} JOIN k ON s.n = k.ki WHERE s.n < s.i AND s.name <> 'n3'", 1},
      // Two keys, NULLs on both sides, of one width and of two.
      {"SELECT count(*), sum(s.i), sum(k.kb), min(s.name) FROM {s} JOIN k ON s.i = k.ki AND s.n = k.kn", 1},
      {"SELECT count(*), sum(s.i), max(k.label) FROM {s} JOIN k ON s.sm = k.ks2 AND s.i = k.ki WHERE s.dt > DATE '1990-02-01'", 1},
      {"SELECT count(*), sum(k.kb) FROM k WHERE EXISTS (SELECT 1 FROM {s} WHERE s.n = k.kn AND s.i = k.ki)", -1},
      // The build side's rows marked or kept by the probe rows that match (the Right kinds):
      // the probe rows without a match change nothing.
      {"SELECT count(*), sum(k.kb) FROM k WHERE EXISTS (SELECT 1 FROM {s} WHERE s.i = k.ki)", 1},
      {"SELECT count(*), sum(k.kb) FROM k WHERE NOT EXISTS (SELECT 1 FROM {s} WHERE s.i = k.ki AND s.dt > DATE '1991-06-01')", 1},
      {"SELECT count(*), sum(k.kb), count(s.i), sum(s.b) FROM k LEFT JOIN {s} ON s.i = k.ki", 1},
      // s's rows without a match stay: no narrowing.
      {"SELECT count(*), sum(s.i), count(k.ki) FROM {s} LEFT JOIN k ON s.i = k.ki", 0},
      {"SELECT count(*), sum(s.i) FROM {s} WHERE s.i NOT IN (SELECT kb FROM k)", 0},
  };
  everyWay(con, [&](const char* threads, const char* tier) {
    for (const JoinCase& c : cases) {
      INFO(c.select << " at threads " << threads << ", " << tier);
      test::checkSame(con.execute(withS(c.select, "s")), con.execute(withS(c.select, kAllOfS)));
    }
  });
  // The joins meet rows: not every answer is empty.
  CHECK(con.execute(withS(cases[0].select, "s")).text(0, 0) != "0");
  CHECK(con.execute(withS(cases[2].select, "s")).text(0, 0) != "0");
  CHECK(con.execute(withS(cases[3].select, "s")).text(0, 0) != "0");
  for (const JoinCase& c : cases)  // the two-key joins meet rows too
    if (c.select.find("k.kn") != std::string::npos || c.select.find("k.ks2") != std::string::npos) {
      INFO(c.select);
      CHECK(con.execute(withS(c.select, "s")).text(0, 0) != "0");
    }
  CHECK(con.execute(withS(cases[6].select, "s")).text(0, 0) == con.execute("SELECT count(*) FROM s WHERE (i + 900) % 613 = 0 AND "
                                                                            "(i + 900) / 613 BETWEEN 0 AND 299 AND ((i + 900) / 613) % 11 <> 0").text(0, 0));
  // EXPLAIN ANALYZE names the narrowing; the scan counts every row it read, the join its real rows.
  con.execute("SET threads = 2");
  con.execute("SET compile_tier = 'auto'");
  for (const JoinCase& c : cases) {
    INFO(c.select);
    if (c.narrowed < 0) continue;
    const std::string plan = explainAnalyze(con, withS(c.select, "s"));
    CHECK((plan.find("s (") != std::string::npos && plan.find(" by the join's table)") != std::string::npos &&
           plan.find(std::string("TableScan s  (rows=") + kRows) != std::string::npos) == (c.narrowed == 1));
  }
  const std::string plan = explainAnalyze(con, withS(cases[0].select, "s"));
  CHECK(plan.find(std::string("actual=") + kRows + ")") != std::string::npos);
  // Both scans of the correlated form: the join's, and the aggregate's below the other join.
  CHECK(explainAnalyze(con, withS(cases[10].select, "s")).find("s (i by the join's table), s2 (n by the join's table)") !=
        std::string::npos);
}

// A build side large enough for two threads to link its entries (HashTable::absorb, from 32,768
// entries on): each fills a key filter of its own, joined after. A key that only one thread's
// filter held would drop its probe rows.
TEST_CASE("a key filter made by two threads' link pass holds every entry's key", "[selection]") {
  Database db;
  Connection con(db);
  load(con);
  // 45,000 keys of s's i (every fourth), 5,000 that meet none, some twice.
  con.execute("CREATE TABLE kbig (ki INTEGER, kv BIGINT NOT NULL)");
  con.execute("INSERT INTO kbig SELECT CASE WHEN j < 45000 THEN j * 4 + 1 ELSE -j END, CAST(j AS BIGINT) * 3 "
              "FROM generate_series(0, 49999) AS g(j)");
  con.execute("INSERT INTO kbig SELECT ki, kv + 1 FROM kbig WHERE ki % 7 = 3");
  con.execute("ANALYZE");
  const std::string join = "SELECT count(*), sum(s.i), sum(kbig.kv), min(s.name) FROM {s} JOIN kbig ON s.i = kbig.ki";
  const std::string expected = test::allText(con.execute(withS(join, kAllOfS)));
  CHECK(con.execute(withS(join, "s")).text(0, 0) == "51428");  // 45,000 and the 6,428 doubled
  everyWay(con, [&](const char* threads, const char* tier) {
    INFO("threads " << threads << ", " << tier);
    CHECK(test::allText(con.execute(withS(join, "s"))) == expected);
  });
  con.execute("SET threads = 2");
  con.execute("SET compile_tier = 'optimized'");
  const std::string plan = explainAnalyze(con, withS(join, "s"));
  INFO(plan);
  CHECK(plan.find("s (i by the join's table)") != std::string::npos);
  CHECK(plan.find("table -> join table, 2 threads") != std::string::npos);
}
