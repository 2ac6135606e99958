// hyrax-bench fork: how long fork() takes against the size of the memory a process has mapped,
// with transparent huge pages and (the reference, in the same run) with 4 KiB pages. This is the
// price of a snapshot (issue 17): fork copies the page tables of every private mapping, one entry
// per 4 KiB page or one per 2 MiB page, and marks them copy-on-write.
//   hyrax-bench fork [--gb 1,2,4] [--repeat R] [--json]
// Per size and page kind: map that many GiB of private anonymous memory 2 MiB-aligned, advise
// MADV_HUGEPAGE or MADV_NOHUGEPAGE, write every 4 KiB page, then fork R times (the child _exit(0)s
// at once; the parent times fork()'s return and then waits) and report the median. The memory
// the kernel actually put on huge pages (AnonHugePages of /proc/self/smaps_rollup) is printed
// beside it, since MADV_HUGEPAGE is advice.
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/benchmarks.hpp"
#include "bench/options.hpp"

namespace po = boost::program_options;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kTwoMiB = size_t{2} << 20;

struct ForkRun {
  double gb = 0;
  bool huge = false;
  double forkMs = 0, forkMinMs = 0, forkMaxMs = 0, waitMs = 0, touchMs = 0;
  double anonHugeMiB = 0;
};

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// AnonHugePages of this process, in MiB (0 when the kernel does not say).
double anonHugeMiB() {
  std::ifstream in("/proc/self/smaps_rollup");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("AnonHugePages:", 0) == 0) return std::stod(line.substr(14)) / 1024.0;
  return 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

ForkRun measure(double gb, bool huge, int repeat) {
  ForkRun run;
  run.gb = gb;
  run.huge = huge;
  const size_t bytes = static_cast<size_t>(gb * 1024) << 20;
  // Over-map by 2 MiB and use the aligned part, so every huge page can be a whole one.
  void* raw = mmap(nullptr, bytes + kTwoMiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::runtime_error("mmap of " + std::to_string(bytes) + " bytes failed");
  char* p = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + kTwoMiB - 1) & ~(kTwoMiB - 1));
  if (madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) != 0) std::perror("madvise");
  auto t0 = Clock::now();
  for (size_t off = 0; off < bytes; off += 4096) p[off] = static_cast<char>(off >> 12);
  run.touchMs = ms(Clock::now() - t0);
  run.anonHugeMiB = anonHugeMiB();
  std::vector<double> forks, waits;
  for (int i = 0; i < repeat; ++i) {
    auto start = Clock::now();
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    auto forked = Clock::now();
    if (pid < 0) {
      munmap(raw, bytes + kTwoMiB);
      throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    forks.push_back(ms(forked - start));
    waits.push_back(ms(Clock::now() - forked));
  }
  munmap(raw, bytes + kTwoMiB);
  run.forkMs = median(forks);
  run.forkMinMs = *std::min_element(forks.begin(), forks.end());
  run.forkMaxMs = *std::max_element(forks.begin(), forks.end());
  run.waitMs = median(waits);
  return run;
}

int forkBench(int argc, char** argv) {
  std::string gbList = "1,2,4";
  int repeat = 9;
  po::options_description desc("usage: hyrax-bench fork [options]\nOptions");
  desc.add_options()("help,h", "show this help")("gb", po::value(&gbList), "sizes in GiB, comma-separated (default 1,2,4)")(
      "repeat", po::value(&repeat), "forks per size and page kind; the median is reported (default 9)")(
      "json", "machine-readable output: a list of {gb, huge_pages, fork_ms, ...}");
  po::variables_map vm;
  if (!hyrax::bench::parseOptions(desc, argc, argv, vm)) return 0;
  const bool json = vm.count("json") > 0;
  std::vector<double> sizes;
  std::stringstream list(gbList);
  for (std::string s; std::getline(list, s, ',');) sizes.push_back(std::stod(s));
  if (repeat < 1) repeat = 1;

  std::vector<ForkRun> runs;
  for (double gb : sizes)
    for (bool huge : {true, false}) runs.push_back(measure(gb, huge, repeat));

  if (json) {
    std::printf("[");
    for (size_t i = 0; i < runs.size(); ++i) {
      const ForkRun& r = runs[i];
      std::printf("%s\n {\"gb\": %g, \"huge_pages\": %s, \"fork_ms\": %.3f, \"fork_min_ms\": %.3f, \"fork_max_ms\": %.3f, "
                  "\"wait_ms\": %.3f, \"anon_huge_mib\": %.0f, \"repeat\": %d}",
                  i ? "," : "", r.gb, r.huge ? "true" : "false", r.forkMs, r.forkMinMs, r.forkMaxMs, r.waitMs, r.anonHugeMiB,
                  repeat);
    }
    std::printf("\n]\n");
    return 0;
  }
  std::printf("fork() of a process with N GiB of touched private anonymous memory; median of %d forks\n\n", repeat);
  std::printf("%6s %-10s %10s %10s %10s %12s %14s %12s\n", "GiB", "pages", "fork ms", "min ms", "max ms", "wait ms",
              "on huge MiB", "4K / huge");
  for (size_t i = 0; i < runs.size(); ++i) {
    const ForkRun& r = runs[i];
    std::printf("%6g %-10s %10.3f %10.3f %10.3f %12.3f %14.0f", r.gb, r.huge ? "2 MiB THP" : "4 KiB", r.forkMs, r.forkMinMs,
                r.forkMaxMs, r.waitMs, r.anonHugeMiB);
    // The reference (4 KiB pages) is measured right after the huge-page run of the same size.
    if (!r.huge && i > 0 && runs[i - 1].huge && runs[i - 1].gb == r.gb)
      std::printf(" %12.1f", r.forkMs / std::max(runs[i - 1].forkMs, 1e-3));
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int hyrax::bench::runFork(int argc, char** argv) { return forkBench(argc, argv); }
