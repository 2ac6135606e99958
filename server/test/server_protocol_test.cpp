// The server's protocol as a client sees it, byte for byte: startup, simple queries, COPY,
// errors, and what malformed or hostile input gets (a clear error, never a crash; the server
// goes on serving the next client).
#include <catch2/catch.hpp>

#include "server/test/test_server.hpp"

using namespace hyrax;
using namespace hyrax::server;
using namespace hyrax::server::test;

namespace {

// The type OID of RowDescription's column `col`.
uint32_t columnType(const Reply& desc, int col) {
  size_t at = 2;
  for (int c = 0;; ++c) {
    at = desc.body.find('\0', at) + 1 + 6;  // name, table OID, attribute number
    auto b = reinterpret_cast<const unsigned char*>(desc.body.data() + at);
    if (c == col) return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
    at += 12;  // type OID, length, modifier, format
  }
}

// A session works: the server still serves clients after whatever a test did before.
void checkServes(TestServer& server) {
  RawClient c(server.socketPath());
  REQUIRE(RawClient::types(c.start()).back() == 'Z');
  c.send(RawClient::query("SELECT 41 + 1"));
  auto replies = c.untilReady();
  REQUIRE(RawClient::types(replies) == "TDCZ");
  CHECK(cell(replies[1], 0) == "42");
}

}  // namespace

TEST_CASE("startup: SSLRequest and GSSENCRequest are answered N, then the session starts", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.send(RawClient::int32(8) + RawClient::int32(kSslRequestCode));
  CHECK(c.receive(1) == "N");
  c.send(RawClient::int32(8) + RawClient::int32(kGssEncRequestCode));
  CHECK(c.receive(1) == "N");
  auto replies = c.start();
  std::string types = RawClient::types(replies);
  CHECK(types.front() == 'R');
  CHECK(replies.front().body == RawClient::int32(0));  // AuthenticationOk
  CHECK(types.find('K') != std::string::npos);         // BackendKeyData
  CHECK(types.back() == 'Z');
  CHECK(replies.back().body == "I");
  std::map<std::string, std::string> params = parameterStatus(replies);
  CHECK(params["server_encoding"] == "UTF8");
  CHECK(params["client_encoding"] == "UTF8");
  CHECK(params["integer_datetimes"] == "on");
  CHECK(params["standard_conforming_strings"] == "on");
  CHECK(params["DateStyle"] == "ISO, MDY");
  CHECK(params["application_name"] == "raw");
  CHECK(params["server_version"].rfind("15.", 0) == 0);
}

TEST_CASE("simple query: row description, text rows, tags, several statements", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query("CREATE TABLE t (i INTEGER, b BOOLEAN, d DECIMAL(6,2), s VARCHAR(5), c CHAR(3), x DATE);"
                          "INSERT INTO t VALUES (1, true, 2.5, 'ab', 'z', DATE '2024-02-29'), (NULL, NULL, NULL, NULL, NULL, NULL);"
                          "SELECT * FROM t ORDER BY i"));
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "CCTDDCZ");
  CHECK(r[0].body == std::string("CREATE TABLE") + '\0');
  CHECK(r[1].body == std::string("INSERT 0 2") + '\0');
  CHECK(columnType(r[2], 0) == 23);
  CHECK(columnType(r[2], 1) == 16);
  CHECK(columnType(r[2], 2) == 1700);
  CHECK(columnType(r[2], 3) == 1043);
  CHECK(columnType(r[2], 4) == 1042);
  CHECK(columnType(r[2], 5) == 1082);
  CHECK(cell(r[3], 0) == "1");
  CHECK(cell(r[3], 1) == "t");
  CHECK(cell(r[3], 2) == "2.50");
  CHECK(cell(r[3], 3) == "ab");
  CHECK(cell(r[3], 4) == "z  ");  // CHAR(3) blank-padded, as PostgreSQL sends it
  CHECK(cell(r[3], 5) == "2024-02-29");
  for (int col = 0; col < 6; ++col) CHECK_FALSE(cell(r[4], col).has_value());  // NULLs are length -1
  CHECK(r[5].body == std::string("SELECT 2") + '\0');

  // An empty query (blanks and comments only): EmptyQueryResponse.
  c.send(RawClient::query("  -- nothing\n"));
  CHECK(RawClient::types(c.untilReady()) == "IZ");
}

TEST_CASE("errors: SQLSTATE, position in characters, the rest of the Query skipped", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query("CREATE TABLE t (a INTEGER); SELECT 'é', nosuch FROM t; CREATE TABLE u (a INTEGER)"));
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "CEZ");
  CHECK(r[1].field('S') == "ERROR");
  CHECK(r[1].field('V') == "ERROR");
  CHECK(r[1].field('C') == "42703");
  CHECK(r[1].field('M') == "column \"nosuch\" does not exist");
  // Counted in characters of the whole Query string: 'é' is one character of two bytes.
  CHECK(r[1].field('P') == std::to_string(std::string("CREATE TABLE t (a INTEGER); SELECT 'e', n").size()));
  c.send(RawClient::query("SELECT count(*) FROM u"));  // never created: the Query stopped at the error
  r = c.untilReady();
  CHECK(r[0].field('C') == "42P01");

  // A detail (D) where hyrax has one.
  c.send(RawClient::query("CREATE TABLE k (a INTEGER PRIMARY KEY); INSERT INTO k VALUES (1); INSERT INTO k VALUES (1)"));
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "CCEZ");
  CHECK(r[2].field('C') == "23505");
  CHECK(r[2].field('D').find("already exists") != std::string::npos);
}

TEST_CASE("transaction status in ReadyForQuery: idle, in a block, failed block", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query("CREATE TABLE t (a INTEGER)"));
  CHECK(c.untilReady().back().body == "I");
  c.send(RawClient::query("BEGIN; INSERT INTO t VALUES (1)"));
  CHECK(c.untilReady().back().body == "T");
  c.send(RawClient::query("SELECT 1 / 0"));
  auto r = c.untilReady();
  CHECK(r[0].field('C') == "22012");
  CHECK(r.back().body == "E");
  c.send(RawClient::query("SELECT 1"));
  r = c.untilReady();
  CHECK(r[0].field('C') == "25P02");
  CHECK(r.back().body == "E");
  c.send(RawClient::query("ROLLBACK"));
  CHECK(c.untilReady().back().body == "I");
  c.send(RawClient::query("SELECT count(*) FROM t"));
  CHECK(cell(c.untilReady()[1], 0) == "0");
}

TEST_CASE("notices: a procedure's RAISE NOTICE and a WARNING arrive as NoticeResponse", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query("CREATE PROCEDURE hello(n INTEGER) AS $$ BEGIN RAISE NOTICE 'hello %', n; END $$ LANGUAGE plpgsql;"
                          "CALL hello(7); COMMIT"));
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "CNCNCZ");
  CHECK(r[1].field('S') == "NOTICE");
  CHECK(r[1].field('M') == "hello 7");
  CHECK(r[3].field('S') == "WARNING");
  CHECK(r[3].field('M') == "there is no transaction in progress");
}

TEST_CASE("COPY FROM STDIN streams CopyData; CopyFail loads nothing; COPY TO STDOUT", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query("CREATE TABLE t (a INTEGER, b TEXT)"));
  c.untilReady();

  c.send(RawClient::query("COPY t FROM STDIN"));
  Reply in = c.next();
  REQUIRE(in.type == 'G');
  CHECK(in.body.substr(0, 1) == std::string(1, '\0'));  // text format
  // Rows split across messages anywhere, even inside a value.
  c.send(RawClient::message('d', "1\tone\n2\tt"));
  c.send(RawClient::message('d', "wo\n3\t\\N\n"));
  c.send(RawClient::message('c', ""));
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "CZ");
  CHECK(r[0].body == std::string("COPY 3") + '\0');

  c.send(RawClient::query("COPY t FROM STDIN"));
  REQUIRE(c.next().type == 'G');
  c.send(RawClient::message('d', "4\tfour\n"));
  c.send(RawClient::message('f', std::string("changed my mind") + '\0'));
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "EZ");
  CHECK(r[0].field('C') == "57014");
  CHECK(r[0].field('M').find("changed my mind") != std::string::npos);

  // Malformed data: an error after CopyDone, nothing loaded.
  c.send(RawClient::query("COPY t FROM STDIN"));
  REQUIRE(c.next().type == 'G');
  c.send(RawClient::message('d', "5\tfive\nnot a number\tx\n"));
  c.send(RawClient::message('c', ""));
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "EZ");
  CHECK(r[0].field('C') == "22P02");

  // Copy messages outside a COPY are ignored (as PostgreSQL does).
  c.send(RawClient::message('d', "6\tsix\n") + RawClient::message('c', ""));
  // A COPY into a missing table: the data is taken, then the error.
  c.send(RawClient::query("COPY missing FROM STDIN"));
  REQUIRE(c.next().type == 'G');
  c.send(RawClient::message('d', "1\n") + RawClient::message('c', ""));
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "EZ");
  CHECK(r[0].field('C') == "42P01");

  c.send(RawClient::query("COPY t TO STDOUT"));
  r = c.untilReady();
  std::string types = RawClient::types(r);
  REQUIRE(types.front() == 'H');
  REQUIRE(types.substr(types.size() - 3) == "cCZ");
  std::string data;
  for (auto& m : r)
    if (m.type == 'd') data += m.body;
  CHECK(data == "1\tone\n2\ttwo\n3\t\\N\n");  // only the first COPY's rows
  CHECK(r[r.size() - 2].body == std::string("COPY 3") + '\0');

  // One CopyData message per row (clients read them so), also when a csv value holds a newline.
  c.send(RawClient::query("CREATE TABLE m (a INTEGER, b TEXT); INSERT INTO m VALUES (1, 'x\ny'), (2, 'q\"z')"));
  c.untilReady();
  c.send(RawClient::query("COPY m TO STDOUT (FORMAT csv)"));
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "HddcCZ");
  CHECK(r[1].body == "1,\"x\ny\"\n");
  CHECK(r[2].body == "2,\"q\"\"z\"\n");
  c.send(RawClient::query("COPY m TO STDOUT"));
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "HddcCZ");
  CHECK(r[1].body == "1\tx\\ny\n");

  // No rows: still CopyOutResponse and CopyDone.
  c.send(RawClient::query("COPY (SELECT a FROM t WHERE a > 10) TO STDOUT"));
  CHECK(RawClient::types(c.untilReady()) == "HcCZ");
}

namespace {

// CopyOutResponse's column count (after the format byte), which psycopg parses rows by.
int copyOutColumns(const Reply& r) {
  REQUIRE(r.type == 'H');
  REQUIRE(r.body.size() >= 3);
  return (static_cast<unsigned char>(r.body[1]) << 8) | static_cast<unsigned char>(r.body[2]);
}

}  // namespace

TEST_CASE("CopyOutResponse counts the columns of a table, a column list or a query", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query("CREATE TABLE w (a INTEGER, b TEXT, c DATE); INSERT INTO w VALUES (1, 'x\ty,z', NULL)"));
  c.untilReady();
  auto columnsOf = [&](const std::string& sql) {
    c.send(RawClient::query(sql));
    auto r = c.untilReady();
    return copyOutColumns(r.front());
  };
  CHECK(columnsOf("COPY w TO STDOUT") == 3);  // the tab inside b is written \t
  CHECK(columnsOf("COPY w (b, a) TO STDOUT") == 2);
  CHECK(columnsOf("COPY (SELECT a, b, c, a + 1 FROM w) TO STDOUT") == 4);
  CHECK(columnsOf("COPY w TO STDOUT (FORMAT csv)") == 3);  // the comma inside b is quoted
  CHECK(columnsOf("COPY w TO STDOUT (FORMAT csv, DELIMITER '|')") == 3);
  CHECK(columnsOf("COPY w TO STDOUT (DELIMITER ',')") == 3);
  // Without a row the column list's length (0 without one).
  CHECK(columnsOf("COPY (SELECT a FROM w WHERE a > 10) TO STDOUT") == 0);
  c.send(RawClient::query("CREATE TABLE e (a INTEGER, b INTEGER)"));
  c.untilReady();
  CHECK(columnsOf("COPY e (a, b) TO STDOUT") == 2);

  // Booleans as PostgreSQL's COPY writes them (pgjdbc's and psycopg's readers expect t and f).
  c.send(RawClient::query("COPY (SELECT TRUE, FALSE) TO STDOUT"));
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "HdcCZ");
  CHECK(r[1].body == "t\tf\n");
}

TEST_CASE("extended query: Parse, Describe, Bind, Execute with a row limit, binary results, Close", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query("CREATE TABLE t (a INTEGER, b VARCHAR(10)); INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, NULL), (4, 'w')"));
  c.untilReady();
  // A named statement with its parameter's type inferred from where it stands.
  c.send(parse("s1", "SELECT a, b FROM t WHERE a > $1 ORDER BY a", {}) + describe('S', "s1") + syncMessage());
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "1tTZ");
  CHECK(r[1].body == RawClient::int16(1) + RawClient::int32(23));  // one parameter, int4
  CHECK(columnType(r[2], 0) == 23);
  CHECK(columnType(r[2], 1) == 1043);
  // Rows in pieces: two, then the rest; binary integers.
  c.send(bind("", "s1", {std::string("1")}, 1) + execute("", 2) + execute("", 0) + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "2DDsDCZ");
  CHECK(cell(r[1], 0) == RawClient::int32(2));
  CHECK(cell(r[1], 1) == "y");
  CHECK(cell(r[2], 1) == std::nullopt);
  CHECK(cell(r[4], 0) == RawClient::int32(4));
  // A NULL parameter matches nothing; an INSERT with parameters; Close, then the name is free.
  c.send(bind("", "s1", {std::nullopt}, 0) + execute("", 0) + parse("", "INSERT INTO t VALUES ($1, $2)", {23, 1043}) +
         bind("", "", {std::string("5"), std::string("v")}, 0) + execute("", 0) +
         RawClient::message('C', std::string("Ss1\0", 4)) + parse("s1", "SELECT count(*) FROM t", {}) + bind("", "s1", {}, 0) +
         execute("", 0) + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "2C12C31" "2DCZ");
  CHECK(r[1].body == std::string("SELECT 0\0", 9));
  CHECK(r[4].body == std::string("INSERT 0 1\0", 11));
  CHECK(cell(r[8], 0) == "5");
  checkServes(server);
}

// RETURNING's rows are a statement's rows like a SELECT's (RowDescription, DataRows), and its
// tag is the write's, as PostgreSQL 15 sends them.
TEST_CASE("INSERT/UPDATE/DELETE ... RETURNING: rows and the write's tag, simple and extended", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query("CREATE TABLE t (id SERIAL, name VARCHAR(10), n INTEGER DEFAULT 5)"));
  c.untilReady();
  c.send(RawClient::query("INSERT INTO t (name) VALUES ('a'), (NULL) RETURNING id, name, n * 2 AS twice"));
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "TDDCZ");
  CHECK(r[0].body.substr(0, 5) == RawClient::int16(3) + std::string("id\0", 3));
  CHECK(columnType(r[0], 0) == 23);
  CHECK(columnType(r[0], 1) == 1043);
  CHECK(cell(r[1], 0) == "1");
  CHECK(cell(r[1], 2) == "10");
  CHECK(cell(r[2], 1) == std::nullopt);
  CHECK(r[3].body == std::string("INSERT 0 2\0", 11));
  // No rows: the description and the tag.
  c.send(RawClient::query("DELETE FROM t WHERE id > 10 RETURNING *"));
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "TCZ");
  CHECK(r[1].body == std::string("DELETE 0\0", 9));
  // A failing RETURNING expression: an error, and nothing changed.
  c.send(RawClient::query("UPDATE t SET n = 0 RETURNING 1 / n; SELECT sum(n) FROM t"));
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "EZ");
  CHECK(r[0].field('C') == "22012");
  // Describe of a prepared UPDATE ... RETURNING: its parameter and columns; a parameter in the
  // RETURNING list.
  c.send(parse("u", "UPDATE t SET n = n + $1 WHERE id = 1 RETURNING id, n, $1 * 10 AS p", {}) + describe('S', "u") +
         syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "1tTZ");
  CHECK(r[1].body == RawClient::int16(1) + RawClient::int32(23));
  CHECK(columnType(r[2], 1) == 23);
  c.send(bind("", "u", {std::string("4")}, 0) + describe('P', "") + execute("", 0) + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "2TDCZ");
  CHECK(cell(r[2], 1) == "9");
  CHECK(cell(r[2], 2) == "40");
  CHECK(r[3].body == std::string("UPDATE 1\0", 9));
  c.send(RawClient::query("SELECT sum(n) FROM t"));
  r = c.untilReady();
  CHECK(cell(r[1], 0) == "14");
  checkServes(server);
}

TEST_CASE("extended query errors: the message's error, then everything up to Sync is skipped", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  // Too few parameters for the statement: 08P01; the Execute after it is skipped.
  c.send(parse("", "SELECT $1::INTEGER + 1", {}) + bind("", "", {}, 0) + execute("", 0) + syncMessage());
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "1EZ");
  CHECK(r[1].field('C') == "08P01");
  // A parameter's text that is not its type's: 22P02 naming the parameter.
  c.send(bind("", "", {std::string("abc")}, 0) + execute("", 0) + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "EZ");
  CHECK(r[0].field('C') == "22P02");
  CHECK(r[0].field('M').find("$1") != std::string::npos);
  // A missing statement, a missing portal, a syntax error at Parse.
  c.send(bind("", "nope", {}, 0) + syncMessage() + execute("nope", 0) + syncMessage() + parse("", "SELEC 1", {}) + syncMessage());
  r = c.untilReady();
  CHECK(r[0].field('C') == "26000");
  r = c.untilReady();
  CHECK(r[0].field('C') == "34000");
  r = c.untilReady();
  CHECK(r[0].field('C') == "42601");
  // An error's position counts characters of the statement's text.
  c.send(parse("", "SELECT 'é' || nothere", {}) + syncMessage());
  r = c.untilReady();
  CHECK(r[0].field('C') == "42703");
  CHECK(r[0].field('P') == "15");
  // A failed Execute inside a block fails the block, as a simple query does.
  c.send(RawClient::query("BEGIN"));
  c.untilReady();
  c.send(parse("", "SELECT 1 / $1", {23}) + bind("", "", {std::string("0")}, 0) + execute("", 0) + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "12EZ");
  CHECK(r[2].field('C') == "22012");
  CHECK(r.back().body == "E");
  c.send(RawClient::query("ROLLBACK"));  // an open block holds the executor from other sessions
  CHECK(c.untilReady().back().body == "I");
  // So does a Bind whose value is not its parameter's type (the statement never ran), as PostgreSQL.
  c.send(RawClient::query("BEGIN"));
  c.untilReady();
  c.send(parse("", "SELECT 1 / $1", {23}) + bind("", "", {std::string("zero")}, 0) + execute("", 0) + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "1EZ");
  CHECK(r[1].field('C') == "22P02");
  CHECK(r.back().body == "E");
  c.send(RawClient::query("ROLLBACK"));
  CHECK(c.untilReady().back().body == "I");
  checkServes(server);
}

TEST_CASE("limits: oversized, truncated, unknown and garbage input ends that session only", "[server]") {
  TestServer server;
  SECTION("a message length of 2^31-1 is refused before anything is allocated") {
    RawClient c(server.socketPath());
    c.start();
    c.send(std::string("Q") + RawClient::int32(0x7FFFFFFF));
    CHECK(c.endedWith("08P01"));
  }
  SECTION("a length shorter than itself") {
    RawClient c(server.socketPath());
    c.start();
    c.send(std::string("Q") + RawClient::int32(2));
    CHECK(c.next().field('C') == "08P01");
  }
  SECTION("a startup packet of 2^31-1 bytes, or of less than 8") {
    RawClient c(server.socketPath());
    c.send(RawClient::int32(0x7FFFFFFF) + RawClient::int32(3 << 16));
    CHECK(c.next().field('C') == "08P01");
    RawClient d(server.socketPath());
    d.send(RawClient::int32(4));
    CHECK(d.next().field('C') == "08P01");
  }
  SECTION("a truncated message, then the client leaves") {
    RawClient c(server.socketPath());
    c.start();
    c.send(std::string("Q") + RawClient::int32(100) + "SELECT");
    c.close();
  }
  SECTION("a Query whose string has no terminator") {
    RawClient c(server.socketPath());
    c.start();
    c.send(RawClient::message('Q', "SELECT 1"));
    CHECK(c.next().field('C') == "08P01");
  }
  SECTION("an unknown message type") {
    RawClient c(server.socketPath());
    c.start();
    c.send(RawClient::message('z', ""));
    CHECK(c.endedWith("08P01"));
  }
  SECTION("garbage instead of a startup packet: an unknown protocol version") {
    RawClient c(server.socketPath());
    c.send(RawClient::int32(16) + "GET / HTTP/1.1\r\n");
    Reply r = c.next();
    CHECK(r.field('C') == "0A000");
    CHECK(r.field('S') == "FATAL");
  }
  SECTION("a startup packet without its terminator") {
    RawClient c(server.socketPath());
    c.send(RawClient::int32(12) + RawClient::int32(3 << 16) + "user");
    CHECK(c.next().field('C') == "08P01");
  }
  SECTION("no user name") {
    RawClient c(server.socketPath());
    c.send(RawClient::startupPacket(3 << 16, {{"database", "x"}}));
    CHECK(c.next().field('C') == "28000");
  }
  SECTION("SSLRequest twice") {
    RawClient c(server.socketPath());
    c.send(RawClient::int32(8) + RawClient::int32(kSslRequestCode));
    CHECK(c.receive(1) == "N");
    c.send(RawClient::int32(8) + RawClient::int32(kSslRequestCode));
    CHECK(c.next().field('C') == "0A000");
  }
  checkServes(server);
}

TEST_CASE("a smaller message limit is configurable", "[server]") {
  ServerConfig config;
  config.maxMessageBytes = 1024;
  TestServer server(config);
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query("SELECT '" + std::string(500, 'x') + "'"));
  CHECK(RawClient::types(c.untilReady()) == "TDCZ");
  c.send(RawClient::query("SELECT '" + std::string(2000, 'x') + "'"));
  CHECK(c.next().field('C') == "08P01");
}

TEST_CASE("TCP: a password (SCRAM-SHA-256) without --trust, none with it", "[server]") {
  {
    TestServer server;
    RawClient c(server.port());
    c.send(RawClient::startupPacket(3 << 16, {{"user", "tester"}}));
    Reply r = c.next();
    REQUIRE(r.type == 'R');
    CHECK(r.body == RawClient::int32(10) + std::string("SCRAM-SHA-256\0\0", 15));  // AuthenticationSASL
    // A client that answers with something else is refused.
    c.send(RawClient::query("SELECT 1"));
    r = c.next();
    CHECK(r.field('S') == "FATAL");
    CHECK(r.field('C') == "08P01");
  }
  ServerConfig trust;
  trust.trust = true;
  TestServer server(trust);
  RawClient c(server.port());
  CHECK(RawClient::types(c.start()).back() == 'Z');
}

TEST_CASE("a non-loopback listen address is refused with --trust", "[server]") {
  Database db;
  ServerConfig config;
  config.listen = "0.0.0.0";
  config.port = 0;
  config.socketDir = "";
  config.trust = true;
  CHECK_THROWS_WITH(Server(db, config), Catch::Contains("--trust"));
}

TEST_CASE("max connections: one more is refused with 53300, a CancelRequest is not", "[server]") {
  ServerConfig config;
  config.maxConnections = 2;
  TestServer server(config);
  RawClient a(server.socketPath()), b(server.socketPath());
  REQUIRE(RawClient::types(a.start()).back() == 'Z');
  REQUIRE(RawClient::types(b.start()).back() == 'Z');
  RawClient c(server.socketPath());
  auto r = c.start();
  REQUIRE(!r.empty());
  CHECK(r[0].field('C') == "53300");
  RawClient cancel(server.socketPath());
  cancel.send(RawClient::int32(16) + RawClient::int32(kCancelRequestCode) + RawClient::int32(1) + RawClient::int32(2));
  CHECK(cancel.closedByServer());
  b.close();
  // The slot is free again once b's session has ended.
  for (int i = 0; i < 100; ++i) {
    RawClient d(server.socketPath());
    if (RawClient::types(d.start()).back() == 'Z') return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FAIL("no session accepted after one ended");
}

TEST_CASE("CancelRequest with the session's key cancels its statement (57014); a wrong key does not", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  auto startup = c.start();
  std::string key;
  for (auto& r : startup)
    if (r.type == 'K') key = r.body;
  REQUIRE(key.size() == 8);
  c.send(RawClient::query("CREATE TABLE t (a INTEGER); CREATE PROCEDURE spin() AS $$ BEGIN LOOP INSERT INTO t VALUES (0); "
                          "END LOOP; END $$ LANGUAGE plpgsql"));
  c.untilReady();
  c.send(RawClient::query("CALL spin()"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::string wrongKey = key;
  wrongKey[7] = static_cast<char>(wrongKey[7] ^ 1);
  RawClient wrong(server.socketPath());
  wrong.send(RawClient::int32(16) + RawClient::int32(kCancelRequestCode) + wrongKey);
  CHECK(wrong.closedByServer());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  RawClient cancel(server.socketPath());
  cancel.send(RawClient::int32(16) + RawClient::int32(kCancelRequestCode) + key);
  CHECK(cancel.closedByServer());
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "EZ");
  CHECK(r[0].field('C') == "57014");
  c.send(RawClient::query("SELECT count(*) FROM t"));
  CHECK(cell(c.untilReady()[1], 0) == "0");  // the canceled CALL left nothing
}

TEST_CASE("a client that leaves inside a transaction block: its writes are rolled back", "[server]") {
  TestServer server;
  {
    RawClient c(server.socketPath());
    c.start();
    // (One Query would have made the CREATE TABLE part of the block too, as in PostgreSQL.)
    c.send(RawClient::query("CREATE TABLE t (a INTEGER)"));
    c.untilReady();
    c.send(RawClient::query("BEGIN; INSERT INTO t VALUES (1)"));
    CHECK(c.untilReady().back().body == "T");
  }
  RawClient d(server.socketPath());
  d.start();
  d.send(RawClient::query("SELECT count(*) FROM t"));
  auto r = d.untilReady();
  REQUIRE(RawClient::types(r) == "TDCZ");
  CHECK(cell(r[1], 0) == "0");
}

TEST_CASE("idle session timeout ends an idle session with 57P05, not one in a block", "[server]") {
  ServerConfig config;
  config.idleSessionTimeoutMs = 300;
  TestServer server(config);
  RawClient inBlock(server.socketPath());
  inBlock.start();
  inBlock.send(RawClient::query("BEGIN"));
  inBlock.untilReady();
  RawClient c(server.socketPath());
  c.start();
  CHECK(c.endedWith("57P05"));  // after 300 ms without a query
  inBlock.send(RawClient::query("SELECT 1"));
  CHECK(RawClient::types(inBlock.untilReady()) == "TDCZ");
}

TEST_CASE("idle in a transaction block: the session ends with 25P03, its block is undone, others go on", "[server]") {
  TestServer server(ServerConfig{.idleInTransactionTimeoutMs = 300});
  RawClient idle(server.socketPath()), setup(server.socketPath());
  for (RawClient* c : {&idle, &setup}) c->start();
  idle.send(RawClient::query("CREATE TABLE t (a INTEGER)"));
  idle.untilReady();
  idle.send(RawClient::query("BEGIN; INSERT INTO t VALUES (1)"));
  CHECK(RawClient::types(idle.untilReady()) == "CCZ");
  CHECK(idle.endedWith("25P03"));  // after 300 ms without a message
  // The block held the executor; once it is gone the others write, and its row is not there.
  setup.send(RawClient::query("INSERT INTO t VALUES (2); SELECT count(*), min(a) FROM t"));
  auto rows = setup.untilReady();
  REQUIRE(RawClient::types(rows) == "CTDCZ");
  CHECK(cell(rows[2], 0) == "1");
  CHECK(cell(rows[2], 1) == "2");
  // Outside a block the limit does not apply.
  setup.send(RawClient::query("SELECT 1"));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK(RawClient::types(setup.untilReady()) == "TDCZ");
}

TEST_CASE("a client that leaves while its statement runs: the statement is canceled, nothing stays", "[server]") {
  TestServer server;
  {
    RawClient c(server.socketPath());
    c.start();
    c.send(RawClient::query("CREATE TABLE t (a INTEGER); CREATE PROCEDURE spin() AS $$ BEGIN LOOP INSERT INTO t VALUES (0); "
                            "END LOOP; END $$ LANGUAGE plpgsql"));
    c.untilReady();
    c.send(RawClient::query("CALL spin()"));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }  // gone without a Terminate
  RawClient d(server.socketPath());
  d.start();
  // Runs once the endless CALL is canceled and frees the executor; it must not wait for it forever.
  d.send(RawClient::query("SELECT count(*) FROM t"));
  auto r = d.untilReady();
  REQUIRE(RawClient::types(r) == "TDCZ");
  CHECK(cell(r[1], 0) == "0");
}

TEST_CASE("a client that sends no startup packet, or half of one, is dropped at the startup timeout", "[server]") {
  ServerConfig config;
  config.startupTimeoutMs = 300;
  TestServer server(config);
  RawClient silent(server.socketPath());
  RawClient half(server.socketPath());
  half.send(RawClient::int32(40) + RawClient::int32(3 << 16) + "user");
  CHECK(silent.next().field('C') == "08P01");
  CHECK(half.next().field('C') == "08P01");
  CHECK(half.closedByServer());
  checkServes(server);
}

TEST_CASE("a newer protocol minor version or _pq_ options: NegotiateProtocolVersion, then 3.0", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.send(RawClient::startupPacket((3 << 16) | 2, {{"user", "tester"}, {"_pq_.something", "on"}}));
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r).substr(0, 2) == "vR");
  CHECK(r[0].body == RawClient::int32(3 << 16) + RawClient::int32(1) + "_pq_.something" + '\0');
  CHECK(r.back().type == 'Z');
}

TEST_CASE("extended query: LIMIT $1 OFFSET $2 are BIGINT parameters, as in PostgreSQL", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2), (3), (4), (5)"));
  c.untilReady();
  c.send(parse("l", "SELECT a FROM t ORDER BY a LIMIT $1 OFFSET $2", {}) + describe('S', "l") + syncMessage());
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "1tTZ");
  CHECK(r[1].body == RawClient::int16(2) + RawClient::int32(20) + RawClient::int32(20));  // int8, int8
  auto rows = [&](std::optional<std::string> limit, std::optional<std::string> offset) {
    c.send(bind("", "l", {limit, offset}, 0) + execute("", 0) + syncMessage());
    std::string got;
    for (auto& m : c.untilReady()) {
      if (m.type == 'D') got += *cell(m, 0);
      if (m.type == 'E') got += "E" + m.field('C');
    }
    return got;
  };
  CHECK(rows("2", "1") == "23");
  CHECK(rows(std::nullopt, "3") == "45");  // NULL: no limit
  CHECK(rows("2", std::nullopt) == "12");  // NULL: no offset
  CHECK(rows("0", "0").empty());
  CHECK(rows("9223372036854775807", "4") == "5");
  CHECK(rows("-1", "0") == "E2201W");
  CHECK(rows("1", "-1") == "E2201X");
  CHECK(rows("1.5", "0") == "E22P02");
  // Declared int4: converted; declared text: refused at Parse, as PostgreSQL (42804).
  c.send(parse("", "SELECT a FROM t ORDER BY a LIMIT $1", {23}) + bind("", "", {std::string("2")}, 0) + execute("", 0) + syncMessage());
  CHECK(RawClient::types(c.untilReady()) == "12DDCZ");
  c.send(parse("", "SELECT a FROM t ORDER BY a LIMIT $1", {25}) + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "EZ");
  CHECK(r[0].field('C') == "42804");
}

TEST_CASE("extended query: COPY through Parse/Bind/Execute answers at Execute, as PostgreSQL", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  c.send(RawClient::query("CREATE TABLE t (a INTEGER, b TEXT)"));
  c.untilReady();
  // FROM STDIN: Describe of the portal is NoData; Execute answers CopyInResponse. The Sync sent
  // with it is ignored in copy mode (as PostgreSQL), so libpq's Sync after CopyDone ends it.
  c.send(parse("", "COPY t FROM STDIN", {}) + describe('S', "") + bind("", "", {}, 0) + describe('P', "") + execute("", 0) +
         syncMessage());
  std::string types;
  for (int i = 0; i < 6; ++i) types += c.next().type;
  CHECK(types == "1tn2nG");
  c.send(RawClient::message('d', "1\tx\n2\ty\n") + RawClient::message('c', "") + syncMessage());
  auto r = c.untilReady();
  REQUIRE(RawClient::types(r) == "CZ");
  CHECK(r[0].body == std::string("COPY 2\0", 7));
  // TO STDOUT: every row whatever Execute's row limit, then CommandComplete.
  c.send(parse("", "COPY t TO STDOUT", {}) + bind("", "", {}, 0) + execute("", 1) + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "12HddcCZ");
  CHECK(r[3].body == "1\tx\n");
  CHECK(r[4].body == "2\ty\n");
  CHECK(r[6].body == std::string("COPY 2\0", 7));
  // CopyFail: the statement's error (57014), nothing loaded; the session goes on.
  c.send(parse("", "COPY t FROM STDIN", {}) + bind("", "", {}, 0) + execute("", 0) + syncMessage());
  types.clear();
  for (int i = 0; i < 3; ++i) types += c.next().type;
  CHECK(types == "12G");
  c.send(RawClient::message('f', std::string("no thanks\0", 10)) + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "EZ");
  CHECK(r[0].field('C') == "57014");
  // Bad data: the statement's error after CopyDone.
  c.send(parse("", "COPY t FROM STDIN", {}) + bind("", "", {}, 0) + execute("", 0) + syncMessage());
  for (int i = 0; i < 3; ++i) c.next();
  c.send(RawClient::message('d', "zz\tz\n") + RawClient::message('c', "") + syncMessage());
  r = c.untilReady();
  REQUIRE(RawClient::types(r) == "EZ");
  CHECK(r[0].field('C') == "22P02");
  c.send(RawClient::query("SELECT count(*) FROM t"));
  r = c.untilReady();
  CHECK(cell(r[1], 0) == "2");
}

// A portal's rows are sent at later Executes, after other statements ran: its long strings (over
// 12 bytes, pointing outside the value) must outlive a DROP of the table they came from.
TEST_CASE("extended query: a suspended portal's strings outlive a DROP of their table", "[server]") {
  TestServer server;
  RawClient c(server.socketPath());
  c.start();
  const std::string a(40, 'a'), b(40, 'b'), d(40, 'd');
  c.send(RawClient::query("CREATE TABLE t (k INTEGER, s TEXT); INSERT INTO t VALUES (1, '" + a + "'), (2, '" + b + "'), (3, '" + d + "')"));
  c.untilReady();
  // In block `begin`: a row, then `dropper` drops t and fills new memory, then the other rows.
  auto portalAcrossDrop = [&](const std::string& begin, RawClient& dropper) {
    c.send(RawClient::query(begin));
    c.untilReady();
    c.send(parse("s", "SELECT s FROM t ORDER BY k", {}) + bind("p", "s", {}, 0) + execute("p", 1) + syncMessage());
    auto r = c.untilReady();
    REQUIRE(RawClient::types(r) == "12DsZ");
    CHECK(cell(r[2], 0) == a);
    dropper.send(RawClient::query("DROP TABLE t; CREATE TABLE u (s TEXT); INSERT INTO u VALUES ('" + std::string(120, 'z') + "')"));
    CHECK(RawClient::types(dropper.untilReady()) == "CCCZ");
    c.send(execute("p", 0) + syncMessage());
    r = c.untilReady();
    REQUIRE(RawClient::types(r) == "DDCZ");
    CHECK(cell(r[0], 0) == b);
    CHECK(cell(r[1], 0) == d);
    c.send(RawClient::query("COMMIT"));
    c.untilReady();
  };
  SECTION("in a block, which the block's own DROP TABLE does not end") { portalAcrossDrop("BEGIN", c); }
  SECTION("in a READ ONLY block, which holds no executor: another session drops the table meanwhile") {
    RawClient other(server.socketPath());
    other.start();
    portalAcrossDrop("BEGIN READ ONLY", other);
  }
  checkServes(server);
}
