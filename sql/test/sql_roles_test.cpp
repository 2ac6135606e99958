// Roles (sql/api/roles.hpp): CREATE/ALTER/DROP ROLE and USER keep a name, the login flag and a
// SCRAM-SHA-256 verifier, never the password; the server looks them up through Database::roles().
#include <catch2/catch.hpp>

#include <string>

#include "sql/api/database.hpp"
#include "sql/api/roles.hpp"
#include "sql/api/scram_verifier.hpp"
#include "test/sqlstate_of.hpp"

using namespace hyrax;
using test::sqlstateOf;

TEST_CASE("CREATE ROLE and CREATE USER keep the login flag and a verifier, not the password", "[roles]") {
  Database db;
  Connection con(db);
  CHECK(con.execute("CREATE ROLE reader").tag() == "CREATE ROLE");
  CHECK(con.execute("CREATE USER alice WITH PASSWORD 'secret-pw' SUPERUSER CREATEDB CONNECTION LIMIT 5").tag() ==
        "CREATE ROLE");
  con.execute("CREATE ROLE bob LOGIN ENCRYPTED PASSWORD 'pw2' VALID UNTIL 'infinity'");
  con.execute("CREATE USER carol NOLOGIN");

  auto reader = db.roles().find("reader");
  REQUIRE(reader);
  CHECK_FALSE(reader->login);  // CREATE ROLE: NOLOGIN unless said
  CHECK(reader->verifier.empty());
  auto alice = db.roles().find("alice");
  REQUIRE(alice);
  CHECK(alice->login);  // CREATE USER: LOGIN
  CHECK(alice->verifier.rfind("SCRAM-SHA-256$4096:", 0) == 0);
  CHECK(alice->verifier.find("secret-pw") == std::string::npos);
  REQUIRE(scram::parseVerifier(alice->verifier));
  CHECK(db.roles().find("bob")->login);
  CHECK_FALSE(db.roles().find("carol")->login);
  CHECK_FALSE(db.roles().find("nobody"));
  CHECK(db.roles().list().size() == 4);

  // The verifier is the password's: the same salt gives the same verifier.
  auto v = *scram::parseVerifier(alice->verifier);
  CHECK(scram::makeVerifier("secret-pw", v.salt, v.iterations) == alice->verifier);
  CHECK(scram::makeVerifier("other", v.salt, v.iterations) != alice->verifier);
}

TEST_CASE("ALTER ROLE changes the password and login; DROP ROLE removes roles", "[roles]") {
  Database db;
  Connection con(db);
  con.execute("CREATE ROLE r WITH LOGIN PASSWORD 'one'");
  std::string first = db.roles().find("r")->verifier;
  CHECK(con.execute("ALTER ROLE r WITH PASSWORD 'two'").tag() == "ALTER ROLE");
  std::string second = db.roles().find("r")->verifier;
  CHECK(second != first);
  auto v = *scram::parseVerifier(second);
  CHECK(scram::makeVerifier("two", v.salt, v.iterations) == second);
  con.execute("ALTER USER r NOLOGIN");
  CHECK_FALSE(db.roles().find("r")->login);
  CHECK(db.roles().find("r")->verifier == second);  // untouched
  con.execute("ALTER ROLE r PASSWORD NULL");
  CHECK(db.roles().find("r")->verifier.empty());
  // A verifier given as the password is kept as it is (what a dump restores).
  con.execute("ALTER ROLE r PASSWORD '" + first + "'");
  CHECK(db.roles().find("r")->verifier == first);
  QueryResult empty = con.execute("ALTER ROLE r PASSWORD ''");
  CHECK(db.roles().find("r")->verifier.empty());
  REQUIRE(empty.notices.size() == 1);

  CHECK(con.execute("DROP ROLE r").tag() == "DROP ROLE");
  CHECK_FALSE(db.roles().find("r"));
  QueryResult skipped = con.execute("DROP ROLE IF EXISTS r");
  REQUIRE(skipped.notices.size() == 1);
  CHECK(skipped.notices[0].message == "role \"r\" does not exist, skipping");
  // A DROP of several: all or nothing.
  con.execute("CREATE ROLE a");
  CHECK(sqlstateOf([&] { con.execute("DROP USER a, nothere"); }) == "42704");
  CHECK(db.roles().find("a"));
}

TEST_CASE("role errors: 42710 exists, 42704 does not exist, and no password in any message", "[roles]") {
  Database db;
  Connection con(db);
  con.execute("CREATE ROLE r PASSWORD 'hunter2'");
  try {
    con.execute("CREATE USER r PASSWORD 'hunter2'");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "42710");
    CHECK(e.message() == "role \"r\" already exists");
    CHECK(e.pos().column == 13);
  }
  try {
    con.execute("ALTER ROLE nobody PASSWORD 'hunter2'");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "42704");
    CHECK(std::string(e.what()).find("hunter2") == std::string::npos);
  }
  CHECK(sqlstateOf([&] { con.execute("DROP ROLE nobody"); }) == "42704");
  try {
    con.execute("CREATE ROLE s PASSWORD 'hunter2' FLYING");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "42601");
    CHECK(e.message().find("hunter2") == std::string::npos);
  }
  CHECK(sqlstateOf([&] { con.execute("ALTER SEQUENCE s RESTART"); }) == "42601");
}

TEST_CASE("role statements are transactional", "[roles]") {
  Database db;
  Connection con(db);
  con.execute("CREATE ROLE keep LOGIN PASSWORD 'a'");
  std::string verifier = db.roles().find("keep")->verifier;
  con.execute("BEGIN");
  con.execute("CREATE ROLE temp");
  con.execute("ALTER ROLE keep NOLOGIN PASSWORD 'b'");
  con.execute("DROP ROLE keep");
  CHECK_FALSE(db.roles().find("keep"));
  con.execute("ROLLBACK");
  CHECK_FALSE(db.roles().find("temp"));
  REQUIRE(db.roles().find("keep"));
  CHECK(db.roles().find("keep")->login);
  CHECK(db.roles().find("keep")->verifier == verifier);
  // In a READ ONLY block: refused like any write.
  con.execute("BEGIN READ ONLY");
  CHECK(sqlstateOf([&] { con.execute("CREATE ROLE x"); }) == "25006");
  con.execute("ROLLBACK");
}
