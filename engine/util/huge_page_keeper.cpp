#include "engine/util/huge_page_keeper.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "engine/util/huge_pages.hpp"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1; older C library headers lack the name
#endif

namespace hyrax {

namespace {

constexpr auto kPassInterval = std::chrono::seconds(1);

// Never destroyed: its thread may wait on it while the process exits.
struct Keeper {
  const pid_t owner = getpid();
  std::mutex mutex;
  std::condition_variable forked;
  std::map<uintptr_t, size_t> mappings;  // start -> bytes (whole huge pages)
  bool forkPending = false;
  bool started = false;

  void loop() {
    std::unique_lock lock(mutex);
    for (;;) {
      forked.wait(lock, [&] { return forkPending; });
      // Let the fork's first writes split what they will before looking: a pass right after a
      // fork would merge pages the executor is about to split again.
      lock.unlock();
      std::this_thread::sleep_for(kPassInterval);
      lock.lock();
      forkPending = false;
      std::vector<std::pair<uintptr_t, size_t>> pass(mappings.begin(), mappings.end());
      lock.unlock();
      for (auto [start, bytes] : pass) {
        // Under the lock, so that an unmap waits for a collapse of its mapping (never one of
        // memory mapped anew at the same address).
        std::lock_guard one(mutex);
        auto it = mappings.find(start);
        if (it == mappings.end() || it->second != bytes) continue;
        madvise(reinterpret_cast<void*>(start), bytes, MADV_COLLAPSE);  // advice: fails harmlessly
      }
      lock.lock();
    }
  }
};

Keeper& keeper() {
  static auto* k = new Keeper;  // NOLINT: deliberately never freed (see above)
  return *k;
}

}  // namespace

void keepOnHugePages(void* p, size_t bytes) {
  Keeper& k = keeper();
  if (getpid() != k.owner) return;
  std::lock_guard lock(k.mutex);
  k.mappings[reinterpret_cast<uintptr_t>(p)] = roundToHugePages(bytes);
}

void unmapAligned(void* p, size_t bytes) {
  Keeper& k = keeper();
  if (getpid() == k.owner) {
    std::lock_guard lock(k.mutex);
    k.mappings.erase(reinterpret_cast<uintptr_t>(p));
  }
  munmap(p, roundToHugePages(bytes));
}

void noteSnapshotFork() {
  Keeper& k = keeper();
  if (getpid() != k.owner) return;
  std::lock_guard lock(k.mutex);
  k.forkPending = true;
  if (!k.started) {
    k.started = true;
    std::thread([&k] { k.loop(); }).detach();
  }
  k.forked.notify_one();
}

}  // namespace hyrax
