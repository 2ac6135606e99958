#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "sql/api/database.hpp"

using namespace hyrax;

// CURRENT_TIMESTAMP is the transaction's start: one value for a whole block, wherever its
// statements run (the executor, a snapshot worker for a READ ONLY block, a stored function's
// compiled body), and a new value for the next transaction even from the same compiled code.
namespace {
std::string now(Connection& con, const char* sql = "SELECT now()") { return con.execute(sql).text(0, 0); }
void tick() { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }
}  // namespace

TEST_CASE("now() is the transaction's start in blocks, on snapshots and in stored functions") {
  Database db;
  Connection con(db);
  con.execute("CREATE FUNCTION stamp() RETURNS TIMESTAMP AS $$ BEGIN RETURN now(); END $$ LANGUAGE plpgsql");
  con.execute("PREPARE p AS SELECT CURRENT_TIMESTAMP");
  for (const char* analytics : {"inline", "snapshot"}) {
    INFO(analytics);
    con.execute(std::string("SET analytics = '") + analytics + "'");
    for (const char* begin : {"BEGIN", "BEGIN READ ONLY"}) {
      INFO(begin);
      con.execute(begin);
      std::string first = now(con);
      tick();
      CHECK(now(con) == first);
      CHECK(now(con, "EXECUTE p") == first);
      CHECK(now(con, "SELECT stamp() FROM (SELECT 1) AS x") == first);
      con.execute("COMMIT");
      tick();
      std::string later = now(con, "EXECUTE p");
      CHECK(later > first);  // the text of a later timestamp of the same width sorts after it
      tick();
      CHECK(now(con, "EXECUTE p") > later);
    }
  }
}
