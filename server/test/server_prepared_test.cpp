// What libpq programs do through the extended query protocol (libpqxx 6.4: prepared statements,
// exec_params) and password logins over TCP (SCRAM-SHA-256, libpq's own implementation).
#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "server/test/test_server.hpp"

using namespace hyrax;
using namespace hyrax::server;
using namespace hyrax::server::test;

TEST_CASE("libpqxx: prepared statements with parameters, NULLs and errors", "[server][libpqxx]") {
  TestServer server;
  pqxx::connection con(server.conninfo());
  pqxx::nontransaction tx(con);
  tx.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR(20), price DECIMAL(10,2), day DATE)");
  con.prepare("add", "INSERT INTO items VALUES ($1, $2, $3, $4)");
  tx.exec_prepared("add", 1, "apple", "1.25", "2024-02-29");
  tx.exec_prepared("add", 2, nullptr, nullptr, nullptr);
  tx.exec_prepared("add", 3, "pear", "0.5", "2024-03-01");
  con.prepare("cheaper", "SELECT id, name, price FROM items WHERE price < $1 ORDER BY id");
  pqxx::result r = tx.exec_prepared("cheaper", "1.00");
  REQUIRE(r.size() == 1);
  CHECK(r[0][0].as<int>() == 3);
  CHECK(r[0][1].as<std::string>() == "pear");
  CHECK(r[0][2].as<std::string>() == "0.50");
  r = tx.exec_params("SELECT count(*), sum(price) FROM items WHERE name IS NOT NULL AND day >= $1", "2024-01-01");
  CHECK(r[0][0].as<int>() == 2);
  CHECK(r[0][1].as<std::string>() == "1.75");
  // A duplicate key through the prepared INSERT: its SQLSTATE, and nothing written.
  try {
    tx.exec_prepared("add", 1, "again", "9", "2024-01-01");
    FAIL("no error");
  } catch (const pqxx::sql_error& e) {
    CHECK(e.sqlstate() == "23505");
  }
  // A parameter that is not a number for a number's place.
  try {
    tx.exec_prepared("cheaper", "cheap");
    FAIL("no error");
  } catch (const pqxx::sql_error& e) {
    CHECK(e.sqlstate() == "22P02");
  }
  CHECK(tx.exec("SELECT count(*) FROM items")[0][0].as<int>() == 3);
}

TEST_CASE("libpqxx: prepared statements inside a transaction commit or roll back with it", "[server][libpqxx]") {
  TestServer server;
  pqxx::connection con(server.conninfo());
  pqxx::nontransaction(con).exec("CREATE TABLE acct (id INTEGER, balance BIGINT)");
  con.prepare("open", "INSERT INTO acct VALUES ($1, $2)");
  {
    pqxx::work tx(con);
    tx.exec_prepared("open", 1, 100);
    tx.commit();
  }
  {
    pqxx::work tx(con);
    tx.exec_prepared("open", 2, 200);
    tx.abort();
  }
  pqxx::nontransaction tx(con);
  CHECK(tx.exec("SELECT count(*), sum(balance) FROM acct")[0][1].as<int>() == 100);
}

namespace {

std::string tcpConninfo(TestServer& server, const std::string& user, const std::string& password) {
  return "host=127.0.0.1 port=" + std::to_string(server.port()) + " user=" + user + " password=" + password +
         " dbname=hyrax sslmode=disable";
}

// The error text of a connection attempt, empty when it connected and answered.
std::string loginError(const std::string& conninfo) {
  try {
    pqxx::connection con(conninfo);
    pqxx::nontransaction tx(con);
    tx.exec("SELECT 1");
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("TCP logins: a role's password by SCRAM-SHA-256; wrong, unknown and NOLOGIN refused", "[server][libpqxx]") {
  TestServer server;
  {
    Connection admin(server.db());
    admin.execute("CREATE ROLE alice LOGIN PASSWORD 'correct horse'");
    admin.execute("CREATE ROLE bob PASSWORD 'battery'");  // no LOGIN
  }
  CHECK(loginError(tcpConninfo(server, "alice", "'correct horse'")).empty());
  std::string wrong = loginError(tcpConninfo(server, "alice", "staple"));
  CHECK(wrong.find("password authentication failed for user \"alice\"") != std::string::npos);
  // An unknown role fails the same way: a client cannot tell the two apart.
  std::string unknown = loginError(tcpConninfo(server, "carol", "staple"));
  CHECK(unknown.find("password authentication failed for user \"carol\"") != std::string::npos);
  CHECK(loginError(tcpConninfo(server, "bob", "battery")).find("not permitted to log in") != std::string::npos);
  // A changed password takes effect at the next login.
  Connection(server.db()).execute("ALTER ROLE alice PASSWORD 'staple'");
  CHECK(loginError(tcpConninfo(server, "alice", "staple")).empty());
  // The Unix socket lets everyone in, as trust authentication.
  CHECK(loginError(server.conninfo()).empty());
}

TEST_CASE("libpqxx: stored procedures and functions called with parameters", "[server][libpqxx]") {
  TestServer server;
  pqxx::connection con(server.conninfo());
  pqxx::nontransaction tx(con);
  tx.exec("CREATE TABLE orders (id INTEGER, qty INTEGER)");
  tx.exec("CREATE PROCEDURE place(i INTEGER, q INTEGER) AS $$ BEGIN "
          "IF q <= 0 THEN RAISE EXCEPTION 'quantity must be positive'; END IF; INSERT INTO orders VALUES (i, q); END $$ "
          "LANGUAGE plpgsql");
  tx.exec("CREATE FUNCTION total() RETURNS BIGINT AS $$ BEGIN RETURN (SELECT sum(qty) FROM orders); END $$ LANGUAGE plpgsql");
  con.prepare("place", "CALL place($1, $2)");
  for (int i = 1; i <= 3; ++i) tx.exec_prepared("place", i, 10 * i);
  try {
    tx.exec_prepared("place", 4, 0);
    FAIL("no error");
  } catch (const pqxx::sql_error& e) {
    CHECK(e.sqlstate() == "P0001");
    CHECK(std::string(e.what()).find("quantity must be positive") != std::string::npos);
  }
  CHECK(tx.exec_params("SELECT total()")[0][0].as<int>() == 60);
  CHECK(tx.exec("SELECT count(*) FROM orders")[0][0].as<int>() == 3);
}
