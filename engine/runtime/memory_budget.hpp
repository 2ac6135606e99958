#pragma once
// The working memory one statement may grow to: its hash tables, sort buffers, strings made at
// run time and the result rows it holds (SET memory_limit; by default 80% of physical memory).
// Charged when a block is allocated, not per row, so the check costs nothing measurable; going
// over fails the statement with 53200 while the process still has room to undo it, instead of
// std::bad_alloc (or the kernel's OOM killer) later.
#include <cstdint>
#include <string>

namespace hyrax {

class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t limit = defaultLimit()) : limit_(limit) {}
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // Throws Error 53200 (and charges nothing) when `bytes` more would pass the limit.
  void charge(uint64_t bytes) {
    if (bytes > limit_ - used_ || used_ > limit_) fail(bytes);
    used_ += bytes;
  }
  void release(uint64_t bytes) { used_ = bytes < used_ ? used_ - bytes : 0; }
  uint64_t used() const { return used_; }
  uint64_t limit() const { return limit_; }
  void setLimit(uint64_t limit) { limit_ = limit; }

  // 80% of this machine's physical memory: room for the database itself and the OS.
  static uint64_t defaultLimit();
  // What the statement running on this thread may use: the session's memory_limit when a session
  // installed one (ThreadScope<const MemoryLimit>), else defaultLimit().
  static uint64_t currentLimit();

 private:
  [[noreturn]] void fail(uint64_t bytes) const;
  uint64_t limit_;
  uint64_t used_ = 0;
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
