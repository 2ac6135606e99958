// Index selection: a filter right above a table scan whose conjuncts fix every column of one of
// the table's indexes to a value known before the scan runs (a constant or a parameter) turns the scan into an
// index lookup; the other conjuncts stay in the filter. A unique index wins over a non-unique
// one, a longer key over a shorter one. (Range predicates wait for the ordered index.)
#include <algorithm>

#include "engine/index/index.hpp"
#include "engine/storage/table.hpp"
#include "sql/optimizer/optimizer.hpp"

namespace hyrax::sql {

using namespace plan;

namespace {

// The value `other` as a key of a column of type `t`, or nullptr when it cannot serve: it must be
// a non-NULL constant that the column's type holds exactly (`smallint_col = 100000` finds nothing
// and must not fail converting).
ExprPtr keyValue(const Expr& other, const SqlType& t) {
  if (other.kind == ExprKind::Parameter && other.type.sameAs(t)) return other.clone();  // known at run time
  if (other.kind != ExprKind::Constant || other.value.isNull()) return nullptr;
  const Value& v = other.value;
  const SqlType& vt = v.type();
  if (t.isInteger() && vt.isInteger()) {
    int64_t x = v.asInt();
    int64_t lo = t.id == TypeId::Int16 ? INT16_MIN : t.id == TypeId::Int32 ? INT32_MIN : INT64_MIN;
    int64_t hi = t.id == TypeId::Int16 ? INT16_MAX : t.id == TypeId::Int32 ? INT32_MAX : INT64_MAX;
    if (x < lo || x > hi) return nullptr;
    Value k = t.id == TypeId::Int16 ? Value::int16(static_cast<int16_t>(x))
              : t.id == TypeId::Int32 ? Value::int32(static_cast<int32_t>(x)) : Value::int64(x);
    return Expr::constant(k, other.pos);
  }
  if (t.isString() && vt.isString()) return Expr::constant(Value::string(v.asString(), t.withNullable(false)), other.pos);
  if (t.sameAs(vt)) return other.clone();
  return nullptr;
}

// `col = value` where col is one of the scan's columns (possibly behind a widening cast):
// the table column's index and the key value for it.
bool equalityOnColumn(const Expr& e, const TableScan& scan, uint32_t& column, ExprPtr& key) {
  if (e.kind != ExprKind::Compare || e.cmp != CmpOp::Eq) return false;
  for (int side = 0; side < 2; ++side) {
    const Expr* c = e.args[side].get();
    if (c->kind == ExprKind::Cast && (c->type.isInteger() || c->type.isString())) c = c->args[0].get();
    if (c->kind != ExprKind::Column) continue;
    for (auto& sc : scan.columns) {
      if (sc.iu != c->iu || sc.index == TableScan::kRowNumber) continue;
      key = keyValue(*e.args[1 - side], scan.table->columns()[sc.index].type);
      if (!key) return false;
      column = sc.index;
      return true;
    }
  }
  return false;
}

void select(OperatorPtr& ptr) {
  for (auto& c : ptr->children) select(c);
  if (ptr->kind != OpKind::Filter || ptr->child()->kind != OpKind::TableScan) return;
  auto& filter = static_cast<Filter&>(*ptr);
  auto& scan = static_cast<TableScan&>(*ptr->child());
  if (scan.index || scan.table->indexes().empty()) return;
  std::vector<ExprPtr> parts;
  splitConjuncts(filter.predicate->clone(), parts);
  // Which conjunct fixes which table column.
  std::vector<std::pair<uint32_t, size_t>> fixed;  // column, conjunct
  std::vector<ExprPtr> keys(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    uint32_t col;
    if (equalityOnColumn(*parts[i], scan, col, keys[i])) fixed.push_back({col, i});
  }
  const Index* best = nullptr;
  for (auto& idx : scan.table->indexes()) {
    bool covered = std::all_of(idx->columns().begin(), idx->columns().end(), [&](uint32_t c) {
      return std::any_of(fixed.begin(), fixed.end(), [&](auto& f) { return f.first == c; });
    });
    if (!covered) continue;
    if (!best || (idx->unique() && !best->unique()) ||
        (idx->unique() == best->unique() && idx->columns().size() > best->columns().size()))
      best = idx.get();
  }
  if (!best) return;
  std::vector<bool> used(parts.size(), false);
  for (uint32_t c : best->columns()) {
    auto f = std::find_if(fixed.begin(), fixed.end(), [&](auto& x) { return x.first == c; });
    scan.lookupKey.push_back(std::move(keys[f->second]));
    used[f->second] = true;
  }
  scan.index = best;
  std::vector<ExprPtr> rest;
  for (size_t i = 0; i < parts.size(); ++i)
    if (!used[i]) rest.push_back(std::move(parts[i]));
  if (rest.empty()) {
    ptr = std::move(ptr->children[0]);
    return;
  }
  filter.predicate = conjunction(std::move(rest));
}

}  // namespace

void selectIndexes(OperatorPtr& root) { select(root); }

}  // namespace hyrax::sql
