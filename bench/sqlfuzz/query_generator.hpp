#pragma once
// Random SELECTs over a fuzzer schema (schema.hpp), typed as they are built (each expression of a
// Kind, so that both engines accept it and agree on its meaning) and bounded in depth and in the
// rows a join may make. Query `index` of `seed` depends on those two numbers and the schema only.
#include <cstdint>

#include "bench/sqlfuzz/schema.hpp"
#include "bench/sqlfuzz/sql_node.hpp"

namespace hyrax::bench::sqlfuzz {

struct Query {
  // Its parts: WITH clauses, the body (a SELECT or a chain of set operations), then ORDER BY /
  // LIMIT: kids[0], kids[1], kids[2] of root. The ORDER BY, where there is one, names every
  // output column, so a non-empty kids[2] makes the order of the rows part of the answer.
  Node root;
  bool ordered() const { return !root.kids[2].render().empty(); }
};

Query generateQuery(const Schema& schema, uint64_t seed, uint64_t index);

}  // namespace hyrax::bench::sqlfuzz
