// HangupWatcher: a hang-up during a statement cancels it, and the watcher of a session that ends
// stops at once (it held the session's thread and socket up to its 100 ms poll, found by the
// protocol fuzzer: every session that ran a statement lingered that long after its client left).
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "server/hangup_watcher.hpp"

using hyrax::server::HangupWatcher;
using Clock = std::chrono::steady_clock;

TEST_CASE("a hang-up during a statement cancels it; the watcher stops at once when the session ends", "[server][wirefuzz]") {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  std::atomic<int> cancels{0};
  SECTION("stopped while a statement runs: no wait for the poll's timeout") {
    auto w = std::make_unique<HangupWatcher>(fds[0], [&] { ++cancels; });
    w->begin();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the watcher is inside its poll
    w->end();
    const auto start = Clock::now();
    w.reset();
    CHECK(Clock::now() - start < std::chrono::milliseconds(50));
    CHECK(cancels == 0);
  }
  SECTION("the client hangs up: the statement is canceled, and the watcher still stops at once") {
    auto w = std::make_unique<HangupWatcher>(fds[0], [&] { ++cancels; });
    w->begin();
    ::close(fds[1]);
    fds[1] = -1;
    for (int i = 0; i < 200 && cancels == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK(cancels >= 1);
    const auto start = Clock::now();
    w.reset();  // during its wait before canceling again
    CHECK(Clock::now() - start < std::chrono::milliseconds(50));
  }
  ::close(fds[0]);
  if (fds[1] >= 0) ::close(fds[1]);
}
