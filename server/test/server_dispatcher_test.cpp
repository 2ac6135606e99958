// Idle sessions served by the dispatcher's threads (server/dispatcher.hpp): many sessions at once
// each get their own answers, a client that does not read its large result or a query waiting on
// a snapshot holds no other session up, the idle timeout counts from the last request, and the
// server without dispatcher threads (--dispatch-threads 0) serves as well.
#include <poll.h>

#include <catch2/catch.hpp>

#include "server/test/test_server.hpp"

using namespace hyrax;
using namespace hyrax::server;
using namespace hyrax::server::test;

namespace {

// One prepared statement's run as a driver sends it: Bind, Execute, Sync in one write.
std::string run(const std::string& statement, const std::vector<std::optional<std::string>>& args) {
  return test::bind("", statement, args, 0) + execute("", 0) + syncMessage();
}

// Whether a message from the server is waiting to be read (without reading it).
bool hasReply(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

// `times` runs of a prepared statement on `c`, each answered right.
void answers(RawClient& c, int times) {
  c.send(parse("p", "SELECT $1::INTEGER + 1", {23}) + syncMessage());
  REQUIRE(RawClient::types(c.untilReady()) == "1Z");
  for (int i = 0; i < times; ++i) {
    c.send(run("p", {std::to_string(i)}));
    auto r = c.untilReady();
    REQUIRE(RawClient::types(r) == "2DCZ");
    CHECK(cell(r[1], 0) == std::to_string(i + 1));
  }
}

}  // namespace

TEST_CASE("dispatcher: many sessions at once, each its own statements and answers", "[server][dispatcher]") {
  for (int threads : {-1, 1, 0}) {
    ServerConfig config;
    config.dispatchThreads = threads;
    TestServer server(config);
    constexpr int kSessions = 24, kRounds = 30;
    std::vector<std::unique_ptr<RawClient>> clients;
    for (int s = 0; s < kSessions; ++s) {
      clients.push_back(std::make_unique<RawClient>(server.socketPath()));
      clients.back()->start();
      // The same statement name in every session, a text of its own.
      clients.back()->send(parse("s", "SELECT $1::INTEGER * 1000 + " + std::to_string(s), {23}) + syncMessage());
      REQUIRE(RawClient::types(clients.back()->untilReady()) == "1Z");
    }
    for (int round = 0; round < kRounds; ++round) {
      for (int s = 0; s < kSessions; ++s) clients[s]->send(run("s", {std::to_string(round)}));
      for (int s = 0; s < kSessions; ++s) {
        auto r = clients[s]->untilReady();
        REQUIRE(RawClient::types(r) == "2DCZ");
        CHECK(cell(r[1], 0) == std::to_string(round * 1000 + s));
      }
    }
  }
}

TEST_CASE("dispatcher: a client that does not read its large result holds no other session up", "[server][dispatcher]") {
  ServerConfig config;
  config.dispatchThreads = 1;  // the one thread must not wait for the slow reader
  TestServer server(config);
  RawClient slow(server.socketPath()), other(server.socketPath());
  slow.start();
  other.start();
  // About 20 MB of rows, far more than the socket's buffers take.
  constexpr int kRows = 20000;
  slow.send(parse("", "SELECT g, rpad('x', 1000, 'y') FROM generate_series(1, " + std::to_string(kRows) + ") g", {}) +
            run("", {}));
  answers(other, 50);
  // Then the slow client reads its whole result, in order.
  auto r = slow.untilReady();
  REQUIRE(r.size() == static_cast<size_t>(kRows) + 4);  // ParseComplete, BindComplete, rows, CommandComplete, ReadyForQuery
  CHECK(r[0].type == '1');
  CHECK(r[2].type == 'D');
  CHECK(cell(r[2], 0) == "1");
  CHECK(cell(r[kRows + 1], 0) == std::to_string(kRows));
  CHECK(cell(r[kRows + 1], 1)->size() == 1000);
  CHECK(r[kRows + 2].type == 'C');
  CHECK(r.back().body == "I");
}

TEST_CASE("dispatcher: a query waiting for a snapshot's answer holds no other session up", "[server][dispatcher]") {
  ServerConfig config;
  config.dispatchThreads = 1;  // its thread lends its place to a stand-in while it waits
  TestServer server(config);
  RawClient report(server.socketPath()), other(server.socketPath());
  report.start();
  other.start();
  report.send(RawClient::query("SET statement_timeout = 2500"));
  report.untilReady();
  // A query alone runs on a snapshot (analytics = 'snapshot', the default) and would run for
  // hours: its statement timeout ends it.
  report.send(RawClient::query("SELECT count(*) FROM generate_series(1, 1000000) a, generate_series(1, 1000000) b "
                               "WHERE a + b = 7"));
  auto t0 = std::chrono::steady_clock::now();
  answers(other, 20);
  const double tookMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  INFO("answers took " << tookMs << " ms");
  const bool early = hasReply(report.fd());
  auto r = report.untilReady();
  INFO("the report's reply: " << RawClient::types(r) << " " << (r.empty() ? "" : r[0].field('C') + " " + r[0].field('M')));
  CHECK_FALSE(early);  // the report still ran: the answers above did not wait for it
  REQUIRE(RawClient::types(r) == "EZ");
  CHECK(r[0].field('C') == "57014");
}

TEST_CASE("dispatcher: the idle session timeout counts from the last request a dispatcher served", "[server][dispatcher]") {
  ServerConfig config;
  config.idleSessionTimeoutMs = 400;
  TestServer server(config);
  RawClient c(server.socketPath());
  c.start();
  c.send(parse("p", "SELECT $1::INTEGER", {23}) + syncMessage());
  REQUIRE(RawClient::types(c.untilReady()) == "1Z");
  // Busy for three times the timeout, never idle for long: the session stays.
  for (int i = 0; i < 12; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    c.send(run("p", {std::to_string(i)}));
    auto r = c.untilReady();
    REQUIRE(RawClient::types(r) == "2DCZ");
    CHECK(cell(r[1], 0) == std::to_string(i));
  }
  CHECK(c.endedWith("57P05"));  // then idle
}
