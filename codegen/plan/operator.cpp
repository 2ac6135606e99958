#include "codegen/plan/operator.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/index/index.hpp"
#include "engine/storage/table.hpp"

namespace hyrax::plan {

std::vector<const IU*> TableScan::produced() const {
  std::vector<const IU*> r;
  for (auto& c : columns) r.push_back(c.iu);
  return r;
}

bool TableScan::pointLookup() const { return index && lookupKey.size() == index->columns().size(); }

std::vector<const IU*> CteScan::produced() const {
  std::vector<const IU*> r;
  for (auto& c : columns) r.push_back(c.iu);
  return r;
}

std::vector<const IU*> IndexJoin::produced() const {
  auto r = child(0)->produced();
  auto inner = child(1)->produced();
  r.insert(r.end(), inner.begin(), inner.end());
  return r;
}

std::vector<const IU*> Expand::produced() const {
  auto r = child()->produced();
  r.push_back(iu);
  if (ordinality) r.push_back(ordinality);
  return r;
}

std::vector<const IU*> Map::produced() const {
  auto r = child()->produced();
  for (auto& c : computed) r.push_back(c.iu);
  return r;
}

namespace {

// A join's output: the rows of the side it preserves (`kept`), and of the other side (`other`) for
// the kinds that pass it on, as their outer copies where they may be missing.
std::vector<const IU*> joinOutput(const JoinBase& j, const Operator& kept, const Operator& other) {
  auto r = kept.produced();
  switch (j.kind) {
    case JoinKind::Inner: {
      auto b = other.produced();
      r.insert(r.end(), b.begin(), b.end());
      break;
    }
    case JoinKind::LeftOuter:
    case JoinKind::RightOuter:
      for (auto& c : j.outerColumns) r.push_back(c.outer);
      break;
    case JoinKind::FullOuter:
      r.clear();
      for (auto& c : j.outerColumns) r.push_back(c.outer);
      break;
    case JoinKind::Mark: r.push_back(j.mark); break;
    case JoinKind::Semi:
    case JoinKind::Anti:
    case JoinKind::RightSemi:
    case JoinKind::RightAnti: break;
  }
  return r;
}

bool preservesBuildSide(JoinKind k) {
  return k == JoinKind::RightSemi || k == JoinKind::RightAnti || k == JoinKind::RightOuter;
}

}  // namespace

std::vector<const IU*> HashJoin::produced() const {
  return preservesBuildSide(kind) ? joinOutput(*this, *child(0), *child(1)) : joinOutput(*this, *child(1), *child(0));
}

std::vector<const IU*> Join::produced() const { return joinOutput(*this, *child(0), *child(1)); }

const char* toString(JoinKind k) {
  switch (k) {
    case JoinKind::Inner: return "HashJoin";
    case JoinKind::LeftOuter: return "HashLeftOuterJoin";
    case JoinKind::FullOuter: return "HashFullOuterJoin";
    case JoinKind::Semi: return "HashSemiJoin";
    case JoinKind::Anti: return "HashAntiJoin";
    case JoinKind::Mark: return "HashMarkJoin";
    case JoinKind::RightSemi: return "HashRightSemiJoin";
    case JoinKind::RightAnti: return "HashRightAntiJoin";
    case JoinKind::RightOuter: return "HashRightOuterJoin";
  }
  return "?";
}

std::vector<const IU*> Aggregate::produced() const {
  std::vector<const IU*> r;
  for (auto& g : groups) r.push_back(g.iu);
  for (auto& a : aggregates) r.push_back(a.iu);
  return r;
}

const char* toString(AggFunc f) {
  switch (f) {
    case AggFunc::CountStar: return "count(*)";
    case AggFunc::Count: return "count";
    case AggFunc::Sum: return "sum";
    case AggFunc::Avg: return "avg";
    case AggFunc::Min: return "min";
    case AggFunc::Max: return "max";
    case AggFunc::ArrayAgg: return "array_agg";
    case AggFunc::VarSamp: return "var_samp";
    case AggFunc::VarPop: return "var_pop";
    case AggFunc::StddevSamp: return "stddev_samp";
    case AggFunc::StddevPop: return "stddev_pop";
  }
  return "?";
}

const char* toString(WindowFunc f) {
  switch (f) {
    case WindowFunc::RowNumber: return "row_number";
    case WindowFunc::Rank: return "rank";
    case WindowFunc::DenseRank: return "dense_rank";
    case WindowFunc::PercentRank: return "percent_rank";
    case WindowFunc::CumeDist: return "cume_dist";
    case WindowFunc::Ntile: return "ntile";
    case WindowFunc::Lag: return "lag";
    case WindowFunc::Lead: return "lead";
    case WindowFunc::FirstValue: return "first_value";
    case WindowFunc::LastValue: return "last_value";
    case WindowFunc::NthValue: return "nth_value";
    case WindowFunc::Aggregate: return "aggregate";
  }
  return "?";
}

SqlType aggregateResultType(AggFunc f, const SqlType& arg) {
  switch (f) {
    case AggFunc::CountStar:
    case AggFunc::Count: return SqlType::int64(false);
    case AggFunc::Sum:
      if (arg.isInteger()) return SqlType::int64(true);
      if (arg.id == TypeId::Decimal) return SqlType::decimal(18, arg.scale, true);
      return SqlType::float64(true);
    case AggFunc::Avg:
      // An average of 16- or 32-bit integers always fits DECIMAL(18,6); one of 64-bit integers
      // (microsecond timestamps, counts, ids) may pass 9.2e12, past which no DECIMAL of 18 digits
      // with a fraction holds it, so it is a double (as in DuckDB and Hyper; PostgreSQL's numeric
      // has no bound).
      if (arg.isInteger()) return arg.byteWidth() == 8 ? SqlType::float64(true) : SqlType::decimal(18, 6, true);
      if (arg.id == TypeId::Decimal) return SqlType::decimal(18, std::max<uint8_t>(arg.scale, 6), true);
      return SqlType::float64(true);
    case AggFunc::Min:
    case AggFunc::Max: return arg.withNullable(true);
    case AggFunc::ArrayAgg: return SqlType::array(arg.isInteger() ? arg.id : TypeId::Text, 0, true);
    case AggFunc::VarSamp:
    case AggFunc::VarPop:
    case AggFunc::StddevSamp:
    case AggFunc::StddevPop: return SqlType::float64(true);
  }
  return arg;
}

void forEachExpr(Operator& op, const std::function<void(ExprPtr&)>& fn) {
  auto visit = [&](ExprPtr& e) {
    if (e) fn(e);
  };
  switch (op.kind) {
    case OpKind::TableScan: {
      auto& s = static_cast<TableScan&>(op);
      for (auto& k : s.lookupKey) visit(k);
      visit(s.low.value);
      visit(s.high.value);
      for (auto& c : s.indexConditions) visit(c);
      break;
    }
    case OpKind::Values:
      for (auto& row : static_cast<Values&>(op).rows)
        for (auto& e : row) visit(e);
      break;
    case OpKind::Filter: visit(static_cast<Filter&>(op).predicate); break;
    case OpKind::Map:
      for (auto& c : static_cast<Map&>(op).computed) visit(c.expr);
      break;
    case OpKind::Expand:
      for (auto& a : static_cast<Expand&>(op).args) visit(a);
      break;
    case OpKind::Join:
    case OpKind::HashJoin: {
      if (op.kind == OpKind::Join)
        for (auto& k : static_cast<Join&>(op).keys) visit(k.left), visit(k.right);
      else
        for (auto& k : static_cast<HashJoin&>(op).keys) visit(k.build), visit(k.probe);
      auto& j = static_cast<JoinBase&>(op);
      visit(j.residual);
      visit(j.markCondition);
      break;
    }
    case OpKind::IndexJoin: visit(static_cast<IndexJoin&>(op).residual); break;
    case OpKind::Aggregate: {
      auto& a = static_cast<Aggregate&>(op);
      for (auto& g : a.groups) visit(g.expr);
      for (auto& g : a.aggregates) visit(g.arg);
      for (auto& k : a.inputOrder) visit(k.expr);
      break;
    }
    case OpKind::Sort:
      for (auto& k : static_cast<Sort&>(op).keys) visit(k.expr);
      for (auto& w : static_cast<Sort&>(op).windows)
        for (auto& a : w.args) visit(a);
      break;
    case OpKind::Limit:
      visit(static_cast<Limit&>(op).limitExpr);
      visit(static_cast<Limit&>(op).offsetExpr);
      break;
    case OpKind::UnionAll:
    case OpKind::CteScan:
    case OpKind::With: break;
  }
}

std::vector<Table*> tablesScanned(const Operator& root) {
  std::vector<Table*> out;
  auto visit = [&](auto& self, const Operator& op) -> void {
    if (op.kind == OpKind::TableScan) {
      Table* t = static_cast<const TableScan&>(op).table;
      if (t && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    }
    for (auto& c : op.children) self(self, *c);
  };
  visit(visit, root);
  return out;
}

uint32_t numberOperators(Operator& root) {
  uint32_t next = 0;
  auto visit = [&](auto& self, Operator& op) -> void {
    op.id = next++;
    for (auto& c : op.children) self(self, *c);
  };
  visit(visit, root);
  return next;
}

namespace {

const char* logicalName(JoinKind k) {
  switch (k) {
    case JoinKind::Inner: return "Join";
    case JoinKind::LeftOuter: return "LeftOuterJoin";
    case JoinKind::FullOuter: return "FullOuterJoin";
    case JoinKind::Semi: return "SemiJoin";
    case JoinKind::Anti: return "AntiJoin";
    case JoinKind::Mark: return "MarkJoin";
    default: return toString(k);  // not a logical kind
  }
}

std::string describeJoin(const char* name, const JoinBase& j, const std::vector<std::pair<const Expr*, const Expr*>>& keys) {
  std::string r = name;
  if (j.kind == JoinKind::Mark) r += " " + j.mark->name;
  for (size_t i = 0; i < keys.size(); ++i) r += (i ? " AND " : " ") + toString(*keys[i].first) + " = " + toString(*keys[i].second);
  if (j.residual) r += " [residual " + toString(*j.residual) + "]";
  if (j.markCondition) r += " [mark " + toString(*j.markCondition) + "]";
  return r;
}

std::string describe(const Operator& op) {
  switch (op.kind) {
    case OpKind::TableScan: {
      auto& s = static_cast<const TableScan&>(op);
      std::string r = (!s.index ? "TableScan " : s.pointLookup() ? "IndexLookup " : "IndexRangeScan ") + s.table->name();
      if (!s.alias.empty() && s.alias != s.table->name()) r += " AS " + s.alias;
      if (s.index) {
        r += " USING " + s.index->name() + " (";
        if (s.pointLookup()) {
          for (size_t i = 0; i < s.lookupKey.size(); ++i) r += (i ? ", " : "") + toString(*s.lookupKey[i]);
        } else {
          for (size_t i = 0; i < s.indexConditions.size(); ++i) r += (i ? " AND " : "") + toString(*s.indexConditions[i]);
        }
        r += ")";
        if (s.limit == 1) r += s.reverse ? " last row" : " first row";
        else if (s.limit != UINT64_MAX) r += fmt::format(" {} {} rows", s.reverse ? "last" : "first", s.limit);
        else if (s.reverse) r += " descending";
      }
      return r;
    }
    case OpKind::Values:
      return fmt::format("Values ({} rows)", static_cast<const Values&>(op).rows.size());
    case OpKind::Filter: return "Filter " + toString(*static_cast<const Filter&>(op).predicate);
    case OpKind::Expand: {
      auto& x = static_cast<const Expand&>(op);
      std::string r = "Expand " + x.iu->name + ":=" +
                      (x.function == Expand::Function::Unnest ? "unnest(" : "generate_series(");
      for (size_t i = 0; i < x.args.size(); ++i) r += (i ? ", " : "") + toString(*x.args[i]);
      return r + ")";
    }
    case OpKind::Map: {
      std::string r = "Map";
      for (auto& c : static_cast<const Map&>(op).computed) r += " " + c.iu->name + ":=" + toString(*c.expr);
      return r;
    }
    case OpKind::Join: {
      auto& j = static_cast<const Join&>(op);
      std::vector<std::pair<const Expr*, const Expr*>> keys;
      for (auto& k : j.keys) keys.push_back({k.left.get(), k.right.get()});
      return describeJoin(logicalName(j.kind), j, keys);
    }
    case OpKind::HashJoin: {
      auto& j = static_cast<const HashJoin&>(op);
      std::vector<std::pair<const Expr*, const Expr*>> keys;
      for (auto& k : j.keys) keys.push_back({k.build.get(), k.probe.get()});
      return describeJoin(toString(j.kind), j, keys) + (j.nullAwareKey ? " [NULL-aware]" : "");
    }
    case OpKind::IndexJoin: {
      auto& j = static_cast<const IndexJoin&>(op);
      return j.residual ? "IndexNestedLoopJoin [residual " + toString(*j.residual) + "]" : "IndexNestedLoopJoin";
    }
    case OpKind::Aggregate: {
      auto& a = static_cast<const Aggregate&>(op);
      std::string r = a.aggregates.empty() ? "HashAggregate (distinct)" : "HashAggregate";
      if (!a.groups.empty()) {
        r += " group by";
        for (size_t i = 0; i < a.groups.size(); ++i) r += (i ? ", " : " ") + toString(*a.groups[i].expr);
      }
      for (auto& g : a.aggregates) {
        r += " " + g.iu->name + ":=" + toString(g.func);
        if (g.arg) r += "(" + toString(*g.arg) + ")";
      }
      return r;
    }
    case OpKind::Sort: {
      std::string r = "Sort";
      for (auto& k : static_cast<const Sort&>(op).keys)
        r += " " + toString(*k.expr) + (k.descending ? " DESC" : "") + (k.nullsFirst ? " NULLS FIRST" : "");
      auto& s = static_cast<const Sort&>(op);
      if (s.limit != UINT64_MAX) r += fmt::format(" (top {})", s.limit);
      if (s.partitionKeys) {
        r += fmt::format(" (per value of the first {}:", s.partitionKeys);
        if (s.partitionOffset) r += fmt::format(" offset {}", s.partitionOffset);
        if (s.partitionLimit != UINT64_MAX) r += fmt::format(" limit {}", s.partitionLimit);
        if (s.rank) r += fmt::format(" rank as {}", s.rank->name);
        r += ")";
      }
      for (auto& w : s.windows) {
        r += fmt::format(" {}(", w.func == WindowFunc::Aggregate ? toString(w.aggregate) : toString(w.func));
        for (size_t i = 0; i < w.args.size(); ++i) r += (i ? ", " : "") + toString(*w.args[i]);
        auto bound = [](const WindowBound& b) {
          switch (b.kind) {
            case WindowBound::Kind::UnboundedPreceding: return std::string("unbounded preceding");
            case WindowBound::Kind::Preceding: return fmt::format("{} preceding", b.offset);
            case WindowBound::Kind::CurrentRow: return std::string("current row");
            case WindowBound::Kind::Following: return fmt::format("{} following", b.offset);
            case WindowBound::Kind::UnboundedFollowing: return std::string("unbounded following");
          }
          return std::string("?");
        };
        const bool usual = !w.rows && w.start.kind == WindowBound::Kind::UnboundedPreceding &&
                           w.end.kind == WindowBound::Kind::CurrentRow;
        r += fmt::format("){} as {}", usual ? "" : fmt::format(" {} {} to {}", w.rows ? "rows" : "range", bound(w.start), bound(w.end)),
                         w.iu->name);
      }
      return r;
    }
    case OpKind::UnionAll: return "UnionAll";
    case OpKind::CteScan: {
      auto& c = static_cast<const CteScan&>(op);
      return "CteScan " + c.name + (c.alias.empty() || c.alias == c.name ? "" : " AS " + c.alias);
    }
    case OpKind::With: return "With";  // explain() names each WITH query above its plan
    case OpKind::Limit: {
      auto& l = static_cast<const Limit&>(op);
      std::string r = "Limit";
      if (l.limit != UINT64_MAX) r += fmt::format(" {}", l.limit);
      if (l.limitExpr) r += " " + toString(*l.limitExpr);
      if (l.offset) r += fmt::format(" offset {}", l.offset);
      if (l.offsetExpr) r += " offset " + toString(*l.offsetExpr);
      return r;
    }
  }
  return "?";
}

}  // namespace

std::string explain(const QueryPlan& plan, const std::vector<uint64_t>* actualRows) {
  std::string out;
  auto line = [&](const std::string& what, const Operator& op, int depth) {
    out += std::string(depth * 2, ' ');
    if (depth) out += "-> ";
    out += what;
    out += fmt::format("  (rows={:.0f}", op.estimatedRows);
    if (actualRows && op.id < actualRows->size()) out += fmt::format(" actual={}", (*actualRows)[op.id]);
    out += ")\n";
  };
  auto visit = [&](auto& self, const Operator& op, int depth) -> void {
    line(describe(op), op, depth);
    if (op.kind != OpKind::With) {
      for (auto& c : op.children) self(self, *c, depth + 1);
      return;
    }
    // A WITH query computed once: a line with its name and columns, its plan under it.
    auto& w = static_cast<const With&>(op);
    for (size_t i = 0; i < w.ctes.size(); ++i) {
      std::string what = "Materialize " + w.ctes[i].name + " (";
      for (size_t k = 0; k < w.ctes[i].columns.size(); ++k) what += (k ? ", " : "") + w.ctes[i].columns[k]->name;
      line(what + ")", *op.children[i], depth + 1);
      self(self, *op.children[i], depth + 2);
    }
    self(self, *op.children.back(), depth + 1);
  };
  if (plan.root) visit(visit, *plan.root, 0);
  return out;
}

}  // namespace hyrax::plan
