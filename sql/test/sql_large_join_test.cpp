// Joins of many tables through SQL: a 64-table chain and star are planned (one join per table
// but one, every table read once) and answer what a count computed here independently says;
// more than kMaxJoinLeaves tables is 54001.
#include <catch2/catch.hpp>

#include <random>

#include "sql/api/database.hpp"
#include "sql/optimizer/leaf_set.hpp"
#include "sql/test/result_text.hpp"

using namespace hyrax;
using test::allText;

namespace {

size_t occurrences(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

std::string values(const std::vector<std::vector<int>>& rows) {
  std::string s;
  for (auto& row : rows) {
    s += s.empty() ? "(" : ", (";
    for (size_t i = 0; i < row.size(); ++i) s += (i ? ", " : "") + std::to_string(row[i]);
    s += ")";
  }
  return s;
}

// A database whose queries run inline (the plan checks compare EXPLAIN with the answer's run).
struct Tables {
  Database db;
  Connection con{db};
  Tables() { con.execute("SET analytics = 'inline'"); }
  void create(const std::string& name, const std::string& columns, const std::vector<std::vector<int>>& rows) {
    con.execute("CREATE TABLE " + name + " (" + columns + ")");
    con.execute("INSERT INTO " + name + " VALUES " + values(rows));
  }
  // The count(*) of the join: one join per table but one, every table scanned once, the answer.
  void check(const std::string& from, const std::string& where, size_t tables, uint64_t expected) {
    const std::string sql = "SELECT count(*) FROM " + from + " WHERE " + where;
    std::string plan = allText(con.execute("EXPLAIN " + sql));
    CHECK(occurrences(plan, "Join") == tables - 1);
    CHECK(occurrences(plan, "TableScan") == tables);
    CHECK(expected > 0);
    CHECK(allText(con.execute(sql)) == std::to_string(expected) + "\n");
  }
};

}  // namespace

TEST_CASE("a chain of 64 tables is planned and answers right") {
  Tables db;
  std::mt19937 rng(64);
  const int n = 64;
  // count[v]: the rows of the join of t0..ti that end in b = v.
  std::vector<uint64_t> count(4, 0);
  std::string from, where;
  for (int i = 0; i < n; ++i) {
    // Every a once (so no path ends early), and one more random row.
    std::vector<std::vector<int>> rows;
    for (int a = 0; a < 4; ++a) rows.push_back({a, static_cast<int>(rng() % 4)});
    rows.push_back({static_cast<int>(rng() % 4), static_cast<int>(rng() % 4)});
    const std::string t = "t" + std::to_string(i);
    db.create(t, "a INTEGER, b INTEGER", rows);
    std::vector<uint64_t> next(4, 0);
    for (auto& r : rows) next[static_cast<size_t>(r[1])] += i == 0 ? 1 : count[static_cast<size_t>(r[0])];
    count = next;
    from += (i ? ", " : "") + t;
    if (i) where += std::string(i > 1 ? " AND " : "") + "t" + std::to_string(i - 1) + ".b = " + t + ".a";
  }
  uint64_t expected = 0;
  for (uint64_t c : count) expected += c;
  db.check(from, where, n, expected);
}

TEST_CASE("a star of 64 tables is planned and answers right") {
  Tables db;
  std::mt19937 rng(65);
  const int n = 64;
  // The centre joins each satellite on a column of its own (one column for all would make the
  // implied equalities a clique); its rows hold one key in every column.
  std::string columns;
  for (int i = 1; i < n; ++i) columns += (i > 1 ? ", k" : "k") + std::to_string(i) + " INTEGER";
  std::vector<std::vector<int>> centre;
  for (int key : {0, 1, 1, 2}) centre.push_back(std::vector<int>(n - 1, key));
  db.create("c", columns, centre);
  // Each satellite has every key 0..2 once, every eighth one a key twice: the count of a centre
  // row is the product of its key's matches.
  std::vector<uint64_t> perKey(3, 1);
  std::string from = "c", where;
  for (int i = 1; i < n; ++i) {
    std::vector<std::vector<int>> rows = {{0, i}, {1, i}, {2, i}};
    if (i % 8 == 0) {
      int k = static_cast<int>(rng() % 3);
      rows.push_back({k, -i});
      perKey[static_cast<size_t>(k)] *= 2;
    }
    const std::string s = "s" + std::to_string(i);
    db.create(s, "k INTEGER, v INTEGER", rows);
    from += ", " + s;
    where += std::string(i > 1 ? " AND " : "") + "c.k" + std::to_string(i) + " = " + s + ".k";
  }
  db.check(from, where, n, perKey[0] + 2 * perKey[1] + perKey[2]);
}

TEST_CASE("more tables in one join than join ordering plans for: 54001") {
  Database db;
  Connection con(db);
  // A FROM list nests as deep as it is long (bounded at 200), so the 1,001 tables come from views,
  // which join into the query's region.
  con.execute("CREATE TABLE t (a INTEGER)");
  std::string from;
  for (int i = 0; i < 143; ++i) from += (i ? ", t t" : "t t") + std::to_string(i);
  con.execute("CREATE VIEW v AS SELECT t0.a FROM " + from);
  con.execute("CREATE VIEW w AS SELECT 1 AS one FROM v v0, v v1, v v2, v v3, v v4, v v5, v v6");  // 1,001 tables (with t: 1,002)
  CHECK(allText(con.execute("SELECT count(*) FROM v v0, v v1, v v2, v v3, v v4, v v5, t")) == "0\n");  // 859: planned
  try {
    con.execute("EXPLAIN SELECT * FROM w, t");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "54001");
    CHECK(e.message().find("more than 1000 tables joined in one query (100") != std::string::npos);
  }
  CHECK(sql::kMaxJoinLeaves == 1000);
}
