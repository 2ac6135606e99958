#pragma once
// Characters of long strings (over 12 bytes) of one table: append-only blocks, so the pointers in
// StringRefs stay valid for the table's life. A failed INSERT does not give its bytes back; the
// waste is bounded by what was attempted.
//
// The first block is 1 MiB of malloc'd memory (a table of a few strings stays small); the ones
// after it are 2 MiB-aligned mappings on transparent huge pages, because fork() copies one
// page-table entry per 4 KiB page and a snapshot's fork stalls the executor thread for that long
// (TPC-H SF 1's string heaps were half of its fork time). Each huge block is faulted in by a
// background thread one block ahead of need: a 2 MiB fault zeroes the whole page, and doing that
// in the foreground made TPC-C's load 40% slower when huge blocks were first tried.
#include <cstddef>
#include <memory>
#include <vector>

namespace hyrax {

class StringHeap {
 public:
  static constexpr size_t kBlockSize = 1 << 20;
  StringHeap() = default;
  ~StringHeap();
  StringHeap(const StringHeap&) = delete;
  StringHeap& operator=(const StringHeap&) = delete;

  // Copies n bytes and returns where they now live.
  const char* add(const char* data, size_t n);
  size_t bytes() const { return bytes_; }

 private:
  char* newBlock();  // the next block; sets capacity_
  std::vector<std::unique_ptr<char[]>> blocks_;  // the first block, and big strings' own
  std::vector<void*> mapped_;                    // huge blocks, kHugePage bytes each
  void* spare_ = nullptr;                        // the next huge block, being faulted in
  char* current_ = nullptr;
  size_t used_ = 0, capacity_ = 0, bytes_ = 0;
};

}  // namespace hyrax
