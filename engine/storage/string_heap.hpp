#pragma once
// Characters of long strings (over 12 bytes) of one table: append-only blocks, so the pointers in
// StringRefs stay valid for the table's life. A failed INSERT does not give its bytes back; the
// waste is bounded by what was attempted. Blocks are 2 MiB private mappings on small pages: on
// huge pages (tried) TPC-C's load took 40% longer (each 2 MiB fault zeroed, maybe compacted) and
// the transactions ran no faster, unlike the tables' columns (storage/table.cpp).
#include <cstddef>
#include <vector>

namespace hyrax {

class StringHeap {
 public:
  static constexpr size_t kBlockSize = size_t{2} << 20;
  StringHeap() = default;
  ~StringHeap();
  StringHeap(const StringHeap&) = delete;
  StringHeap& operator=(const StringHeap&) = delete;

  // Copies n bytes and returns where they now live.
  const char* add(const char* data, size_t n);
  size_t bytes() const { return bytes_; }

 private:
  struct Block {
    char* data;
    size_t size;
  };
  std::vector<Block> blocks_;
  size_t used_ = 0, capacity_ = 0, bytes_ = 0;
};

}  // namespace hyrax
