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
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>
#include <time.h>
#include <unistd.h>

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
  // CPU time in the window: the client threads' own (their library, their socket calls) and the
  // whole machine's (every process: clients, the server, anything else running). Over the wire
  // a synchronous client's CPU per operation bounds the throughput two cores can reach even if
  // the server cost nothing: cores / clientMicrosPerOp() operations a second.
  double clientCpuSeconds = 0, machineCpuSeconds = 0;
  double opsPerSecond() const { return seconds > 0 ? static_cast<double>(ops) / seconds : 0; }
  double clientMicrosPerOp() const { return ops ? clientCpuSeconds * 1e6 / static_cast<double>(ops) : 0; }
  double machineMicrosPerOp() const { return ops ? machineCpuSeconds * 1e6 / static_cast<double>(ops) : 0; }
  double quantileMs(double q) const { return latency.quantile(q) / 1000; }
};

// This thread's CPU time so far, in seconds.
inline double threadCpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The machine's busy CPU time so far (all CPUs, /proc/stat: everything but idle and iowait), in
// seconds; 0 where there is no /proc.
inline double machineBusyCpuSeconds() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) || cpu != "cpu") return 0;
  static const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
  return static_cast<double>(user + nice + system + irq + softirq) / tick;
}

// Runs op(t) in a loop on `threads` threads (t = 0..threads-1; whatever op keeps per thread is
// the caller's, indexed by t) for warmup + duration seconds.
template <class Op>
ClientWindow runClientThreads(int threads, double warmup, double duration, Op op) {
  using Clock = std::chrono::steady_clock;
  struct PerThread {
    LatencyHistogram latency;
    uint64_t ops = 0, errors = 0;
    double cpuSeconds = 0;  // in the measured window
  };
  std::vector<PerThread> per(static_cast<size_t>(threads));
  std::atomic<int> phase{0};  // 0 warm-up, 1 measured, 2 stop
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t)
    running.emplace_back([&, t] {
      ::pthread_setname_np(::pthread_self(), "bench client");  // apart from the server's in a profile
      PerThread& me = per[static_cast<size_t>(t)];
      double cpuStart = -1;  // the thread's CPU clock at its first operation in the window
      while (phase.load(std::memory_order_relaxed) < 2) {
        if (cpuStart < 0 && phase.load(std::memory_order_relaxed) == 1) cpuStart = threadCpuSeconds();
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
      if (cpuStart >= 0) me.cpuSeconds = threadCpuSeconds() - cpuStart;
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
  const double busyStart = machineBusyCpuSeconds();
  phase = 1;
  const auto start = Clock::now();
  w.stalledSeconds += sleepWatching(duration);
  phase = 2;
  w.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& t : running) t.join();
  w.machineCpuSeconds = machineBusyCpuSeconds() - busyStart;  // the last operations' tails too: a few ms
  for (const PerThread& p : per) {
    w.ops += p.ops;
    w.errors += p.errors;
    w.clientCpuSeconds += p.cpuSeconds;
    w.latency.merge(p.latency);
  }
  return w;
}

}  // namespace hyrax::bench
