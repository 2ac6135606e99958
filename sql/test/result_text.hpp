#pragma once
// Test helper: a result's first column, one line per row.
#include <string>

#include "sql/api/database.hpp"

namespace hyrax::test {

inline std::string allText(const QueryResult& r) {
  std::string s;
  for (uint64_t i = 0; i < r.rowCount(); ++i) s += r.text(i, 0) + "\n";
  return s;
}

}  // namespace hyrax::test
