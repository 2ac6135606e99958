#pragma once
// Mid-size blocks of query memory (16 KiB to 1 MiB: hash tables' growing blocks and small
// directories, row buffers, the string arena's blocks) cut from 2 MiB mappings on transparent
// huge pages, instead of malloc: in forked snapshot processes (preferred()) all of them, in the
// process that started the blocks that need no zeroing (ZeroedBuffer::unzeroed).
//
// Why (issue 17): a query on a fork snapshot runs in a fresh process, and every page it writes
// that the fork did not bring is a page fault. From malloc those are 4 KiB pages (glibc's arenas
// grow a few pages at a time, so huge pages never apply): CH Q16 took ~40,000 faults in its worker
// against ~6,000 inline, most of them in the per-thread aggregation partitions' blocks, and ran
// twice as long. Cut from a huge page, a block's memory comes 2 MiB per fault.
//
// Blocks are powers of two, cut in turn from the newest 2 MiB slab (a process that makes a few
// small blocks touches one huge page). A block given back is kept for the next one of its size
// (never unmapped: a process's slabs stay at its peak), and:
// - only the process that took a slab hands its blocks out again: a forked child starts with no
//   free blocks (zeroing the parent's would copy each page first) and a lock of its own, since a
//   parent thread may have held the parent's at the fork;
// - in the parent, a block freed before a fork is shared with the child, so it is emptied
//   (MADV_DONTNEED: fresh zero pages on its next touch) instead of being zeroed by a copy;
// - past a cap of free blocks' memory (an eighth of the machine, at most 256 MiB) a block given
//   back is emptied the same way, so the memory goes back to the system.
#include <cstddef>

namespace hyrax {

class HugePageSlabs {
 public:
  static constexpr size_t kMinBlock = size_t{16} << 10;
  static constexpr size_t kMaxBlock = size_t{1} << 20;

  // The block size that holds `bytes` (kMinBlock <= result, a power of two; bytes <= kMaxBlock).
  static size_t blockSize(size_t bytes);
  // A block of blockSize(bytes), zeroed when `zeroed`, 16-byte aligned. Throws Error 53200 when
  // the kernel refuses memory.
  static char* take(size_t bytes, bool zeroed);
  // Back for reuse; `bytes` as given to take().
  static void give(char* p, size_t bytes);

  // Whether zeroed query memory should come from here: in a process forked from the one that
  // started (a snapshot's process and workers), whose malloc memory is the parent's, shared
  // copy-on-write, and where every page is a fault anyway. The process that started keeps calloc
  // for zeroed blocks, which reuses the memory it already has (after a load, TPC-H Q18's first run
  // took twice as long on fresh slabs: blocks of one size do not serve another, so each size's
  // peak was zeroed anew); unzeroed blocks cost no zeroing when reused, and come from here.
  static bool preferred();

  // The slabs this process mapped (tests).
  static size_t slabBytes();
};

}  // namespace hyrax
