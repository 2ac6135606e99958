// Memory across fork(): the data stays on huge pages (huge_page_keeper); pooled query memory
// (zeroed_buffer) is neither zeroed by a forked child nor copied by the parent to be zeroed.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "engine/util/huge_page_keeper.hpp"
#include "engine/util/huge_page_slabs.hpp"
#include "engine/util/huge_pages.hpp"
#include "engine/util/zeroed_buffer.hpp"

using namespace hyrax;

namespace {

// AnonHugePages (kB) of the mapping that holds `p` (/proc/self/smaps; a neighbour with the same
// flags may share the mapping, so callers compare before and after).
long hugeKb(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  const auto at = reinterpret_cast<uintptr_t>(p);
  while (std::getline(smaps, line)) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &start, &end) == 2) {  // a mapping's first line
      inside = at >= start && at < end;
      continue;
    }
    long kb = 0;
    if (inside && std::sscanf(line.c_str(), "AnonHugePages: %ld kB", &kb) == 1) return kb;
  }
  return -1;
}

}  // namespace

TEST_CASE("the keeper puts data pages that a snapshot's fork split back on huge pages") {
  const size_t bytes = 2 * kHugePage;
  auto* p = static_cast<char*>(mapAligned(bytes, true));
  for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  const long whole = hugeKb(p);
  if (whole < static_cast<long>(bytes >> 10)) {
    unmapAligned(p, bytes);
    WARN("no transparent huge pages here: nothing to keep");
    return;
  }
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  const pid_t child = fork();
  if (child == 0) {  // shares the pages until the parent closes the pipe
    close(ready[1]);
    char c = 0;
    (void)!read(ready[0], &c, 1);
    _exit(0);
  }
  REQUIRE(child > 0);
  p[0] = 2;  // the first write after the fork splits the first huge page
  p[kHugePage] = 2;
  const long split = hugeKb(p);
  keepOnHugePages(p, bytes);
  noteSnapshotFork();
  long kept = split;
  for (int i = 0; i < 50 && kept < whole; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    kept = hugeKb(p);
  }
  close(ready[1]);
  waitpid(child, nullptr, 0);
  close(ready[0]);
  CHECK(split < whole);
  CHECK(kept == whole);
  CHECK(p[0] == 2);  // merged with what was written
  CHECK(p[4096] == 1);
  unmapAligned(p, bytes);
}

TEST_CASE("a forked child does not reuse the parent's pooled query memory; the parent does") {
  const size_t bytes = 4 * ZeroedBuffer::kSlabTo;
  const char* pooled = nullptr;
  {
    ZeroedBuffer first(bytes);
    first.data()[0] = 7;
    pooled = first.data();
  }  // back into the pool
  const pid_t child = fork();
  if (child == 0) {
    ZeroedBuffer mine(bytes);  // fresh pages: reusing the pooled ones would copy each to zero it
    _exit(mine.data() == pooled ? 1 : mine.data()[0] == 0 ? 0 : 2);
  }
  REQUIRE(child > 0);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  ZeroedBuffer again(bytes);
  CHECK(again.data() == pooled);
  CHECK(again.data()[0] == 0);
}

TEST_CASE("pooled query memory comes back zero where it was written and where it was never touched") {
  // Pages written, pages only read (the zero page), pages never touched: zeroed by memset where in
  // memory, dropped where not; every byte reads zero either way, and the mapping is the same.
  const size_t bytes = 8 * ZeroedBuffer::kSlabTo;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const char* pooled = nullptr;
  {
    ZeroedBuffer first(bytes);
    char* p = first.data();
    volatile char sink = 0;
    for (size_t at = 0; at < bytes; at += 97 * page) p[at] = 1;  // scattered writes
    for (size_t at = bytes / 2; at < bytes / 2 + 64 * page; at += page) sink = sink + p[at];  // reads only
    std::memset(p + bytes - 3 * page - 5, 0x5a, 2 * page + 9);  // a run over page ends
    pooled = p;
  }
  ZeroedBuffer again(bytes);
  REQUIRE(again.data() == pooled);
  size_t nonzero = 0;
  for (size_t i = 0; i < bytes; ++i) nonzero += again.data()[i] != 0;
  CHECK(nonzero == 0);
}

TEST_CASE("pooled query memory taken after a fork is zero in the parent and unchanged in the child") {
  const size_t bytes = 4 * ZeroedBuffer::kSlabTo;
  const char* pooled = nullptr;
  {
    ZeroedBuffer first(bytes);
    std::memset(first.data(), 0x5a, first.bytes());
    pooled = first.data();
  }  // pooled, full of 0x5a
  int go[2], done[2];
  REQUIRE(pipe(go) == 0);
  REQUIRE(pipe(done) == 0);
  const pid_t child = fork();
  if (child == 0) {  // holds the pooled pages; checks them after the parent has reused its copy
    close(go[1]);
    close(done[0]);
    char c = 0;
    (void)!read(go[0], &c, 1);
    bool kept = true;
    for (size_t i = 0; i < bytes; i += 4096) kept = kept && pooled[i] == 0x5a;
    _exit(kept ? 0 : 1);
  }
  REQUIRE(child > 0);
  close(go[0]);
  close(done[1]);
  ZeroedBuffer again(bytes);  // emptied (the child shares it), not copied and zeroed
  CHECK(again.data() == pooled);
  bool zero = true;
  for (size_t i = 0; i < again.bytes(); i += 4096) zero = zero && again.data()[i] == 0;
  CHECK(zero);
  std::memset(again.data(), 0x11, again.bytes());
  (void)!write(go[1], "x", 1);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  close(go[1]);
  close(done[0]);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("mid-size query memory comes from huge-page slabs, zeroed, and is reused by its process") {
  CHECK(HugePageSlabs::blockSize(1) == HugePageSlabs::kMinBlock);
  CHECK(HugePageSlabs::blockSize(100 << 10) == size_t{128} << 10);
  CHECK(HugePageSlabs::blockSize(size_t{128} << 10) == size_t{128} << 10);
  const size_t bytes = 100 << 10;
  char* first = HugePageSlabs::take(bytes, true);
  REQUIRE(first);
  CHECK(reinterpret_cast<uintptr_t>(first) % 16 == 0);
  bool zero = true;
  for (size_t i = 0; i < bytes; ++i) zero = zero && first[i] == 0;
  CHECK(zero);
  std::memset(first, 0x5a, bytes);
  HugePageSlabs::give(first, bytes);
  char* again = HugePageSlabs::take(bytes, true);
  CHECK(again == first);  // the last given back is the first taken again
  zero = true;
  for (size_t i = 0; i < HugePageSlabs::blockSize(bytes); ++i) zero = zero && again[i] == 0;
  CHECK(zero);
  // Blocks are cut in turn from a slab, on a huge page: of three taken one after the other (the
  // slab the tests before left may end after the first), two share one.
  const long before = hugeKb(again);
  char* other[3];
  for (char*& o : other) o = HugePageSlabs::take(bytes, false);
  auto page = [](char* p) { return reinterpret_cast<uintptr_t>(p) / kHugePage; };
  CHECK(other[0] != again);
  CHECK((page(other[0]) == page(other[1]) || page(other[1]) == page(other[2])));
  if (before < 2048) WARN("no transparent huge pages here: the slab is on 4 KiB pages");
  for (char* o : other) HugePageSlabs::give(o, bytes);
  HugePageSlabs::give(again, bytes);
}

TEST_CASE("a forked child takes fresh slabs; the parent's blocks freed before the fork come back zero") {
  const size_t bytes = 200 << 10;
  char* pooled = HugePageSlabs::take(bytes, true);
  std::memset(pooled, 0x5a, bytes);
  HugePageSlabs::give(pooled, bytes);  // pooled, full of 0x5a
  int go[2];
  REQUIRE(pipe(go) == 0);
  const pid_t child = fork();
  if (child == 0) {  // its own slabs; the parent's block keeps what the parent wrote before
    close(go[1]);
    char* mine = HugePageSlabs::take(bytes, true);
    bool fresh = mine != pooled && mine[0] == 0 && mine[bytes - 1] == 0;
    char c = 0;
    (void)!read(go[0], &c, 1);  // the parent has taken the block again and written it
    bool kept = true;
    for (size_t i = 0; i < bytes; i += 4096) kept = kept && pooled[i] == 0x5a;
    _exit(fresh && kept ? 0 : 1);
  }
  REQUIRE(child > 0);
  close(go[0]);
  char* again = HugePageSlabs::take(bytes, false);  // emptied, not copied: zero although not asked
  CHECK(again == pooled);
  bool zero = true;
  for (size_t i = 0; i < bytes; i += 4096) zero = zero && again[i] == 0;
  CHECK(zero);
  std::memset(again, 0x11, bytes);
  (void)!write(go[1], "x", 1);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  close(go[1]);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  HugePageSlabs::give(again, bytes);
}

TEST_CASE("blocks of several sizes share one huge page until it is full") {
  // In a fresh child, so that no block given back by the tests before is reused.
  const pid_t child = fork();
  if (child == 0) {
    bool ok = HugePageSlabs::slabBytes() == 0;
    char* blocks[4];
    size_t sizes[4] = {16 << 10, 32 << 10, 64 << 10, 128 << 10};
    for (int i = 0; i < 4; ++i) blocks[i] = HugePageSlabs::take(sizes[i], true);
    ok = ok && HugePageSlabs::slabBytes() == kHugePage;  // one slab holds them all
    for (int i = 1; i < 4; ++i) ok = ok && blocks[i] == blocks[i - 1] + sizes[i - 1];
    // A block that does not fit what is left starts a new slab; the rest of the old one is kept.
    char* big = HugePageSlabs::take(1 << 20, true);
    char* big2 = HugePageSlabs::take(1 << 20, true);
    ok = ok && HugePageSlabs::slabBytes() == 2 * kHugePage;
    char* reused = HugePageSlabs::take(512 << 10, true);  // from the first slab's rest
    ok = ok && reused >= blocks[0] && reused < blocks[0] + kHugePage && big != big2;
    _exit(ok ? 0 : 1);
  }
  REQUIRE(child > 0);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("query memory comes from slabs in a forked child, from malloc in the process that started") {
  const size_t before = HugePageSlabs::slabBytes();
  {
    ZeroedBuffer mine(100 << 10);  // this process keeps malloc: it reuses the memory it has
    CHECK(mine.data()[0] == 0);
  }
  CHECK(!HugePageSlabs::preferred());
  CHECK(HugePageSlabs::slabBytes() == before);
  const pid_t child = fork();
  if (child == 0) {  // a snapshot's process: every page is fresh, so 2 MiB at a time
    const bool fresh = HugePageSlabs::preferred() && HugePageSlabs::slabBytes() == 0;
    ZeroedBuffer b(100 << 10);
    _exit(fresh && b.data()[99 << 10] == 0 && HugePageSlabs::slabBytes() == kHugePage ? 0 : 1);
  }
  REQUIRE(child > 0);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("a database's reserve of query memory is faulted in ahead, zero, and cut to the size asked") {
  // A database of 1 GiB keeps 128 MiB ready (an eighth, within the pool's cap), made by the memory
  // thread in pieces of 32 MiB.
  // (Not within 5 s of a fork, which the tests before may have made: asked again until then.)
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ZeroedBuffer::reservedBytes() < (size_t{64} << 20) && std::chrono::steady_clock::now() < deadline) {
    ZeroedBuffer::keepReserve(size_t{1} << 30);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(ZeroedBuffer::reservedBytes() >= (size_t{64} << 20));
  // No more refills from here (a piece more came between the counts below once), and the one
  // under way, if any, ended.
  ZeroedBuffer::keepReserve(0);
  while (ZeroedBuffer::refillingReserve() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(!ZeroedBuffer::refillingReserve());
  const size_t pooled = ZeroedBuffer::pooledBytes(), reserved = ZeroedBuffer::reservedBytes();
  {
    const size_t bytes = size_t{10} << 20;  // larger than what the other tests pool: a reserve piece, cut
    ZeroedBuffer b(bytes);
    CHECK(ZeroedBuffer::pooledBytes() == pooled - bytes);
    CHECK(ZeroedBuffer::reservedBytes() == reserved - bytes);
    bool zero = true;
    for (size_t i = 0; i < b.bytes(); i += 512) zero = zero && b.data()[i] == 0;
    CHECK(zero);
    std::memset(b.data(), 0x77, b.bytes());
  }  // back into the pool, written: no longer reserve
  CHECK(ZeroedBuffer::pooledBytes() == pooled);
  ZeroedBuffer again(size_t{10} << 20);  // the same mapping, zeroed again
  bool zero = true;
  for (size_t i = 0; i < again.bytes(); i += 512) zero = zero && again.data()[i] == 0;
  CHECK(zero);
  ZeroedBuffer::keepReserve(0);  // (the other tests' pool as it was: no more refills)
}
