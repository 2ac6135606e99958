#include "sql/optimizer/cardinality.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/index/index.hpp"
#include "engine/storage/table.hpp"

namespace hyrax::sql {

using namespace plan;

CardinalityModel::CardinalityModel(Operator& root) {
  auto visit = [&](auto& self, Operator& op) -> void {
    if (op.kind == OpKind::TableScan) {
      auto& s = static_cast<TableScan&>(op);
      for (auto& c : s.columns) scanned_[c.iu] = {&s, c.index};
    } else if (op.kind == OpKind::CteScan) {
      // A WITH query's plan comes before its reads (With's children), so its columns' statistics
      // are known here: a read's column has them too, as a derived table's column would.
      for (auto& c : static_cast<CteScan&>(op).columns) {
        sources_[c.iu] = c.source;
        if (auto it = columns_.find(c.source); it != columns_.end()) columns_[c.iu] = it->second;
      }
    } else if (op.kind == OpKind::Map) {
      for (auto& c : static_cast<Map&>(op).computed) computed_[c.iu] = c.expr.get();
    }
    if (op.kind == OpKind::TableScan) {
      auto& s = static_cast<TableScan&>(op);
      if (const TableStatistics* ts = s.table->statistics())
        for (auto& c : s.columns)
          if (c.index < ts->columns.size()) columns_[c.iu] = &ts->columns[c.index];
    }
    for (auto& c : op.children) self(self, *c);
  };
  visit(visit, root);
}

namespace {
// The column an expression reads as it is, casts aside (they keep the number of values), or null.
const IU* plainColumn(const Expr& e) {
  const Expr* x = &e;
  while (x->kind == ExprKind::Cast) x = x->args[0].get();
  return x->kind == ExprKind::Column ? x->iu : nullptr;
}
}  // namespace

const ColumnStatistics* CardinalityModel::stats(const Expr& e) const {
  const IU* iu = plainColumn(e);
  if (!iu) return nullptr;
  auto it = columns_.find(iu);
  return it == columns_.end() ? nullptr : it->second;
}

double CardinalityModel::distinct(const Expr& e, double rows) const {
  return std::max(1.0, std::min(distinctValues(e, rows, 0), rows));
}

// A column's statistics, a GROUP BY output's groups, a computed column's expression; a function
// of columns has at most the product of their distinct counts (EXTRACT(YEAR FROM o_orderdate):
// at most o_orderdate's years). `rows` is the answer when nothing is known.
double CardinalityModel::distinctValues(const Expr& e, double rows, int depth) const {
  if (const ColumnStatistics* s = stats(e)) return capped(plainColumn(e), s->distinct);
  if (depth > 8) return rows;
  switch (e.kind) {
    case ExprKind::Constant: return 1;
    case ExprKind::Column: return distinctOf(e.iu, rows, depth);
    case ExprKind::Extract: {
      double d = distinctValues(*e.args[0], rows, depth + 1);
      if (e.field == DateField::Month) return std::min(d, 12.0);
      if (e.field == DateField::Day) return std::min(d, 31.0);
      if (e.field != DateField::Year || e.args[0]->type.id != TypeId::Date) return d;
      if (const ColumnStatistics* s = stats(*e.args[0]); s && s->hasRange)
        return std::min(d, std::floor((s->max - s->min) / 365.25) + 2);  // days to years, both ends partial
      return d;
    }
    default: break;
  }
  std::vector<const IU*> inputs;
  e.collectIUs(inputs);
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  double d = 1;
  for (const IU* iu : inputs) {
    d *= distinctOf(iu, rows, depth + 1);
    if (d >= rows) return rows;
  }
  return d;
}

double CardinalityModel::distinctOf(const IU* iu, double rows, int depth) const {
  if (auto it = columns_.find(iu); it != columns_.end()) return capped(iu, it->second->distinct);
  if (auto it = groupCounts_.find(iu); it != groupCounts_.end()) return capped(iu, it->second);
  if (auto it = computed_.find(iu); it != computed_.end()) return capped(iu, distinctValues(*it->second, rows, depth + 1));
  if (auto it = sources_.find(iu); it != sources_.end()) return capped(iu, distinctOf(it->second, rows, depth + 1));
  return capped(iu, rows);
}

double CardinalityModel::capped(const IU* iu, double distinct) const {
  auto it = caps_.find(iu);
  return it == caps_.end() ? distinct : std::min(distinct, it->second);
}

void CardinalityModel::capValues(const Expr& predicate) {
  if (predicate.kind == ExprKind::And) {
    for (auto& a : predicate.args) capValues(*a);
    return;
  }
  auto cap = [&](const IU* iu, double values) {
    auto [it, fresh] = caps_.emplace(iu, values);
    if (!fresh) it->second = std::min(it->second, values);
  };
  if (predicate.kind == ExprKind::Compare && predicate.cmp == CmpOp::Eq) {
    for (int side = 0; side < 2; ++side) {
      const IU* iu = plainColumn(*predicate.args[static_cast<size_t>(side)]);
      if (iu && predicate.args[static_cast<size_t>(1 - side)]->kind == ExprKind::Constant) cap(iu, 1);
    }
  } else if (predicate.kind == ExprKind::InList && !predicate.negated) {
    const IU* iu = plainColumn(*predicate.args[0]);
    const bool constants = std::all_of(predicate.args.begin() + 1, predicate.args.end(),
                                       [](const ExprPtr& a) { return a->kind == ExprKind::Constant; });
    if (iu && constants) cap(iu, static_cast<double>(predicate.args.size() - 1));
  }
}

namespace {

// A constant's value on the scale statistics use (integers, days, microseconds, unscaled DECIMAL).
bool numericConstant(const Expr& e, double& v) {
  if (e.kind != ExprKind::Constant || e.value.isNull()) return false;
  const SqlType& t = e.value.type();
  if (t.isInteger() || t.isDateTime() || t.id == TypeId::Decimal) {
    v = static_cast<double>(e.value.asInt());
    return true;
  }
  if (t.isFloat()) {
    v = e.value.asDouble();
    return true;
  }
  return false;
}

// The rows an Expand makes of each input row: generate_series of integer constants (casts of
// them too) makes stop - start + 1; otherwise 10 (no statistics of arrays' lengths). The series'
// length decides its pipeline's compile tier (a series of millions must not stay interpreted).
double expandedRows(const Expand& x) {
  if (x.function == Expand::Function::GenerateSeries && x.args.size() == 2) {
    double bounds[2];
    for (int i = 0; i < 2; ++i) {
      const Expr* e = x.args[static_cast<size_t>(i)].get();
      while (e->kind == ExprKind::Cast && !e->args.empty() && e->type.isInteger()) e = e->args[0].get();
      if (!e->type.isInteger() || !numericConstant(*e, bounds[i])) return 10;
    }
    return std::max(1.0, bounds[1] - bounds[0] + 1);
  }
  return 10;
}

}  // namespace

namespace {
constexpr double kInequality = 0.33;  // a bound against a value not known when planning
// Both bounds of one column, one of them not known (PostgreSQL's DEFAULT_RANGE_INEQ_SEL): a
// window such as `o_id >= v - 20 AND o_id < v` keeps few rows, far fewer than 0.33 * 0.33.
constexpr double kRange = 0.005;
}  // namespace

bool CardinalityModel::inequality(const Expr& e, Inequality& q) const {
  if (e.kind != ExprKind::Compare || e.cmp == CmpOp::Eq || e.cmp == CmpOp::Ne) return false;
  const Expr* col = e.args[0].get();
  const Expr* other = e.args[1].get();
  CmpOp op = e.cmp;
  if ((!stats(*col) && stats(*other)) || (!plainColumn(*col) && plainColumn(*other))) {
    std::swap(col, other);
    op = mirrored(op);
  }
  q.column = plainColumn(*col);
  if (!q.column) return false;
  q.lower = op == CmpOp::Gt || op == CmpOp::Ge;
  std::vector<const IU*> read;
  other->collectIUs(read);
  q.constant = read.empty();
  const ColumnStatistics* s = stats(*col);
  double c;
  q.known = s && s->hasRange && numericConstant(*other, c) && s->max > s->min;
  if (q.known) {
    double below = std::clamp((c - s->min) / (s->max - s->min), 0.0, 1.0);
    q.fraction = q.lower ? 1 - below : below;
    q.notNull = 1 - s->nullFraction;
  }
  return true;
}

double CardinalityModel::Inequality::share() const {
  return known ? std::max(fraction * notNull, 1e-4) : kInequality;
}

// Conditions that hold together. A column's lower and upper bound by values fixed while the scan
// runs (constants, parameters, variables) make one range, as in
// PostgreSQL's clauselist_selectivity: with both known the rows between them (lo + hi - 1 of the
// non-NULL share), else kRange; each other condition multiplies in independently.
double CardinalityModel::selectivity(const std::vector<const Expr*>& conjuncts) const {
  struct Range {
    const IU* column;
    std::optional<Inequality> lower, upper;  // the tighter bound of each side
  };
  std::vector<Range> ranges;
  double s = 1;
  for (const Expr* e : conjuncts) {
    Inequality q;
    if (!inequality(*e, q) || !q.constant) {
      s *= selectivity(*e);
      continue;
    }
    auto r = std::find_if(ranges.begin(), ranges.end(), [&](const Range& x) { return x.column == q.column; });
    if (r == ranges.end()) r = ranges.insert(ranges.end(), Range{q.column, {}, {}});
    std::optional<Inequality>& side = q.lower ? r->lower : r->upper;
    if (!side || q.share() < side->share()) side = q;
  }
  for (const Range& r : ranges) {
    if (!r.lower || !r.upper) {
      s *= (r.lower ? r.lower : r.upper)->share();
      continue;
    }
    const Inequality &lo = *r.lower, &hi = *r.upper;
    if (lo.known && hi.known)
      s *= std::max((lo.fraction + hi.fraction - 1) * lo.notNull, 1e-4);
    else
      s *= std::min({kRange, lo.share(), hi.share()});
  }
  return s;
}

double CardinalityModel::selectivity(const Expr& e) const {
  switch (e.kind) {
    case ExprKind::And: {
      std::vector<const Expr*> parts;
      for (auto& a : e.args) parts.push_back(a.get());
      return selectivity(parts);
    }
    case ExprKind::Or: {
      double none = 1;
      for (auto& a : e.args) none *= 1 - selectivity(*a);
      return 1 - none;
    }
    case ExprKind::Not: return 1 - selectivity(*e.args[0]);
    case ExprKind::Compare: {
      const Expr* col = e.args[0].get();
      const Expr* other = e.args[1].get();
      CmpOp op = e.cmp;
      if (!stats(*col) && stats(*other)) {
        std::swap(col, other);
        op = mirrored(op);
      }
      const ColumnStatistics* s = stats(*col);
      if (op == CmpOp::Eq || op == CmpOp::Ne) {
        double eq = 0.1;
        if (s) {
          const ColumnStatistics* t = stats(*other);
          eq = (1 - s->nullFraction) / std::max(1.0, t ? std::max(s->distinct, t->distinct) : s->distinct);
        }
        return op == CmpOp::Eq ? eq : 1 - eq;
      }
      Inequality q;
      return inequality(e, q) ? q.share() : kInequality;
    }
    case ExprKind::IsNull: {
      const ColumnStatistics* s = stats(*e.args[0]);
      double n = s ? s->nullFraction : 0.05;
      return e.negated ? 1 - n : n;
    }
    case ExprKind::InList: {
      const ColumnStatistics* s = stats(*e.args[0]);
      double per = s ? 1 / std::max(1.0, s->distinct) : 0.1;
      double in = std::min(1.0, per * static_cast<double>(e.args.size() - 1));
      return e.negated ? 1 - in : in;
    }
    case ExprKind::Like: return e.negated ? 0.9 : 0.1;
    case ExprKind::Constant: return !e.value.isNull() && e.value.asBool() ? 1.0 : 0.0;
    default: return 0.5;
  }
}

double CardinalityModel::uniqueTableRows(const std::vector<const Expr*>& keys) const {
  const TableScan* scan = nullptr;
  std::vector<uint32_t> cols;
  for (const Expr* k : keys) {
    while (k->kind == ExprKind::Cast) k = k->args[0].get();
    if (k->kind != ExprKind::Column) continue;
    auto it = scanned_.find(k->iu);
    if (it == scanned_.end() || (scan && scan != it->second.scan)) continue;
    scan = it->second.scan;
    cols.push_back(it->second.index);
  }
  if (!scan || scan->table->primaryKey().empty()) return 0;
  for (uint32_t pk : scan->table->primaryKey())
    if (std::find(cols.begin(), cols.end(), pk) == cols.end()) return 0;
  return static_cast<double>(scan->table->rowCount());
}

double CardinalityModel::joinDivisor(const std::vector<const Expr*>& a, double ra, const std::vector<const Expr*>& b,
                                     double rb) const {
  double ua = uniqueTableRows(a), ub = uniqueTableRows(b);
  if (ua || ub) return std::max(1.0, std::max(ua, ub));
  // Independent keys, each by containment of the smaller value set in the larger. A computed key
  // (mod(s_w_id * s_i_id, 10000), ascii(substring(c_state, 1, 1))) has only an upper bound on its
  // distinct values, the product of its columns'; beside a column with statistics its values are
  // taken to lie in that column's, as a foreign key's do.
  double d = 1;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool ca = a[i]->kind == ExprKind::Column, cb = b[i]->kind == ExprKind::Column;
    const double da = distinct(*a[i], ra), db = distinct(*b[i], rb);
    if (ca != cb && stats(ca ? *a[i] : *b[i]))
      d *= ca ? da : db;
    else
      d *= std::max(da, db);
  }
  return std::max(1.0, std::min(d, std::max(ra, rb)));
}

double CardinalityModel::joinRows(double l, double r, const std::vector<Join::Key>& keys, const Expr* residual) const {
  double rows = l * r;
  if (!keys.empty()) {
    std::vector<const Expr*> a, b;
    for (auto& k : keys) a.push_back(k.left.get()), b.push_back(k.right.get());
    rows /= joinDivisor(a, l, b, r);
  }
  if (residual) rows *= selectivity(*residual);
  return std::max(rows, 1.0);
}

void CardinalityModel::estimate(Operator& op) {
  if (op.kind == OpKind::With) {  // each WITH query before the query that reads it
    auto& w = static_cast<With&>(op);
    for (size_t i = 0; i < op.children.size(); ++i) {
      estimate(*op.children[i]);
      if (i < w.ctes.size()) cteRows_[w.ctes[i].id] = op.children[i]->estimatedRows;
    }
    op.estimatedRows = op.children.back()->estimatedRows;
    return;
  }
  for (auto& c : op.children) estimate(*c);
  switch (op.kind) {
    case OpKind::TableScan: {
      auto& scan = static_cast<TableScan&>(op);
      double rows = static_cast<double>(scan.table->rowCount());
      if (scan.index && !scan.pointLookup()) {
        // A range: the share of rows its conditions keep (join keys of an index join included:
        // then it is the rows per lookup).
        std::vector<const Expr*> conds;
        for (auto& c : scan.indexConditions) conds.push_back(c.get());
        rows *= selectivity(conds);
        rows = std::min(rows, static_cast<double>(scan.limit));
      } else if (scan.index) {
        // A unique key finds one row; otherwise the rows per distinct key.
        double keys = 0;
        if (const TableStatistics* ts = scan.table->statistics())
          for (uint32_t c : scan.index->columns())
            if (c < ts->columns.size() && ts->columns[c].distinct > 0) keys = std::max(keys, ts->columns[c].distinct);
        rows = scan.index->unique() ? 1 : keys > 0 ? rows / keys : rows * 0.01;
      }
      op.estimatedRows = std::max(rows, 1.0);
      break;
    }
    case OpKind::Values: op.estimatedRows = static_cast<double>(static_cast<Values&>(op).rows.size()); break;
    case OpKind::Filter:
      op.estimatedRows = std::max(1.0, op.child()->estimatedRows * selectivity(*static_cast<Filter&>(op).predicate));
      capValues(*static_cast<Filter&>(op).predicate);
      break;
    case OpKind::Map: op.estimatedRows = op.child()->estimatedRows; break;
    case OpKind::Sort: {
      // Keeping at most partitionLimit rows of each partition: as many as the partitions allow.
      auto& s = static_cast<Sort&>(op);
      double in = op.child()->estimatedRows, partitions = 1;
      for (size_t k = 0; k < s.partitionKeys; ++k) partitions *= distinct(*s.keys[k].expr, in);
      op.estimatedRows = s.partitionLimit == UINT64_MAX || s.partitionKeys == 0
                             ? in
                             : std::max(1.0, std::min(in, partitions * static_cast<double>(s.partitionLimit)));
      break;
    }
    case OpKind::Expand: op.estimatedRows = op.child()->estimatedRows * expandedRows(static_cast<Expand&>(op)); break;
    case OpKind::Join: {
      auto& j = static_cast<Join&>(op);
      double l = op.child(0)->estimatedRows, r = op.child(1)->estimatedRows;
      switch (j.kind) {
        case JoinKind::Inner: op.estimatedRows = joinRows(l, r, j.keys, j.residual.get()); break;
        case JoinKind::LeftOuter: op.estimatedRows = std::max(l, joinRows(l, r, j.keys, j.residual.get())); break;
        case JoinKind::FullOuter: op.estimatedRows = std::max({r, l, joinRows(l, r, j.keys, j.residual.get())}); break;
        case JoinKind::Mark: op.estimatedRows = l; break;
        case JoinKind::Semi:
        case JoinKind::Anti: {
          // The left rows whose key value the right side has (its share of the key's values).
          double share = 0.5;
          if (!j.keys.empty()) {
            double dr = distinct(*j.keys[0].right, r), dl = distinct(*j.keys[0].left, l);
            share = std::min(1.0, dr / dl);
          }
          op.estimatedRows = std::max(1.0, l * (j.kind == JoinKind::Semi ? share : 1 - share));
          break;
        }
        default: break;  // the Right kinds are physical only
      }
      break;
    }
    case OpKind::HashJoin: break;  // made by the physical planner, after estimation: the Join's estimate
    case OpKind::IndexJoin: {
      auto& j = static_cast<IndexJoin&>(op);
      op.estimatedRows = op.child(0)->estimatedRows * op.child(1)->estimatedRows;  // the inner: rows per lookup
      if (j.residual) op.estimatedRows *= selectivity(*j.residual);
      op.estimatedRows = std::max(1.0, op.estimatedRows);
      break;
    }
    case OpKind::Aggregate: {
      auto& a = static_cast<Aggregate&>(op);
      double in = op.child()->estimatedRows;
      double groups = 1;
      for (auto& g : a.groups) groups *= distinct(*g.expr, in);
      op.estimatedRows = a.groups.empty() ? 1 : std::max(1.0, std::min(in, groups));
      for (auto& g : a.groups) groupCounts_[g.iu] = distinct(*g.expr, in);
      break;
    }
    case OpKind::CteScan: {  // the WITH query's estimate (a guess when estimated apart from it)
      auto it = cteRows_.find(static_cast<CteScan&>(op).cte);
      op.estimatedRows = it != cteRows_.end() ? it->second : 1000;
      break;
    }
    case OpKind::With: break;  // above
    case OpKind::UnionAll:
      op.estimatedRows = 0;
      for (auto& c : op.children) op.estimatedRows += c->estimatedRows;
      break;
    case OpKind::Limit: {
      auto& l = static_cast<Limit&>(op);
      double in = std::max(0.0, op.child()->estimatedRows - static_cast<double>(l.offset));
      op.estimatedRows = l.limit == UINT64_MAX ? in : std::min(in, static_cast<double>(l.limit));
      break;
    }
  }
}

}  // namespace hyrax::sql
