#include "engine/util/huge_page_slabs.hpp"

#include <sys/mman.h>

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "engine/util/huge_pages.hpp"

namespace hyrax {

namespace {

constexpr int kMinShift = 14;  // kMinBlock
constexpr int kClasses = 7;    // 16 KiB .. 1 MiB

// A process's slabs. A forked child makes its own on first use (see the header); the parent's
// copy in the child is left alone, lock and all.
struct Slabs {
  struct Free {
    char* p;
    uint64_t forks;  // the process's forks when it was given back
    bool empty;      // zero pages: never touched since mapped, or emptied
  };
  const pid_t owner = getpid();
  std::mutex mutex;
  std::vector<Free> free[kClasses];
  // Blocks of every size are cut in turn from the newest slab, so a process that makes a few
  // small blocks of several sizes touches one huge page, not one per size.
  char* slab = nullptr;
  size_t slabUsed = 0;
  size_t slabBytes = 0, freeResident = 0, cap = 0;
  Slabs() {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    size_t physical = pages > 0 && size > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(size) : 0;
    cap = std::min(physical / 8, size_t{256} << 20);
  }
};

std::atomic<uint64_t> gForks{0};   // forks of this process (and its ancestors) so far
std::atomic<bool> gForked{false};  // this process is a fork child
// Registered at static initialization, before any fork: preferred() is then a load, not a getpid()
// (ZeroedBuffer and the string arena ask on every mid-size block, transactions' too).
const bool gForkHandlers = pthread_atfork([] { gForks.fetch_add(1, std::memory_order_relaxed); }, nullptr,
                                          [] { gForked.store(true, std::memory_order_relaxed); }) == 0;
std::atomic<Slabs*> gSlabs{nullptr};

Slabs& slabs() {
  Slabs* s = gSlabs.load(std::memory_order_acquire);
  if (s && s->owner == getpid()) return *s;
  auto* fresh = new Slabs;  // NOLINT: lives as long as the process (blocks point into its slabs)
  if (gSlabs.compare_exchange_strong(s, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;  // another thread of this process made them first
  return *s;
}

int classOf(size_t block) { return __builtin_ctzll(block) - kMinShift; }

}  // namespace

bool HugePageSlabs::preferred() { return gForked.load(std::memory_order_relaxed); }

size_t HugePageSlabs::blockSize(size_t bytes) {
  if (bytes <= kMinBlock) return kMinBlock;
  return size_t{1} << (64 - __builtin_clzll(bytes - 1));
}

char* HugePageSlabs::take(size_t bytes, bool zeroed) {
  const size_t size = blockSize(bytes);
  const int k = classOf(size);
  Slabs& s = slabs();
  Slabs::Free got{};
  {
    std::lock_guard lock(s.mutex);
    if (!s.free[k].empty()) {
      got = s.free[k].back();
      s.free[k].pop_back();
      if (!got.empty) s.freeResident -= size;
    }
  }
  if (got.p) {
    if (!got.empty) {
      if (got.forks != gForks.load(std::memory_order_relaxed)) madvise(got.p, size, MADV_DONTNEED);
      else if (zeroed) std::memset(got.p, 0, size);
    }
    return got.p;
  }
  std::lock_guard lock(s.mutex);
  if (!s.slab || kHugePage - s.slabUsed < size) {
    auto* slab = static_cast<char*>(mapAligned(kHugePage, true));  // throws 53200
    // What is left of the old slab becomes free blocks, the largest that fit first.
    for (size_t left = s.slab ? kHugePage - s.slabUsed : 0; left >= kMinBlock;) {
      const size_t block = size_t{1} << (63 - __builtin_clzll(left));
      s.free[classOf(block)].push_back({s.slab + s.slabUsed, 0, true});
      s.slabUsed += block;
      left -= block;
    }
    s.slab = slab;
    s.slabUsed = 0;
    s.slabBytes += kHugePage;
  }
  char* p = s.slab + s.slabUsed;
  s.slabUsed += size;
  return p;
}

void HugePageSlabs::give(char* p, size_t bytes) {
  const size_t size = blockSize(bytes);
  Slabs& s = slabs();
  const uint64_t forks = gForks.load(std::memory_order_relaxed);
  bool empty = false;
  {
    std::lock_guard lock(s.mutex);
    if (s.freeResident + size > s.cap) empty = true;
    else s.freeResident += size;
  }
  if (empty) madvise(p, size, MADV_DONTNEED);  // outside the lock: the block is still ours
  std::lock_guard lock(s.mutex);
  s.free[classOf(size)].push_back({p, forks, empty});
}

size_t HugePageSlabs::slabBytes() {
  Slabs& s = slabs();
  std::lock_guard lock(s.mutex);
  return s.slabBytes;
}

}  // namespace hyrax
