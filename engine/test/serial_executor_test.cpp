// The serial executor: a session's transaction block holds it, others wait for it or give up.
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <atomic>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/txn/serial_executor.hpp"
#include "engine/util/error.hpp"
#include "engine/util/large_stack_thread.hpp"
#include "engine/util/stack_depth.hpp"

using namespace hyrax;

namespace {
double processCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}
}  // namespace

TEST_CASE("work of another session waits for a held executor and runs after its release", "[executor]") {
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

TEST_CASE("a session gives up after the lock timeout with 55P03, its work not run", "[executor]") {
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

TEST_CASE("an executor whose queue holds only waiting work sleeps instead of spinning", "[executor]") {
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

TEST_CASE("a session waiting behind a queue of work is not woken by every task that finishes", "[executor]") {
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

// Sessions on threads with the executor's stack (the server's) run their work themselves when
// their turn comes, or have it run by the turn's holder: still one piece of work at a time.
namespace {
void onLargeStack(const std::function<void()>& body) { LargeStackThread(kExecutorStackBytes, body).join(); }
}  // namespace

TEST_CASE("a session on a thread with the executor's stack runs its work on its own thread", "[executor]") {
  SerialExecutor ex;
  int session = 1;
  pthread_t ranOn{}, caller{};
  onLargeStack([&] {
    caller = pthread_self();
    ex.run(&session, [&] { ranOn = pthread_self(); });
  });
  CHECK(pthread_equal(ranOn, caller));
  // A thread with a small stack hands its work to the executor's thread.
  std::thread([&] {
    caller = pthread_self();
    ex.run(&session, [&] { ranOn = pthread_self(); });
  }).join();
  CHECK_FALSE(pthread_equal(ranOn, caller));
}

TEST_CASE("work of many sessions, run on their threads and on the executor's, never overlaps and runs once each", "[executor]") {
  SerialExecutor ex;
  constexpr int kLarge = 6, kSmall = 2, kRuns = 3000;
  std::atomic<bool> inside{false};
  std::atomic<int> overlaps{0};
  long counter = 0;  // not atomic: the executor's turns are what keeps it right
  auto session = [&](int id) {
    for (int k = 0; k < kRuns; ++k)
      ex.run(&ex + id, [&] {
        if (inside.exchange(true)) overlaps.fetch_add(1);
        ++counter;
        inside.store(false);
      });
  };
  std::vector<std::unique_ptr<LargeStackThread>> large;
  std::vector<std::thread> small;
  for (int i = 0; i < kLarge; ++i) large.push_back(std::make_unique<LargeStackThread>(kExecutorStackBytes, [&, i] { session(i); }));
  for (int i = 0; i < kSmall; ++i) small.emplace_back([&, i] { session(kLarge + i); });
  for (auto& t : large) t->join();
  for (auto& t : small) t.join();
  CHECK(overlaps.load() == 0);
  CHECK(counter == long{kLarge + kSmall} * kRuns);
}

TEST_CASE("an error of work that another session's thread ran reaches the session that asked for it", "[executor]") {
  SerialExecutor ex;
  int a = 1, b = 2;
  std::atomic<int> ranB{0};
  std::atomic<bool> aRunning{false};
  std::string caught;
  LargeStackThread first(kExecutorStackBytes, [&] {
    ex.run(&a, [&] {
      aRunning = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // b queues behind meanwhile
    });
  });
  while (!aRunning) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  onLargeStack([&] {
    try {
      ex.run(&b, [&] {
        ranB.fetch_add(1);
        throw Error(sqlstate::DivisionByZero, "b failed");
      });
    } catch (const Error& e) {
      caught = e.sqlstate();
    }
  });
  first.join();
  CHECK(ranB.load() == 1);
  CHECK(caught == "22012");
}

TEST_CASE("a session on its own thread waits for a held executor, and gives up after the lock timeout", "[executor]") {
  SerialExecutor ex;
  ex.setLockTimeout(std::chrono::milliseconds(300));
  int a = 1, b = 2;
  ex.run(&a, [&] { ex.hold(&a); });
  bool ran = false;
  std::string state;
  double cpu = 0;
  onLargeStack([&] {
    double before = processCpuSeconds();
    try {
      ex.run(&b, [&] { ran = true; });
    } catch (const Error& e) {
      state = e.sqlstate();
    }
    cpu = processCpuSeconds() - before;
  });
  CHECK(state == "55P03");
  CHECK_FALSE(ran);
  CHECK(cpu < 0.1);  // it slept: spinning would use the whole 0.3 s
  // After the release, the waiting session's work runs.
  std::atomic<bool> started{false};
  LargeStackThread waiter(kExecutorStackBytes, [&] {
    started = true;
    ex.run(&b, [&] { ran = true; });
  });
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(ran);
  ex.run(&a, [&] { ex.release(&a); });
  waiter.join();
  CHECK(ran);
}
