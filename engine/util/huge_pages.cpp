#include "engine/util/huge_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "engine/util/error.hpp"
#include "engine/util/forked_process.hpp"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1; older C library headers lack the name
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace hyrax {

void* mapAligned(size_t bytes, bool huge) {
  size_t rounded = roundToHugePages(bytes ? bytes : 1);
  // Map a huge page more than asked, keep the 2 MiB-aligned part, give back the rest.
  size_t span = rounded + kHugePage;
  void* p = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw Error(sqlstate::OutOfMemory, "out of memory allocating " + std::to_string(rounded >> 20) + " MB");
  auto start = reinterpret_cast<uintptr_t>(p);
  uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(p, aligned - start);
  if (size_t tail = start + span - (aligned + rounded)) munmap(reinterpret_cast<void*>(aligned + rounded), tail);
#ifdef MADV_HUGEPAGE
  if (huge) madvise(reinterpret_cast<void*>(aligned), rounded, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<void*>(aligned);
}

namespace {

// One thread for the process, started on first use and never stopped (it sleeps when there is
// nothing to do); its queue is never destroyed, so it outlives static destruction at exit.
struct Prefaulter {
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::function<void()>> jobs;
  Prefaulter() {
    std::thread([this] {
      for (;;) {
        std::function<void()> job;
        {
          std::unique_lock lock(mutex);
          wake.wait(lock, [&] { return !jobs.empty(); });
          job = std::move(jobs.front());
          jobs.pop_front();
        }
        job();
      }
    }).detach();
  }
};

}  // namespace

void runOnMemoryThread(std::function<void()> job) {
  // In a forked snapshot child the thread is gone and its mutex may have been held at the fork:
  // the work is only ever advice or a reserve, so the child goes without (and starts no thread).
  if (forkedProcess()) return;
  static auto* prefaulter = new Prefaulter;  // NOLINT: deliberately never freed (see above)
  {
    std::lock_guard lock(prefaulter->mutex);
    prefaulter->jobs.push_back(std::move(job));
  }
  prefaulter->wake.notify_one();
}

void populateNow(void* p, size_t bytes) { madvise(p, bytes, MADV_POPULATE_WRITE); }  // fails harmlessly

void prefaultInBackground(void* p, size_t bytes) {
  runOnMemoryThread([p, bytes] { populateNow(p, bytes); });
}

void adviseHuge(void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);
  madvise(p, bytes, MADV_COLLAPSE);  // fails harmlessly where the kernel has no such advice
#endif
}

}  // namespace hyrax
