#pragma once
// The CH-benCHmark's SUPPLIER (10,000 rows), NATION (62) and REGION (5), appended to TPC-C's
// initial database as more COPY text (bench/tpcc/tpcc_data.hpp).
#include <cstdint>

#include "bench/tpcc/tpcc_data.hpp"

namespace hyrax::bench::ch {

inline constexpr int kSuppliers = 10'000;

// Deterministic for a seed.
void addTables(tpcc::InitialData& data, uint64_t seed);

}  // namespace hyrax::bench::ch
