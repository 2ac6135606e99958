// The startup packet's settings (startup_settings.hpp): refused with FATAL where PostgreSQL 15
// refuses them (an unknown name, a bad value, a read-only setting, malformed options), accepted
// with a warning where PostgreSQL has a setting hyrax has not; what psql, libpq, psycopg and
// pgjdbc send gets in.
#include <catch2/catch.hpp>
#include <libpq-fe.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/test/test_server.hpp"

using namespace hyrax::server::test;

namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

// The replies to a startup packet with these parameters besides user and database.
std::vector<Reply> startWith(TestServer& server, const Params& extra) {
  RawClient c(server.socketPath());
  Params params{{"user", "tester"}, {"database", "hyrax"}};
  params.insert(params.end(), extra.begin(), extra.end());
  c.send(RawClient::startupPacket(3 << 16, params));
  return c.untilReady();
}

// The FATAL a login with these parameters got: "SQLSTATE message", or "" if it got in.
std::string refusal(TestServer& server, const Params& extra) {
  std::vector<Reply> r = startWith(server, extra);
  for (const Reply& m : r)
    if (m.type == 'E') {
      CHECK(m.field('S') == "FATAL");
      return m.field('C') + " " + m.field('M');
    }
  CHECK(RawClient::types(r).back() == 'Z');
  return "";
}

// The WARNINGs a login sent before ReadyForQuery: "SQLSTATE message" each.
std::vector<std::string> warnings(TestServer& server, const Params& extra) {
  std::vector<std::string> all;
  for (const Reply& m : startWith(server, extra))
    if (m.type == 'N') all.push_back(m.field('C') + " " + m.field('M'));
  return all;
}

// A setting's value in a session libpq opened with this connection string's `options`.
std::string shownWithOptions(TestServer& server, const std::string& options, const std::string& setting) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> c(PQconnectdb((server.conninfo() + " options='" + options + "'").c_str()), &PQfinish);
  if (PQstatus(c.get()) != CONNECTION_OK) return std::string("refused: ") + PQerrorMessage(c.get());
  std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(c.get(), ("SHOW " + setting).c_str()), &PQclear);
  REQUIRE(PQresultStatus(r.get()) == PGRES_TUPLES_OK);
  return PQgetvalue(r.get(), 0, 0);
}

}  // namespace

TEST_CASE("startup: a setting PostgreSQL would refuse ends the login with its FATAL", "[server][startup]") {
  TestServer server;
  CHECK(refusal(server, {{"no_such_setting", "1"}}) == "42704 unrecognized configuration parameter \"no_such_setting\"");
  CHECK(refusal(server, {{"DateStyle", "Fortnightly"}}).rfind("22023 invalid value for parameter \"DateStyle\"", 0) == 0);
  CHECK(refusal(server, {{"extra_float_digits", "9"}}).rfind("22023 invalid value for parameter \"extra_float_digits\"", 0) == 0);
  CHECK(refusal(server, {{"client_encoding", "NO_SUCH_ENCODING"}}).rfind("22023 ", 0) == 0);
  CHECK(refusal(server, {{"server_version", "99"}}) == "55P02 parameter \"server_version\" cannot be changed");
  CHECK(refusal(server, {{"bad.", "1"}}) == "42602 invalid configuration parameter name \"bad.\"");
  // Through options, as libpq's options='-c name=value' and PGOPTIONS send them.
  CHECK(refusal(server, {{"options", "-c no_such=1"}}) == "42704 unrecognized configuration parameter \"no_such\"");
  CHECK(refusal(server, {{"options", "-c statement_timeout=soon"}}).rfind("22023 ", 0) == 0);
  CHECK(refusal(server, {{"options", "-c application_name"}}) == "42601 -c application_name requires a value");
  CHECK(refusal(server, {{"options", "-X"}}) == "42601 invalid command-line argument for server process: -X");
  CHECK(refusal(server, {{"options", "stray"}}) == "42601 invalid command-line argument for server process: stray");
  CHECK(refusal(server, {{"options", "-B 128"}}).rfind("0A000 the server switch -B", 0) == 0);
  // libpq reports the FATAL as the connection's failure.
  CHECK(shownWithOptions(server, "-c no_such=1", "application_name").find("unrecognized configuration parameter \"no_such\"") !=
        std::string::npos);
  // The server goes on serving.
  CHECK(refusal(server, {}).empty());
}

TEST_CASE("startup: what hyrax has no setting of but PostgreSQL has is ignored with a warning", "[server][startup]") {
  TestServer server;
  CHECK(warnings(server, {{"geqo", "off"}}) ==
        std::vector<std::string>{"0A000 hyrax has no setting \"geqo\": the startup packet's value is ignored"});
  CHECK(warnings(server, {{"options", "-c work_mem=64MB --lock-timeout=1s"}, {"myapp.tenant", "7"}}) ==
        std::vector<std::string>{"0A000 hyrax has no setting \"work_mem\": the startup packet's value is ignored",
                                 "0A000 hyrax has no setting \"lock_timeout\": the startup packet's value is ignored",
                                 "0A000 hyrax has no setting \"myapp.tenant\": the startup packet's value is ignored"});
  // An encoding PostgreSQL converts to: the session stays UTF8 and says so (SQL_ASCII, psql's
  // under the C locale, is no conversion at all: nothing to say).
  std::vector<Reply> r = startWith(server, {{"client_encoding", "LATIN1"}});
  CHECK(parameterStatus(r)["client_encoding"] == "UTF8");
  CHECK(warnings(server, {{"client_encoding", "LATIN1"}}).size() == 1);
  CHECK(warnings(server, {{"client_encoding", "SQL_ASCII"}}).empty());
}

TEST_CASE("startup: the settings drivers send, and options' -c and --name, are the session's", "[server][startup]") {
  TestServer server;
  // What pgjdbc sends (psql and psycopg send application_name and, on a terminal, client_encoding).
  Params jdbc{{"client_encoding", "UTF8"}, {"DateStyle", "ISO"}, {"TimeZone", "Europe/Paris"}, {"extra_float_digits", "3"},
              {"application_name", "PostgreSQL JDBC Driver"}, {"search_path", "public"}};
  CHECK(refusal(server, jdbc).empty());
  CHECK(warnings(server, jdbc).empty());
  CHECK(parameterStatus(startWith(server, jdbc))["application_name"] == "PostgreSQL JDBC Driver");
  // options: a backslash keeps a blank (written twice: libpq's conninfo takes one), a '-' in a name is '_', the later of two wins, and the
  // packet's own parameters win over options (as PostgreSQL applies them after).
  CHECK(shownWithOptions(server, "-c statement-timeout=5s", "statement_timeout") == "5s");
  CHECK(shownWithOptions(server, "--DateStyle=ISO,\\\\ DMY -c DateStyle=YMD", "DateStyle") == "ISO, YMD");
  CHECK(shownWithOptions(server, "-csearch_path=a\\\\ b", "search_path") == "a b");
  std::vector<Reply> r = startWith(server, {{"options", "-c application_name=fromoptions"}, {"application_name", "own"}});
  CHECK(parameterStatus(r)["application_name"] == "own");
}
