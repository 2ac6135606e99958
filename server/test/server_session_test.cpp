// What a session knows of its client, as PostgreSQL 15 answers it: the role it logged in as
// (current_user and friends).
#include <catch2/catch.hpp>
#include <libpq-fe.h>
#include <pqxx/pqxx>

#include <memory>

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
