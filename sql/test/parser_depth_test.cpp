// Every construct that nests is bounded: a hostile statement gets 54001, never a stack overflow in
// the parser. Chains of one binary operator are no nesting: they parse at any length (the passes
// after parsing bound them by the stack they have, engine/util/stack_depth.hpp), and their trees
// are freed without recursion. The fuzzer (test/fuzz) found none unbounded; these pin down the
// ones it was checked with.
#include <catch2/catch.hpp>

#include <string>

#include "sql/parser/parser.hpp"

using namespace hyrax;

namespace {

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string sqlstateOf(const std::string& sql) {
  try {
    parseStatement(sql);
  } catch (const Error& e) {
    return e.sqlstate();
  }
  return "none";
}

}  // namespace

TEST_CASE("nesting of every kind, and postfix chains, stop at the depth limit with 54001") {
  const int n = 20000;
  const std::string cases[] = {
      "SELECT " + repeat("(", n) + "1" + repeat(")", n),
      "SELECT 1" + repeat("::int", n),
      "SELECT 1" + repeat(" IS NULL", n),
      "SELECT 1" + repeat(" BETWEEN 1 AND 1", n),
      "SELECT 'a'" + repeat(" LIKE 'a'", n),
      "SELECT 1 IN (" + repeat("1 IN (", n) + "1" + repeat(")", n + 1),
      "SELECT " + repeat("f(", n) + "1" + repeat(")", n),
      "SELECT " + repeat("CASE WHEN true THEN ", n) + "1" + repeat(" END", n),
      "SELECT " + repeat("(SELECT ", n) + "1" + repeat(")", n),
      "SELECT " + repeat("EXISTS (SELECT ", n) + "1" + repeat(")", n),
      "SELECT * FROM " + repeat("(", n) + "t" + repeat(")", n),
      "SELECT * FROM " + repeat("(SELECT * FROM ", n) + "t" + repeat(") x", n),
      "SELECT * FROM t" + repeat(" JOIN t ON true", n),
      "INSERT INTO t VALUES " + repeat("(", n) + "1" + repeat(")", n),
      "CREATE PROCEDURE p() AS $$ BEGIN " + repeat("IF true THEN ", n) + "NULL;" + repeat(" END IF;", n) +
          " END $$ LANGUAGE plpgsql",
      "CREATE PROCEDURE p() AS $$ " + repeat("BEGIN ", n) + "NULL;" + repeat(" END;", n) + " $$ LANGUAGE plpgsql",
  };
  for (const std::string& sql : cases) {
    INFO(sql.substr(0, 60));
    CHECK(sqlstateOf(sql) == "54001");
  }
}

TEST_CASE("chains of one binary operator are no nesting, at any length") {
  const int n = 1'000'000;  // a tree a million levels deep: built by loops, freed without recursion
  for (const char* op : {" + 1", " - 1", " * 1", " / 1", " || 1", " AND true", " OR true"}) {
    INFO(op);
    CHECK(sqlstateOf("SELECT 1" + repeat(op, n)) == "none");
  }
  for (const char* op : {" UNION SELECT 1", " UNION ALL SELECT 1", " INTERSECT SELECT 1", " EXCEPT SELECT 1"}) {
    INFO(op);
    CHECK(sqlstateOf("SELECT 1" + repeat(op, 100'000)) == "none");
  }
  // A change of set operator nests the chain so far (the binder recurses per run).
  std::string alternating = "SELECT 1";
  for (int i = 0; i < 300; ++i) alternating += i % 2 ? " EXCEPT SELECT 1" : " UNION SELECT 1";
  CHECK(sqlstateOf(alternating) == "54001");
  CHECK(sqlstateOf("SELECT 1" + repeat(" UNION SELECT 1 UNION ALL SELECT 1", 150)) == "54001");
  CHECK(sqlstateOf("SELECT 1" + repeat(" UNION SELECT 1 EXCEPT SELECT 1", 90)) == "none");
  // Parentheses are nesting, also inside a chain.
  CHECK(sqlstateOf("SELECT 1" + repeat(" + (1", 300) + repeat(")", 300)) == "54001");
  CHECK(sqlstateOf("SELECT 1" + repeat(" + 1", 5000) + " + " + repeat("(", 300) + "1" + repeat(")", 300)) == "54001");
}

TEST_CASE("long flat lists are no nesting") {
  std::string with = "WITH c0 AS (SELECT 1)";
  for (int i = 1; i < 2000; ++i) with += ", c" + std::to_string(i) + " AS (SELECT 1)";
  CHECK(sqlstateOf(with + " SELECT 1") == "none");
  CHECK(sqlstateOf("SELECT " + repeat("1, ", 5000) + "1") == "none");
  CHECK(sqlstateOf("SELECT 1 IN (" + repeat("1, ", 5000) + "1)") == "none");
}
