#pragma once
// The initial database of clause 4.3.3 for W warehouses, as PostgreSQL text-format COPY data
// (tab-separated, \N for NULL): what every engine loads, so all start from the same rows.
#include <array>
#include <string>

namespace hyrax::bench::tpcc {

inline constexpr std::array<const char*, 9> kTables = {"warehouse", "district", "customer", "history", "new_order",
                                                       "orders", "order_line", "item", "stock"};

struct InitialData {
  std::array<std::string, kTables.size()> text;  // by kTables' order
  uint64_t rows = 0;
};

InitialData generate(int warehouses, uint64_t seed, int loadDate);

}  // namespace hyrax::bench::tpcc
