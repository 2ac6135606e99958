#pragma once
// The chained hash table generated code uses for joins and aggregation: the runtime owns memory
// and buckets; generated code compares hashes and keys and follows chains. The directory and the
// entry header are shared with generated code (described once, abi_layout.hpp).
#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/runtime/abi_layout.hpp"
#include "engine/runtime/block_storage.hpp"
#include "engine/runtime/key_filter.hpp"
#include "engine/util/worker_pool.hpp"

namespace hyrax {

// What generated code reads to find a chain head without a call (layout in runtime.hpp). It is
// the table's first member, so a HashTable* points at it.
//
// A bucket is 64 bits on every target: the chain's first entry in the low 48, and in the high 16
// a tag per entry of the chain, bit hashTag(h) for an entry of hash h (HyPer's and Umbra's
// trick): a probe whose tag bit is clear has no match in the chain and reads no entry, which
// saves a cache miss or a mispredicted walk for most probes of a selective join.
struct HashDirectory {
  uint64_t* buckets;
  uint64_t shift;  // bucket of hash h: (h * kHashBucketMultiplier) >> shift
  // Non-zero once the table holds kHashLargeEntries entries, more than the caches keep: then a
  // probe's bucket and chain are mostly cache misses, worth a prefetch ahead and a check of the
  // previous row's entry first (generated code decides on this, not on the optimizer's estimate,
  // which without statistics is the input's row count).
  uint64_t large;
};
enum class HashDirectoryField : uint32_t { Buckets, Shift, Large };
inline constexpr AbiField kHashDirectoryFields[] = {
    {"buckets", AbiType::Ptr, 1, offsetof(HashDirectory, buckets)},
    {"shift", AbiType::I64, 1, offsetof(HashDirectory, shift)},
    {"large", AbiType::I64, 1, offsetof(HashDirectory, large)},
};
inline constexpr AbiLayout kHashDirectoryLayout = abiLayout("hyrax.hash_directory", kHashDirectoryFields, sizeof(HashDirectory));

// Every entry starts with this header; the payload, laid out by the generated code, follows at
// sizeof(HashEntryHeader) (16 bytes on 64- and 32-bit targets: the hash is 8-byte aligned).
struct HashEntryHeader {
  HashEntryHeader* next;  // the next entry of the bucket's chain, or null
  uint64_t hash;
};
enum class HashEntryField : uint32_t { Next, Hash };
inline constexpr AbiField kHashEntryFields[] = {
    {"next", AbiType::Ptr, 1, offsetof(HashEntryHeader, next)},
    {"hash", AbiType::I64, 1, offsetof(HashEntryHeader, hash)},
};
inline constexpr AbiLayout kHashEntryLayout = abiLayout("hyrax.hash_entry", kHashEntryFields, sizeof(HashEntryHeader));
inline constexpr uint64_t kHashBucketMultiplier = 0x9E3779B97F4A7C15ULL;
inline constexpr uint64_t kHashEntryMask = (uint64_t{1} << 48) - 1;
inline constexpr uint64_t kHashLargeEntries = uint64_t{1} << 16;
// Up to this many buckets (16 KiB, in L1 with room to spare) the directory keeps at least 8 per
// entry: a lookup then rarely passes another entry on its chain. Each one passed is a branch the
// CPU cannot predict (which group a row has is data), and at one bucket per entry a third of the
// entries share their chain: 16 groups took twice as long as without collisions.
inline constexpr uint64_t kHashSparseBuckets = 2048;
inline constexpr uint64_t kHashSparseFactor = 8;
// A directory this many times larger than its entries need is made again for them
// (HashTable::absorb, fittedDirectory); within that, an estimate's directory stays, and so does one of fewer
// than kFitDirectoryFrom buckets (512 KB: near the caches, and a transaction's small join would
// pay an allocation per run for nothing).
inline constexpr uint64_t kFitDirectoryShrink = 8;
inline constexpr uint64_t kFitDirectoryFrom = uint64_t{1} << 16;
inline uint64_t hashTag(uint64_t hash) { return uint64_t{1} << (48 + (hash & 15)); }
// The hash of one non-NULL integer key (SMALLINT, INTEGER, BIGINT, sign-extended) as generated
// code computes it (ExprCompiler::hash: multiply-xorshift), for the runtime's loops that probe a
// table built by generated code (scan_selection.cpp's join filter).
inline uint64_t hashInteger(int64_t v) {
  uint64_t x = static_cast<uint64_t>(v);
  x = (x ^ (x >> 32)) * 0x9E3779B97F4A7C15ULL;
  return x ^ (x >> 29);
}
// The hash of several keys as generated code combines theirs, first to last
// (ExprCompiler::combine): h = (rotl(h, 17) ^ next) * kHashCombineMultiplier.
inline constexpr uint64_t kHashCombineMultiplier = 0xBF58476D1CE4E5B9ULL;
inline constexpr unsigned kHashCombineRotate = 17;
inline uint64_t combineHashes(uint64_t h, uint64_t next) {
  return (((h << kHashCombineRotate) | (h >> (64 - kHashCombineRotate))) ^ next) * kHashCombineMultiplier;
}
// The partition of `parts` an entry of hash `hash` belongs to when a parallel aggregation merges
// its threads' groups (the generated merge computes the same): bits 32 and up of the product the
// bucket takes its top bits from, so the groups of one partition still spread over all buckets
// of a directory of up to 2^32 / parts buckets.
inline uint64_t hashPartition(uint64_t hash, uint64_t parts) { return ((hash * kHashBucketMultiplier) >> 32) % parts; }
inline void* chainOf(uint64_t bucket) { return reinterpret_cast<void*>(static_cast<uintptr_t>(bucket & kHashEntryMask)); }

class HashTable {
 public:
  // `expected`: the optimizer's estimate of the entries; the directory starts at that size (at
  // most 4M buckets, so a wild estimate costs little; sparser while small, see
  // kHashSparseBuckets) instead of doubling its way up.
  // Entries and directory are charged to `budget` when given (Error 53200 past it).
  ~HashTable() {
    if (budget_) budget_->release(bucketCount_ * sizeof(uint64_t));
  }
  HashTable(const HashTable&) = delete;
  HashTable& operator=(const HashTable&) = delete;
  explicit HashTable(uint32_t entrySize, uint64_t expected = 0, MemoryBudget* budget = nullptr)
      : entries_(entrySize < sizeof(HashEntryHeader) ? sizeof(HashEntryHeader) : entrySize, budget), budget_(budget),
        expected_(expected) {
    setBuckets(directorySize(expected));
  }
  // The buckets of a directory made for `entries`: 16 at least (it doubles as entries come; a
  // transaction's aggregates hold a few), one per entry up to 4M, sparser while small.
  static uint64_t directorySize(uint64_t entries) {
    uint64_t n = 16;
    while (n < entries && n < (1u << 22)) n *= 2;
    while (n < entries * kHashSparseFactor && n < kHashSparseBuckets) n *= 2;
    return n;
  }
  void* insert(uint64_t hash) {
    if (unlinked_) {
      auto* e = static_cast<HashEntryHeader*>(entries_.append());
      e->hash = hash;
      return e;
    }
    if (count() >= growAt_) {
      if (spill_.empty())
        grow();
      else
        spill();
    }
    if (count() + 1 == kHashLargeEntries) dir_.large = 1;
    auto* e = static_cast<HashEntryHeader*>(entries_.append());
    e->hash = hash;
    link(e, hash);
    return e;
  }
  // What generated code inlines: the chain that may hold `hash` (null when its tag says none).
  void* lookup(uint64_t hash) const {
    uint64_t b = dir_.buckets[bucket(hash)];
    return b & hashTag(hash) ? chainOf(b) : nullptr;
  }
  uint64_t count() const { return entries_.count() + adoptedCount_; }
  uint64_t bucketCount() const { return bucketCount_; }
  // A join's build side, once built, for the scans below the join that skip rows it cannot hold
  // (scan_selection.cpp): its entries' hashes in a filter far smaller than the directory, made by
  // absorb() with `keyFilter` in the pass that links the entries.
  const KeyFilter& keyFilter() const { return keyFilter_; }  // built() once absorb made it
  // Entry i: this table's own, then those of the tables it absorbed.
  void* entry(uint64_t i) const {
    if (i < entries_.count()) return entries_.at(i);
    i -= entries_.count();
    for (const BlockStorage& s : adopted_) {
      if (i < s.count()) return s.at(i);
      i -= s.count();
    }
    return nullptr;
  }
  // Entry i and how many entries follow it contiguously, entrySize() apart (BlockStorage::run).
  void* entryRun(uint64_t i, uint64_t* rows) const {
    if (i < entries_.count()) return entries_.run(i, rows);
    i -= entries_.count();
    for (const BlockStorage& s : adopted_) {
      if (i < s.count()) return s.run(i, rows);
      i -= s.count();
    }
    *rows = 0;
    return nullptr;
  }
  uint32_t entrySize() const { return entries_.rowSize(); }
  uint64_t expected() const { return expected_; }
  // A NULL-aware mark join's build side met a row whose key is NULL (not inserted).
  void noteNullKey() { sawNullKey_ = true; }
  bool sawNullKey() const { return sawNullKey_; }
  // Pre-aggregation (a parallel aggregation of many groups; Leis et al., SIGMOD 2014): where the
  // table would grow, it moves its entries into `partitions` instead (hashPartition of their
  // count) and starts empty, so it keeps the size it was made with and stays in cache. Entries
  // in a partition are copied as they are, not linked: it is read by index (entry(i)) only, by
  // the merge that aggregates the partition.
  void spillInto(std::vector<HashTable*> partitions) { spill_ = std::move(partitions); }
  // A join's build: from now on entries are only collected, never looked up, until absorb()
  // links them (this table's own from here on, and other tables' it takes). A thread's part of a
  // parallel build would otherwise pay a random write per entry into a directory of its own for
  // nothing; a serial build pays its random writes in one pass with each bucket loaded ahead
  // (linkEach) instead of a cache miss per insert (TPC-H Q3's 147,126 orders at 1 thread: the
  // build pipeline 23.5-29.5 ms, median 27.9, linked as inserted; 17.0-26.6, median 21.2, so).
  void collectOnly() {
    if (!unlinked_) ownLinked_ = entries_.count();
    unlinked_ = true;
  }
  // Treated as large from the start (HashDirectory::large): for a table whose inserts mostly
  // bring new groups (a pre-aggregating merge's partition), where a new group's tag test spares
  // the walk of its bucket's chain, and the entries of that walk were cache misses.
  void markLarge() { dir_.large = 1; }
  // Every entry into the partitions; the table is empty after it. From the first spill on the
  // table counts as large (HashDirectory::large): its input has proved to have many groups, so
  // the previous row's group is worth a check first (input clustered by the keys, TPC-H Q18's
  // lineitem, stays in it) and a new group's tag test spares it a walk. (Not before: a wrong
  // estimate sends 16 groups here too, and those checks took them from 17 to 30 ms in
  // bench/micro.) That group is never
  // a spilled entry: generated code sets it after every find-or-insert, the only place an insert,
  // and so a spill, happens.
  void spill() {
    dir_.large = 1;
    const uint64_t parts = spill_.size();
    for (uint64_t i = 0, run = 0; i < entries_.count(); i += run) {
      const char* first = static_cast<const char*>(entries_.run(i, &run));
      for (uint64_t k = 0; k < run; ++k) {
        const auto* e = reinterpret_cast<const HashEntryHeader*>(first + k * entrySize());
        std::memcpy(spill_[hashPartition(e->hash, parts)]->entries_.appendUnzeroed(), e, entrySize());
      }
    }
    entries_.clear();
    std::memset(dir_.buckets, 0, bucketCount_ * sizeof(uint64_t));
  }
  // A parallel build's merge: the entries of other tables (helper threads', with the same
  // layout) become this table's where they are, without a copy, and are linked into its
  // directory by `threads` threads at once (each bucket updated by compare-and-swap); their
  // memory counts against this table's budget from now on. With `link` false they are not linked:
  // for a table that nothing looks up by key any more, only reads by index (an aggregation's
  // groups on their way out): linking 10M groups into a new directory took as long as merging them.
  // With `keyFilter` the same pass makes the key filter, of every entry.
  void absorb(const std::vector<HashTable*>& others, uint32_t threads, bool link = true, bool keyFilter = false) {
    // Entries are numbered own first, then adopted (entry(i)): this table's own entries
    // collected since collectOnly() are [ownFrom, own), the adopted ones from now on [before, total).
    const uint64_t own = entries_.count();
    const uint64_t ownFrom = unlinked_ ? ownLinked_ : own;
    const uint64_t before = count();
    for (HashTable* other : others) {
      sawNullKey_ = sawNullKey_ || other->sawNullKey_;
      if (other->count() == 0) continue;
      BlockStorage& taken = adopted_.emplace_back(std::move(other->entries_));
      taken.chargeTo(budget_);
      adoptedCount_ += taken.count();
      other->entries_ = BlockStorage(entrySize(), other->budget_);
    }
    if (!link) return;
    unlinked_ = false;
    const uint64_t total = count();
    bool relinkAll = false;  // a new directory: every entry
    if (total >= kHashLargeEntries) dir_.large = 1;
    if (total > growAt_) {
      uint64_t n = bucketCount_;
      while (growAt(n) < total) n *= 2;
      setBuckets(n);
      relinkAll = true;
    } else if (const uint64_t n = fittedDirectory()) {
      setBuckets(n);  // far fewer entries than estimated (fittedDirectory)
      relinkAll = true;
    }
    std::array<LinkSpan, 2> spans{relinkAll ? LinkSpan{0, total} : LinkSpan{ownFrom, own},  // entries to link
                                  relinkAll ? LinkSpan{total, total} : LinkSpan{before, total}};
    constexpr uint64_t kMorsel = 16'384;
    const uint64_t toLink = spans[0].end - spans[0].next + (spans[1].end - spans[1].next);
    const uint32_t workers = toLink >= 2 * kMorsel ? threads : 1;
    // The key filter: each thread fills one of its own (the first thread's becomes the table's),
    // ORed together after. The entries are read once instead of twice: after the link pass half
    // of them sat in the other core's cache (Q3's 147,126 orders at 2 threads: link and filter
    // 3.5-4.8 ms apart, 2.1-3.1 so). One filter shared by atomic ORs took longer than apart:
    // the threads' writes pulled its lines back and forth. Entries linked before go in first.
    std::vector<KeyFilter> filters(keyFilter ? workers : 0);
    for (KeyFilter& f : filters) f.reset(total, budget_);
    if (keyFilter) {  // (the spans are in order: own entries before adopted ones)
      const uint64_t s0 = spans[0].next, e0 = spans[0].end, s1 = spans[1].next;
      for (auto [from, to] : {std::pair{uint64_t{0}, s0}, std::pair{e0, s1}, std::pair{spans[1].end, total}})
        for (uint64_t i = from, run = 0; i < to; i += run) {
          const char* first = static_cast<const char*>(entryRun(i, &run));
          run = std::min(run, to - i);
          for (uint64_t k = 0; k < run; ++k) filters[0].add(reinterpret_cast<const HashEntryHeader*>(first + k * entrySize())->hash);
        }
    }
    runOnWorkers(workers, [&](uint32_t w) {
      KeyFilter* filter = keyFilter ? &filters[w] : nullptr;
      for (LinkSpan& span : spans)
        for (;;) {
          const uint64_t begin = span.next.fetch_add(kMorsel, std::memory_order_relaxed);
          if (begin >= span.end) break;
          linkEach(begin, std::min(span.end, begin + kMorsel), [&](HashEntryHeader* e) {
            linkShared(e, e->hash);
            if (filter) filter->add(e->hash);
          });
        }
    });
    if (!keyFilter) return;
    for (size_t t = 1; t < filters.size(); ++t) filters[0].orWith(filters[t]);
    keyFilter_ = std::move(filters[0]);
  }

 private:
  // High bits: the generated hashes are multiplicative, so their top bits mix best.
  size_t bucket(uint64_t hash) const { return static_cast<size_t>((hash * kHashBucketMultiplier) >> dir_.shift); }
  // A join's build side holding far fewer entries than estimated (TPC-H Q18: 57 orders where 2M
  // were estimated, a 32 MB directory every probe row missed the caches in) gets a directory made
  // for the entries there are when absorb links them: its size, or 0 to keep this one.
  uint64_t fittedDirectory() const {
    const uint64_t n = directorySize(count());
    return bucketCount_ >= kFitDirectoryFrom && n * kFitDirectoryShrink <= bucketCount_ ? n : 0;
  }
  // Entries at which a directory of n buckets doubles (small ones stay sparse).
  static uint64_t growAt(uint64_t n) { return n <= kHashSparseBuckets ? n / kHashSparseFactor : n; }
  // A directory of n buckets (a power of two), empty.
  void setBuckets(uint64_t n) {
    if (budget_) budget_->charge(n * sizeof(uint64_t));
    try {
      buckets_ = ZeroedBuffer(n * sizeof(uint64_t));  // empty chains, no tags
    } catch (...) {
      if (budget_) budget_->release(n * sizeof(uint64_t));
      throw;
    }
    if (budget_) budget_->release(bucketCount_ * sizeof(uint64_t));
    bucketCount_ = n;
    growAt_ = growAt(n);
    dir_.shift = 64 - static_cast<uint64_t>(__builtin_ctzll(n));
    dir_.buckets = reinterpret_cast<uint64_t*>(buckets_.data());
  }
  // Puts entry e of hash h at the head of its chain.
  void link(HashEntryHeader* e, uint64_t hash) {
    // User-space addresses have 47 bits on x86-64 and AArch64 Linux (unless a mapping asks for
    // more, which hyrax never does) and 32 on ARMv7, so the tags have the top 16 bits to themselves.
    // (Checked in debug builds only: this runs under generated code, which nothing may unwind.)
    assert((static_cast<uint64_t>(reinterpret_cast<uintptr_t>(e)) & ~kHashEntryMask) == 0);
    uint64_t& b = dir_.buckets[bucket(hash)];
    e->next = static_cast<HashEntryHeader*>(chainOf(b));
    b = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(e)) | (b & ~kHashEntryMask) | hashTag(hash);
  }
  // link() for several threads at once: the bucket word changes by compare-and-swap.
  void linkShared(HashEntryHeader* e, uint64_t hash) {
    std::atomic_ref<uint64_t> b(dir_.buckets[bucket(hash)]);
    const uint64_t mine = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(e)) | hashTag(hash);
    uint64_t old = b.load(std::memory_order_relaxed);
    do {
      e->next = static_cast<HashEntryHeader*>(chainOf(old));
    } while (!b.compare_exchange_weak(old, mine | (old & ~kHashEntryMask), std::memory_order_release, std::memory_order_relaxed));
  }
  void grow() { resize(bucketCount_ * 2); }
  // A directory of n buckets (a power of two), every entry linked into it again.
  void resize(uint64_t n) {
    setBuckets(n);
    linkEach(0, count(), [&](HashEntryHeader* e) { link(e, e->hash); });
  }
  // link(e) or linkShared(e) for entries [begin, end), a block's run at a time, the bucket of the
  // entry kLinkAhead further on loaded meanwhile: the buckets are cache misses at random, and
  // linkShared's locked instruction lets no later load start before it. (A 150,000-entry join
  // table linked by two threads: 4.2-5.6 ms by entry(i) without it, 1.5-1.8 ms so.)
  static constexpr uint64_t kLinkAhead = 8;
  template <typename Link>
  void linkEach(uint64_t begin, uint64_t end, Link linkOne) {
    for (uint64_t i = begin, run = 0; i < end; i += run) {
      char* first = static_cast<char*>(entryRun(i, &run));
      run = std::min(run, end - i);
      for (uint64_t k = 0; k < run; ++k) {
        if (k + kLinkAhead < run)
          __builtin_prefetch(&dir_.buckets[bucket(reinterpret_cast<HashEntryHeader*>(first + (k + kLinkAhead) * entrySize())->hash)], 1);
        linkOne(reinterpret_cast<HashEntryHeader*>(first + k * entrySize()));
      }
    }
  }
  struct LinkSpan {  // absorb's entries [next, end) still to link, taken a morsel at a time
    LinkSpan(uint64_t b, uint64_t e) : next(b), end(e) {}
    std::atomic<uint64_t> next;
    uint64_t end;
  };
  HashDirectory dir_{nullptr, 64 - 4, 0};  // first: generated code reads it at offset 0
  BlockStorage entries_;
  MemoryBudget* budget_;
  ZeroedBuffer buckets_;
  uint64_t bucketCount_ = 0;
  uint64_t growAt_ = 0;  // entries at which the directory doubles
  uint64_t expected_;
  bool sawNullKey_ = false;
  bool unlinked_ = false;  // collectOnly()
  uint64_t ownLinked_ = 0;  // with unlinked_: the own entries linked before it
  std::vector<BlockStorage> adopted_;  // absorbed tables' entries
  std::vector<HashTable*> spill_;     // pre-aggregation: where entries go instead of growing
  uint64_t adoptedCount_ = 0;
  KeyFilter keyFilter_;
};
static_assert(std::is_standard_layout_v<HashTable>, "generated code reads HashTable's first member");

}  // namespace hyrax
