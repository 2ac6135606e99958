// What a session knows of its client, as PostgreSQL 15 answers it: the role it logged in as
// (current_user and friends), the settings it reports (ParameterStatus).
#include <catch2/catch.hpp>
#include <libpq-fe.h>
#include <pqxx/pqxx>

#include <map>
#include <memory>
#include <vector>

#include "server/test/test_server.hpp"

using namespace hyrax::server::test;

namespace {

std::string conninfoAs(const TestServer& server, const std::string& user) {
  return "host=" + server.dir() + " port=" + std::to_string(server.port()) + " user=" + user + " dbname=hyrax";
}

// libpq's own connection, for what libpqxx 6 does not show (ParameterStatus values).
using PgConn = std::unique_ptr<PGconn, decltype(&PQfinish)>;
PgConn connect(const std::string& conninfo) {
  PgConn c(PQconnectdb(conninfo.c_str()), &PQfinish);
  REQUIRE(PQstatus(c.get()) == CONNECTION_OK);
  return c;
}
std::string reported(PGconn* c, const char* name) {
  const char* v = PQparameterStatus(c, name);
  return v ? v : "(none)";
}

}  // namespace

TEST_CASE("session: current_user is the role the client logged in as", "[server][session]") {
  TestServer server;
  {
    pqxx::connection admin(conninfoAs(server, "hyrax"));
    pqxx::nontransaction tx(admin);
    CHECK(tx.exec("SELECT current_user, session_user, current_role, user")[0][3].as<std::string>() == "hyrax");
    tx.exec("CREATE ROLE alice LOGIN");
    CHECK(tx.exec("SHOW is_superuser")[0][0].as<std::string>() == "on");
    CHECK(reported(connect(conninfoAs(server, "hyrax")).get(), "is_superuser") == "on");
  }
  pqxx::connection alice(conninfoAs(server, "alice"));
  pqxx::connection bob(conninfoAs(server, "bob"));
  pqxx::nontransaction a(alice), b(bob);
  pqxx::result r = a.exec("SELECT current_user, session_user, current_role, user");
  for (int i = 0; i < 4; ++i) CHECK(r[0][i].as<std::string>() == "alice");
  CHECK(b.exec("SELECT current_user")[0][0].as<std::string>() == "bob");
  CHECK(a.exec("SHOW session_authorization")[0][0].as<std::string>() == "alice");
  {
    PgConn raw = connect(conninfoAs(server, "alice"));
    CHECK(reported(raw.get(), "session_authorization") == "alice");
    // As pg_roles says: a role CREATE ROLE made is no superuser.
    CHECK(reported(raw.get(), "is_superuser") == "off");
  }
  // pg_catalog's queries that ask about the current role (psql's, drivers').
  r = a.exec("SELECT rolname, rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user");
  REQUIRE(r.size() == 1);
  CHECK(r[0][0].as<std::string>() == "alice");
  CHECK(r[0][1].as<bool>() == false);
  CHECK(a.exec("SELECT pg_catalog.has_database_privilege(current_user, 'hyrax', 'CONNECT')")[0][0].as<bool>());
  // The same text again (the session's statement cache) and a prepared statement read the role
  // when they run, in each session its own.
  for (int i = 0; i < 3; ++i) CHECK(b.exec("SELECT current_user")[0][0].as<std::string>() == "bob");
  alice.prepare("who", "SELECT current_user");
  bob.prepare("who", "SELECT current_user");
  CHECK(a.exec_prepared("who")[0][0].as<std::string>() == "alice");
  CHECK(b.exec_prepared("who")[0][0].as<std::string>() == "bob");
  // A stored function runs as its caller.
  a.exec("CREATE FUNCTION whoami() RETURNS TEXT AS $$ BEGIN RETURN current_user; END $$ LANGUAGE plpgsql");
  CHECK(a.exec("SELECT whoami()")[0][0].as<std::string>() == "alice");
  CHECK(b.exec("SELECT whoami()")[0][0].as<std::string>() == "bob");
  // The role stays through RESET ALL; it is not SET.
  a.exec("RESET ALL");
  CHECK(a.exec("SELECT current_user")[0][0].as<std::string>() == "alice");
  try {
    a.exec("SET session_authorization = 'bob'");
    FAIL("no error");
  } catch (const pqxx::sql_error& e) {
    CHECK(e.sqlstate() == "0A000");
  }
  CHECK(a.exec("SELECT current_user")[0][0].as<std::string>() == "alice");
}

namespace {

// The ParameterStatus values among a Query's replies and the replies' types.
struct Answer {
  std::string types;
  std::map<std::string, std::string> reported;
};
// The NoticeResponses and ErrorResponses among replies: "N 00000 message", "E 22012 message".
std::vector<std::string> messages(const std::vector<Reply>& replies) {
  std::vector<std::string> m;
  for (auto& x : replies)
    if (x.type == 'N' || x.type == 'E') m.push_back(std::string(1, x.type) + " " + x.field('C') + " " + x.field('M'));
  return m;
}

Answer ask(RawClient& c, const std::string& sql) {
  c.send(RawClient::query(sql));
  auto r = c.untilReady();
  return {RawClient::types(r), parameterStatus(r)};
}

}  // namespace

TEST_CASE("session: the settings PostgreSQL reports, at startup and when they change", "[server][session]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.send(RawClient::startupPacket(3 << 16, {{"user", "tester"}, {"database", "hyrax"}, {"application_name", "raw"},
                                            {"DateStyle", "ISO"}, {"TimeZone", "Europe/Berlin"}, {"geqo", "off"}}));
  std::map<std::string, std::string> start = parameterStatus(c.untilReady());
  // PostgreSQL 15's reported settings, every one.
  std::vector<std::string> names;
  for (auto& [name, value] : start) names.push_back(name);
  CHECK(names == std::vector<std::string>{"DateStyle", "IntervalStyle", "TimeZone", "application_name", "client_encoding",
                                          "default_transaction_read_only", "in_hot_standby", "integer_datetimes",
                                          "is_superuser", "server_encoding", "server_version", "session_authorization",
                                          "standard_conforming_strings"});
  CHECK(start["application_name"] == "raw");
  CHECK(start["DateStyle"] == "ISO, MDY");  // the startup packet's, as SET normalizes it
  CHECK(start["TimeZone"] == "Europe/Berlin");
  CHECK(start["session_authorization"] == "tester");
  // The startup packet's settings are the session's (and RESET's).
  c.send(RawClient::query("SHOW application_name; SHOW timezone"));
  auto shown = c.untilReady();
  REQUIRE(RawClient::types(shown) == "TDCTDCZ");

  Answer a = ask(c, "SET application_name = 'x'");
  CHECK(a.types == "CSZ");  // ParameterStatus just before ReadyForQuery, as PostgreSQL 14+
  CHECK(a.reported == std::map<std::string, std::string>{{"application_name", "x"}});
  CHECK(ask(c, "SET application_name = 'x'").types == "CZ");  // no change, no message
  // Set and rolled back before ReadyForQuery: the client's value never changed.
  CHECK(ask(c, "BEGIN; SET application_name = 'y'; ROLLBACK").types == "CCCZ");
  a = ask(c, "BEGIN; SET application_name = 'y'");
  CHECK(a.types == "CCSZ");
  CHECK(a.reported["application_name"] == "y");
  a = ask(c, "ROLLBACK");  // the old value again
  CHECK(a.types == "CSZ");
  CHECK(a.reported["application_name"] == "x");
  // SET LOCAL: until the block ends; a plain SET after it in the block stays.
  CHECK(ask(c, "BEGIN; SET LOCAL application_name = 'loc'").reported["application_name"] == "loc");
  CHECK(ask(c, "COMMIT").reported["application_name"] == "x");
  CHECK(ask(c, "BEGIN; SET LOCAL application_name = 'l'; SET application_name = 's'; COMMIT").reported["application_name"] == "s");
  CHECK(ask(c, "BEGIN; SET LOCAL application_name = 'l'; COMMIT").types == "CCCZ");
  // Outside a block SET LOCAL warns and lasts no longer than its statement.
  c.send(RawClient::query("SET LOCAL application_name = 'gone'"));
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "NCZ");
  CHECK(r[0].field('C') == "25P01");
  CHECK(r[0].field('S') == "WARNING");
  // RESET returns to the startup packet's value; other reported settings likewise.
  CHECK(ask(c, "RESET application_name").reported == std::map<std::string, std::string>{{"application_name", "raw"}});
  a = ask(c, "SET TIME ZONE 'UTC'; SET DateStyle = 'ISO, DMY'");
  CHECK(a.reported == std::map<std::string, std::string>{{"DateStyle", "ISO, DMY"}, {"TimeZone", "UTC"}});
  a = ask(c, "RESET ALL");
  CHECK(a.reported == std::map<std::string, std::string>{{"DateStyle", "ISO, MDY"}, {"TimeZone", "Europe/Berlin"}});
  // A failed SET changes nothing.
  CHECK(ask(c, "SET client_encoding = 'LATIN1'").types == "EZ");
  // Extended protocol: reported at Sync, before ReadyForQuery.
  c.send(parse("", "SET application_name = 'ext'", {}) + bind("", "", {}, 0) + execute("", 0) + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "12CSZ");
  CHECK(parameterStatus(r)["application_name"] == "ext");
}

TEST_CASE("session: the notices a statement raised before it failed come before its error", "[server][session]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query(
      "CREATE TABLE t (a INTEGER);"
      "CREATE PROCEDURE fails(n INTEGER) AS $$ DECLARE x INTEGER; BEGIN RAISE NOTICE 'n1 %', n; RAISE WARNING 'w1'; "
      "x := 1 / n; END $$ LANGUAGE plpgsql;"
      "CREATE PROCEDURE outer_fails() AS $$ BEGIN RAISE NOTICE 'outer'; CALL fails(0); END $$ LANGUAGE plpgsql;"
      "CREATE PROCEDURE caught() AS $$ DECLARE x INTEGER; BEGIN BEGIN RAISE NOTICE 'inner'; x := 1 / 0; "
      "EXCEPTION WHEN division_by_zero THEN RAISE NOTICE 'caught'; END; RAISE EXCEPTION 'boom'; END $$ LANGUAGE plpgsql;"
      "CREATE FUNCTION f(n INTEGER) RETURNS INTEGER AS $$ BEGIN RAISE NOTICE 'f %', n; RETURN 10 / n; END $$ LANGUAGE plpgsql;"
      "INSERT INTO t VALUES (0)"));
  REQUIRE(RawClient::types(c.untilReady()) == "CCCCCCZ");
  c.send(RawClient::query("CALL fails(0)"));
  auto r = c.untilReady();
  CHECK(RawClient::types(r) == "NNEZ");
  CHECK(messages(r) == std::vector<std::string>{"N 00000 n1 0", "N 01000 w1", "E 22012 division by zero"});
  // A nested call's, after the caller's; one of a block whose handler caught the error, too.
  c.send(RawClient::query("CALL outer_fails()"));
  CHECK(messages(c.untilReady()) == std::vector<std::string>{"N 00000 outer", "N 00000 n1 0", "N 01000 w1", "E 22012 division by zero"});
  c.send(RawClient::query("CALL caught()"));
  CHECK(messages(c.untilReady()) == std::vector<std::string>{"N 00000 inner", "N 00000 caught", "E P0001 boom"});
  // A function a query calls per row, inline and on a snapshot.
  for (const char* analytics : {"inline", "snapshot"}) {
    c.send(RawClient::query(std::string("SET analytics = '") + analytics + "'"));
    c.untilReady();
    c.send(RawClient::query("SELECT f(a) FROM t"));
    CHECK(messages(c.untilReady()) == std::vector<std::string>{"N 00000 f 0", "E 22012 division by zero"});
  }
  // Through the extended protocol the same.
  c.send(parse("", "CALL fails(0)", {}) + bind("", "", {}, 0) + execute("", 0) + syncMessage());
  r = c.untilReady();
  CHECK(RawClient::types(r) == "12NNEZ");
  // In a block: the block fails, the notices still came.
  c.send(RawClient::query("BEGIN; CALL fails(0)"));
  r = c.untilReady();
  CHECK(RawClient::types(r) == "CNNEZ");
  CHECK(r.back().body == "E");
}

TEST_CASE("session: a function a query calls per row sends its notices, as PostgreSQL", "[server][session]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query(
      "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2), (0);"
      "CREATE FUNCTION f(n INTEGER) RETURNS INTEGER AS $$ BEGIN RAISE NOTICE 'f %', n; RETURN 10 / n; END $$ LANGUAGE plpgsql"));
  REQUIRE(RawClient::types(c.untilReady()) == "CCCZ");
  for (const char* analytics : {"inline", "snapshot"}) {
    c.send(RawClient::query(std::string("SET analytics = '") + analytics + "'"));
    c.untilReady();
    c.send(RawClient::query("SELECT f(a) FROM t WHERE a > 0 ORDER BY a"));
    auto r = c.untilReady();
    // (PostgreSQL interleaves them with the rows, as it computes each; here they all come first:
    // the rows are computed before any is sent.)
    CHECK(RawClient::types(r) == "NNTDDCZ");
    CHECK(messages(r) == std::vector<std::string>{"N 00000 f 1", "N 00000 f 2"});
    // The calls that went well before one failed: their notices, then the failed one's, then the error.
    c.send(RawClient::query("SELECT f(a) FROM t"));
    CHECK(messages(c.untilReady()) ==
          std::vector<std::string>{"N 00000 f 1", "N 00000 f 2", "N 00000 f 0", "E 22012 division by zero"});
  }
}
