// The join enumerators (sql/optimizer/join_enumeration.hpp) on synthetic join graphs: DPccp finds
// the plan the DP over all subsets finds, every method returns a tree of every leaf once, and the
// adaptive choice plans large graphs of every shape.
#include <catch2/catch.hpp>

#include <random>

#include "sql/optimizer/join_enumeration.hpp"
#include "sql/optimizer/join_graph_shapes.hpp"

using namespace hyrax::sql;

namespace {

using Synthetic = SyntheticJoin;
Synthetic chain(size_t n, uint32_t seed = 1) { return SyntheticJoin::chain(n, seed); }
Synthetic star(size_t n, uint32_t seed = 1) { return SyntheticJoin::star(n, seed); }
Synthetic clique(size_t n, uint32_t seed = 1) { return SyntheticJoin::clique(n, seed); }
Synthetic randomGraph(size_t n, size_t extra, uint32_t seed) { return SyntheticJoin::tree(n, extra, seed); }

// Every leaf exactly once, every join over two disjoint inputs, the root over all leaves.
void checkTree(const JoinTree& tree, size_t leaves) {
  REQUIRE(!tree.nodes.empty());
  std::vector<int> seen(leaves, 0);
  for (size_t i = 0; i < tree.nodes.size(); ++i) {
    auto& n = tree.nodes[i];
    if (n.left < 0) {
      REQUIRE(n.leaf < leaves);
      CHECK(n.leaves == LeafSet::single(n.leaf));
      ++seen[n.leaf];
      continue;
    }
    REQUIRE(static_cast<size_t>(n.left) < i);
    REQUIRE(static_cast<size_t>(n.right) < i);
    auto &l = tree.nodes[static_cast<size_t>(n.left)], &r = tree.nodes[static_cast<size_t>(n.right)];
    CHECK(!l.leaves.intersects(r.leaves));
    CHECK(n.leaves == (l.leaves | r.leaves));
  }
  for (size_t i = 0; i < leaves; ++i) CHECK(seen[i] == 1);
  CHECK(tree.root().leaves == LeafSet::upTo(leaves - 1));
}

std::vector<std::pair<LeafSet, LeafSet>> splits(const JoinTree& tree) {
  std::vector<std::pair<LeafSet, LeafSet>> out;
  for (auto& n : tree.nodes)
    if (n.left >= 0) out.push_back({tree.nodes[static_cast<size_t>(n.left)].leaves, tree.nodes[static_cast<size_t>(n.right)].leaves});
  return out;
}

}  // namespace

TEST_CASE("LeafSet holds up to kMaxJoinLeaves leaves and orders as a bitmask would") {
  LeafSet a = LeafSet::single(3) | LeafSet::single(700);
  CHECK(a.count() == 2);
  CHECK(a.lowest() == 3);
  CHECK(a.test(700));
  CHECK(!a.test(699));
  CHECK(LeafSet::upTo(63).count() == 64);
  CHECK(LeafSet::upTo(64).count() == 65);
  CHECK(LeafSet::upTo(kMaxJoinLeaves - 1).count() == kMaxJoinLeaves);
  CHECK(LeafSet::single(64) > LeafSet::upTo(63));
  CHECK((LeafSet::single(0) | LeafSet::single(1)) < LeafSet::single(2));
  CHECK(((a - LeafSet::single(3)) == LeafSet::single(700)));
  std::vector<size_t> members;
  a.forEach([&](size_t i) { members.push_back(i); });
  CHECK(members == std::vector<size_t>{3, 700});
}

TEST_CASE("DPccp finds the plan of the DP over all subsets, visiting connected pairs only") {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    const size_t n = 2 + seed % 9;
    Synthetic s = randomGraph(n, seed % 4, seed);
    if (seed % 5 == 0 && n >= 4) s.link({0, 1, 2}, 0.01);  // a condition over three leaves
    JoinGraph g = s.graph();
    JoinTree sub = planDPsub(g, LeafSet::upTo(n - 1), false);
    JoinTree ccp = planDPccp(g, LeafSet::upTo(n - 1), false, std::numeric_limits<size_t>::max());
    INFO("seed " << seed << ", " << n << " leaves");
    checkTree(sub, n);
    checkTree(ccp, n);
    CHECK(ccp.cost() == sub.cost());
    CHECK(splits(ccp) == splits(sub));  // the same tree: ties are broken alike
  }
}

TEST_CASE("DPccp stops at its budget of pairs") {
  Synthetic s = star(20);
  JoinGraph g = s.graph();
  CHECK(planDPccp(g, LeafSet::upTo(19), false, 20'000).nodes.empty());
  CHECK(!planDPccp(g, LeafSet::upTo(11), false, 20'000).nodes.empty());  // 11 * 2^10 pairs, 2^11 + 10 sets
}

TEST_CASE("every method plans chains, stars, cliques and random trees of 64 leaves") {
  const std::vector<std::pair<const char*, Synthetic>> shapes = {
      {"chain", chain(64)}, {"star", star(64)}, {"clique", clique(64)}, {"tree", randomGraph(64, 0, 5)}, {"cyclic", randomGraph(64, 20, 6)}};
  for (auto& [name, s] : shapes) {
    JoinGraph g = s.graph();
    INFO(name);
    JoinTree adaptive = enumerateJoins(g);
    checkTree(adaptive, 64);
    JoinTree linearized = enumerateJoins(g, JoinMethod::Linearized);
    checkTree(linearized, 64);
    JoinTree greedy = enumerateJoins(g, JoinMethod::Greedy);
    checkTree(greedy, 64);
    CHECK(adaptive.cost() <= linearized.cost());  // linearized DP, or exact DP that is at least as good
    std::vector<size_t> order = ikkbzOrder(g, LeafSet::upTo(63));
    std::sort(order.begin(), order.end());
    for (size_t i = 0; i < 64; ++i) CHECK(order[i] == i);
  }
  // A chain has n^3/6 pairs: at 30 leaves, 4,495: exact.
  Synthetic c = chain(30);
  JoinGraph g = c.graph();
  CHECK(enumerateJoins(g).cost() == planDPccp(g, LeafSet::upTo(29), false, std::numeric_limits<size_t>::max()).cost());
}

TEST_CASE("linearized DP is never worse than the best left-deep plan of its order, nor better than exact DP") {
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    Synthetic s = seed % 2 ? clique(9, seed) : randomGraph(12, 4, seed);
    JoinGraph g = s.graph();
    const size_t n = s.rows.size();
    JoinTree exact = enumerateJoins(g, JoinMethod::DPccp);
    JoinTree linear = enumerateJoins(g, JoinMethod::Linearized);
    checkTree(linear, n);
    CHECK(linear.cost() >= exact.cost() * (1 - 1e-12));
    // The left-deep plan in IKKBZ's order.
    std::vector<size_t> order = ikkbzOrder(g, LeafSet::upTo(n - 1));
    LeafSet prefix = LeafSet::single(order[0]);
    double leftDeep = 0;
    for (size_t i = 1; i < n; ++i) leftDeep += g.rows(prefix |= LeafSet::single(order[i]));
    CHECK(linear.cost() <= leftDeep * (1 + 1e-12));
  }
}

TEST_CASE("disconnected graphs: each part planned alone, then cross products") {
  Synthetic s(30, 3);
  for (size_t i = 0; i + 1 < 15; ++i) s.linkForeignKey(i, i + 1);
  for (size_t i = 15; i + 1 < 29; ++i) s.linkForeignKey(i, i + 1);  // leaf 29 alone
  JoinGraph g = s.graph();
  CHECK(g.components().size() == 3);
  JoinTree tree = enumerateJoins(g);
  checkTree(tree, 30);
  // Small: DP over all subsets with cross products, as the planner always did.
  Synthetic small(6, 4);
  small.linkForeignKey(0, 1), small.linkForeignKey(2, 3), small.linkForeignKey(4, 5);
  JoinGraph sg = small.graph();
  CHECK(enumerateJoins(sg).cost() == planDPsub(sg, LeafSet::upTo(5), true).cost());
}

TEST_CASE("a condition over three leaves alone joins them with a cross product") {
  Synthetic s(3, 9);
  s.link({0, 1, 2}, 0.001);
  JoinGraph g = s.graph();
  checkTree(enumerateJoins(g), 3);
  Synthetic big(40, 9);
  for (size_t i = 0; i + 2 < 40; i += 2) big.link({i, i + 1, i + 2}, 0.001);
  JoinGraph bg = big.graph();
  checkTree(enumerateJoins(bg), 40);
}

TEST_CASE("a chain of 1,000 leaves and a star of 300 are planned greedily") {
  Synthetic c = chain(kMaxJoinLeaves, 2);
  JoinGraph g = c.graph();
  checkTree(enumerateJoins(g), kMaxJoinLeaves);
  Synthetic s = star(300, 2);
  JoinGraph sg = s.graph();
  checkTree(enumerateJoins(sg), 300);
}
