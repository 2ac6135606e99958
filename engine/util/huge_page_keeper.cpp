#include "engine/util/huge_page_keeper.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "engine/util/huge_pages.hpp"
#include "engine/util/zeroed_buffer.hpp"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1; older C library headers lack the name
#endif

namespace hyrax {

namespace {

constexpr auto kPassInterval = std::chrono::seconds(1);

// Never destroyed: its thread may wait on it while the process exits.
//
// Two locks, so that the executor never waits for a collapse: `mutex` guards the registry and is
// held only to read or change it (keepOnHugePages runs on the executor when a table grows a
// chunk); `collapsing` is held while a registered mapping is collapsed, and by unmapAligned around
// its unmap, so a collapse never meets memory mapped anew at the same address. Collapsing under
// the registry's lock made a chunk's registration wait for it (a 64 MiB chunk: up to 32 copies
// of 2 MiB, the executor and every transaction behind it waiting).
struct Keeper {
  const pid_t owner = getpid();
  std::mutex mutex;
  std::mutex collapsing;
  std::condition_variable forked;
  std::map<uintptr_t, size_t> mappings;  // start -> bytes (whole huge pages)
  std::atomic<size_t> total{0};           // the mappings' bytes
  bool forkPending = false;
  bool started = false;

  bool registered(uintptr_t start, size_t bytes) {
    std::lock_guard lock(mutex);
    auto it = mappings.find(start);
    return it != mappings.end() && it->second == bytes;
  }

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
      // A mapping per call, not a huge page per call (which would hold `collapsing` shorter): each
      // MADV_COLLAPSE first drains the LRU caches of every core (work queued on each and waited
      // for), and per huge page that made hundreds of such waits a pass.
      for (auto [start, bytes] : pass) {
        std::lock_guard one(collapsing);
        if (!registered(start, bytes)) continue;
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
  {
    std::lock_guard lock(k.mutex);
    size_t& registered = k.mappings[reinterpret_cast<uintptr_t>(p)];
    k.total += roundToHugePages(bytes) - registered;
    registered = roundToHugePages(bytes);
  }
  ZeroedBuffer::keepReserve(k.total);
}

void unmapAligned(void* p, size_t bytes) {
  Keeper& k = keeper();
  if (getpid() != k.owner) {  // a fork child: the registry is the parent's (see the header)
    munmap(p, roundToHugePages(bytes));
    return;
  }
  std::lock_guard one(k.collapsing);
  {
    std::lock_guard lock(k.mutex);
    auto it = k.mappings.find(reinterpret_cast<uintptr_t>(p));
    if (it != k.mappings.end()) {
      k.total -= it->second;
      k.mappings.erase(it);
    }
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
