#pragma once
// Zeroed memory for the runtime's big structures (hash table entries and directories). Big ones
// are anonymous mappings aligned to 2 MiB and marked for transparent huge pages: a query's first
// touch of 100 MB of fresh 4 KiB pages costs ~25,000 page faults, which in a VM took as long as
// the query itself (TPC-H Q18: 550 ms on its first run, 270 ms after); 2 MiB pages need 512 times
// fewer. Mid-size ones (16 KiB to 1 MiB) are blocks of huge-page slabs (huge_page_slabs.hpp: a
// query on a fork snapshot faulted them in 4 KiB at a time from malloc), except zeroed ones in the
// process that started (calloc; zeroed_buffer.cpp's kindFor says why). Small ones come from
// calloc (malloc when unzeroed), so transactions that aggregate a few rows stay cheap.
#include <cstddef>
#include <cstdint>

namespace hyrax {

class ZeroedBuffer {
 public:
  ZeroedBuffer() = default;
  explicit ZeroedBuffer(size_t bytes) : ZeroedBuffer(bytes, true) {}
  // A buffer whose contents are left as they are: for memory its user zeroes piece by piece as it
  // takes it (BlockStorage's rows), so that memory reused from the pools costs no memset of the
  // whole and memory that is not is not touched ahead of its user.
  static ZeroedBuffer unzeroed(size_t bytes) { return ZeroedBuffer(bytes, false); }
  ~ZeroedBuffer();
  ZeroedBuffer(ZeroedBuffer&& o) noexcept : data_(o.data_), bytes_(o.bytes_), kind_(o.kind_) { o.data_ = nullptr; }
  ZeroedBuffer& operator=(ZeroedBuffer&& o) noexcept;
  ZeroedBuffer(const ZeroedBuffer&) = delete;
  ZeroedBuffer& operator=(const ZeroedBuffer&) = delete;

  char* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  // The memory a buffer of `bytes` takes: slab blocks are powers of two, mappings whole huge
  // pages (touching a huge page's first byte brings in all 2 MiB). What a budget is charged.
  static size_t footprint(size_t bytes, bool zeroed = true);

  // From this size on a buffer is a block of a huge-page slab.
  static constexpr size_t kSlabFrom = size_t{16} << 10;
  // Up to this size (a slab's largest block); above it a buffer is its own mapping.
  static constexpr size_t kSlabTo = size_t{1} << 20;

  // Keeps memory for big buffers ready (zeroed and faulted in by a background thread) for a
  // database of `databaseBytes`: an eighth of it, within the pool's cap. zeroed_buffer.cpp says why.
  static void keepReserve(size_t databaseBytes);
  // What is pooled now: bytes, and of them those never written since the kernel zeroed them.
  static size_t pooledBytes();
  static size_t reservedBytes();
  // Whether the background thread is adding to the reserve now (tests wait for it to end).
  static bool refillingReserve();

 private:
  ZeroedBuffer(size_t bytes, bool zeroed);
  void release();
  char* data_ = nullptr;
  size_t bytes_ = 0;
  enum class Kind : uint8_t { Calloc, Slab, Mapped };
  static Kind kindFor(size_t bytes, bool zeroed);  // where a buffer of `bytes` comes from (the constructor, footprint)
  Kind kind_ = Kind::Calloc;
};

}  // namespace hyrax
