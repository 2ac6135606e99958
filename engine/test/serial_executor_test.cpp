// The serial executor: a session's transaction block holds it, others wait for it or give up.
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <ctime>
#include <functional>
#include <thread>
#include <vector>

#include "engine/txn/serial_executor.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

namespace {
double processCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}
}  // namespace

TEST_CASE("work of another session waits for a held executor and runs after its release") {
  SerialExecutor ex;
  int a = 1, b = 2;  // two sessions
  ex.run(&a, [&] { ex.hold(&a); });
  bool ran = false;
  std::thread other([&] { ex.run(&b, [&] { ran = true; }); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  bool ranEarly = false;
  ex.run(&a, [&] { ranEarly = ran; });  // the holder's own work still runs
  CHECK_FALSE(ranEarly);
  ex.run(&a, [&] { ex.release(&a); });
  other.join();
  CHECK(ran);
}

TEST_CASE("a session gives up after the lock timeout with 55P03, its work not run") {
  SerialExecutor ex;
  ex.setLockTimeout(std::chrono::milliseconds(100));
  int a = 1, b = 2;
  ex.run(&a, [&] { ex.hold(&a); });
  bool ran = false;
  try {
    ex.run(&b, [&] { ran = true; });
    FAIL("no timeout");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "55P03");
  }
  ex.run(&a, [&] { ex.release(&a); });
  ex.run(&b, [] {});
  CHECK_FALSE(ran);
}

TEST_CASE("an executor whose queue holds only waiting work sleeps instead of spinning") {
  SerialExecutor ex;
  ex.setLockTimeout(std::chrono::seconds(30));
  int a = 1, b = 2;
  ex.run(&a, [&] { ex.hold(&a); });
  std::thread other([&] { ex.run(&b, [] {}); });  // queued behind a's transaction block
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // past both sides' spinning
  double before = processCpuSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  double used = processCpuSeconds() - before;
  ex.run(&a, [&] { ex.release(&a); });
  other.join();
  // Spinning would use the whole 0.5 s of one core; sleeping threads use next to nothing.
  CHECK(used < 0.1);
}

TEST_CASE("a session waiting behind a queue of work is not woken by every task that finishes") {
  // A driver with many calls under way (TPC-C terminals) waits for its last one: it naps and
  // then sleeps until its own task is done, instead of being woken (or spinning) at each task
  // before it, which took microseconds of the executor's time per task in a VM.
  SerialExecutor ex;
  int session = 1;
  std::vector<int> order;
  std::vector<SerialExecutor::Ticket> tickets;
  std::vector<std::function<void()>> work;
  constexpr int kTasks = 100;
  work.reserve(kTasks);
  for (int k = 0; k < kTasks; ++k)
    work.push_back([&order, k] {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      order.push_back(k);
    });
  for (int k = 0; k < kTasks; ++k) tickets.push_back(ex.submit(&session, work[static_cast<size_t>(k)]));
  rusage before{};
  getrusage(RUSAGE_THREAD, &before);
  ex.wait(tickets.back());
  rusage after{};
  getrusage(RUSAGE_THREAD, &after);
  CHECK(order.size() == kTasks);
  for (int k = 0; k < kTasks; ++k) CHECK(order[static_cast<size_t>(k)] == k);
  // A wake-up per finished task would be about 100 switches; naps and one wake-up are a few.
  CHECK(after.ru_nvcsw - before.ru_nvcsw < 20);
  for (auto& t : tickets) ex.wait(t);  // done already: returns at once
}
