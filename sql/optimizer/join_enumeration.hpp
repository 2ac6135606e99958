#pragma once
// Join enumeration: which tree of binary joins over a join region's leaves yields the fewest
// intermediate rows (C_out). join_order.cpp describes a region as a JoinGraph (who shares a
// condition with whom, and the estimated rows of joining any set of leaves); the methods here see
// only that, so tests and the benchmark (hyrax-bench joinorder) run them on synthetic graphs too.
//
// Adaptive (what queries get), per connected part of the graph:
//   - DPccp (Moerkotte and Neumann, SIGMOD 2008): exact DP over the pairs of a connected set and a
//     connected complement that share a condition, when there are at most kMaxDpPairs of them
//     (chains up to 39 leaves, stars up to 11, cliques up to 9; TPC-H's joins have at most a few
//     hundred): it finds the plan the old DP over all subsets found, without visiting the subsets
//     that are not connected. Why this budget: above it exact DP costs milliseconds and grows
//     fast (a 16-star: 57-140 ms), while what is used above it found plans as cheap as the exact
//     ones on every shape hyrax-bench joinorder measures (bench/README.md);
//   - linearized DP (Neumann and Radke, SIGMOD 2018) up to kMaxLinearizedLeaves: the leaves are
//     ordered by IKKBZ (the best left-deep order under the ASI cost, on a spanning tree of the
//     most selective conditions), then DP over contiguous ranges of that order finds the best
//     bushy tree whose subtrees are ranges, in O(n^3). The same DP runs over the leaf order of
//     the greedy plan (below), which it can only improve, and the cheaper plan wins: IKKBZ's order
//     suits chains and stars, the greedy one dense graphs (cliques: 7-93% cheaper plans);
//   - greedy operator ordering above that: join the two adjacent sets with the smallest result.
// Parts of a disconnected graph are joined by cross products, smallest first. A region of at most
// kMaxCrossDpLeaves leaves whose graph is not connected is planned as before, by DP over all
// subsets with cross products allowed anywhere.
#include <functional>
#include <vector>

#include "sql/optimizer/leaf_set.hpp"

namespace hyrax::sql {

inline constexpr size_t kMaxDpPairs = 10'000;
inline constexpr size_t kMaxLinearizedLeaves = 100;
inline constexpr size_t kMaxCrossDpLeaves = 10;

struct JoinGraph {
  size_t leaves = 0;
  // Per leaf, the leaves a condition of exactly two leaves links it to.
  std::vector<LeafSet> adjacent;
  // Per leaf, the leaves any condition links it to: a condition over more than two leaves links
  // each of them with the others, so enumerating connected sets on `neighbors` sees every set
  // such a condition connects (and some cross products among its leaves, which joinable() tells).
  std::vector<LeafSet> neighbors;
  // The leaves of each condition over more than two leaves.
  std::vector<LeafSet> hyperedges;
  // Estimated rows of the join of a set of leaves (at least 1); called once or more per set.
  std::function<double(const LeafSet&)> rows;

  explicit JoinGraph(size_t n = 0) : leaves(n), adjacent(n), neighbors(n) {}
  // A condition reading these leaves (two or more).
  void addCondition(const LeafSet& reads);
  // Whether a condition reads both sets and nothing else: their join is no cross product.
  bool joinable(const LeafSet& a, const LeafSet& b) const;
  // The connected parts of `neighbors`, each ordered by its lowest leaf.
  std::vector<LeafSet> components() const;
};

// A join tree: leaves and joins, each input before the joins that read it; the root last.
struct JoinTree {
  struct Node {
    LeafSet leaves;
    double rows = 0, cost = 0;  // cost: C_out, the rows of every join in the subtree
    int left = -1, right = -1;  // the inputs of a join; -1 for a leaf
    size_t leaf = 0;            // a leaf's number
  };
  std::vector<Node> nodes;
  const Node& root() const { return nodes.back(); }
  double cost() const { return nodes.empty() ? 0 : nodes.back().cost; }
};

enum class JoinMethod {
  Adaptive,    // what queries get (above)
  DPsub,       // DP over all subsets, cross products only where nothing else joins: the planner before issue 20 (it took
               // this up to 14 leaves, greedy above); at most 16 leaves
  DPccp,       // exact DP over connected pairs, however many there are
  Linearized,  // IKKBZ order, then DP over its ranges
  Greedy,      // greedy operator ordering
};

// The cheapest join tree `method` finds for all leaves of the graph (at least one).
JoinTree enumerateJoins(const JoinGraph& graph, JoinMethod method = JoinMethod::Adaptive);

// Parts, in join_enumeration.cpp and linearized_dp.cpp; each plans one connected part of the graph
// (`part`, from components()), allowing cross products only where `crossProducts` says. They
// return an empty tree when no tree without cross products exists (a part linked only by
// conditions over three or more leaves), or, for DPccp, when it has more than `maxPairs` pairs.
JoinTree planDPccp(const JoinGraph& graph, const LeafSet& part, bool crossProducts, size_t maxPairs);
JoinTree planLinearized(const JoinGraph& graph, const LeafSet& part, bool crossProducts);
JoinTree planGreedy(const JoinGraph& graph, const LeafSet& part);
JoinTree planDPsub(const JoinGraph& graph, const LeafSet& leaves, bool crossProducts);
// The IKKBZ order of a connected part (linearized_dp.cpp): the leaves, the first one the root.
std::vector<size_t> ikkbzOrder(const JoinGraph& graph, const LeafSet& part);
// The cheapest tree whose every subtree is a contiguous range of `order` (planLinearized() with
// the IKKBZ order); empty as above.
JoinTree planRanges(const JoinGraph& graph, const std::vector<size_t>& order, bool crossProducts);
// The leaves of a tree from left to right: every subtree is a range of it, so planRanges() over
// this order finds that tree or a cheaper one.
std::vector<size_t> leafOrder(const JoinTree& tree);

// Adds a join of two subtrees, `left` and `right` (node indices), to `tree`; returns its index.
int addJoin(const JoinGraph& graph, JoinTree& tree, int left, int right);
// Copies the nodes of `from` into `into`; returns the index its root has there.
int appendTree(JoinTree& into, const JoinTree& from);

}  // namespace hyrax::sql
