// The binder's joins are logical; the physical planner picks each one's algorithm; execution and
// EXPLAIN plan a statement the same way (statement_planner.hpp).
#include <catch2/catch.hpp>

#include "engine/catalog/catalog.hpp"
#include "sql/api/compiled_statement.hpp"
#include "sql/api/database.hpp"
#include "sql/api/statement_planner.hpp"
#include "sql/parser/parser.hpp"
#include "sql/semantic/binder.hpp"
#include "sql/test/result_text.hpp"

using namespace hyrax;
using test::allText;

namespace {

// Every operator of the tree of `kind`, in pre-order.
std::vector<const plan::Operator*> find(const plan::Operator& op, plan::OpKind kind) {
  std::vector<const plan::Operator*> out;
  auto visit = [&](auto& self, const plan::Operator& o) -> void {
    if (o.kind == kind) out.push_back(&o);
    for (auto& c : o.children) self(self, *c);
  };
  visit(visit, op);
  return out;
}

plan::QueryPlan planOf(Database& db, const std::string& sql) {
  PhaseTimes times;
  return sql::planStatement(db.catalog(), *parseStatement(sql), {}, times).plan;
}

// small: 3 rows; big: 2,560 rows with a primary key; other: 40 rows without an index.
void makeTables(Connection& con) {
  con.execute("CREATE TABLE small (k INTEGER, v TEXT)");
  con.execute("INSERT INTO small VALUES (1, 'x'), (2, 'y'), (3, 'z')");
  con.execute("CREATE TABLE big (id INTEGER PRIMARY KEY, w INTEGER)");
  con.execute("INSERT INTO big VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7), (8, 8), (9, 9), (10, 10)");
  for (int i = 0, n = 10; i < 8; ++i, n *= 2) con.execute("INSERT INTO big SELECT id + " + std::to_string(n) + ", w FROM big");
  con.execute("CREATE TABLE other (k INTEGER)");
  con.execute("INSERT INTO other SELECT id FROM big WHERE id <= 40");
}

}  // namespace

TEST_CASE("the binder makes logical joins, the physical planner physical ones") {
  Database db;
  Connection con(db);
  makeTables(con);
  plan::QueryPlan bound;
  auto stmt = parseStatement("SELECT v FROM small s JOIN other o ON o.k = s.k");
  sql::Binder(db.catalog()).bindSelect(*static_cast<const ast::SelectStmt&>(*stmt).select, bound);
  CHECK(find(*bound.root, plan::OpKind::Join).size() == 1);
  CHECK(find(*bound.root, plan::OpKind::HashJoin).empty());

  plan::QueryPlan planned = planOf(db, "SELECT v FROM small s JOIN other o ON o.k = s.k");
  CHECK(find(*planned.root, plan::OpKind::Join).empty());
  auto joins = find(*planned.root, plan::OpKind::HashJoin);
  REQUIRE(joins.size() == 1);
  auto& j = static_cast<const plan::HashJoin&>(*joins[0]);
  CHECK(j.kind == plan::JoinKind::Inner);
  CHECK(j.keys.size() == 1);  // the equality became the hash key
  CHECK(!j.residual);
  CHECK(j.child(0)->estimatedRows < j.child(1)->estimatedRows);  // builds on the smaller input
}

TEST_CASE("an equi-join without an index is a hash join; few rows against an index, an index join") {
  Database db;
  Connection con(db);
  makeTables(con);
  // other has no index: a hash join, whichever side is small.
  plan::QueryPlan hash = planOf(db, "SELECT w FROM big b, other o WHERE b.w = o.k");
  CHECK(find(*hash.root, plan::OpKind::IndexJoin).empty());
  REQUIRE(find(*hash.root, plan::OpKind::HashJoin).size() == 1);

  // Three rows against big's primary key: a lookup per row beats hashing 2,560.
  plan::QueryPlan index = planOf(db, "SELECT v, w FROM small s JOIN big b ON b.id = s.k");
  CHECK(find(*index.root, plan::OpKind::HashJoin).empty());
  auto ij = find(*index.root, plan::OpKind::IndexJoin);
  REQUIRE(ij.size() == 1);
  REQUIRE(ij[0]->child(1)->kind == plan::OpKind::TableScan);
  auto& inner = static_cast<const plan::TableScan&>(*ij[0]->child(1));
  CHECK(inner.table->name() == "big");
  CHECK(inner.pointLookup());
  CHECK(allText(con.execute("SELECT v, w FROM small s JOIN big b ON b.id = s.k ORDER BY v")) == "x\ny\nz\n");

  // A LEFT JOIN preserving the few: built on them, the many mark what they match.
  plan::QueryPlan outer = planOf(db, "SELECT v, w FROM small s LEFT JOIN big b ON b.w = s.k");
  auto oj = find(*outer.root, plan::OpKind::HashJoin);
  REQUIRE(oj.size() == 1);
  CHECK(static_cast<const plan::HashJoin&>(*oj[0]).kind == plan::JoinKind::RightOuter);
  CHECK(oj[0]->child(0)->estimatedRows == 3);
}

TEST_CASE("EXPLAIN shows the plan that execution runs") {
  Database db;
  Connection con(db);
  makeTables(con);
  for (std::string sql : {"SELECT v, w FROM small s JOIN big b ON b.id = s.k",
                          "SELECT v FROM small s WHERE EXISTS (SELECT 1 FROM other o WHERE o.k = s.k) ORDER BY v LIMIT 2",
                          "SELECT s.k, count(*) FROM small s LEFT JOIN other o ON o.k = s.k GROUP BY s.k",
                          "UPDATE big SET w = w + 1 WHERE id IN (SELECT k FROM small)",
                          "DELETE FROM other WHERE k NOT IN (SELECT id FROM big WHERE w < 30)",
                          "INSERT INTO other SELECT k FROM small"}) {
    INFO(sql);
    std::string explained = allText(con.execute("EXPLAIN " + sql));
    PhaseTimes times;
    auto compiled = sql::compileStatement(db.catalog(), *parseStatement(sql), {}, times);
    CHECK(explained == plan::explain(compiled->plan));
    CHECK(!explained.empty());
  }
}

TEST_CASE("a join of a column with a computed key takes the column's distinct values") {
  // The CH-benCHmark joins stock to supplier on mod(s_w_id * s_i_id, 10000) = su_suppkey and
  // customers to nations on ascii(substring(c_state, 1, 1)) = n_nationkey: the computed side's
  // distinct count is only an upper bound (the product of its columns'), so the estimate divides
  // by the column's, as for a foreign key, not by the bound (which made Q5's join order 70x slower).
  Database db;
  Connection con(db);
  makeTables(con);
  con.execute("CREATE TABLE d (n INTEGER)");
  con.execute("INSERT INTO d SELECT id % 10 FROM big");
  con.execute("ANALYZE");
  std::string plan = allText(con.execute("EXPLAIN SELECT count(*) FROM d, big WHERE d.n = mod(big.id * big.w, 10)"));
  INFO(plan);
  CHECK(plan.find("rows=655360") != std::string::npos);  // 2,560 x 2,560 / 10
}
