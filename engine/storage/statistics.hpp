#pragma once
// Table statistics for the optimizer's cardinality estimates: per column the number of distinct
// values (HyperLogLog over every row, about 1.6% error), the fraction of NULLs, and min/max of
// numbers and dates (as doubles; DECIMALs unscaled). Gathered after COPY and by ANALYZE; a table
// changed since keeps its old statistics, scaled by its row count where that makes sense.
#include <cstdint>
#include <vector>

#include "engine/types/sql_type.hpp"

namespace hyrax {

class Table;

struct ColumnStatistics {
  double distinct = 0;      // of the non-NULL values
  double nullFraction = 0;
  bool hasRange = false;    // numbers and dates with a finite value
  double min = 0, max = 0;  // of the finite values
};

struct TableStatistics {
  uint64_t rows = 0;  // when gathered
  std::vector<ColumnStatistics> columns;
};

TableStatistics gatherStatistics(const Table& table);

// One column's statistics, value by value (what gatherStatistics does for each column, and what
// COPY does while it appends, so a load needs no second pass).
class ColumnStatisticsBuilder {
 public:
  explicit ColumnStatisticsBuilder(const SqlType& type);
  ~ColumnStatisticsBuilder();
  ColumnStatisticsBuilder(ColumnStatisticsBuilder&&) noexcept;
  // `value` points at the value in its physical representation (a StringRef for strings).
  void add(const void* value, bool isNull);
  // Takes in what another builder of the same column saw (the threads of a parallel load each
  // see a part of the rows): the same as if this one had seen those values too.
  void merge(const ColumnStatisticsBuilder& other);
  ColumnStatistics finish(uint64_t rows) const;

 private:
  SqlType type_;
  uint32_t width_;
  uint64_t nulls_ = 0;
  double min_, max_;
  std::vector<uint8_t> registers_;  // HyperLogLog, 2^12 registers
};

}  // namespace hyrax
