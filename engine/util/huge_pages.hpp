#pragma once
// Big private anonymous mappings backed by transparent huge pages. Random row accesses into a
// table or an index of hundreds of megabytes miss the TLB on nearly every touch with 4 KiB pages,
// and in a VM each miss walks two sets of page tables; 2 MiB pages cover 512 times more per TLB
// entry. Private anonymous memory stays copy-on-write across fork() (snapshots).
#include <cstddef>
#include <functional>

namespace hyrax {

constexpr size_t kHugePage = size_t{2} << 20;

// `bytes` rounded up to whole huge pages, of zeroed memory aligned to 2 MiB; `huge` false leaves
// it to 4 KiB pages for now (adviseHuge() later). Throws 53200 when the kernel refuses.
// Release with munmap(p, roundToHugePages(bytes)).
void* mapAligned(size_t bytes, bool huge);
inline size_t roundToHugePages(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }

// Advises huge pages for a mapping made with huge false, and asks the kernel to move what it
// already holds onto huge pages now (MADV_COLLAPSE, Linux 6.1+; elsewhere khugepaged does it
// later). Advice only: without transparent huge pages the memory stays as it was.
void adviseHuge(void* p, size_t bytes);

// Asks a background thread to fault in [p, p + bytes) writable (MADV_POPULATE_WRITE, Linux 5.14+):
// a table's new chunk is then zeroed by the kernel there, not in the transaction that appends the
// chunk's rows (a 2 MiB page fault costs some hundred microseconds). The contents stay as they
// are (zero); a range unmapped meanwhile, or a kernel without the advice, makes it a no-op.
void prefaultInBackground(void* p, size_t bytes);

// Faults in [p, p + bytes) writable now, on this thread (MADV_POPULATE_WRITE; advice as above).
void populateNow(void* p, size_t bytes);

// Runs `job` on that same background thread, after the work queued before it; in a forked child
// (whose thread is gone) not at all. For memory work nobody waits for (ZeroedBuffer's reserve).
void runOnMemoryThread(std::function<void()> job);

}  // namespace hyrax
