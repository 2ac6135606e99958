// Join ordering by dynamic programming. After predicate pushdown, each maximal tree of inner
// joins is a join region: its leaves (scans with their filters, aggregations, outer joins
// ...) and the join conditions between them. DPsub over the connected subsets of leaves finds the
// bushy tree with the fewest intermediate rows (C_out, cardinalities from CardinalityModel);
// cross products are considered only when the join graph is not connected. Regions of more than
// kMaxDpLeaves leaves are joined greedily (smallest result first). Each condition is applied at
// the lowest join that has all its columns: an equality across the two inputs as a join key,
// anything else as the join's residual.
#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "sql/optimizer/cardinality.hpp"
#include "sql/optimizer/optimizer.hpp"

namespace hyrax::sql {

using namespace plan;

namespace {

constexpr size_t kMaxDpLeaves = 14;
using Mask = uint32_t;

struct Condition {
  ExprPtr expr;
  Mask leaves = 0;  // which leaves it reads
  bool equi = false;  // an equality whose sides read disjoint leaf sets (a hash key candidate)
  Mask left = 0, right = 0;
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

int popcount(Mask m) { return __builtin_popcount(m); }

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
      for (auto* iu : r.leaves[i]->produced()) owner_[iu] = static_cast<Mask>(1u << i);
    for (auto& c : r.conds) {
      c.leaves = maskOf(*c.expr);
      if (popcount(c.leaves) == 1) {  // reads one leaf only: filter that leaf
        size_t i = popcountIndex(c.leaves);
        auto f = std::make_unique<Filter>();
        f->predicate = std::move(c.expr);
        f->children.push_back(std::move(r.leaves[i]));
        f->estimatedRows = std::max(1.0, f->child()->estimatedRows * model_.selectivity(*f->predicate));
        r.leaves[i] = std::move(f);
        continue;
      }
      if (c.expr->kind == ExprKind::Compare && c.expr->cmp == CmpOp::Eq &&
          c.expr->args[0]->type.sameAs(c.expr->args[1]->type)) {
        c.left = maskOf(*c.expr->args[0]);
        c.right = maskOf(*c.expr->args[1]);
        c.equi = c.left && c.right && !(c.left & c.right);
      }
    }
  }

  OperatorPtr plan() {
    const size_t n = r_.leaves.size();
    const Mask all = static_cast<Mask>((1ull << n) - 1);
    all_ = all;
    if (n <= kMaxDpLeaves) {
      if (!dp(all, false)) dp(all, true);  // a disconnected graph needs cross products
    } else {
      greedy();
    }
    return build(all);
  }

 private:
  struct Entry {
    double rows = 0, cost = 0;
    Mask left = 0;  // the split (0 for a leaf)
    bool valid = false;
  };

  Mask maskOf(const Expr& e) const {
    std::vector<const IU*> used;
    e.collectIUs(used);
    Mask m = 0;
    for (auto* iu : used) {
      auto it = owner_.find(iu);
      if (it != owner_.end()) m |= it->second;
    }
    return m;
  }

  // Rows of the join of the leaves in `s`: the product of their rows under every condition
  // within s (equalities by distinct counts, the rest by selectivity).
  double rowsOf(Mask s) {
    auto it = rows_.find(s);
    if (it != rows_.end()) return it->second;
    double rows = 1;
    for (size_t i = 0; i < r_.leaves.size(); ++i)
      if (s & (1u << i)) rows *= std::max(1.0, r_.leaves[i]->estimatedRows);
    // Equalities between the same two leaves (a composite key) divide together; one that the
    // others already imply (a = b, b = c, a = c) divides nothing.
    std::map<std::pair<Mask, Mask>, std::pair<std::vector<const Expr*>, std::vector<const Expr*>>> pairs;
    EqualColumns equal;
    for (auto& c : r_.conds) {
      if (!c.expr || (c.leaves & s) != c.leaves || popcount(c.leaves) < 2) continue;
      const IU *x, *y;
      if (c.equi && columnEquality(*c.expr, x, y)) {
        if (equal.same(x, y)) continue;
        equal.join(x, y);
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
    for (auto& [masks, sides] : pairs)
      rows /= model_.joinDivisor(sides.first, leafRows(masks.first), sides.second, leafRows(masks.second));
    rows = std::max(rows, 1.0);
    rows_[s] = rows;
    return rows;
  }

  double leafRows(Mask m) {  // rows of the (smallest) leaf a condition side reads
    double r = std::numeric_limits<double>::max();
    for (size_t i = 0; i < r_.leaves.size(); ++i)
      if (m & (1u << i)) r = std::min(r, std::max(1.0, r_.leaves[i]->estimatedRows));
    return r;
  }

  bool connected(Mask a, Mask b) const {
    for (auto& c : r_.conds)
      if (c.expr && (c.leaves & a) && (c.leaves & b) && (c.leaves & ~(a | b)) == 0) return true;
    return false;
  }

  bool dp(Mask all, bool allowCross) {
    best_.assign(static_cast<size_t>(all) + 1, Entry{});
    for (size_t i = 0; i < r_.leaves.size(); ++i) {
      Mask m = 1u << i;
      best_[m] = {std::max(1.0, r_.leaves[i]->estimatedRows), 0, 0, true};
    }
    for (Mask s = 1; s <= all; ++s) {
      if (popcount(s) < 2) continue;
      Mask low = s & (~s + 1);
      Entry e;
      // Splits s = s1 + s2 with s1 holding s's lowest leaf, so each pair is seen once.
      for (Mask s1 = (s - 1) & s; s1; s1 = (s1 - 1) & s) {
        if (!(s1 & low)) continue;
        Mask s2 = s ^ s1;
        if (!best_[s1].valid || !best_[s2].valid) continue;
        if (!allowCross && !connected(s1, s2)) continue;
        double cost = best_[s1].cost + best_[s2].cost + rowsOf(s);
        if (!e.valid || cost < e.cost) e = {rowsOf(s), cost, s1, true};
      }
      best_[s] = e;
    }
    return best_[all].valid;
  }

  void greedy() {
    // Too many leaves for DP: repeatedly join the two connected sets with the smallest result.
    std::vector<Mask> sets;
    for (size_t i = 0; i < r_.leaves.size(); ++i) sets.push_back(1u << i);
    for (Mask m : sets) greedyBest_[m] = {std::max(1.0, r_.leaves[popcountIndex(m)]->estimatedRows), 0, 0, true};
    while (sets.size() > 1) {
      size_t bi = 0, bj = 1;
      double bestRows = std::numeric_limits<double>::max();
      bool bestConnected = false;
      for (size_t i = 0; i < sets.size(); ++i)
        for (size_t j = i + 1; j < sets.size(); ++j) {
          bool c = connected(sets[i], sets[j]);
          double rows = rowsOf(sets[i] | sets[j]);
          if ((c && !bestConnected) || (c == bestConnected && rows < bestRows)) {
            bi = i, bj = j, bestRows = rows, bestConnected = c;
          }
        }
      Mask m = sets[bi] | sets[bj];
      greedyBest_[m] = {bestRows, 0, sets[bi], true};
      sets[bi] = m;
      sets.erase(sets.begin() + static_cast<long>(bj));
    }
  }

  static size_t popcountIndex(Mask m) { return static_cast<size_t>(__builtin_ctz(m)); }

  const Entry& entry(Mask s) const {
    if (!best_.empty()) return best_[s];
    return greedyBest_.at(s);
  }

  OperatorPtr build(Mask s) {
    const Entry& e = entry(s);
    if (popcount(s) == 1) return std::move(r_.leaves[popcountIndex(s)]);
    Mask s1 = e.left, s2 = s ^ e.left;
    OperatorPtr a = build(s1), b = build(s2);
    auto join = std::make_unique<Join>();
    std::vector<ExprPtr> residual;
    for (auto& c : r_.conds) {
      if (!c.expr) continue;
      bool here = c.leaves == 0 ? s == all_  // constant conditions: at the top
                                : (c.leaves & s) == c.leaves && (c.leaves & s1) != c.leaves && (c.leaves & s2) != c.leaves;
      if (!here) continue;
      bool aFirst = (c.left & s1) == c.left && (c.right & s2) == c.right;
      bool bFirst = (c.left & s2) == c.left && (c.right & s1) == c.right;
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
  Mask all_ = 0;
  EqualColumns applied_;  // equalities build() has applied so far
  std::unordered_map<const IU*, Mask> owner_;
  std::unordered_map<Mask, double> rows_;
  std::vector<Entry> best_;
  std::unordered_map<Mask, Entry> greedyBest_;
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
  for (auto& e : exprs) region.conds.push_back({std::move(e)});
  if (region.leaves.size() > 32) throw Error(sqlstate::TooComplex, "more than 32 tables joined in one query");
  op = Planner(region, model).plan();
}

}  // namespace hyrax::sql
