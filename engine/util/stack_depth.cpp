#include "engine/util/stack_depth.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "engine/util/error.hpp"

namespace hyrax {

namespace {

// What may run below the last check: the frames between two checks, library code called from
// the deepest level (LLVM's IRBuilder, fmt, the allocator) and, in sanitizer builds, their much
// larger frames.
constexpr size_t kMinReserve = size_t{1} << 20;

// The lowest address this thread's frames may reach before checkStackDepth() throws. Computed on
// the first call (a forked child keeps its parent thread's stack, and this value with it).
thread_local uintptr_t tLimit = 0;
// The deepest frame checkStackDepth() saw since the last releaseDeepStack().
thread_local uintptr_t tLowest = UINTPTR_MAX;
// This thread's whole stack, found with tLimit.
thread_local size_t tStackBytes = 0;

// Stack left resident below the caller's frame by releaseDeepStack(): what ordinary statements use.
constexpr uintptr_t kKeptBytes = uintptr_t{4} << 20;

uintptr_t computeLimit() {
  pthread_attr_t attr;
  void* base = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &base, &size);
    pthread_attr_destroy(&attr);
  }
  tStackBytes = size;
  if (!base || size == 0) return 1;  // unknown: never throw (the thread's own guard page stays)
  const size_t reserve = std::max(kMinReserve, size / 8);
  if (reserve >= size) return reinterpret_cast<uintptr_t>(base) + size;  // a tiny stack: no room at all
  return reinterpret_cast<uintptr_t>(base) + reserve;
}

uintptr_t here() { return reinterpret_cast<uintptr_t>(__builtin_frame_address(0)); }

}  // namespace

size_t stackDepthLeft() {
  if (!tLimit) tLimit = computeLimit();
  const uintptr_t sp = here();
  return sp > tLimit ? sp - tLimit : 0;
}

bool hasExecutorStack() {
  if (!tLimit) tLimit = computeLimit();
  return tStackBytes >= kExecutorStackBytes / 2;  // (what the thread library reports may leave out its guard)
}

void checkStackDepth() {
  if (!tLimit) tLimit = computeLimit();
  const uintptr_t sp = here();
  if (sp < tLowest) tLowest = sp;
  if (sp < tLimit)
    throw Error(sqlstate::TooComplex, "statement too complex: stack depth limit exceeded (an expression or query nests too deep)");
}

void releaseDeepStack() {
  const uintptr_t sp = here();
  if (tLowest == UINTPTR_MAX || sp - tLowest <= 2 * kKeptBytes || sp < tLowest) {
    tLowest = UINTPTR_MAX;
    return;
  }
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t from = tLowest & ~(page - 1);
  const uintptr_t to = (sp - kKeptBytes) & ~(page - 1);
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
  tLowest = UINTPTR_MAX;
}

}  // namespace hyrax
