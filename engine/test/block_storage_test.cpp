// BlockStorage: rows read zero when appended, whatever memory their block reused, and blocks of
// any row size fill the power-of-two slab blocks they are cut from.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "engine/runtime/block_storage.hpp"
#include "engine/runtime/memory_budget.hpp"

using namespace hyrax;

TEST_CASE("appended rows read zero though their blocks reuse memory another storage dirtied") {
  // Blocks are not zeroed when taken (slab and pooled blocks are reused as they were given back),
  // so each row is zeroed as it is appended.
  for (uint32_t rowSize : {24u, 40u, 136u}) {
    constexpr uint64_t kRows = 100'000;  // growing blocks of every slab size, and full ones
    {
      BlockStorage dirty(rowSize);
      for (uint64_t i = 0; i < kRows; ++i) std::memset(dirty.append(), 0xA5, rowSize);
    }
    BlockStorage fresh(rowSize);
    bool zero = true;
    for (uint64_t i = 0; i < kRows; ++i) {
      const auto* row = static_cast<const unsigned char*>(fresh.append());
      for (uint32_t b = 0; b < rowSize; ++b) zero = zero && row[b] == 0;
    }
    INFO("row size " << rowSize);
    CHECK(zero);
    // Emptied and filled again: its own dirty rows read zero too.
    for (uint64_t i = 0; i < kRows; ++i) std::memset(fresh.at(i), 0x5A, rowSize);
    fresh.clear();
    for (uint64_t i = 0; i < kRows; ++i) {
      const auto* row = static_cast<const unsigned char*>(fresh.append());
      for (uint32_t b = 0; b < rowSize; ++b) zero = zero && row[b] == 0;
    }
    CHECK(zero);
  }
}

TEST_CASE("each block's rows fill most of the memory it is charged for") {
  // Mid-size blocks are powers of two (huge-page slabs): blocks of 16 << k rows of 40 bytes took
  // 1.6 times their rows' bytes. Each time the charge grows a block was taken; the rows that fill
  // it up to the next one are what it holds.
  for (uint32_t rowSize : {8u, 24u, 40u, 48u, 72u, 136u, 200u, 1000u}) {
    MemoryBudget budget(uint64_t{1} << 40);
    BlockStorage rows(rowSize, &budget);
    uint64_t charged = 0, blockCharge = 0, rowsInBlock = 0;
    double worst = 1;
    // Up to the first full block (4 MiB; huge pages), little of which goes back to the mapping
    // pool (so that its reserve, tested in huge_pages_test.cpp, is still made).
    while (budget.used() < (uint64_t{8} << 20)) {
      rows.append();
      if (budget.used() != charged) {  // a new block: the one before is full
        if (blockCharge >= (uint64_t{16} << 10))
          worst = std::min(worst, static_cast<double>(rowsInBlock * rows.rowSize()) / static_cast<double>(blockCharge));
        blockCharge = budget.used() - charged;
        charged = budget.used();
        rowsInBlock = 0;
      }
      ++rowsInBlock;
    }
    INFO("row size " << rowSize);
    CHECK(worst >= 0.9);
  }
}
