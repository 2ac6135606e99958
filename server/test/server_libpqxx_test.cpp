// The server as a libpq program uses it (libpqxx 6.4 over the Unix socket, the simple query
// protocol): typed results, errors with their SQLSTATE, transactions, COPY streams, cancel.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include <chrono>
#include <thread>

#include "server/test/test_server.hpp"

using namespace hyrax::server::test;

TEST_CASE("libpqxx: exec and typed results", "[server][libpqxx]") {
  TestServer server;
  pqxx::connection con(server.conninfo());
  CHECK(con.server_version() >= 150000);
  pqxx::nontransaction tx(con);
  tx.exec("CREATE TABLE t (id INTEGER, big BIGINT, name VARCHAR(20), price DECIMAL(10,2), ok BOOLEAN, "
          "x DOUBLE PRECISION, day DATE)");
  tx.exec("INSERT INTO t VALUES (1, 10000000000, 'anna', 12.5, true, 0.25, DATE '2021-03-04'), "
          "(2, NULL, NULL, NULL, false, NULL, NULL)");
  pqxx::result r = tx.exec("SELECT * FROM t ORDER BY id");
  REQUIRE(r.size() == 2);
  REQUIRE(r.columns() == 7);
  CHECK(std::string(r.column_name(2)) == "name");
  CHECK(r.column_type(0) == 23);
  CHECK(r.column_type(1) == 20);
  CHECK(r.column_type(3) == 1700);
  CHECK(r[0][0].as<int>() == 1);
  CHECK(r[0][1].as<int64_t>() == 10000000000LL);
  CHECK(r[0][2].as<std::string>() == "anna");
  CHECK(r[0][3].as<std::string>() == "12.50");
  CHECK(r[0][4].as<bool>() == true);
  CHECK(r[0][5].as<double>() == 0.25);
  CHECK(r[0][6].as<std::string>() == "2021-03-04");
  CHECK(r[1][1].is_null());
  CHECK(r[1][2].is_null());
  CHECK(r[1][4].as<bool>() == false);
  pqxx::result ins = tx.exec("INSERT INTO t (id) VALUES (3), (4)");
  CHECK(ins.affected_rows() == 2);
}

// (libpqxx 6.4 keeps the tag itself private; server_protocol_test.cpp reads it.)
TEST_CASE("libpqxx: INSERT ... RETURNING gives the generated keys, UPDATE/DELETE their rows", "[server][libpqxx]") {
  TestServer server;
  pqxx::connection con(server.conninfo());
  pqxx::nontransaction tx(con);
  tx.exec("CREATE TABLE orders (id SERIAL PRIMARY KEY, item TEXT NOT NULL, qty INTEGER DEFAULT 1)");
  pqxx::result r = tx.exec("INSERT INTO orders (item) VALUES ('pen'), ('ink') RETURNING id, qty");
  REQUIRE(r.size() == 2);
  CHECK(std::string(r.column_name(0)) == "id");
  CHECK(r.column_type(0) == 23);
  CHECK(r[0][0].as<int>() == 1);
  CHECK(r[1][0].as<int>() == 2);
  CHECK(r[1][1].as<int>() == 1);
  CHECK(r.affected_rows() == 2);  // from the tag (libpq's PQcmdTuples)
  con.prepare("add", "INSERT INTO orders (item, qty) VALUES ($1, $2) RETURNING id, upper(item), qty * $2");
  r = tx.exec_prepared("add", "pad", 3);
  REQUIRE(r.size() == 1);
  CHECK(r[0][0].as<int>() == 3);
  CHECK(std::string(r.column_name(1)) == "upper");
  CHECK(r[0][1].as<std::string>() == "PAD");
  CHECK(r[0][2].as<int>() == 9);
  CHECK(r.affected_rows() == 1);
  r = tx.exec("UPDATE orders SET qty = qty + 1 WHERE id >= 2 RETURNING *");
  CHECK(r.size() == 2);
  CHECK(r.affected_rows() == 2);
  r = tx.exec("DELETE FROM orders WHERE id = 1 RETURNING item");
  REQUIRE(r.size() == 1);
  CHECK(r[0][0].as<std::string>() == "pen");
  CHECK(r.affected_rows() == 1);
  CHECK(tx.exec("SELECT count(*) FROM orders")[0][0].as<int>() == 2);
}

TEST_CASE("libpqxx: an error carries its SQLSTATE and the session goes on", "[server][libpqxx]") {
  TestServer server;
  pqxx::connection con(server.conninfo());
  pqxx::nontransaction tx(con);
  try {
    tx.exec("SELECT * FROM missing");
    FAIL("no error");
  } catch (const pqxx::sql_error& e) {
    CHECK(e.sqlstate() == "42P01");
    CHECK(std::string(e.what()).find("missing") != std::string::npos);
  }
  CHECK(tx.exec("SELECT 2 * 21")[0][0].as<int>() == 42);
}

TEST_CASE("libpqxx: a committed transaction stays, an aborted one leaves nothing", "[server][libpqxx]") {
  TestServer server;
  pqxx::connection con(server.conninfo());
  {
    pqxx::nontransaction tx(con);
    tx.exec("CREATE TABLE t (a INTEGER PRIMARY KEY)");
  }
  {
    pqxx::work w(con);
    w.exec("INSERT INTO t VALUES (1)");
    w.commit();
  }
  {
    pqxx::work w(con);
    w.exec("INSERT INTO t VALUES (2)");
    CHECK_THROWS_AS(w.exec("INSERT INTO t VALUES (1)"), pqxx::unique_violation);
    // leaving without commit: pqxx sends ROLLBACK
  }
  {
    pqxx::work w(con);
    w.exec("INSERT INTO t VALUES (3)");
    w.abort();
  }
  pqxx::nontransaction tx(con);
  CHECK(tx.exec("SELECT count(*), max(a) FROM t")[0][0].as<int>() == 1);
}

// 200,000 rows, about 3 MB each way: more than a spool keeps in memory (server/spool.hpp).
TEST_CASE("libpqxx: stream_to and stream_from (COPY FROM STDIN, COPY TO STDOUT)", "[server][libpqxx]") {
  TestServer server;
  pqxx::connection con(server.conninfo());
  {
    pqxx::nontransaction tx(con);
    tx.exec("CREATE TABLE t (a INTEGER, b TEXT)");
  }
  {
    pqxx::work w(con);
    pqxx::stream_to to(w, "t");
    for (int i = 0; i < 200000; ++i) to << std::make_tuple(i, "row " + std::to_string(i));
    to.complete();
    w.commit();
  }
  pqxx::work w(con);
  pqxx::stream_from from(w, "t");
  std::tuple<int, std::string> row;
  int64_t sum = 0, rows = 0;
  while (from >> row) {
    sum += std::get<0>(row);
    if (std::get<0>(row) == 199999) CHECK(std::get<1>(row) == "row 199999");
    ++rows;
  }
  from.complete();
  CHECK(rows == 200000);
  CHECK(sum == 199999LL * 200000 / 2);
}

TEST_CASE("libpqxx: cancel_query stops a running statement with 57014", "[server][libpqxx]") {
  TestServer server;
  pqxx::connection con(server.conninfo());
  pqxx::nontransaction tx(con);
  tx.exec("CREATE TABLE t (a INTEGER)");
  tx.exec("CREATE PROCEDURE spin() AS $$ BEGIN LOOP INSERT INTO t VALUES (0); END LOOP; END $$ LANGUAGE plpgsql");
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    con.cancel_query();
  });
  auto start = std::chrono::steady_clock::now();
  std::string state;
  try {
    tx.exec("CALL spin()");
  } catch (const pqxx::sql_error& e) {
    state = e.sqlstate();
  }
  canceller.join();
  CHECK(state == "57014");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  CHECK(tx.exec("SELECT count(*) FROM t")[0][0].as<int>() == 0);
}
