#include "engine/runtime/memory_budget.hpp"

#include <unistd.h>

#include "engine/runtime/thread_scope.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

uint64_t MemoryBudget::defaultLimit() {
  static const uint64_t limit = [] {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0) return uint64_t{4} << 30;
    uint64_t bytes = static_cast<uint64_t>(pages) * static_cast<uint64_t>(size) / 10 * 8;
    return bytes & ~((uint64_t{1} << 20) - 1);  // whole MB: SHOW prints it plainly
  }();
  return limit;
}

uint64_t MemoryBudget::currentLimit() {
  const MemoryLimit* session = ThreadScope<const MemoryLimit>::current();
  return session ? session->bytes : defaultLimit();
}

static std::string megabytes(uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MB"; }

void MemoryBudget::fail(uint64_t bytes, uint64_t used) const {
  throw Error(sqlstate::OutOfMemory, "out of memory: the statement needs more than memory_limit (" +
                                         formatMemorySize(limit_) + ")")
      .withDetail("It holds " + megabytes(used) + " and asked for " + megabytes(bytes) +
                  " more. SET memory_limit = '...' raises the limit.");
}

std::string formatMemorySize(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  size_t u = 0;
  while (u + 1 < std::size(kUnits) && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + kUnits[u];
}

}  // namespace hyrax
