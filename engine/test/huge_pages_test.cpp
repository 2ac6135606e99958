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
  const size_t bytes = 4 * ZeroedBuffer::kMapFrom;
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

TEST_CASE("pooled query memory taken after a fork is zero in the parent and unchanged in the child") {
  const size_t bytes = 4 * ZeroedBuffer::kMapFrom;
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
