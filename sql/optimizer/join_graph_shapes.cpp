#include "sql/optimizer/join_graph_shapes.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <unordered_map>

namespace hyrax::sql {

SyntheticJoin::SyntheticJoin(size_t leaves, uint32_t seed) {
  std::mt19937 rng(seed);
  for (size_t i = 0; i < leaves; ++i) rows.push_back(std::pow(10.0, 1 + (rng() % 50) / 10.0));
}

SyntheticJoin SyntheticJoin::chain(size_t n, uint32_t seed) {
  SyntheticJoin s(n, seed);
  for (size_t i = 0; i + 1 < n; ++i) s.linkForeignKey(i, i + 1);
  return s;
}

SyntheticJoin SyntheticJoin::star(size_t n, uint32_t seed) {
  SyntheticJoin s(n, seed);
  for (size_t i = 1; i < n; ++i) s.linkForeignKey(0, i);
  return s;
}

SyntheticJoin SyntheticJoin::clique(size_t n, uint32_t seed) {
  SyntheticJoin s(n, seed);
  std::mt19937 rng(seed);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) s.link({i, j}, 1.0 / (2 + rng() % 1000));
  return s;
}

SyntheticJoin SyntheticJoin::tree(size_t n, size_t extra, uint32_t seed) {
  SyntheticJoin s(n, seed);
  std::mt19937 rng(seed * 7919);
  for (size_t i = 1; i < n; ++i) s.linkForeignKey(rng() % i, i);
  for (size_t e = 0; e < extra; ++e) {
    size_t a = rng() % n, b = rng() % n;
    if (a != b) s.link({a, b}, 1.0 / (2 + rng() % 100));
  }
  return s;
}

void SyntheticJoin::link(std::initializer_list<size_t> leaves, double selectivity) {
  LeafSet s;
  for (size_t i : leaves) s.set(i);
  conditions.push_back({s, selectivity});
}

void SyntheticJoin::linkForeignKey(size_t a, size_t b) { link({a, b}, 1 / std::max(rows[a], rows[b])); }

JoinGraph SyntheticJoin::graph() const {
  JoinGraph g(rows.size());
  for (auto& [s, sel] : conditions) g.addCondition(s);
  auto memo = std::make_shared<std::unordered_map<LeafSet, double, LeafSetHash>>();
  g.rows = [this, memo](const LeafSet& s) {
    auto it = memo->find(s);
    if (it != memo->end()) return it->second;
    double r = 1;
    s.forEach([&](size_t i) { r *= rows[i]; });
    for (auto& [c, sel] : conditions)
      if (c.subsetOf(s)) r *= sel;
    return (*memo)[s] = std::max(r, 1.0);
  };
  return g;
}

}  // namespace hyrax::sql
