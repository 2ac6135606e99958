#pragma once
// The measuring loop of the benchmarks over the wire (ycsb, kv): N client threads, each running
// one operation after another (a synchronous client: the next request waits for the answer),
// first for a warm-up, then for the measured window; per thread a latency histogram and counts,
// merged at the end. An operation that throws counts as an error, not as a measured operation's
// failure of the loop: the thread goes on.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

#include <pthread.h>

#include "bench/ycsb/latency_histogram.hpp"

namespace hyrax::bench {

struct ClientWindow {
  double seconds = 0;   // the measured window's real length
  uint64_t ops = 0;     // operations finished inside it
  uint64_t errors = 0;  // operations that threw, warm-up included
  LatencyHistogram latency;
  // Time in the warm-up and the window during which a thread that only sleeps 10 ms at a time
  // did not run for over 100 ms: the process was stopped (SIGSTOP from a neighbour's quiet run)
  // or the machine starved it; the window's figures then measure that, not the engine.
  double stalledSeconds = 0;
  double opsPerSecond() const { return seconds > 0 ? static_cast<double>(ops) / seconds : 0; }
  double quantileMs(double q) const { return latency.quantile(q) / 1000; }
};

// Runs op(t) in a loop on `threads` threads (t = 0..threads-1; whatever op keeps per thread is
// the caller's, indexed by t) for warmup + duration seconds.
template <class Op>
ClientWindow runClientThreads(int threads, double warmup, double duration, Op op) {
  using Clock = std::chrono::steady_clock;
  struct PerThread {
    LatencyHistogram latency;
    uint64_t ops = 0, errors = 0;
  };
  std::vector<PerThread> per(static_cast<size_t>(threads));
  std::atomic<int> phase{0};  // 0 warm-up, 1 measured, 2 stop
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t)
    running.emplace_back([&, t] {
      ::pthread_setname_np(::pthread_self(), "bench client");  // apart from the server's in a profile
      PerThread& me = per[static_cast<size_t>(t)];
      while (phase.load(std::memory_order_relaxed) < 2) {
        const auto start = Clock::now();
        try {
          op(t);
        } catch (const std::exception&) {
          ++me.errors;
        }
        if (phase.load(std::memory_order_relaxed) == 1) {
          me.latency.add(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
          ++me.ops;
        }
      }
    });
  // Sleeps `seconds` in steps of 10 ms; the time it stood still in steps of over 100 ms.
  auto sleepWatching = [](double seconds) {
    double stalled = 0;
    const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    for (auto last = Clock::now(); last < end;) {
      std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(10), end - last));
      const auto now = Clock::now();
      if (now - last > std::chrono::milliseconds(100)) stalled += std::chrono::duration<double>(now - last).count();
      last = now;
    }
    return stalled;
  };
  ClientWindow w;
  // A stop in the warm-up counts too: sessions waiting through it may time out in the window.
  w.stalledSeconds = sleepWatching(warmup);
  phase = 1;
  const auto start = Clock::now();
  w.stalledSeconds += sleepWatching(duration);
  phase = 2;
  w.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& t : running) t.join();
  for (const PerThread& p : per) {
    w.ops += p.ops;
    w.errors += p.errors;
    w.latency.merge(p.latency);
  }
  return w;
}

}  // namespace hyrax::bench
