#include "engine/util/zeroed_buffer.hpp"

#include <sys/mman.h>

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "engine/util/error.hpp"
#include "engine/util/huge_page_slabs.hpp"
#include "engine/util/huge_pages.hpp"

namespace hyrax {

namespace {

// Zeroes a pooled mapping: memset where its pages are in memory, MADV_DONTNEED where they are
// not. A hash table's directory sized for an estimate far above its entries touched few of its
// pages; a memset of the others faulted every one in (a 16 MB directory of TPC-H Q18's, never
// touched: 37 ms, against 0.5 ms for one whose pages were all in memory), while dropping them
// costs nothing and their next touch, if any, is the fault a fresh mapping pays. Only speed
// depends on mincore's answer: a page not reported in memory is dropped (so zero-filled), a
// swapped-out one included. Where mincore fails, all is memset.
void zeroPages(char* p, size_t bytes) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((bytes + page - 1) / page);
  if (mincore(p, bytes, resident.data()) != 0) {
    std::memset(p, 0, bytes);
    return;
  }
  for (size_t i = 0; i < resident.size();) {
    const bool in = resident[i] & 1;
    size_t j = i + 1;
    while (j < resident.size() && (resident[j] & 1) == in) ++j;
    char* from = p + i * page;
    const size_t len = std::min(bytes, j * page) - i * page;
    if (in)
      std::memset(from, 0, len);
    else
      madvise(from, len, MADV_DONTNEED);
    i = j;
  }
}

// Mappings given back are kept for the next query, up to an eighth of the machine's memory (at
// most 1 GiB): zeroing a page the process already has costs a memset, while a page fresh from the
// kernel costs a fault, and in a VM the host's first touch too (TPC-H Q18 ran twice as long on
// fresh memory as on reused). A request takes the smallest pooled mapping that holds it; a bigger
// one is cut at a huge-page boundary and its rest stays pooled; of one size, the one pooled last.
//
// A reserve keeps fresh memory ready before any query asks: once the database has grown (tables,
// strings and indexes registered with the huge-page keeper), the memory thread maps and faults in
// pieces of 32 MiB until the pool holds an eighth of the database (at most half the pool's cap).
// On this project's VMs a page the guest gave back to the host costs ~3 ms per 2 MiB at its
// first touch (0.35 GB/s; 5-25 GB/s once backed): TPC-H Q18's first run at SF 1 wrote 140 MB of
// fresh hash tables and took 450-620 ms against 150-200 for its second run on pooled memory. A
// reserve piece is known zero until first taken, so it is not zeroed again. An empty database
// keeps no reserve.
//
// Only the process that pooled a mapping takes it back: in a forked snapshot worker the pooled
// pages are the parent's, shared copy-on-write, so zeroing them would copy every 4 KiB page (and
// split each huge page) to then overwrite it, where a fresh mapping costs one fault per 2 MiB. The
// check comes before the lock, which a thread of the parent may have held at the fork.
//
// The other way round, in the parent: a mapping pooled before a fork is shared with the child
// (a snapshot lives on), and zeroing it with memset copied every page first; an inline query's
// hash tables paid that (the main process spent a sixth of its time in such copies beside an idle
// snapshot). Such a mapping is emptied instead (MADV_DONTNEED: the parent drops its pages, the
// child keeps them), and its next touch gets fresh zeroed pages. So the reserve is not refilled
// within seconds of a fork: a process forking snapshots all the time would refill it in vain.
class MappingPool {
 public:
  static MappingPool& instance() {
    static MappingPool pool;
    return pool;
  }
  // A pooled mapping of `bytes` (whole huge pages), zeroed when `zeroed`, or null.
  char* take(size_t bytes, bool zeroed) {
    if (getpid() != owner_) return nullptr;
    Pooled got;
    {
      std::lock_guard lock(mutex_);
      auto it = free_.lower_bound(bytes);
      if (it == free_.end()) {
        refillLocked();
        return nullptr;
      }
      it = std::prev(free_.upper_bound(it->first));  // of that size, the one pooled last (warmest)
      const size_t size = it->first;
      got = it->second;
      free_.erase(it);
      cached_ -= bytes;
      if (got.clean) clean_ -= bytes;
      if (size > bytes) free_.emplace(size - bytes, Pooled{got.p + bytes, got.forks, got.clean});
      refillLocked();
    }
    if (got.forks != forks_.load()) madvise(got.p, bytes, MADV_DONTNEED);
    else if (!got.clean && zeroed) zeroPages(got.p, bytes);
    return got.p;
  }
  bool give(char* p, size_t bytes) {
    if (getpid() != owner_) return false;
    std::lock_guard lock(mutex_);
    if (cached_ + bytes > cap_) return false;
    free_.emplace(bytes, Pooled{p, forks_.load()});
    cached_ += bytes;
    return true;
  }
  void keepReserve(size_t databaseBytes) {
    if (getpid() != owner_) return;
    database_.store(databaseBytes, std::memory_order_relaxed);
    std::lock_guard lock(mutex_);
    refillLocked();
  }
  size_t pooled() {
    std::lock_guard lock(mutex_);
    return cached_;
  }
  size_t clean() {
    std::lock_guard lock(mutex_);
    return clean_;
  }
  bool refilling() {
    std::lock_guard lock(mutex_);
    return refilling_;
  }

 private:
  static constexpr size_t kReservePiece = size_t{32} << 20;
  struct Pooled {
    char* p = nullptr;
    uint64_t forks = 0;  // forks_ when it was pooled
    bool clean = false;  // a reserve piece never taken: zero, faulted in
  };
  MappingPool() {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    size_t physical = pages > 0 && size > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(size) : 0;
    cap_ = std::min(physical / 8, size_t{1} << 30);
    pthread_atfork([] {
      instance().forks_.fetch_add(1);
      instance().lastForkNs_.store(nowNs(), std::memory_order_relaxed);
    }, nullptr, nullptr);
  }
  static int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  bool wantsMore() const {  // (under mutex_)
    const size_t target = std::min(cap_ / 2, database_.load(std::memory_order_relaxed) / 8);
    constexpr int64_t kQuietAfterForkNs = int64_t{5} * 1000 * 1000 * 1000;
    return cached_ + kReservePiece <= target && nowNs() - lastForkNs_.load(std::memory_order_relaxed) > kQuietAfterForkNs;
  }
  // Starts the memory thread's refill unless one is under way or none is needed (under mutex_).
  void refillLocked() {
    if (refilling_ || !wantsMore()) return;
    refilling_ = true;
    runOnMemoryThread([this] {
      for (;;) {
        {
          std::lock_guard lock(mutex_);
          if (!wantsMore()) {
            refilling_ = false;
            return;
          }
        }
        char* p = nullptr;
        try {
          p = static_cast<char*>(mapAligned(kReservePiece, true));
        } catch (const Error&) {  // the kernel refused: no reserve for now
          std::lock_guard lock(mutex_);
          refilling_ = false;
          return;
        }
        populateNow(p, kReservePiece);  // (advice: without it, the faults come later)
        std::lock_guard lock(mutex_);
        free_.emplace(kReservePiece, Pooled{p, forks_.load(), true});
        cached_ += kReservePiece;
        clean_ += kReservePiece;
      }
    });
  }
  const pid_t owner_ = getpid();
  std::atomic<uint64_t> forks_{0};  // forks of this process so far
  std::atomic<int64_t> lastForkNs_{0};
  std::atomic<size_t> database_{0};  // bytes kept on huge pages (keepReserve)
  std::mutex mutex_;
  std::multimap<size_t, Pooled> free_;
  size_t cached_ = 0, clean_ = 0, cap_ = 0;
  bool refilling_ = false;
};

[[noreturn]] void outOfMemory(size_t bytes) {
  throw Error(sqlstate::OutOfMemory, "out of memory allocating " + std::to_string(bytes >> 20) + " MB for a query");
}
}  // namespace

ZeroedBuffer::Kind ZeroedBuffer::kindFor(size_t bytes, bool zeroed) {
  // In the process that started, zeroed mid-size buffers (hash directories) stay with calloc,
  // which reuses what the process has. Unzeroed ones (BlockStorage's blocks, zeroed a row at a
  // time) come from slabs in every process: malloc gave the partitions of a parallel
  // aggregation memory that glibc had returned to the kernel after the query before (TPC-H Q18 at
  // 2 threads: 40,000 page faults a run, each a TLB flush on the other core; 2,000 from slabs).
  if (bytes < kSlabFrom || (bytes < kSlabTo && zeroed && !HugePageSlabs::preferred())) return Kind::Calloc;
  return bytes <= kSlabTo ? Kind::Slab : Kind::Mapped;
}

size_t ZeroedBuffer::footprint(size_t bytes, bool zeroed) {
  switch (kindFor(bytes, zeroed)) {
    case Kind::Calloc: return bytes;
    case Kind::Slab: return HugePageSlabs::blockSize(bytes);
    case Kind::Mapped: break;
  }
  return roundToHugePages(bytes);
}

ZeroedBuffer::ZeroedBuffer(size_t bytes, bool zeroed) : bytes_(bytes) {
  const Kind kind = kindFor(bytes, zeroed);
  if (kind == Kind::Calloc) {
    data_ = static_cast<char*>(zeroed ? std::calloc(bytes ? bytes : 1, 1) : std::malloc(bytes ? bytes : 1));
    if (!data_) outOfMemory(bytes);
    return;
  }
  if (kind == Kind::Slab) {
    try {
      data_ = HugePageSlabs::take(bytes, zeroed);
    } catch (const Error&) {
      outOfMemory(bytes);
    }
    kind_ = Kind::Slab;
    return;
  }
  size_t rounded = roundToHugePages(bytes);
  kind_ = Kind::Mapped;
  if ((data_ = MappingPool::instance().take(rounded, zeroed))) {
    bytes_ = rounded;
    return;
  }
  try {
    data_ = static_cast<char*>(mapAligned(rounded, true));
  } catch (const Error&) {
    outOfMemory(bytes);
  }
  bytes_ = rounded;
}

ZeroedBuffer::~ZeroedBuffer() { release(); }

void ZeroedBuffer::keepReserve(size_t databaseBytes) { MappingPool::instance().keepReserve(databaseBytes); }
size_t ZeroedBuffer::pooledBytes() { return MappingPool::instance().pooled(); }
size_t ZeroedBuffer::reservedBytes() { return MappingPool::instance().clean(); }

bool ZeroedBuffer::refillingReserve() { return MappingPool::instance().refilling(); }

ZeroedBuffer& ZeroedBuffer::operator=(ZeroedBuffer&& o) noexcept {
  if (this != &o) {
    release();
    data_ = o.data_;
    bytes_ = o.bytes_;
    kind_ = o.kind_;
    o.data_ = nullptr;
  }
  return *this;
}

void ZeroedBuffer::release() {
  if (!data_) return;
  switch (kind_) {
    case Kind::Calloc: std::free(data_); break;
    case Kind::Slab: HugePageSlabs::give(data_, bytes_); break;
    case Kind::Mapped:
      if (!MappingPool::instance().give(data_, bytes_)) munmap(data_, bytes_);
      break;
  }
  data_ = nullptr;
}

}  // namespace hyrax
