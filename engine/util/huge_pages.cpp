#include "engine/util/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>

#include "engine/util/error.hpp"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1; older C library headers lack the name
#endif

namespace hyrax {

void* mapAligned(size_t bytes, bool huge) {
  size_t rounded = roundToHugePages(bytes ? bytes : 1);
  // Map a huge page more than asked, keep the 2 MiB-aligned part, give back the rest.
  size_t span = rounded + kHugePage;
  void* p = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw Error(sqlstate::OutOfMemory, "out of memory allocating " + std::to_string(rounded >> 20) + " MB");
  auto start = reinterpret_cast<uintptr_t>(p);
  uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(p, aligned - start);
  if (size_t tail = start + span - (aligned + rounded)) munmap(reinterpret_cast<void*>(aligned + rounded), tail);
#ifdef MADV_HUGEPAGE
  if (huge) madvise(reinterpret_cast<void*>(aligned), rounded, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<void*>(aligned);
}

void adviseHuge(void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);
  madvise(p, bytes, MADV_COLLAPSE);  // fails harmlessly where the kernel has no such advice
#endif
}

}  // namespace hyrax
