#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "sql/api/statement_timer.hpp"

using hyrax::sql::StatementTimer;
using namespace std::chrono_literals;

TEST_CASE("a statement timer fires at its deadline after the one the thread waited for was disarmed") {
  // The timer thread waits for the nearest deadline without its lock; a statement that ends
  // first disarms (erases) it, and the next statement's timer wakes the thread. It must not read
  // the erased entry then (the `asan` preset reported a use after free there).
  std::atomic<bool> farCancel{false}, farTimedOut{false};
  {
    StatementTimer far(StatementTimer::Clock::now() + 1h, &farCancel, &farTimedOut);
    std::this_thread::sleep_for(50ms);  // the thread now waits for `far`'s deadline
  }
  std::atomic<bool> cancel{false}, timedOut{false};
  StatementTimer near(StatementTimer::Clock::now() + 20ms, &cancel, &timedOut);
  const auto giveUp = std::chrono::steady_clock::now() + 10s;
  while (!cancel.load() && std::chrono::steady_clock::now() < giveUp) std::this_thread::sleep_for(1ms);
  CHECK(timedOut.load());
  CHECK(cancel.load());
  CHECK_FALSE(farCancel.load());
  CHECK_FALSE(farTimedOut.load());
}
