// A simple Query of several statements, as PostgreSQL 15 runs it (protocol.sgml, "Multiple
// Statements in a Simple Query"): one implicit transaction unless BEGIN, COMMIT or ROLLBACK in it
// say otherwise; the whole string parsed before any of it runs; ReadyForQuery's status after each
// case; a query after a write of the same Query sees that write, on the executor, not on a
// snapshot; other sessions never see what the Query may still undo.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "server/test/test_server.hpp"

using namespace hyrax::server::test;

namespace {

std::vector<Reply> ask(RawClient& c, const std::string& sql) {
  c.send(RawClient::query(sql));
  return c.untilReady();
}

// The first column of every DataRow of a query, joined by ','.
std::string column(RawClient& c, const std::string& sql) {
  std::string all;
  for (const Reply& r : ask(c, sql))
    if (r.type == 'D') all += (all.empty() ? "" : ",") + cell(r, 0).value_or("NULL");
  return all;
}

// Where EXPLAIN ANALYZE's DataRows say the query ran: "inline", "snapshot" (or "" if none said).
std::string ranOn(const std::vector<Reply>& replies) {
  for (const Reply& r : replies) {
    std::string line = r.type == 'D' ? cell(r, 0).value_or("") : "";
    if (line.rfind("Ran on: ", 0) == 0) return line.substr(8, line.find_first_of(" ", 8) - 8);
  }
  return "";
}

char status(const std::vector<Reply>& replies) { return replies.back().type == 'Z' ? replies.back().body[0] : '?'; }

// A server, a started session, and a table t made by `ddl`.
struct SessionWithTable {
  explicit SessionWithTable(const std::string& ddl) {
    c.start();
    ask(c, ddl);
  }
  TestServer server;
  RawClient c{server.socketPath()};
};

}  // namespace

TEST_CASE("implicit block: a failed statement undoes the Query's earlier ones, the rest never runs", "[server][implicit]") {
  SessionWithTable session("CREATE TABLE t (a INTEGER PRIMARY KEY)");
  RawClient& c = session.c;

  auto r = ask(c, "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); SELECT 1 / 0; INSERT INTO t VALUES (3)");
  CHECK(RawClient::types(r) == "CCEZ");
  CHECK(r[2].field('C') == "22012");
  CHECK(status(r) == 'I');
  CHECK(column(c, "SELECT count(*) FROM t") == "0");

  // A constraint's failure, DDL and a SET of the same Query: all undone.
  r = ask(c, "INSERT INTO t VALUES (1); CREATE TABLE u (a INTEGER); SET application_name = 'gone'; INSERT INTO t VALUES (1)");
  CHECK(RawClient::types(r) == "CCCEZ");
  CHECK(r[3].field('C') == "23505");
  CHECK(status(r) == 'I');
  CHECK(parameterStatus(r).empty());  // the client was never told of a value that did not stay
  CHECK(column(c, "SELECT count(*) FROM t") == "0");
  CHECK(ask(c, "SELECT * FROM u")[0].field('C') == "42P01");
  CHECK(column(c, "SHOW application_name") == "raw");

  // Without a failure the Query commits.
  r = ask(c, "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)");
  CHECK(RawClient::types(r) == "CCZ");
  CHECK(status(r) == 'I');
  CHECK(column(c, "SELECT a FROM t ORDER BY a") == "1,2");

  // As PostgreSQL, the string is parsed before any of it runs: a typo at its end runs nothing.
  r = ask(c, "INSERT INTO t VALUES (3); COMMIT; SELCT 1");
  CHECK(RawClient::types(r) == "EZ");
  CHECK(r[0].field('C') == "42601");
  CHECK(r[0].field('P') == std::to_string(std::string("INSERT INTO t VALUES (3); COMMIT; S").size()));
  CHECK(column(c, "SELECT a FROM t ORDER BY a") == "1,2");
}

TEST_CASE("implicit block: COMMIT, ROLLBACK and BEGIN inside a Query, and ReadyForQuery after each", "[server][implicit]") {
  SessionWithTable session("CREATE TABLE t (a INTEGER)");
  RawClient& c = session.c;

  // COMMIT in the middle commits what came before, with PostgreSQL's warning; what follows is a
  // new implicit block, which the failure undoes.
  auto r = ask(c, "INSERT INTO t VALUES (10); COMMIT; INSERT INTO t VALUES (11); SELECT 1 / 0");
  REQUIRE(RawClient::types(r) == "CNCCEZ");
  CHECK(r[1].field('S') == "WARNING");
  CHECK(r[1].field('C') == "25P01");
  CHECK(r[1].field('M') == "there is no transaction in progress");
  CHECK(status(r) == 'I');
  CHECK(column(c, "SELECT a FROM t ORDER BY a") == "10");

  // ROLLBACK in the middle undoes what came before; what follows commits.
  r = ask(c, "INSERT INTO t VALUES (12); ROLLBACK; INSERT INTO t VALUES (13)");
  REQUIRE(RawClient::types(r) == "CNCCZ");
  CHECK(r[1].field('C') == "25P01");
  CHECK(status(r) == 'I');
  CHECK(column(c, "SELECT a FROM t ORDER BY a") == "10,13");

  // BEGIN makes the statements before it part of its block, which outlives the Query.
  r = ask(c, "INSERT INTO t VALUES (14); BEGIN; INSERT INTO t VALUES (15)");
  CHECK(RawClient::types(r) == "CCCZ");  // no warning for that BEGIN
  CHECK(status(r) == 'T');
  CHECK(status(ask(c, "ROLLBACK")) == 'I');
  CHECK(column(c, "SELECT a FROM t ORDER BY a") == "10,13");

  // An explicit block that fails in the Query stays failed: the ROLLBACK after the error never runs.
  r = ask(c, "BEGIN; INSERT INTO t VALUES (16); SELECT 1 / 0; ROLLBACK");
  CHECK(RawClient::types(r) == "CCEZ");
  CHECK(status(r) == 'E');
  r = ask(c, "SELECT 1");
  CHECK(r[0].field('C') == "25P02");
  CHECK(status(r) == 'E');
  CHECK(status(ask(c, "ROLLBACK; INSERT INTO t VALUES (17)")) == 'I');
  CHECK(column(c, "SELECT a FROM t ORDER BY a") == "10,13,17");

  // A Query inside a block begun before it continues that block; its COMMIT ends it, and what
  // follows is an implicit block of its own.
  CHECK(status(ask(c, "BEGIN")) == 'T');
  r = ask(c, "INSERT INTO t VALUES (18); COMMIT; INSERT INTO t VALUES (19); SELECT 1 / 0");
  CHECK(RawClient::types(r) == "CCCEZ");  // that COMMIT ends a block: no warning
  CHECK(status(r) == 'I');
  CHECK(column(c, "SELECT a FROM t ORDER BY a") == "10,13,17,18");

  // A syntax error in a block fails it, as PostgreSQL's.
  CHECK(status(ask(c, "BEGIN")) == 'T');
  r = ask(c, "SELCT 1");
  CHECK(r[0].field('C') == "42601");
  CHECK(status(r) == 'E');
  CHECK(status(ask(c, "ROLLBACK")) == 'I');
}

TEST_CASE("implicit block: SET LOCAL lasts until the Query ends; savepoints only after BEGIN", "[server][implicit]") {
  SessionWithTable session("CREATE TABLE t (a INTEGER)");
  RawClient& c = session.c;

  // In a Query of several statements SET LOCAL is in a block: no warning, and the value holds
  // for the rest of the Query only (so the client is told of no change).
  auto r = ask(c, "SET LOCAL application_name = 'loc'; SHOW application_name");
  REQUIRE(RawClient::types(r) == "CTDCZ");
  CHECK(cell(r[2], 0) == "loc");
  CHECK(column(c, "SHOW application_name") == "raw");
  // Alone it warns, as PostgreSQL does.
  r = ask(c, "SET LOCAL application_name = 'alone'");
  REQUIRE(RawClient::types(r) == "NCZ");
  CHECK(r[0].field('C') == "25P01");

  // SAVEPOINT outside an explicit block, the implicit one too: PostgreSQL's 25P01, and the
  // Query's earlier statements are undone.
  r = ask(c, "INSERT INTO t VALUES (1); SAVEPOINT a");
  REQUIRE(RawClient::types(r) == "CEZ");
  CHECK(r[1].field('C') == "25P01");
  CHECK(r[1].field('M') == "SAVEPOINT can only be used in transaction blocks");
  CHECK(status(r) == 'I');
  CHECK(column(c, "SELECT count(*) FROM t") == "0");
  CHECK(ask(c, "RELEASE SAVEPOINT a")[0].field('M') == "RELEASE SAVEPOINT can only be used in transaction blocks");
  CHECK(ask(c, "ROLLBACK WORK TO a")[0].field('M') == "ROLLBACK TO SAVEPOINT can only be used in transaction blocks");
  // BEGIN takes the Query into an explicit block, where savepoints work.
  r = ask(c, "BEGIN; INSERT INTO t VALUES (2); SAVEPOINT a; INSERT INTO t VALUES (3); ROLLBACK TO a");
  REQUIRE(RawClient::types(r) == "CCCCCZ");
  CHECK(std::string(r[2].body.c_str()) == "SAVEPOINT");  // CommandComplete tags
  CHECK(std::string(r[4].body.c_str()) == "ROLLBACK");
  CHECK(status(r) == 'T');
  CHECK(status(ask(c, "COMMIT")) == 'I');
  CHECK(column(c, "SELECT string_agg(a::text, ',') FROM t") == "2");
}

TEST_CASE("implicit block: a query after the Query's write sees it (inline), one before may run on a snapshot",
          "[server][implicit]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  ask(c, "CREATE TABLE s (a INTEGER); INSERT INTO s VALUES (1)");
  // (analytics = 'snapshot', the default: a query alone runs on a snapshot.)
  REQUIRE(ranOn(ask(c, "EXPLAIN ANALYZE SELECT count(*) FROM s")) == "snapshot");
  CHECK(column(c, "SELECT count(*) FROM s") == "1");

  // After the Query's (uncommitted) write its queries run on the executor and see it.
  auto r = ask(c, "INSERT INTO s VALUES (2); SELECT count(*) FROM s; EXPLAIN ANALYZE SELECT count(*) FROM s");
  REQUIRE(RawClient::types(r).substr(0, 4) == "CTDC");
  CHECK(cell(r[2], 0) == "2");
  CHECK(ranOn(r) == "inline");
  CHECK(status(r) == 'I');
  CHECK(column(c, "SELECT count(*) FROM s") == "2");

  // Seen inside the Query, undone with it, and never in a snapshot taken after.
  r = ask(c, "INSERT INTO s VALUES (3); SELECT count(*) FROM s; SELECT 1 / 0");
  REQUIRE(RawClient::types(r) == "CTDCEZ");
  CHECK(cell(r[2], 0) == "3");
  r = ask(c, "EXPLAIN ANALYZE SELECT count(*) FROM s");
  CHECK(ranOn(r) == "snapshot");
  CHECK(column(c, "SELECT count(*) FROM s") == "2");

  // Before any write, and after only SET's (the session's own) changes, queries still go to
  // snapshots; the SET's value goes with them.
  r = ask(c, "EXPLAIN ANALYZE SELECT count(*) FROM s; SET LOCAL statement_timeout = '1min'; "
             "EXPLAIN ANALYZE SELECT count(*) FROM s; SELECT current_setting('statement_timeout') FROM s LIMIT 1; "
             "INSERT INTO s VALUES (4); EXPLAIN ANALYZE SELECT count(*) FROM s");
  std::vector<std::string> where;  // of each EXPLAIN ANALYZE
  std::string timeout;
  std::vector<Reply> statement;  // one statement's replies
  for (const Reply& m : r) {
    statement.push_back(m);
    if (m.type != 'C') continue;
    if (std::string line = ranOn(statement); !line.empty()) where.push_back(line);
    else if (statement.size() > 1 && statement[1].type == 'D') timeout = cell(statement[1], 0).value_or("");
    statement.clear();
  }
  CHECK(where == std::vector<std::string>{"snapshot", "snapshot", "inline"});
  CHECK(timeout == "1min");
  CHECK(status(r) == 'I');
  CHECK(column(c, "SELECT count(*) FROM s") == "3");
  CHECK(column(c, "SHOW statement_timeout") == "0");
}

TEST_CASE("implicit block: other sessions wait for a Query's writes and never see them undone", "[server][implicit]") {
  TestServer server;
  RawClient a(server.socketPath()), b(server.socketPath());
  a.start();
  b.start();
  ask(a, "CREATE TABLE t (a INTEGER)");
  // The Query writes, then waits in COPY FROM STDIN for its data: its block is open meanwhile.
  a.send(RawClient::query("INSERT INTO t VALUES (1); COPY t FROM STDIN"));
  REQUIRE(a.next().type == 'C');
  REQUIRE(a.next().type == 'G');  // CopyInResponse
  b.send(RawClient::query("SELECT count(*) FROM t"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // b's query waits for a's block
  a.send(RawClient::message('f', std::string("no data after all") + '\0'));  // CopyFail: the Query fails
  auto r = a.untilReady();
  REQUIRE(RawClient::types(r) == "EZ");
  CHECK(status(r) == 'I');
  r = b.untilReady();
  REQUIRE(RawClient::types(r) == "TDCZ");
  CHECK(cell(r[1], 0).value_or("NULL") == "0");

  // In an explicit block a COPY whose client gave up fails the block, as any failed statement.
  CHECK(status(ask(a, "BEGIN")) == 'T');
  a.send(RawClient::query("COPY t FROM STDIN"));
  REQUIRE(a.next().type == 'G');
  a.send(RawClient::message('f', std::string("changed my mind") + '\0'));
  r = a.untilReady();
  REQUIRE(RawClient::types(r) == "EZ");
  CHECK(r[0].field('C') == "57014");
  CHECK(status(r) == 'E');
  CHECK(status(ask(a, "ROLLBACK")) == 'I');
}

TEST_CASE("pipeline: the extended protocol's statements up to Sync are one transaction, as PostgreSQL's", "[server][implicit]") {
  SessionWithTable session("CREATE TABLE t (a INTEGER PRIMARY KEY)");
  RawClient& c = session.c;
  auto insert = [](const std::string& value) {
    return parse("", "INSERT INTO t VALUES ($1)", {23}) + bind("", "", {value}, 0) + execute("", 0);
  };
  // A failure before Sync undoes the statements before it (psycopg's executemany, pgjdbc's
  // executeBatch send theirs so).
  c.send(insert("1") + insert("2") + insert("1") + syncMessage());
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "12C12C12EZ");
  CHECK(r[8].field('C') == "23505");
  CHECK(status(r) == 'I');
  CHECK(column(c, "SELECT count(*) FROM t") == "0");
  // So does an error in a later Bind (the value is no INTEGER), which never reaches a statement.
  c.send(insert("1") + insert("one") + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "12C1EZ");
  CHECK(r[4].field('C') == "22P02");
  CHECK(column(c, "SELECT count(*) FROM t") == "0");
  // Without a failure they commit at Sync; a query among them sees the writes before it.
  c.send(insert("1") + insert("2") + parse("", "SELECT count(*) FROM t", {}) + bind("", "", {}, 0) + execute("", 0) +
         syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "12C12C12DCZ");
  CHECK(cell(r[8], 0) == "2");
  CHECK(column(c, "SELECT a FROM t ORDER BY a") == "1,2");

  // A Sync that has not come yet: the statement's write waits for it, unseen by others.
  RawClient other(session.server.socketPath());
  other.start();
  c.send(insert("3") + RawClient::message('H', ""));  // Flush: the reply now, the Sync later
  REQUIRE(RawClient::types({c.next(), c.next(), c.next()}) == "12C");
  other.send(RawClient::query("SELECT count(*) FROM t"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // it waits for the pipeline's transaction
  c.send(insert("1") + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "12EZ");
  r = other.untilReady();
  REQUIRE(RawClient::types(r) == "TDCZ");
  CHECK(cell(r[1], 0) == "2");  // 3 was never there for it
  CHECK(column(c, "SELECT a FROM t ORDER BY a") == "1,2");

  // SET LOCAL in a pipeline warns, as PostgreSQL's (no block), and lasts until Sync.
  c.send(parse("", "SET LOCAL application_name = 'p'", {}) + bind("", "", {}, 0) + execute("", 0) +
         parse("", "SHOW application_name", {}) + bind("", "", {}, 0) + execute("", 0) + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "12NC12DCZ");
  CHECK(r[2].field('C') == "25P01");
  CHECK(cell(r[6], 0) == "p");
  CHECK(column(c, "SHOW application_name") == "raw");
}
