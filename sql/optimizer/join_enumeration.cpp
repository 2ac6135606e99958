// The join enumerators but the linearized DP (linearized_dp.cpp) and the choice among them; the
// header says which is used when.
#include "sql/optimizer/join_enumeration.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace hyrax::sql {

void JoinGraph::addCondition(const LeafSet& reads) {
  if (reads.count() == 2) {
    size_t a = reads.lowest(), b = (reads - LeafSet::single(a)).lowest();
    adjacent[a].set(b), adjacent[b].set(a);
    neighbors[a].set(b), neighbors[b].set(a);
    return;
  }
  hyperedges.push_back(reads);
  reads.forEach([&](size_t i) { neighbors[i] |= reads - LeafSet::single(i); });
}

bool JoinGraph::joinable(const LeafSet& a, const LeafSet& b) const {
  const bool aSmaller = a.count() <= b.count();
  const LeafSet &small = aSmaller ? a : b, &other = aSmaller ? b : a;
  LeafSet reach;
  small.forEach([&](size_t i) { reach |= adjacent[i]; });
  if (reach.intersects(other)) return true;
  if (hyperedges.empty()) return false;
  const LeafSet both = a | b;
  return std::any_of(hyperedges.begin(), hyperedges.end(),
                     [&](const LeafSet& h) { return h.intersects(a) && h.intersects(b) && h.subsetOf(both); });
}

std::vector<LeafSet> JoinGraph::components() const {
  std::vector<LeafSet> parts;
  LeafSet seen;
  for (size_t i = 0; i < leaves; ++i) {
    if (seen.test(i)) continue;
    LeafSet part = LeafSet::single(i), frontier = part;
    while (!frontier.empty()) {
      LeafSet next;
      frontier.forEach([&](size_t j) { next |= neighbors[j]; });
      frontier = next - part;
      part |= frontier;
    }
    seen |= part;
    parts.push_back(part);
  }
  return parts;
}

namespace {

int addLeaf(const JoinGraph& graph, JoinTree& tree, size_t leaf) {
  JoinTree::Node n;
  n.leaves = LeafSet::single(leaf);
  n.rows = graph.rows(n.leaves);
  n.leaf = leaf;
  tree.nodes.push_back(n);
  return static_cast<int>(tree.nodes.size() - 1);
}

}  // namespace

int addJoin(const JoinGraph& graph, JoinTree& tree, int left, int right) {
  JoinTree::Node n;
  n.leaves = tree.nodes[static_cast<size_t>(left)].leaves | tree.nodes[static_cast<size_t>(right)].leaves;
  n.rows = graph.rows(n.leaves);
  n.cost = tree.nodes[static_cast<size_t>(left)].cost + tree.nodes[static_cast<size_t>(right)].cost + n.rows;
  n.left = left, n.right = right;
  tree.nodes.push_back(n);
  return static_cast<int>(tree.nodes.size() - 1);
}

int appendTree(JoinTree& into, const JoinTree& from) {
  const int base = static_cast<int>(into.nodes.size());
  for (JoinTree::Node n : from.nodes) {
    if (n.left >= 0) n.left += base, n.right += base;
    into.nodes.push_back(n);
  }
  return static_cast<int>(into.nodes.size() - 1);
}

namespace {

// A DP table's entry: the best plan found for a set so far. `left` and `right` are the keys of
// the two inputs (set ids or range ends, whatever the table is indexed by).
struct Best {
  double rows = 0, cost = 0;
  uint32_t left = 0, right = 0;
  bool valid = false;
};

// The csg-cmp pairs of a connected part (DPccp's EnumerateCsg and EnumerateCmp): every pair of
// disjoint connected sets with an edge between them, once each. Leaves are taken in their order
// in the region; B_i is the part's leaves up to i. Stops when more than `limit` sets and pairs
// have been seen: a part with that many is for linearized DP.
class ConnectedPairs {
 public:
  struct Pair {
    uint32_t s1, s2, both;
  };
  std::vector<LeafSet> sets;  // by id
  std::vector<Pair> pairs;

  ConnectedPairs(const JoinGraph& graph, const LeafSet& part, size_t limit) : graph_(graph), part_(part), limit_(limit) {}

  // False when over the limit.
  bool run() {
    std::vector<size_t> members;
    part_.forEach([&](size_t i) { members.push_back(i); });
    // A leaf with d neighbours is in at least 2^d connected sets (itself with any of them): when
    // that is over the limit, say so before enumerating (a star's or clique's centre).
    for (size_t i : members) {
      const size_t degree = (graph_.neighbors[i] & part_).count();
      if (degree >= 62 || (uint64_t{1} << degree) > limit_) return false;
    }
    for (size_t k = members.size(); k-- > 0 && !over_;) {
      LeafSet v = LeafSet::single(members[k]);
      emitCsg(v);
      csgRec(v, part_ & LeafSet::upTo(members[k]));
    }
    return !over_;
  }

  uint32_t id(const LeafSet& s) {
    auto [it, added] = ids_.try_emplace(s, static_cast<uint32_t>(sets.size()));
    if (added) sets.push_back(s);
    return it->second;
  }

 private:
  bool tick() {
    if (++steps_ > limit_) over_ = true;
    return !over_;
  }

  LeafSet neighborhood(const LeafSet& s, const LeafSet& excluded) const {
    LeafSet n;
    s.forEach([&](size_t i) { n |= graph_.neighbors[i]; });
    return (n & part_) - s - excluded;
  }

  // Calls f for each non-empty subset of n while under the limit.
  template <class F>
  void forSubsets(const LeafSet& n, F f) {
    std::vector<size_t> members;
    n.forEach([&](size_t i) { members.push_back(i); });
    // 2^k - 1 subsets: more than the limit allows anyway
    if (members.size() > 62 || (limit_ < (uint64_t{1} << 62) && (uint64_t{1} << members.size()) > limit_ + 1)) {
      over_ = true;
      return;
    }
    for (uint64_t bits = 1; bits < (uint64_t{1} << members.size()) && !over_; ++bits) {
      LeafSet sub;
      for (uint64_t b = bits; b; b &= b - 1) sub.set(members[static_cast<size_t>(__builtin_ctzll(b))]);
      f(sub);
    }
  }

  void emitCsg(const LeafSet& s1) {
    if (!tick()) return;
    const uint32_t s1Id = id(s1);
    const LeafSet x = s1 | (part_ & LeafSet::upTo(s1.lowest()));
    const LeafSet n = neighborhood(s1, x);
    std::vector<size_t> members;
    n.forEach([&](size_t i) { members.push_back(i); });
    for (size_t k = members.size(); k-- > 0 && !over_;) {
      LeafSet s2 = LeafSet::single(members[k]);
      emitPair(s1Id, s2);
      cmpRec(s1Id, s2, x | (n & LeafSet::upTo(members[k])));
    }
  }

  void csgRec(const LeafSet& s1, const LeafSet& x) {
    const LeafSet n = neighborhood(s1, x);
    if (n.empty()) return;
    forSubsets(n, [&](const LeafSet& sub) { emitCsg(s1 | sub); });
    forSubsets(n, [&](const LeafSet& sub) { csgRec(s1 | sub, x | n); });
  }

  void cmpRec(uint32_t s1, const LeafSet& s2, const LeafSet& x) {
    const LeafSet n = neighborhood(s2, x);
    if (n.empty()) return;
    forSubsets(n, [&](const LeafSet& sub) { emitPair(s1, s2 | sub); });
    forSubsets(n, [&](const LeafSet& sub) { cmpRec(s1, s2 | sub, x | n); });
  }

  void emitPair(uint32_t s1, const LeafSet& s2) {
    if (!tick()) return;
    uint32_t s2Id = id(s2);
    uint32_t both = id(sets[s1] | s2);
    pairs.push_back({s1, s2Id, both});
  }

  const JoinGraph& graph_;
  LeafSet part_;
  size_t limit_, steps_ = 0;
  bool over_ = false;
  std::unordered_map<LeafSet, uint32_t, LeafSetHash> ids_;
};

// The tree of a DP table's entry, its inputs first.
template <class Table, class Key>
int buildTree(const JoinGraph& graph, JoinTree& tree, const Table& best, const Key& key, const std::vector<LeafSet>& sets) {
  const Best& e = best[key];
  if (sets[key].count() == 1) return addLeaf(graph, tree, sets[key].lowest());
  int l = buildTree(graph, tree, best, e.left, sets);
  int r = buildTree(graph, tree, best, e.right, sets);
  return addJoin(graph, tree, l, r);
}

// DPccp: the DP over the pairs ConnectedPairs finds. `overBudget` tells an empty answer for too many
// pairs from one for no tree without cross products.
JoinTree dpccp(const JoinGraph& graph, const LeafSet& part, bool crossProducts, size_t maxPairs, bool* overBudget) {
  ConnectedPairs enumeration(graph, part, maxPairs);
  if (overBudget) *overBudget = false;
  part.forEach([&](size_t i) { enumeration.id(LeafSet::single(i)); });
  if (!enumeration.run()) {
    if (overBudget) *overBudget = true;
    return {};
  }
  const auto& sets = enumeration.sets;
  std::vector<Best> best(sets.size());
  for (uint32_t i = 0; i < sets.size(); ++i)
    if (sets[i].count() == 1) best[i] = {graph.rows(sets[i]), 0, 0, 0, true};
  // The pairs by the size of their union, so both inputs of a pair are final before it is costed.
  std::vector<std::vector<uint32_t>> bySize(part.count() + 1);
  for (uint32_t p = 0; p < enumeration.pairs.size(); ++p) bySize[sets[enumeration.pairs[p].both].count()].push_back(p);
  const bool check = !crossProducts && !graph.hyperedges.empty();  // else every pair shares a condition
  for (auto& size : bySize)
    for (uint32_t p : size) {
      auto [a, b, s] = enumeration.pairs[p];
      // The input holding the union's lowest leaf goes left, and among equally cheap splits the
      // one whose left input is the larger bitmask wins: the choices the DP over all subsets made.
      if (sets[b].test(sets[s].lowest())) std::swap(a, b);
      if (!best[a].valid || !best[b].valid) continue;
      if (check && !graph.joinable(sets[a], sets[b])) continue;
      Best& e = best[s];
      const double rows = graph.rows(sets[s]);
      const double cost = best[a].cost + best[b].cost + rows;
      if (!e.valid || cost < e.cost || (cost == e.cost && sets[a] > sets[e.left])) e = {rows, cost, a, b, true};
    }
  const uint32_t root = enumeration.id(part);
  if (root >= best.size() || !best[root].valid) return {};
  JoinTree tree;
  buildTree(graph, tree, best, root, sets);
  return tree;
}

}  // namespace

JoinTree planDPccp(const JoinGraph& graph, const LeafSet& part, bool crossProducts, size_t maxPairs) {
  return dpccp(graph, part, crossProducts, maxPairs, nullptr);
}

JoinTree planDPsub(const JoinGraph& graph, const LeafSet& leaves, bool crossProducts) {
  std::vector<size_t> members;
  leaves.forEach([&](size_t i) { members.push_back(i); });
  if (members.size() > 16) throw std::logic_error("DP over all subsets of more than 16 leaves");
  const uint32_t all = (uint32_t{1} << members.size()) - 1;
  std::vector<LeafSet> sets(all + 1);  // the leaves of each bitmask of `members`
  for (uint32_t m = 1; m <= all; ++m) sets[m] = sets[m & (m - 1)] | LeafSet::single(members[static_cast<size_t>(__builtin_ctz(m))]);
  std::vector<Best> best(all + 1);
  for (size_t i = 0; i < members.size(); ++i) best[uint32_t{1} << i] = {graph.rows(sets[uint32_t{1} << i]), 0, 0, 0, true};
  for (uint32_t s = 1; s <= all; ++s) {
    if (__builtin_popcount(s) < 2) continue;
    const uint32_t low = s & (~s + 1);
    Best e;
    // Splits s = s1 + s2 with s1 holding s's lowest leaf, so each pair is seen once.
    for (uint32_t s1 = (s - 1) & s; s1; s1 = (s1 - 1) & s) {
      if (!(s1 & low)) continue;
      const uint32_t s2 = s ^ s1;
      if (!best[s1].valid || !best[s2].valid) continue;
      if (!crossProducts && !graph.joinable(sets[s1], sets[s2])) continue;
      const double rows = graph.rows(sets[s]);
      const double cost = best[s1].cost + best[s2].cost + rows;
      if (!e.valid || cost < e.cost) e = {rows, cost, s1, s2, true};
    }
    best[s] = e;
  }
  if (!best[all].valid) return {};
  JoinTree tree;
  buildTree(graph, tree, best, all, sets);
  return tree;
}

JoinTree planGreedy(const JoinGraph& graph, const LeafSet& part) {
  // Greedy operator ordering (Fegaras, DEXA 1998): join the two adjacent sets whose join is
  // smallest, until one is left. A join's rows are estimated as the product of the inputs' rows
  // and the selectivities of the leaf pairs linked between them (each the rows of the pair over
  // the product of the two leaves' rows), kept per pair of live sets, so that each step costs a
  // scan of the links rather than an estimate per candidate; the chosen join gets the exact rows.
  JoinTree tree;
  struct Live {
    int node;
    std::map<size_t, double> links;  // live set -> product of the selectivities between them
  };
  std::map<size_t, Live> live;  // by a set's number (its first leaf's position in `tree` order)
  std::unordered_map<size_t, size_t> ofLeaf;
  part.forEach([&](size_t i) {
    ofLeaf[i] = live.size();
    live[live.size()] = {addLeaf(graph, tree, i), {}};
  });
  part.forEach([&](size_t i) {
    (graph.neighbors[i] & part).forEach([&](size_t j) {
      if (j <= i) return;
      const double ri = graph.rows(LeafSet::single(i)), rj = graph.rows(LeafSet::single(j));
      const double sel = graph.rows(LeafSet::single(i) | LeafSet::single(j)) / (ri * rj);
      live[ofLeaf[i]].links[ofLeaf[j]] = sel;
      live[ofLeaf[j]].links[ofLeaf[i]] = sel;
    });
  });
  size_t nextId = live.size();
  while (live.size() > 1) {
    size_t a = live.begin()->first, b = std::next(live.begin())->first;  // a cross product if nothing links
    double bestRows = std::numeric_limits<double>::infinity();
    for (auto& [x, set] : live)
      for (auto& [y, sel] : set.links) {
        if (y < x) continue;
        const double rows = tree.nodes[static_cast<size_t>(set.node)].rows * tree.nodes[static_cast<size_t>(live[y].node)].rows * sel;
        if (rows < bestRows) bestRows = rows, a = x, b = y;
      }
    Live& la = live[a];
    Live& lb = live[b];
    const bool aFirst = tree.nodes[static_cast<size_t>(la.node)].leaves.lowest() < tree.nodes[static_cast<size_t>(lb.node)].leaves.lowest();
    Live joined{addJoin(graph, tree, aFirst ? la.node : lb.node, aFirst ? lb.node : la.node), {}};
    for (Live* from : {&la, &lb})
      for (auto& [y, sel] : from->links) {
        if (y == a || y == b) continue;
        auto [it, added] = joined.links.try_emplace(y, sel);
        if (!added) it->second *= sel;
      }
    for (auto& [y, sel] : joined.links) {
      auto& links = live[y].links;
      links.erase(a), links.erase(b);
      links[nextId] = sel;
    }
    live.erase(a), live.erase(b);
    live[nextId++] = std::move(joined);
  }
  return tree;
}

namespace {

JoinTree planPart(const JoinGraph& graph, const LeafSet& part, JoinMethod method) {
  if (part.count() == 1) {
    JoinTree tree;
    addLeaf(graph, tree, part.lowest());
    return tree;
  }
  JoinTree tree;
  switch (method) {
    case JoinMethod::DPccp:
      tree = planDPccp(graph, part, false, std::numeric_limits<size_t>::max());
      return tree.nodes.empty() ? planDPccp(graph, part, true, std::numeric_limits<size_t>::max()) : tree;
    case JoinMethod::Linearized:
      tree = planLinearized(graph, part, false);
      return tree.nodes.empty() ? planLinearized(graph, part, true) : tree;
    case JoinMethod::Greedy:
      return planGreedy(graph, part);
    default:
      break;
  }
  bool over = false;
  tree = dpccp(graph, part, false, kMaxDpPairs, &over);
  if (!tree.nodes.empty()) return tree;
  if (!over) {  // linked only by conditions over three or more leaves: cross products among those
    if (part.count() == graph.leaves && graph.leaves <= kMaxCrossDpLeaves) return planDPsub(graph, part, true);
    return planDPccp(graph, part, true, kMaxDpPairs);
  }
  JoinTree greedy = planGreedy(graph, part);
  if (part.count() > kMaxLinearizedLeaves) return greedy;
  tree = planLinearized(graph, part, false);
  if (tree.nodes.empty()) tree = planLinearized(graph, part, true);
  JoinTree improved = planRanges(graph, leafOrder(greedy), false);
  if (improved.nodes.empty()) improved = std::move(greedy);
  return improved.cost() < tree.cost() ? improved : tree;
}

}  // namespace

JoinTree enumerateJoins(const JoinGraph& graph, JoinMethod method) {
  if (graph.leaves == 0) return {};
  const LeafSet all = LeafSet::upTo(graph.leaves - 1);
  if (method == JoinMethod::DPsub) {
    JoinTree tree = planDPsub(graph, all, false);
    return tree.nodes.empty() ? planDPsub(graph, all, true) : tree;
  }
  std::vector<LeafSet> parts = graph.components();
  // A small disconnected region: DP over all subsets places the cross products where they cost
  // least (a one-row input may best be joined early), as the planner always did.
  if (method == JoinMethod::Adaptive && parts.size() > 1 && graph.leaves <= kMaxCrossDpLeaves) return planDPsub(graph, all, true);
  std::vector<JoinTree> trees;
  for (auto& part : parts) trees.push_back(planPart(graph, part, method));
  if (trees.size() == 1) return std::move(trees[0]);
  // Cross products of the parts, the smallest first: each product's rows are fixed, so the
  // earlier ones should be the small ones.
  std::stable_sort(trees.begin(), trees.end(), [](const JoinTree& a, const JoinTree& b) { return a.root().rows < b.root().rows; });
  JoinTree tree;
  int acc = appendTree(tree, trees[0]);
  for (size_t i = 1; i < trees.size(); ++i) acc = addJoin(graph, tree, acc, appendTree(tree, trees[i]));
  return tree;
}

}  // namespace hyrax::sql
