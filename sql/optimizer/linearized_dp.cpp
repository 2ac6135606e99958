// Linearized DP (Neumann and Radke, "Adaptive Optimization of Very Large Join Queries", SIGMOD
// 2018) for parts too large for exact DP: IKKBZ orders the leaves, then DP over contiguous ranges of
// that order finds the cheapest bushy tree whose every subtree is such a range. Why it is good: the
// IKKBZ order is the optimal left-deep order for a tree query under the ASI cost, and the range DP
// contains that left-deep plan while adding the bushy trees that fit the order, so its plan is at
// least as cheap; it costs O(n^3) cost evaluations, whatever the shape of the graph.
#include <algorithm>
#include <limits>

#include "sql/optimizer/join_enumeration.hpp"

namespace hyrax::sql {

namespace {

// A run of leaves IKKBZ keeps together: T is the factor it multiplies the intermediate result by,
// C its cost (the rows of the intermediate results it adds, per row entering it).
struct Unit {
  std::vector<int> leaves;  // local numbers
  double T = 1, C = 1;
  double rank() const { return (T - 1) / C; }
};

constexpr double kHuge = 1e300;  // clamps products so ranks stay finite

Unit combine(const Unit& a, const Unit& b) {
  Unit u;
  u.leaves = a.leaves;
  u.leaves.insert(u.leaves.end(), b.leaves.begin(), b.leaves.end());
  u.T = std::min(a.T * b.T, kHuge);
  u.C = std::min(a.C + a.T * b.C, kHuge);
  return u;
}

// The spanning tree IKKBZ works on, with each leaf's rows and the selectivity of each tree edge.
struct Precedence {
  std::vector<double> rows;
  std::vector<std::vector<std::pair<int, double>>> edges;  // per local leaf: (neighbour, selectivity)

  // The units of v's subtree (away from `parent`), v's first, by ascending rank: the children's
  // sequences merged by rank, and v's unit merged with its successors while they rank lower
  // (IKKBZ's normalization: v must come first, so what would rather precede it joins it).
  std::vector<Unit> chain(int v, int parent, double sel) const {
    std::vector<Unit> below = children(v, parent);
    std::vector<Unit> seq;
    Unit head;
    head.leaves = {v};
    head.T = std::min(rows[static_cast<size_t>(v)] * sel, kHuge);
    head.C = head.T;
    seq.push_back(std::move(head));
    seq.insert(seq.end(), std::make_move_iterator(below.begin()), std::make_move_iterator(below.end()));
    while (seq.size() > 1 && seq[0].rank() > seq[1].rank()) {
      seq[0] = combine(seq[0], seq[1]);
      seq.erase(seq.begin() + 1);
    }
    return seq;
  }

  std::vector<Unit> children(int v, int parent) const {
    std::vector<Unit> merged;
    for (auto [c, sel] : edges[static_cast<size_t>(v)]) {
      if (c == parent) continue;
      std::vector<Unit> seq = chain(c, v, sel);
      merged.insert(merged.end(), std::make_move_iterator(seq.begin()), std::make_move_iterator(seq.end()));
    }
    // Each child's sequence ascends by rank already; a stable sort merges them keeping that order.
    std::stable_sort(merged.begin(), merged.end(), [](const Unit& a, const Unit& b) { return a.rank() < b.rank(); });
    return merged;
  }
};

}  // namespace

std::vector<size_t> ikkbzOrder(const JoinGraph& graph, const LeafSet& part) {
  std::vector<size_t> leaves;
  part.forEach([&](size_t i) { leaves.push_back(i); });
  const size_t n = leaves.size();
  Precedence p;
  p.edges.resize(n);
  for (size_t i : leaves) p.rows.push_back(graph.rows(LeafSet::single(i)));
  // Prim's spanning tree over the most selective links (IKKBZ needs a tree; the most selective
  // conditions are the ones worth ordering by).
  auto selectivity = [&](size_t a, size_t b) {
    return graph.rows(LeafSet::single(leaves[a]) | LeafSet::single(leaves[b])) / (p.rows[a] * p.rows[b]);
  };
  std::vector<bool> inTree(n, false);
  std::vector<double> bestSel(n, std::numeric_limits<double>::infinity());
  std::vector<int> via(n, -1);
  bestSel[0] = 0;
  for (size_t step = 0; step < n; ++step) {
    size_t v = n;
    for (size_t i = 0; i < n; ++i)
      if (!inTree[i] && (v == n || bestSel[i] < bestSel[v])) v = i;
    inTree[v] = true;
    if (via[v] >= 0) {
      double sel = selectivity(v, static_cast<size_t>(via[v]));
      p.edges[v].push_back({via[v], sel});
      p.edges[static_cast<size_t>(via[v])].push_back({static_cast<int>(v), sel});
    }
    for (size_t i = 0; i < n; ++i)
      if (!inTree[i] && graph.neighbors[leaves[v]].test(leaves[i])) {
        double sel = selectivity(v, i);
        if (sel < bestSel[i]) bestSel[i] = sel, via[i] = static_cast<int>(v);
      }
  }
  // Each leaf as the first one; the order whose left-deep plan costs least wins.
  std::vector<size_t> best;
  double bestCost = std::numeric_limits<double>::infinity();
  for (size_t root = 0; root < n; ++root) {
    std::vector<Unit> seq = p.children(static_cast<int>(root), -1);
    Unit all;
    all.leaves = {static_cast<int>(root)};
    all.T = p.rows[root], all.C = 0;  // the root's own rows are no join result
    for (auto& u : seq) all = combine(all, u);
    if (best.empty() || all.C < bestCost) {
      bestCost = all.C;
      best.clear();
      for (int l : all.leaves) best.push_back(leaves[static_cast<size_t>(l)]);
    }
  }
  return best;
}

JoinTree planLinearized(const JoinGraph& graph, const LeafSet& part, bool crossProducts) {
  return planRanges(graph, ikkbzOrder(graph, part), crossProducts);
}

std::vector<size_t> leafOrder(const JoinTree& tree) {
  std::vector<size_t> order;
  auto visit = [&](auto& self, int node) -> void {
    const JoinTree::Node& n = tree.nodes[static_cast<size_t>(node)];
    if (n.left < 0) {
      order.push_back(n.leaf);
      return;
    }
    self(self, n.left);
    self(self, n.right);
  };
  if (!tree.nodes.empty()) visit(visit, static_cast<int>(tree.nodes.size() - 1));
  return order;
}

JoinTree planRanges(const JoinGraph& graph, const std::vector<size_t>& order, bool crossProducts) {
  const size_t n = order.size();
  std::vector<size_t> position(graph.leaves, n);
  for (size_t i = 0; i < n; ++i) position[order[i]] = i;
  // links[a][b]: the two-leaf conditions between positions p < a and q < b (p < q), so that the
  // links between two adjacent ranges are counted in O(1).
  std::vector<std::vector<uint32_t>> links(n + 1, std::vector<uint32_t>(n + 1, 0));
  for (size_t p = 0; p < n; ++p)
    graph.adjacent[order[p]].forEach([&](size_t leaf) {
      size_t q = position[leaf];
      if (q < n && q > p) ++links[p + 1][q + 1];
    });
  for (size_t a = 1; a <= n; ++a)
    for (size_t b = 1; b <= n; ++b) links[a][b] += links[a - 1][b] + links[a][b - 1] - links[a - 1][b - 1];
  auto linked = [&](size_t i, size_t k, size_t j) {  // [i, k] and [k + 1, j]
    return links[k + 1][j + 1] - links[i][j + 1] - links[k + 1][k + 1] + links[i][k + 1] > 0;
  };
  std::vector<LeafSet> range(n * n);  // range[i * n + j]: the leaves of [i, j]
  struct Entry {
    double rows = 0, cost = 0;
    size_t split = 0;  // the left input is [i, split]
    bool valid = false;
  };
  std::vector<Entry> best(n * n);
  for (size_t i = 0; i < n; ++i) {
    range[i * n + i] = LeafSet::single(order[i]);
    for (size_t j = i + 1; j < n; ++j) range[i * n + j] = range[i * n + j - 1] | LeafSet::single(order[j]);
    best[i * n + i] = {graph.rows(range[i * n + i]), 0, i, true};
  }
  for (size_t len = 2; len <= n; ++len)
    for (size_t i = 0; i + len <= n; ++i) {
      const size_t j = i + len - 1;
      Entry& e = best[i * n + j];
      double rows = -1;
      for (size_t k = i; k < j; ++k) {
        const Entry &l = best[i * n + k], &r = best[(k + 1) * n + j];
        if (!l.valid || !r.valid) continue;
        if (!crossProducts && !linked(i, k, j) &&
            (graph.hyperedges.empty() || !graph.joinable(range[i * n + k], range[(k + 1) * n + j])))
          continue;
        if (rows < 0) rows = graph.rows(range[i * n + j]);
        const double cost = l.cost + r.cost + rows;
        if (!e.valid || cost < e.cost) e = {rows, cost, k, true};
      }
    }
  if (!best[n - 1].valid) return {};
  JoinTree tree;
  auto build = [&](auto& self, size_t i, size_t j) -> int {
    if (i == j) {
      JoinTree::Node leaf;
      leaf.leaves = range[i * n + i];
      leaf.rows = best[i * n + i].rows;
      leaf.leaf = order[i];
      tree.nodes.push_back(leaf);
      return static_cast<int>(tree.nodes.size() - 1);
    }
    const size_t k = best[i * n + j].split;
    int l = self(self, i, k), r = self(self, k + 1, j);
    // The input holding the lower leaf goes left, as in the other enumerators.
    if (tree.nodes[static_cast<size_t>(r)].leaves.lowest() < tree.nodes[static_cast<size_t>(l)].leaves.lowest()) std::swap(l, r);
    return addJoin(graph, tree, l, r);
  };
  build(build, 0, n - 1);
  return tree;
}

}  // namespace hyrax::sql
