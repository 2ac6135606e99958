#pragma once
// Table statistics for the optimizer's cardinality estimates: per column the number of distinct
// values (HyperLogLog over every row, about 1.6% error), the fraction of NULLs, and min/max of
// numbers and dates (as doubles; DECIMALs unscaled). Gathered after COPY and by ANALYZE; a table
// changed since keeps its old statistics, scaled by its row count where that makes sense.
#include <cstdint>
#include <vector>

namespace hyrax {

class Table;

struct ColumnStatistics {
  double distinct = 0;      // of the non-NULL values
  double nullFraction = 0;
  bool hasRange = false;    // numbers and dates
  double min = 0, max = 0;
};

struct TableStatistics {
  uint64_t rows = 0;  // when gathered
  std::vector<ColumnStatistics> columns;
};

TableStatistics gatherStatistics(const Table& table);

}  // namespace hyrax
