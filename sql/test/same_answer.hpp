#pragma once
// Test helper: two results are the same answer (Catch2 checks).
#include <catch2/catch.hpp>

#include "sql/api/database.hpp"

namespace hyrax::test {

// The same answer: columns (names, types), tag, rows, and every value's NULL and text.
inline void checkSame(const QueryResult& a, const QueryResult& b) {
  REQUIRE(a.columns().size() == b.columns().size());
  for (size_t c = 0; c < a.columns().size(); ++c) {
    CHECK(a.columns()[c].name == b.columns()[c].name);
    CHECK(a.columns()[c].type == b.columns()[c].type);
  }
  CHECK(a.tag() == b.tag());
  REQUIRE(a.rowCount() == b.rowCount());
  for (uint64_t r = 0; r < a.rowCount(); ++r)
    for (uint32_t c = 0; c < a.columns().size(); ++c) {
      CHECK(a.isNull(r, c) == b.isNull(r, c));
      CHECK(a.text(r, c) == b.text(r, c));
    }
}

}  // namespace hyrax::test
