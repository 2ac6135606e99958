#pragma once
// Characters of long strings (over 12 bytes) of one table: append-only blocks, so the pointers in
// StringRefs stay valid for the table's life. A failed INSERT does not give its bytes back; the
// waste is bounded by what was attempted. (Blocks on huge pages were tried: TPC-C's load took 40%
// longer, each 2 MiB fault zeroed, and its transactions ran no faster, unlike the tables' columns.)
#include <cstddef>
#include <memory>
#include <vector>

namespace hyrax {

class StringHeap {
 public:
  static constexpr size_t kBlockSize = 1 << 20;
  // Copies n bytes and returns where they now live.
  const char* add(const char* data, size_t n);
  size_t bytes() const { return bytes_; }

 private:
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t used_ = 0, capacity_ = 0, bytes_ = 0;
};

}  // namespace hyrax
