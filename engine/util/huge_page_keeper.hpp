#pragma once
// Keeps the database's data on huge pages while snapshots are forked (issue 17).
//
// fork() copies one page-table entry per 4 KiB page but one per 2 MiB huge page, so a snapshot of
// data on huge pages costs the executor little. But after a fork, the first write to a huge page
// the child shares splits it into 512 small entries (the kernel copies only the 4 KiB written),
// and it stays split: under the CH-benCHmark (5 warehouses, a snapshot every ~100 ms) about half of
// the 1.2 GB database was on 4 KiB pages within seconds, and each fork took ~20 ms of the
// executor's time (and each snapshot worker's fork as long again). khugepaged would merge them
// back at its pace of minutes.
//
// So the table chunks, string heap blocks and index node blocks are registered here, and once
// forks have happened a thread of the process asks the kernel to put each registered mapping back
// on huge pages (MADV_COLLAPSE, Linux 6.1+; already whole huge pages cost a check), at most once
// a second. Pages the executor writes all the time are split again by the next fork's first write;
// those written no more (old orders, most customers and stock rows) stay whole, and the next fork
// copies one entry for them. Measured: one pass over the 5-warehouse database after 20 s of the
// mix took 80 ms and brought its small pages from 657 MB to 131 MB; a second later 140 MB were
// split again, three seconds later 350 MB.
//
// Only the process that registered a mapping keeps it: a fork child (snapshot, worker) never
// touches the registry, whose lock a parent thread may have held at the fork.
#include <cstddef>

namespace hyrax {

// `p` and `bytes` as mapAligned(bytes, true) gave them (or after adviseHuge). The registered
// bytes (the database's tables, strings and indexes) size the reserve of query memory
// (ZeroedBuffer::keepReserve, called here).
void keepOnHugePages(void* p, size_t bytes);
// Unregisters (if registered) and unmaps a mapping of mapAligned's: munmap(p, roundToHugePages(bytes)).
void unmapAligned(void* p, size_t bytes);
// A snapshot was forked (the executor, after the fork): the keeper's next pass is due within a
// second.
void noteSnapshotFork();

}  // namespace hyrax
