#pragma once
// Synthetic join graphs of the classic shapes (chain, star, clique, random tree with extra edges):
// random leaf rows and foreign-key-like selectivities. What the join enumerators' tests
// (sql/test/sql_join_enumeration_test.cpp) and `hyrax-bench joinorder` plan, with no SQL around.
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "sql/optimizer/join_enumeration.hpp"

namespace hyrax::sql {

struct SyntheticJoin {
  std::vector<double> rows;                          // per leaf: 10 to 10^6 rows
  std::vector<std::pair<LeafSet, double>> conditions;  // the leaves each reads, its selectivity

  SyntheticJoin(size_t leaves, uint32_t seed);
  static SyntheticJoin chain(size_t n, uint32_t seed = 1);
  static SyntheticJoin star(size_t n, uint32_t seed = 1);    // leaf 0 the centre
  static SyntheticJoin clique(size_t n, uint32_t seed = 1);  // random selectivities
  // A random tree (SQLite's select5 joins look like this) plus `extra` random edges.
  static SyntheticJoin tree(size_t n, size_t extra, uint32_t seed);

  void link(std::initializer_list<size_t> leaves, double selectivity);
  void linkForeignKey(size_t a, size_t b);  // selectivity 1 / the larger leaf's rows
  // The graph; a set's rows are the product of its leaves' rows and of the selectivities of the
  // conditions within it (at least 1), memoized per set as the planner's estimates are.
  JoinGraph graph() const;
};

}  // namespace hyrax::sql
