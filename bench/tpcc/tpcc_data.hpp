#pragma once
// The initial database of clause 4.3.3 for W warehouses, as PostgreSQL text-format COPY data
// (tab-separated, \N for NULL): what every engine loads, so all start from the same rows.
// Benchmarks built on TPC-C (the CH-benCHmark) append tables of their own.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hyrax::bench::tpcc {

inline constexpr std::array<const char*, 9> kTables = {"warehouse", "district", "customer", "history", "new_order",
                                                       "orders", "order_line", "item", "stock"};

struct InitialData {
  struct Table {
    std::string name, text;
  };
  std::vector<Table> tables;  // in the order they are loaded
  uint64_t rows = 0;
  // The table's text, added (empty, at the end) when it is not there yet.
  std::string& text(const std::string& table);
};

// Appends one text-format row at a time to a table's text, counting rows.
class Rows {
 public:
  Rows(InitialData& d, const std::string& table) : out_(d.text(table)), count_(d.rows) {}
  template <typename... T>
  void row(const T&... fields) {
    bool first = true;
    ((out_ += first ? "" : "\t", first = false, add(fields)), ...);
    out_ += '\n';
    ++count_;
  }

 private:
  void add(const std::string& s) { out_ += s; }
  void add(const char* s) { out_ += s; }
  void add(int64_t v) { out_ += std::to_string(v); }
  void add(int v) { out_ += std::to_string(v); }
  std::string& out_;
  uint64_t& count_;
};

// Deterministic for a seed (std::mt19937_64 with libstdc++'s distributions).
InitialData generate(int warehouses, uint64_t seed, int loadDate);

}  // namespace hyrax::bench::tpcc
