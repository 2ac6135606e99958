// Long chains of one operator (issue 20): 10,000-term sums, AND and OR lists, IN lists and
// 1,000-part set operations plan, compile and answer right; real nesting still stops at the
// parser's depth limit; a sum still overflows where left-to-right evaluation does; a chain too
// deep for the stack gets 54001, not a crash.
#include <catch2/catch.hpp>

#include <string>

#include "sql/api/database.hpp"
#include "sql/test/result_text.hpp"

using namespace hyrax;
using test::allText;

namespace {

// "first sep second sep ... " with `n` parts made by `part(i)`.
template <typename F>
std::string chain(int n, const char* sep, F part) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (i) s += sep;
    s += part(i);
  }
  return s;
}

std::string sqlstateOf(Connection& con, const std::string& sql) {
  try {
    con.execute(sql);
  } catch (const Error& e) {
    return e.sqlstate();
  }
  return "none";
}

// Rows 1 .. 10 in t(x INTEGER, y BIGINT), y = x.
void tenRows(Connection& con) {
  con.execute("CREATE TABLE t (x INTEGER, y BIGINT)");
  con.execute("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7), (8, 8), (9, 9), (10, 10)");
}

}  // namespace

TEST_CASE("a sum of 10,000 terms", "[chains]") {
  Database db;
  Connection con(db);
  tenRows(con);
  CHECK(allText(con.execute("SELECT " + chain(10'000, " + ", [](int) { return "1"; }))) == "10000\n");
  // Over a column: nothing folds, every term is compiled (inline and on a snapshot).
  const std::string sum = "SELECT " + chain(10'000, " + ", [](int) { return "y"; }) + " FROM t WHERE x <= 2 ORDER BY 1";
  CHECK(allText(con.execute(sum)) == "10000\n20000\n");
  con.execute("SET analytics = 'inline'");
  CHECK(allText(con.execute(sum)) == "10000\n20000\n");
  // EXPLAIN prints it.
  QueryResult plan = con.execute("EXPLAIN " + sum);
  CHECK(allText(plan).find("((((y + y) + y) + y)") != std::string::npos);
}

TEST_CASE("a long sum overflows where left-to-right evaluation does", "[chains]") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE big (y BIGINT)");
  // y + 1 + ... (5,000 ones) - 5000: left to right, y + 5000 must fit (a reordered sum would not
  // overflow at all).
  con.execute("INSERT INTO big VALUES (9223372036854770807)");  // max - 5000: fits exactly
  const std::string sum = "SELECT y + " + chain(5'000, " + ", [](int) { return "1"; }) + " - 5000 FROM big";
  CHECK(allText(con.execute(sum)) == "9223372036854770807\n");
  con.execute("UPDATE big SET y = y + 1");  // max - 4999: the 5,000th one overflows
  CHECK(sqlstateOf(con, sum) == "22003");
  // Folded at planning: the same point.
  CHECK(sqlstateOf(con, "SELECT 9223372036854770808 + " + chain(5'000, " + ", [](int) { return "1"; }) + " - 5000") ==
        "22003");
  CHECK(allText(con.execute("SELECT 9223372036854770807 + " + chain(5'000, " + ", [](int) { return "1"; }) + " - 5000")) ==
        "9223372036854770807\n");
}

TEST_CASE("OR, AND and IN lists of 10,000", "[chains]") {
  Database db;
  Connection con(db);
  tenRows(con);
  // The odd rows: x = 1 OR x = 3 OR ... OR x = 19999.
  const std::string odd = chain(10'000, " OR ", [](int i) { return "x = " + std::to_string(2 * i + 1); });
  CHECK(allText(con.execute("SELECT x FROM t WHERE " + odd + " ORDER BY x")) == "1\n3\n5\n7\n9\n");
  // x <> 2 AND x <> 4 AND ... AND x <> 20000.
  const std::string notEven = chain(10'000, " AND ", [](int i) { return "x <> " + std::to_string(2 * i + 2); });
  CHECK(allText(con.execute("SELECT x FROM t WHERE " + notEven + " ORDER BY x")) == "1\n3\n5\n7\n9\n");
  const std::string in = chain(10'000, ", ", [](int i) { return std::to_string(2 * i + 1); });
  CHECK(allText(con.execute("SELECT x FROM t WHERE x IN (" + in + ") ORDER BY x")) == "1\n3\n5\n7\n9\n");
  // The OR list is one n-ary OR, not 10,000 levels.
  QueryResult plan = con.execute("EXPLAIN SELECT x FROM t WHERE " + odd);
  CHECK(allText(plan).find("x = 1 OR x = 3 OR") != std::string::npos);
}

TEST_CASE("set operations of 1,000 parts", "[chains]") {
  Database db;
  Connection con(db);
  tenRows(con);
  const std::string unionAll = chain(1'000, " UNION ALL ", [](int i) { return "SELECT " + std::to_string(i); });
  CHECK(con.execute(unionAll).rowCount() == 1000);
  CHECK(allText(con.execute("SELECT count(*), sum(a) FROM (" + unionAll + ") s (a)")) == "1000\n");
  // UNION removes the duplicates of 1,000 parts with 7 distinct values.
  const std::string distinct = chain(1'000, " UNION ", [](int i) { return "SELECT " + std::to_string(i % 7); });
  CHECK(allText(con.execute(distinct + " ORDER BY 1")) == "0\n1\n2\n3\n4\n5\n6\n");
  // INTERSECT of 1,000: the rows in every part (each part drops one of 2 and 3).
  const std::string intersect =
      chain(1'000, " INTERSECT ", [](int i) { return "SELECT x FROM t WHERE x <> " + std::to_string(2 + i % 2); });
  CHECK(allText(con.execute(intersect + " ORDER BY 1")) == "1\n4\n5\n6\n7\n8\n9\n10\n");
  // EXCEPT of 1,000, left to right: t minus 2, 3, 4, 2, 3, 4 ...
  const std::string except =
      "SELECT x FROM t EXCEPT " + chain(999, " EXCEPT ", [](int i) { return "SELECT " + std::to_string(2 + i % 3); });
  CHECK(allText(con.execute(except + " ORDER BY 1")) == "1\n5\n6\n7\n8\n9\n10\n");
  // Mixed: a UNION b EXCEPT c is (a UNION b) EXCEPT c.
  CHECK(allText(con.execute("SELECT 1 UNION SELECT 2 EXCEPT SELECT 1 UNION SELECT 3 ORDER BY 1")) == "2\n3\n");
}

TEST_CASE("nesting still stops at the depth limit; a chain too deep for the stack gets 54001", "[chains]") {
  Database db;
  Connection con(db);
  tenRows(con);
  CHECK(sqlstateOf(con, "SELECT " + std::string(300, '(') + "1" + std::string(300, ')')) == "54001");
  // A million terms: the parser takes it; the binder runs out of stack and says so, on the
  // executor thread and in a snapshot worker alike.
  const std::string huge = "SELECT " + chain(1'000'000, " + ", [](int) { return "y"; }) + " FROM t";
  CHECK(sqlstateOf(con, huge) == "54001");
  con.execute("SET analytics = 'inline'");
  CHECK(sqlstateOf(con, huge) == "54001");
  CHECK(allText(con.execute("SELECT 1")) == "1\n");  // and the database goes on
}
