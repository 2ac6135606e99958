#pragma once
// The working memory one statement may grow to: its hash tables, sort buffers, strings made at
// run time and the result rows it holds (SET memory_limit; by default 80% of physical memory).
// Charged when a block is allocated, not per row, so the check costs nothing measurable; going
// over fails the statement with 53200 while the process still has room to undo it, instead of
// std::bad_alloc (or the kernel's OOM killer) later.
#include <atomic>
#include <cstdint>
#include <string>

namespace hyrax {

class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t limit = defaultLimit()) : limit_(limit) {}
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // A parallel run's helper thread: what it charges counts against `statement`, whose limit holds
  // for all the statement's threads together. (Each helper had a budget of its own with the
  // whole limit: at 2 threads a statement grew to 4x memory_limit before failing, and past
  // physical memory to the OOM killer: sqlfuzz seed 580 query 477.)
  void shareWith(MemoryBudget& statement) { shared_ = statement.shared_ ? statement.shared_ : &statement; }
  // Whether charges to `other` land in the same count as charges here.
  bool sameCount(const MemoryBudget* other) const { return other && other->count() == count(); }

  // Throws Error 53200 (and charges nothing) when `bytes` more would pass the limit. Atomic: the
  // threads of a parallel run charge one count (per block allocated, not per row).
  void charge(uint64_t bytes) {
    MemoryBudget* c = count();
    uint64_t used = c->used_.load(std::memory_order_relaxed);
    do {
      if (bytes > c->limit_ - used || used > c->limit_) c->fail(bytes, used);
    } while (!c->used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  }
  void release(uint64_t bytes) {
    MemoryBudget* c = count();
    uint64_t used = c->used_.load(std::memory_order_relaxed);
    while (!c->used_.compare_exchange_weak(used, bytes < used ? used - bytes : 0, std::memory_order_relaxed)) {
    }
  }
  uint64_t used() const { return count()->used_.load(std::memory_order_relaxed); }
  uint64_t limit() const { return count()->limit_; }
  void setLimit(uint64_t limit) { limit_ = limit; }  // before the run: helpers read it

  // 80% of this machine's physical memory: room for the database itself and the OS.
  static uint64_t defaultLimit();
  // What the statement running on this thread may use: the session's memory_limit when a session
  // installed one (ThreadScope<const MemoryLimit>), else defaultLimit().
  static uint64_t currentLimit();

 private:
  MemoryBudget* count() const { return shared_ ? shared_ : const_cast<MemoryBudget*>(this); }
  [[noreturn]] void fail(uint64_t bytes, uint64_t used) const;
  uint64_t limit_;
  std::atomic<uint64_t> used_{0};
  MemoryBudget* shared_ = nullptr;  // the statement's budget, for a helper thread's
};

// The session's setting, installed for the statements it runs (thread_scope.hpp).
struct MemoryLimit {
  uint64_t bytes;
};

// The error of a statement whose memory the process could not give (std::bad_alloc).
inline constexpr const char* kOutOfMemoryMessage = "out of memory: the statement's intermediate results did not fit";

// "3GB", "512MB", "64kB", "100B" (PostgreSQL's units, 1024-based): the largest unit that divides.
std::string formatMemorySize(uint64_t bytes);

}  // namespace hyrax
