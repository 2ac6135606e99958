// Join ordering. After predicate pushdown, each maximal tree of inner joins is a join region: its
// leaves (scans with their filters, aggregations, outer joins ...) and the join conditions between
// them. join_enumeration.hpp finds the bushy tree with the fewest intermediate rows (C_out, with
// the cardinalities rowsOf() estimates here from CardinalityModel): exact DP over connected pairs
// (DPccp) while that is cheap, linearized DP or greedy operator ordering for very large regions;
// cross products only where the join graph is not connected. Each condition is applied at the
// lowest join that has all its columns: an equality across the two inputs as a join key, anything
// else as the join's residual.
#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>

#include "sql/optimizer/cardinality.hpp"
#include "sql/optimizer/join_enumeration.hpp"
#include "sql/optimizer/optimizer.hpp"

namespace hyrax::sql {

using namespace plan;

namespace {

struct Condition {
  ExprPtr expr;
  LeafSet leaves;     // which leaves it reads
  bool equi = false;  // an equality whose sides read disjoint leaf sets (a hash key candidate)
  LeafSet left, right;
  int columnA = -1, columnB = -1;  // a column equality's two columns, numbered for rowsOf()
};

struct Region {
  std::vector<OperatorPtr> leaves;
  std::vector<Condition> conds;
};

bool isInnerJoin(const Operator& op) {
  return op.kind == OpKind::Join && static_cast<const Join&>(op).kind == JoinKind::Inner;
}

void collectRegion(OperatorPtr op, Region& r, std::vector<ExprPtr>& exprs) {
  if (!isInnerJoin(*op)) {
    r.leaves.push_back(std::move(op));
    return;
  }
  auto& j = static_cast<Join&>(*op);
  for (auto& k : j.keys) {
    SourcePos pos = k.left->pos;
    auto eq = std::make_unique<Expr>(ExprKind::Compare, SqlType::boolean(k.left->type.nullable || k.right->type.nullable), pos);
    eq->cmp = CmpOp::Eq;
    eq->args.push_back(std::move(k.left));
    eq->args.push_back(std::move(k.right));
    exprs.push_back(std::move(eq));
  }
  if (j.residual) splitConjuncts(std::move(j.residual), exprs);
  collectRegion(std::move(op->children[0]), r, exprs);
  collectRegion(std::move(op->children[1]), r, exprs);
}

// Columns known equal: a union-find over IUs.
class EqualColumns {
 public:
  const IU* find(const IU* x) {
    auto it = parent_.find(x);
    if (it == parent_.end() || it->second == x) return x;
    return it->second = find(it->second);
  }
  bool same(const IU* a, const IU* b) { return find(a) == find(b); }
  void join(const IU* a, const IU* b) { parent_[find(a)] = find(b); }

 private:
  std::unordered_map<const IU*, const IU*> parent_;
};

// `a = b` between two columns of one type: the two IUs.
bool columnEquality(const Expr& e, const IU*& a, const IU*& b) {
  if (e.kind != ExprKind::Compare || e.cmp != CmpOp::Eq) return false;
  const Expr &x = *e.args[0], &y = *e.args[1];
  if (x.kind != ExprKind::Column || y.kind != ExprKind::Column || !x.type.sameAs(y.type)) return false;
  a = x.iu, b = y.iu;
  return true;
}

// a = b and b = c imply a = c (TRUE only for non-NULL equal values, so transitively): the implied
// equalities are added, so the join order may join a's and c's tables directly (TPC-H Q9: part
// with partsupp, both equal to lineitem's l_partkey). Counting rows and placing keys skip the
// ones other applied equalities already imply.
void addImpliedEqualities(std::vector<ExprPtr>& exprs) {
  EqualColumns classes;
  std::vector<std::pair<const IU*, const IU*>> direct;
  std::vector<const IU*> members;
  std::unordered_map<const IU*, SourcePos> pos;
  for (auto& e : exprs) {
    const IU *a, *b;
    if (!columnEquality(*e, a, b)) continue;
    classes.join(a, b);
    direct.push_back({a, b});
    for (const IU* x : {a, b})
      if (!pos.count(x)) members.push_back(x), pos[x] = e->pos;
  }
  auto known = [&](const IU* a, const IU* b) {
    return std::any_of(direct.begin(), direct.end(), [&](auto& d) { return (d.first == a && d.second == b) || (d.first == b && d.second == a); });
  };
  for (size_t i = 0; i < members.size(); ++i)
    for (size_t j = i + 1; j < members.size(); ++j) {
      const IU *a = members[i], *b = members[j];
      if (!classes.same(a, b) || known(a, b)) continue;
      auto eq = std::make_unique<Expr>(ExprKind::Compare, SqlType::boolean(a->type.nullable || b->type.nullable), pos[a]);
      eq->cmp = CmpOp::Eq;
      eq->args.push_back(Expr::column(a, pos[a]));
      eq->args.push_back(Expr::column(b, pos[b]));
      exprs.push_back(std::move(eq));
      direct.push_back({a, b});
    }
}

class Planner {
 public:
  Planner(Region& r, CardinalityModel& model) : r_(r), model_(model) {
    for (size_t i = 0; i < r.leaves.size(); ++i)
      for (auto* iu : r.leaves[i]->produced()) owner_[iu] = i;
    for (auto& c : r.conds) {
      c.leaves = setOf(*c.expr);
      if (c.leaves.count() == 1) {  // reads one leaf only: filter that leaf
        size_t i = c.leaves.lowest();
        auto f = std::make_unique<Filter>();
        f->predicate = std::move(c.expr);
        f->children.push_back(std::move(r.leaves[i]));
        f->estimatedRows = std::max(1.0, f->child()->estimatedRows * model_.selectivity(*f->predicate));
        r.leaves[i] = std::move(f);
        continue;
      }
      if (c.expr->kind == ExprKind::Compare && c.expr->cmp == CmpOp::Eq &&
          c.expr->args[0]->type.sameAs(c.expr->args[1]->type)) {
        c.left = setOf(*c.expr->args[0]);
        c.right = setOf(*c.expr->args[1]);
        c.equi = !c.left.empty() && !c.right.empty() && !c.left.intersects(c.right);
      }
    }
  }

  OperatorPtr plan() {
    const size_t n = r_.leaves.size();
    all_ = LeafSet::upTo(n - 1);
    JoinGraph graph(n);
    byLowest_.assign(n, {});
    std::unordered_map<const IU*, int> columns;  // the columns of equalities, numbered
    for (uint32_t k = 0; k < r_.conds.size(); ++k) {
      Condition& c = r_.conds[k];
      if (!c.expr || c.leaves.count() < 2) continue;
      graph.addCondition(c.leaves);
      byLowest_[c.leaves.lowest()].push_back(k);
      const IU *x, *y;
      if (c.equi && columnEquality(*c.expr, x, y)) {
        c.columnA = columns.try_emplace(x, static_cast<int>(columns.size())).first->second;
        c.columnB = columns.try_emplace(y, static_cast<int>(columns.size())).first->second;
      }
    }
    equalityColumns_ = columns.size();
    graph.rows = [this](const LeafSet& s) { return rowsOf(s); };
    tree_ = enumerateJoins(graph);
    return build(tree_.nodes.size() - 1);
  }

 private:
  LeafSet setOf(const Expr& e) const {
    std::vector<const IU*> used;
    e.collectIUs(used);
    LeafSet m;
    for (auto* iu : used) {
      auto it = owner_.find(iu);
      if (it != owner_.end()) m.set(it->second);
    }
    return m;
  }

  // Rows of the join of the leaves in `s`: the product of their rows under every condition
  // within s (equalities by distinct counts, the rest by selectivity).
  double rowsOf(const LeafSet& s) {
    auto it = rows_.find(s);
    if (it != rows_.end()) return it->second;
    double rows = 1;
    s.forEach([&](size_t i) { rows *= std::max(1.0, r_.leaves[i]->estimatedRows); });
    // Equalities between the same two leaf sets (a composite key) divide together; one that the
    // others already imply (a = b, b = c, a = c) divides nothing.
    std::map<std::pair<LeafSet, LeafSet>, std::pair<std::vector<const Expr*>, std::vector<const Expr*>>> pairs;
    // The conditions within s, in their order (which one of equivalent equalities counts depends
    // on it): found through their lowest leaf, as most conditions read leaves outside s.
    std::vector<uint32_t> within;
    s.forEach([&](size_t i) {
      for (uint32_t k : byLowest_[i])
        if (r_.conds[k].leaves.subsetOf(s)) within.push_back(k);
    });
    std::sort(within.begin(), within.end());
    // Columns known equal so far: a union-find over the equalities' numbered columns.
    std::vector<int> equal(equalityColumns_);
    std::iota(equal.begin(), equal.end(), 0);
    auto find = [&](int v) {
      while (equal[static_cast<size_t>(v)] != v) v = equal[static_cast<size_t>(v)] = equal[static_cast<size_t>(equal[static_cast<size_t>(v)])];
      return v;
    };
    for (uint32_t k : within) {
      const Condition& c = r_.conds[k];
      if (!c.expr) continue;
      if (c.columnA >= 0) {
        const int a = find(c.columnA), b = find(c.columnB);
        if (a == b) continue;
        equal[static_cast<size_t>(a)] = b;
      }
      if (c.equi) {
        bool swap = c.left > c.right;
        auto& [a, b] = pairs[{swap ? c.right : c.left, swap ? c.left : c.right}];
        a.push_back(c.expr->args[swap ? 1 : 0].get());
        b.push_back(c.expr->args[swap ? 0 : 1].get());
      } else {
        rows *= model_.selectivity(*c.expr);
      }
    }
    for (auto& [sets, sides] : pairs)
      rows /= model_.joinDivisor(sides.first, leafRows(sets.first), sides.second, leafRows(sets.second));
    rows = std::max(rows, 1.0);
    rows_[s] = rows;
    return rows;
  }

  double leafRows(const LeafSet& m) {  // rows of the (smallest) leaf a condition side reads
    double r = std::numeric_limits<double>::max();
    m.forEach([&](size_t i) { r = std::min(r, std::max(1.0, r_.leaves[i]->estimatedRows)); });
    return r;
  }

  OperatorPtr build(size_t node) {
    const JoinTree::Node& e = tree_.nodes[node];
    if (e.left < 0) return std::move(r_.leaves[e.leaf]);
    const LeafSet s = e.leaves, s1 = tree_.nodes[static_cast<size_t>(e.left)].leaves, s2 = s - s1;
    OperatorPtr a = build(static_cast<size_t>(e.left)), b = build(static_cast<size_t>(e.right));
    auto join = std::make_unique<Join>();
    std::vector<ExprPtr> residual;
    for (auto& c : r_.conds) {
      if (!c.expr) continue;
      bool here = c.leaves.empty() ? s == all_  // constant conditions: at the top
                                   : c.leaves.subsetOf(s) && !c.leaves.subsetOf(s1) && !c.leaves.subsetOf(s2);
      if (!here) continue;
      bool aFirst = c.left.subsetOf(s1) && c.right.subsetOf(s2);
      bool bFirst = c.left.subsetOf(s2) && c.right.subsetOf(s1);
      const IU *x, *y;
      if (c.equi && columnEquality(*c.expr, x, y)) {
        if (applied_.same(x, y)) {  // implied by equalities applied below or at this join
          c.expr.reset();
          continue;
        }
        applied_.join(x, y);
      }
      if (c.equi && (aFirst || bFirst)) {
        Join::Key k;
        k.left = std::move(c.expr->args[aFirst ? 0 : 1]);
        k.right = std::move(c.expr->args[aFirst ? 1 : 0]);
        join->keys.push_back(std::move(k));
        c.expr.reset();
      } else {
        residual.push_back(std::move(c.expr));
      }
    }
    join->residual = conjunction(std::move(residual));
    join->children.push_back(std::move(a));  // the physical planner builds on the smaller side
    join->children.push_back(std::move(b));
    join->estimatedRows = e.rows;
    return join;
  }

  Region& r_;
  CardinalityModel& model_;
  LeafSet all_;
  JoinTree tree_;
  EqualColumns applied_;  // equalities build() has applied so far
  std::unordered_map<const IU*, size_t> owner_;
  std::unordered_map<LeafSet, double, LeafSetHash> rows_;
  std::vector<std::vector<uint32_t>> byLowest_;  // per leaf: the conditions over 2+ leaves whose lowest it is
  size_t equalityColumns_ = 0;                   // columns numbered in Condition::columnA/B
};

}  // namespace

void sinkSemiJoins(OperatorPtr& op, CardinalityModel& model) {
  for (auto& c : op->children) sinkSemiJoins(c, model);
  if (op->kind != OpKind::Join) return;
  auto& j = static_cast<Join&>(*op);
  if (j.kind != JoinKind::Semi && j.kind != JoinKind::Anti) return;
  Operator* inner = op->child(0);
  if (!isInnerJoin(*inner)) return;
  // Only a join that drops most rows is worth doing early, on the larger input.
  if (op->estimatedRows > 0.5 * inner->estimatedRows) return;
  std::vector<const Expr*> reads;
  for (auto& k : j.keys) reads.push_back(k.left.get());
  if (j.residual) reads.push_back(j.residual.get());
  for (int side = 0; side < 2; ++side) {
    // The condition may read the subquery's side and this input, nothing of the other input.
    IURefs allowed = inner->child(side)->producedSet();
    for (auto* iu : op->child(1)->produced()) allowed.insert(iu);
    if (!std::all_of(reads.begin(), reads.end(), [&](const Expr* e) { return readsOnly(*e, allowed); })) continue;
    // semi(inner(a, b)) -> inner(semi(a), b): the semi join filters the input its condition reads.
    OperatorPtr semi = std::move(op);
    OperatorPtr join = std::move(semi->children[0]);
    semi->children[0] = std::move(join->children[side]);
    model.estimate(*semi);
    sinkSemiJoins(semi, model);
    join->children[side] = std::move(semi);
    model.estimate(*join);
    op = std::move(join);
    return;
  }
}

void orderJoins(OperatorPtr& op, CardinalityModel& model) {
  if (!isInnerJoin(*op)) {
    for (auto& c : op->children) orderJoins(c, model);
    return;
  }
  Region region;
  std::vector<ExprPtr> exprs;
  collectRegion(std::move(op), region, exprs);
  for (auto& leaf : region.leaves) {
    orderJoins(leaf, model);  // regions further down (under aggregations, in subqueries)
    model.estimate(*leaf);
  }
  addImpliedEqualities(exprs);
  for (auto& e : exprs) {
    region.conds.emplace_back();
    region.conds.back().expr = std::move(e);
  }
  if (region.leaves.size() > kMaxJoinLeaves)
    throw Error(sqlstate::TooComplex, "more than " + std::to_string(kMaxJoinLeaves) + " tables joined in one query (" +
                                          std::to_string(region.leaves.size()) + "): join order is planned for at most " +
                                          std::to_string(kMaxJoinLeaves));
  op = Planner(region, model).plan();
}

}  // namespace hyrax::sql
