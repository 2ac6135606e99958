// Index selection. A filter over a table scan whose conjuncts fix all of an index's columns to
// values known before the scan (constants, parameters, expressions of them) becomes a point
// lookup. On an ordered index, equalities on a prefix of its columns and bounds (<, <=, >, >=) on
// the next one become a range scan, where the estimate says it reads at most a quarter of the
// table. The conjuncts the index answers leave the filter.
//
// For the physical planner: an inner join with few rows on one side and a table scan on the other
// becomes an index nested-loop join when an index of that table is fixed by the join keys (and
// constants): TPC-C's Stock-Level looks up 200 stock rows instead of hashing 100,000.
#include <algorithm>
#include <optional>

#include "engine/index/index.hpp"
#include "engine/storage/table.hpp"
#include "sql/optimizer/cardinality.hpp"
#include "sql/optimizer/optimizer.hpp"

namespace hyrax::sql {

using namespace plan;

namespace {

// A range scan must read at most this share of the table to beat scanning it.
constexpr double kRangeShare = 0.25;
// An index lookup per outer row costs about as much as scanning this many rows; a range or
// prefix scan per outer row (the rows of one order in lineitem's key) about three times that:
// TPC-H Q3 ran 115 ms with one for each of 147,000 orders, 81 ms with a hash join.
constexpr double kLookupCost = 20;
constexpr double kRangeLookupCost = 60;

// Can a value of type `v` serve as a key of a column of type `c`? Integers of any width (the
// generated code clamps), strings of any length, otherwise one representation.
bool keyCompatible(const SqlType& v, const SqlType& c) {
  if (v.isInteger() && c.isInteger()) return true;
  if (v.isString() && c.isString()) return true;
  if (v.id == TypeId::Decimal) return c.id == TypeId::Decimal && v.scale == c.scale;
  return v.id == c.id && v.id != TypeId::Null;
}

// `e` without a cast that keeps every value distinct and in order (a wider integer; with
// `strings`, also a string type, which equality and byte order ignore).
const Expr* uncast(const Expr* e, bool strings) {
  if (e->kind != ExprKind::Cast) return e;
  const SqlType& from = e->args[0]->type;
  bool widening = (e->type.isInteger() && from.isInteger() && e->type.byteWidth() >= from.byteWidth()) ||
                  (strings && e->type.isString() && from.isString());
  return widening ? e->args[0].get() : e;
}

// What one conjunct says about one indexed table column: column op value.
struct ColumnCondition {
  uint32_t column;
  CmpOp op;
  const Expr* value;
  size_t conjunct;
};

// `col op value` (either way round) with col a column of the scan, possibly behind a cast that
// keeps every value distinct (a wider integer, a string), and value reading only `known` IUs.
std::optional<ColumnCondition> columnCondition(const Expr& e, const TableScan& scan, const IURefs& known, size_t conjunct) {
  if (e.kind != ExprKind::Compare || e.cmp == CmpOp::Ne) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const Expr* c = uncast(e.args[side].get(), true);
    if (c->kind != ExprKind::Column) continue;
    const Expr& value = *e.args[1 - side];
    if (!readsOnly(value, known)) continue;
    for (auto& sc : scan.columns) {
      if (sc.iu != c->iu || sc.index == TableScan::kRowNumber) continue;
      if (!keyCompatible(value.type, scan.table->columns()[sc.index].type)) return std::nullopt;
      return ColumnCondition{sc.index, side == 0 ? e.cmp : mirrored(e.cmp), &value, conjunct};
    }
  }
  return std::nullopt;
}

// How one index would serve a set of conditions.
struct IndexUse {
  const Index* index = nullptr;
  std::vector<const ColumnCondition*> equal;  // one per leading index column
  const ColumnCondition* low = nullptr;
  const ColumnCondition* high = nullptr;
  bool point() const { return equal.size() == index->columns().size(); }
  std::vector<size_t> conjuncts() const {
    std::vector<size_t> r;
    for (auto* c : equal) r.push_back(c->conjunct);
    if (low) r.push_back(low->conjunct);
    if (high) r.push_back(high->conjunct);
    return r;
  }
};

std::optional<IndexUse> useOf(const Table& table, const Index& index, const std::vector<ColumnCondition>& conds) {
  IndexUse u;
  u.index = &index;
  for (uint32_t col : index.columns()) {
    auto it = std::find_if(conds.begin(), conds.end(), [&](auto& c) { return c.column == col && c.op == CmpOp::Eq; });
    if (it == conds.end()) break;
    u.equal.push_back(&*it);
  }
  if (u.point()) return u;
  if (!index.ordered()) return std::nullopt;
  uint32_t next = index.columns()[u.equal.size()];
  for (auto& c : conds) {
    if (c.column != next) continue;
    if (!u.low && (c.op == CmpOp::Gt || c.op == CmpOp::Ge)) u.low = &c;
    if (!u.high && (c.op == CmpOp::Lt || c.op == CmpOp::Le)) u.high = &c;
  }
  if (u.equal.empty() && !u.low && !u.high) return std::nullopt;
  // Rows with a NULL key column are not in the index, yet such a row matches when the NULL is in
  // a column the conditions leave free (a = 1 on (a, b) holds for (1, NULL)): a range serves only
  // when those columns are NOT NULL.
  for (size_t i = u.equal.size() + (u.low || u.high ? 1 : 0); i < index.columns().size(); ++i)
    if (table.columns()[index.columns()[i]].type.nullable) return std::nullopt;
  return u;
}

// The best index for the conditions: the one expected to read the fewest rows (`share` of the
// table; a unique point lookup reads one), on a tie the one fixing more columns. `usable` rules
// out ranges that would read too much.
std::optional<IndexUse> bestIndex(const TableScan& scan, const std::vector<ColumnCondition>& conds,
                                  const std::function<double(const IndexUse&)>& share,
                                  const std::function<bool(double)>& usable) {
  std::optional<IndexUse> best;
  double bestShare = 0;
  auto columns = [](const IndexUse& u) { return u.equal.size() * 2 + (u.low ? 1 : 0) + (u.high ? 1 : 0); };
  for (auto& idx : scan.table->indexes()) {
    auto u = useOf(*scan.table, *idx, conds);
    if (!u) continue;
    double s = u->point() && idx->unique() ? 0 : share(*u);
    if (!u->point() && !usable(s)) continue;
    if (!best || s < bestShare || (s == bestShare && columns(*u) > columns(*best))) {
      best = u;
      bestShare = s;
    }
  }
  return best;
}

// Makes `scan` read through `use`; returns the conjuncts left over.
std::vector<ExprPtr> applyIndex(TableScan& scan, const IndexUse& use, std::vector<ExprPtr> parts) {
  scan.index = use.index;
  scan.lookupKey.clear();
  for (auto* c : use.equal) scan.lookupKey.push_back(c->value->clone());
  auto bound = [](const ColumnCondition* c) {
    TableScan::Bound b;
    if (c) {
      b.value = c->value->clone();
      b.inclusive = c->op == CmpOp::Le || c->op == CmpOp::Ge;
    }
    return b;
  };
  scan.low = bound(use.low);
  scan.high = bound(use.high);
  std::vector<size_t> used = use.conjuncts();
  std::vector<ExprPtr> rest;
  scan.indexConditions.clear();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (std::find(used.begin(), used.end(), i) != used.end())
      scan.indexConditions.push_back(std::move(parts[i]));
    else
      rest.push_back(std::move(parts[i]));
  }
  return rest;
}

std::vector<ColumnCondition> conditionsOf(const std::vector<ExprPtr>& parts, const TableScan& scan, const IURefs& known) {
  std::vector<ColumnCondition> conds;
  for (size_t i = 0; i < parts.size(); ++i)
    if (auto c = columnCondition(*parts[i], scan, known, i)) conds.push_back(*c);
  return conds;
}

double shareOf(const IndexUse& u, const std::vector<ExprPtr>& parts, const CardinalityModel& model) {
  std::vector<const Expr*> conds;
  for (size_t i : u.conjuncts()) conds.push_back(parts[i].get());
  return model.selectivity(conds);
}

void select(OperatorPtr& ptr, const CardinalityModel& model) {
  for (auto& c : ptr->children) select(c, model);
  if (ptr->kind != OpKind::Filter || ptr->child()->kind != OpKind::TableScan) return;
  auto& filter = static_cast<Filter&>(*ptr);
  auto& scan = static_cast<TableScan&>(*ptr->child());
  if (scan.index || scan.table->indexes().empty()) return;
  std::vector<ExprPtr> parts;
  splitConjuncts(filter.predicate->clone(), parts);
  std::vector<ColumnCondition> conds = conditionsOf(parts, scan, {});
  auto use = bestIndex(
      scan, conds, [&](const IndexUse& u) { return shareOf(u, parts, model); }, [](double s) { return s <= kRangeShare; });
  if (!use) return;
  std::vector<ExprPtr> rest = applyIndex(scan, *use, std::move(parts));
  if (rest.empty()) {
    ptr = std::move(ptr->children[0]);
    return;
  }
  filter.predicate = conjunction(std::move(rest));
}

// MIN(c) or MAX(c), alone and without groups, over a range scan whose next index column is c:
// the first (last) row of the range holds the answer, since rows with a NULL key column are not
// in the index (TPC-C Delivery's oldest new order of a district).
void firstRows(Operator& op) {
  for (auto& c : op.children) firstRows(*c);
  if (op.kind != OpKind::Aggregate || op.child()->kind != OpKind::TableScan) return;
  auto& agg = static_cast<Aggregate&>(op);
  auto& scan = static_cast<TableScan&>(*op.child());
  if (!agg.groups.empty() || agg.aggregates.size() != 1 || !scan.index || !scan.index->ordered() || scan.pointLookup())
    return;
  const Aggregate::Agg& a = agg.aggregates[0];
  if ((a.func != AggFunc::Min && a.func != AggFunc::Max) || a.distinct) return;
  const Expr* arg = uncast(a.arg.get(), false);
  if (arg->kind != ExprKind::Column) return;
  uint32_t next = scan.index->columns()[scan.lookupKey.size()];
  for (auto& c : scan.columns)
    if (c.iu == arg->iu && c.index == next) {
      scan.limit = 1;
      scan.reverse = a.func == AggFunc::Max;
    }
}

// A Sort whose keys are the index columns after a range scan's equalities, all ascending or all
// descending, over nothing but filters and maps, needs no sorting: the scan reads in key order
// (reversed for descending). A LIMIT right above, with only maps between, stops the scan after its
// rows. (Ties keep row order; NULLs cannot occur: the range serves only NOT NULL columns there.)
void indexOrder(OperatorPtr& ptr, Limit* limit) {
  if (ptr->kind == OpKind::Sort) {
    auto& sort = static_cast<Sort&>(*ptr);
    Operator* o = ptr->child();
    bool filtered = false;
    while (o->kind == OpKind::Map || o->kind == OpKind::Filter) {
      filtered = filtered || o->kind == OpKind::Filter;
      o = o->child();
    }
    if (o->kind == OpKind::TableScan) {
      auto& scan = static_cast<TableScan&>(*o);
      bool ordered = scan.index && scan.index->ordered() && !scan.pointLookup() && !sort.keys.empty() &&
                     sort.partitionKeys == 0 &&
                     scan.limit == UINT64_MAX && !scan.reverse;
      size_t next = scan.lookupKey.size();
      std::optional<bool> descending;  // of the first key that is not fixed
      for (size_t k = 0; ordered && k < sort.keys.size(); ++k) {
        const Expr* e = uncast(sort.keys[k].expr.get(), false);
        auto col = std::find_if(scan.columns.begin(), scan.columns.end(),
                                [&](auto& c) { return e->kind == ExprKind::Column && c.iu == e->iu; });
        if (col == scan.columns.end()) {
          ordered = false;
          break;
        }
        const auto& ic = scan.index->columns();
        auto fixed = std::find(ic.begin(), ic.begin() + static_cast<long>(scan.lookupKey.size()), col->index);
        if (fixed != ic.begin() + static_cast<long>(scan.lookupKey.size())) continue;  // one value: any order
        if (!descending) descending = sort.keys[k].descending;
        if (next >= ic.size() || ic[next] != col->index || sort.keys[k].descending != *descending) {
          ordered = false;
          break;
        }
        ++next;
      }
      if (ordered && next > scan.lookupKey.size()) {
        scan.reverse = *descending;
        if (limit && !filtered && limit->limit != UINT64_MAX && !limit->runTimeCount()) scan.limit = limit->limit + limit->offset;
        ptr = std::move(ptr->children[0]);
        return indexOrder(ptr, nullptr);
      }
    }
  }
  Limit* l = ptr->kind == OpKind::Limit ? static_cast<Limit*>(ptr.get()) : nullptr;
  for (auto& c : ptr->children) indexOrder(c, l);
}

// The inner side of a would-be index join: a table scan, maybe under a filter, not yet reading
// through an index (a range chosen for its constants is reconsidered with the join keys).
struct InnerSide {
  TableScan* scan = nullptr;
  std::vector<ExprPtr> parts;  // the filter's conjuncts and the index's
};

std::optional<InnerSide> innerSide(Operator& op) {
  InnerSide s;
  Operator* o = &op;
  if (o->kind == OpKind::Filter) {
    splitConjuncts(static_cast<Filter&>(*o).predicate->clone(), s.parts);
    o = o->child();
  }
  if (o->kind != OpKind::TableScan) return std::nullopt;
  s.scan = static_cast<TableScan*>(o);
  if (s.scan->table->indexes().empty() || s.scan->pointLookup()) return std::nullopt;
  for (auto& c : s.scan->indexConditions) s.parts.push_back(c->clone());
  return s;
}

bool tryIndexJoin(OperatorPtr& ptr, size_t innerChild, const CardinalityModel& model) {
  auto& join = static_cast<Join&>(*ptr);
  Operator& outer = *ptr->child(1 - innerChild);
  auto side = innerSide(*ptr->child(innerChild));
  if (!side) return false;
  TableScan& scan = *side->scan;
  // Rows a hash join would read from the inner table against lookups for each outer row.
  double scanned = scan.index ? scan.estimatedRows : static_cast<double>(scan.table->rowCount());
  if (outer.estimatedRows * kLookupCost >= scanned) return false;  // even point lookups lose
  std::vector<ExprPtr> parts = std::move(side->parts);
  size_t firstKey = parts.size();
  for (auto& k : join.keys) {
    const ExprPtr& inner = innerChild == 0 ? k.left : k.right;
    const ExprPtr& other = innerChild == 0 ? k.right : k.left;
    auto eq = std::make_unique<Expr>(ExprKind::Compare, SqlType::boolean(), inner->pos);
    eq->cmp = CmpOp::Eq;
    eq->args.push_back(inner->clone());
    eq->args.push_back(other->clone());
    parts.push_back(std::move(eq));
  }
  IURefs known = outer.producedSet();
  std::vector<ColumnCondition> conds = conditionsOf(parts, scan, known);
  auto use = bestIndex(
      scan, conds, [&](const IndexUse& u) { return shareOf(u, parts, model); }, [](double) { return true; });
  if (!use) return false;
  // Each lookup also reads the rows its index conditions select: a range over a short prefix of
  // the key (CH Q5's order lines of a warehouse, for each stock row) may read a large part of the
  // table for every outer row.
  const double perLookup = static_cast<double>(scan.table->rowCount()) * shareOf(*use, parts, model);
  if (outer.estimatedRows * ((use->point() ? kLookupCost : kRangeLookupCost) + perLookup) >= scanned) return false;
  std::vector<size_t> used = use->conjuncts();
  if (std::none_of(used.begin(), used.end(), [&](size_t i) { return i >= firstKey; })) return false;
  double rows = ptr->estimatedRows;
  std::vector<ExprPtr> rest = applyIndex(scan, *use, std::move(parts));
  if (join.residual) rest.push_back(std::move(join.residual));
  auto ij = std::make_unique<IndexJoin>();
  ij->estimatedRows = rows;
  if (!rest.empty()) ij->residual = conjunction(std::move(rest));
  OperatorPtr outerPtr = std::move(ptr->children[1 - innerChild]);
  OperatorPtr innerPtr = std::move(ptr->children[innerChild]);
  if (innerPtr->kind == OpKind::Filter) innerPtr = std::move(innerPtr->children[0]);  // its conjuncts are in `rest`
  innerPtr->estimatedRows = std::max(1.0, rows / std::max(1.0, outerPtr->estimatedRows));
  ij->children.push_back(std::move(outerPtr));
  ij->children.push_back(std::move(innerPtr));
  ptr = std::move(ij);
  return true;
}

}  // namespace

void selectIndexes(OperatorPtr& root) {
  CardinalityModel model(*root);
  select(root, model);
  firstRows(*root);
  indexOrder(root, nullptr);
}

bool selectIndexJoin(OperatorPtr& join, const CardinalityModel& model) {
  if (join->kind != OpKind::Join || static_cast<Join&>(*join).kind != JoinKind::Inner) return false;
  // Look up into the larger side first (the left one of two alike).
  size_t first = join->child(0)->estimatedRows >= join->child(1)->estimatedRows ? 0 : 1;
  return tryIndexJoin(join, first, model) || tryIndexJoin(join, 1 - first, model);
}

}  // namespace hyrax::sql
