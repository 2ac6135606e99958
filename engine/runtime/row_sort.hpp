#pragma once
// Sorting a row buffer's rows: stably, in runs on the worker pool's threads that are then merged,
// and by normalized keys where the ORDER BY keys allow.
//
// A normalized key writes a row's ORDER BY keys as one string of bytes whose plain unsigned order
// is the keys' SQL order (each key's NULL byte, then its value big-endian with the sign flipped,
// all its bytes inverted when descending; a string as its first bytes, zero padded, and its
// length). The sort then compares a few machine words kept beside each row's pointer instead of
// calling the generated comparator, which reads both rows and follows their long strings into
// the heap at random: TPC-H Q16's 18,314 rows on four keys, two of them strings, took 10-18 ms to
// sort so. A key may be a prefix of the order only (a string longer than its room, a type not
// encoded): rows whose keys differ are ordered by them, rows whose keys are equal are equal when
// both keys are complete, and otherwise the comparator decides.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

#include "engine/util/worker_pool.hpp"

namespace hyrax {

class MemoryBudget;

using RowCompare = int32_t (*)(const void*, const void*);  // negative/zero/positive, like memcmp

// One ORDER BY key as generated code describes it to the sort: four 32-bit words per key.
struct SortKeyColumn {
  uint32_t kind;       // the TypeId, | kSortDescending, | kSortNullsFirst
  uint32_t offset;     // the value's offset in the row
  int32_t nullOffset;  // its NULL byte's offset (non-zero: NULL), or -1 when it cannot be NULL
  uint32_t length;     // CHAR(n) and VARCHAR(n): n; 0 unbounded
};
inline constexpr uint32_t kSortDescending = 1u << 8, kSortNullsFirst = 1u << 9;

class SortKeyEncoder {
 public:
  static constexpr uint32_t kMaxBytes = 64;
  SortKeyEncoder(const SortKeyColumn* keys, uint32_t count);

  // 64-bit words a key takes; 0 when the first key is of a type not encoded.
  uint32_t words() const { return (bytes_ + 7) / 8; }
  // Writes words() words, each in native order (compared as unsigned integers, word by word);
  // returns whether the key is complete (equal complete keys mean equal rows).
  bool encode(const void* row, uint64_t* out) const;

 private:
  struct Part {
    uint8_t type;  // TypeId
    bool descending, nullsFirst;
    uint32_t offset;
    int32_t nullOffset;
    uint32_t room;  // bytes for the value (strings: their characters; the length byte follows)
  };
  std::vector<Part> parts_;
  uint32_t bytes_ = 0;
  bool partial_ = false;  // a key is left out: no key is complete
};

// [first, last) sorted: on one thread below `parallelFrom` elements, else in `threads` runs
// sorted on the worker pool's threads and merged by `less` (earlier runs first on ties).
// `sortRun(i, j)` sorts the run [first + i, first + j) in `less`'s order, on the thread given it.
template <typename It, typename Less, typename SortRun>
void sortInRuns(It first, It last, Less less, uint32_t threads, size_t parallelFrom, SortRun sortRun) {
  const size_t n = static_cast<size_t>(last - first);
  if (threads <= 1 || n < parallelFrom) {
    sortRun(size_t{0}, n);
    return;
  }
  std::vector<size_t> bounds(threads + 1);
  for (uint32_t r = 0; r <= threads; ++r) bounds[r] = n * r / threads;
  std::atomic<uint32_t> next{0};
  std::exception_ptr failed;  // a run's sort could not get its buffer (bad_alloc)
  std::mutex failedMutex;
  runOnWorkers(threads, [&](uint32_t) {
    for (uint32_t r; (r = next.fetch_add(1)) < threads;) {
      try {
        sortRun(bounds[r], bounds[r + 1]);
      } catch (...) {
        std::lock_guard lock(failedMutex);
        failed = std::current_exception();
      }
    }
  });
  if (failed) std::rethrow_exception(failed);
  for (uint32_t width = 1; width < threads; width *= 2)
    for (uint32_t r = 0; r + width < threads; r += 2 * width)
      std::inplace_merge(first + bounds[r], first + bounds[r + width], first + bounds[std::min(r + 2 * width, threads)],
                         less);
}

// `rows` stably sorted in `cmp`'s order, by normalized keys when `keys` encodes any (their
// memory charged to `budget`, which may be null).
void sortRows(std::vector<void*>& rows, RowCompare cmp, const SortKeyEncoder* keys, uint32_t threads,
              MemoryBudget* budget);

}  // namespace hyrax
