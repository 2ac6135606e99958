// EXPLAIN ANALYZE's actual row counts: each generated function counts its operators' rows in
// locals and adds them to the query's counters when it returns (codegen/translate/translator.cpp,
// QueryTranslator::rowCounter), on every way out: the end of a morsel, a LIMIT that has its rows,
// a join's and an aggregation's pipelines, on one thread and two, in the interpreter and both
// tiers of machine code (whose morsels switch between them).
#include <catch2/catch.hpp>

#include <string>

#include "sql/api/database.hpp"
#include "sql/test/result_text.hpp"

using namespace hyrax;

namespace {

std::string explainAnalyze(Connection& con, const std::string& sql) {
  return test::allText(con.execute("EXPLAIN ANALYZE " + sql));
}

}  // namespace

TEST_CASE("EXPLAIN ANALYZE counts every operator's rows on every way a pipeline returns", "[explain]") {
  Database db;
  Connection con(db);
  con.execute("SET analytics = 'inline'");
  con.execute("SET statement_cache = off");
  con.execute("CREATE TABLE t (i INTEGER NOT NULL, g INTEGER NOT NULL)");
  con.execute("INSERT INTO t SELECT i, i % 10 FROM generate_series(0, 199999) AS x(i)");
  con.execute("ANALYZE");
  for (const char* threads : {"1", "2"})
    for (const char* tier : {"interpreted", "cheap", "optimized", "auto"}) {
      con.execute(std::string("SET threads = ") + threads);
      con.execute(std::string("SET compile_tier = '") + tier + "'");
      INFO("threads " << threads << ", " << tier);
      std::string plan = explainAnalyze(con, "SELECT g, count(*) FROM t WHERE i % 3 = 0 GROUP BY g");
      INFO(plan);
      CHECK(plan.find("actual=10)") != std::string::npos);      // the groups
      CHECK(plan.find("actual=66667)") != std::string::npos);   // the filter's rows
      CHECK(plan.find("actual=200000)") != std::string::npos);  // the scan's
      plan = explainAnalyze(con, "SELECT i FROM t WHERE i % 3 = 0 LIMIT 5");
      INFO(plan);
      CHECK(plan.find("Limit 5  (rows=5 actual=5)") != std::string::npos);
      plan = explainAnalyze(con, "SELECT count(*) FROM t a JOIN t b ON a.i = b.i WHERE a.g = 1");
      INFO(plan);
      CHECK(plan.find("actual=20000)") != std::string::npos);  // the join's rows (and a.g = 1's)
    }
}
