#include "codegen/plan/clone.hpp"

#include <stdexcept>

#include "engine/util/stack_depth.hpp"

namespace hyrax::plan {

IURefs producedInTree(const Operator& root) {
  IURefs produced;
  auto visit = [&](auto& self, const Operator& op) -> void {
    for (auto* iu : op.produced()) produced.insert(iu);
    for (auto& c : op.children) self(self, *c);
  };
  visit(visit, root);
  return produced;
}

void substituteIUs(ExprPtr& e, const IUMap& map) {
  if (!e) return;
  checkStackDepth();  // a chain of 10,000 terms is 10,000 levels
  if (e->kind == ExprKind::Column) {
    auto it = map.find(e->iu);
    if (it != map.end()) e->iu = it->second;
    return;
  }
  for (auto& a : e->args) substituteIUs(a, map);
}

bool hasVolatileCall(const Expr& e) {
  checkStackDepth();
  if (e.kind == ExprKind::SequenceCall || e.kind == ExprKind::RoutineCall) return true;
  for (auto& a : e.args)
    if (hasVolatileCall(*a)) return true;
  return false;
}

bool anyExprInTree(const Operator& root, const std::function<bool(const Expr&)>& test) {
  bool found = false;
  forEachExpr(const_cast<Operator&>(root), [&](ExprPtr& e) { found = found || test(*e); });
  for (auto& c : root.children) found = found || anyExprInTree(*c, test);
  return found;
}

bool hasVolatileCall(const Operator& root) {
  return anyExprInTree(root, [](const Expr& e) { return hasVolatileCall(e); });
}

void substituteIUsInTree(Operator& root, const IUMap& map) {
  forEachExpr(root, [&](ExprPtr& e) { substituteIUs(e, map); });
  for (auto& c : root.children) substituteIUsInTree(*c, map);
}

namespace {

const IU* mapped(const IU* iu, const IUMap& map) {
  auto it = map.find(iu);
  return it == map.end() ? iu : it->second;
}

ExprPtr copy(const ExprPtr& e, const IUMap& map) {
  if (!e) return nullptr;
  ExprPtr c = e->clone();
  substituteIUs(c, map);
  return c;
}

void copyJoinBase(const JoinBase& from, JoinBase& to, const IUMap& map) {
  to.residual = copy(from.residual, map);
  to.kind = from.kind;
  for (auto& oc : from.outerColumns) to.outerColumns.push_back({mapped(oc.inner, map), mapped(oc.outer, map)});
  to.mark = from.mark ? mapped(from.mark, map) : nullptr;
  to.markCondition = copy(from.markCondition, map);
  to.singleMatch = from.singleMatch;
}

OperatorPtr copyOperator(const Operator& op, const IUMap& map) {
  switch (op.kind) {
    case OpKind::TableScan: {
      auto& s = static_cast<const TableScan&>(op);
      auto r = std::make_unique<TableScan>();
      r->table = s.table;
      r->alias = s.alias;
      for (auto& c : s.columns) r->columns.push_back({c.index, mapped(c.iu, map)});
      r->index = s.index;
      for (auto& k : s.lookupKey) r->lookupKey.push_back(copy(k, map));
      r->low = {copy(s.low.value, map), s.low.inclusive};
      r->high = {copy(s.high.value, map), s.high.inclusive};
      r->reverse = s.reverse;
      r->limit = s.limit;
      for (auto& c : s.indexConditions) r->indexConditions.push_back(copy(c, map));
      r->prefetch = s.prefetch;
      return r;
    }
    case OpKind::Values: {
      auto& v = static_cast<const Values&>(op);
      auto r = std::make_unique<Values>();
      for (auto* c : v.columns) r->columns.push_back(mapped(c, map));
      for (auto& row : v.rows) {
        r->rows.emplace_back();
        for (auto& e : row) r->rows.back().push_back(copy(e, map));
      }
      return r;
    }
    case OpKind::Filter: {
      auto r = std::make_unique<Filter>();
      r->predicate = copy(static_cast<const Filter&>(op).predicate, map);
      return r;
    }
    case OpKind::Expand: {
      auto& x = static_cast<const Expand&>(op);
      auto r = std::make_unique<Expand>();
      r->function = x.function;
      for (auto& a : x.args) r->args.push_back(copy(a, map));
      r->iu = mapped(x.iu, map);
      if (x.ordinality) r->ordinality = mapped(x.ordinality, map);
      return r;
    }
    case OpKind::Map: {
      auto r = std::make_unique<Map>();
      for (auto& c : static_cast<const Map&>(op).computed) r->computed.push_back({mapped(c.iu, map), copy(c.expr, map)});
      return r;
    }
    case OpKind::Join: {
      auto& j = static_cast<const Join&>(op);
      auto r = std::make_unique<Join>();
      copyJoinBase(j, *r, map);
      for (auto& k : j.keys) r->keys.push_back({copy(k.left, map), copy(k.right, map)});
      return r;
    }
    case OpKind::Aggregate: {
      auto& a = static_cast<const Aggregate&>(op);
      auto r = std::make_unique<Aggregate>();
      for (auto& g : a.groups) r->groups.push_back({mapped(g.iu, map), copy(g.expr, map)});
      for (auto& x : a.aggregates)
        r->aggregates.push_back({x.func, copy(x.arg, map), mapped(x.iu, map), x.distinct, x.skipNulls});
      for (auto& k : a.inputOrder) r->inputOrder.push_back({copy(k.expr, map), k.descending, k.nullsFirst});
      return r;
    }
    case OpKind::Sort: {
      auto& s = static_cast<const Sort&>(op);
      auto r = std::make_unique<Sort>();
      for (auto& k : s.keys) r->keys.push_back({copy(k.expr, map), k.descending, k.nullsFirst});
      r->limit = s.limit;
      r->partitionKeys = s.partitionKeys;
      r->partitionOffset = s.partitionOffset;
      r->partitionLimit = s.partitionLimit;
      r->rank = s.rank ? mapped(s.rank, map) : nullptr;
      for (auto& w : s.windows) {
        WindowCall c{w.func, w.aggregate, w.rows, w.start, w.end, {}, mapped(w.iu, map)};
        for (auto& a : w.args) c.args.push_back(copy(a, map));
        r->windows.push_back(std::move(c));
      }
      return r;
    }
    case OpKind::Limit: {
      auto& l = static_cast<const Limit&>(op);
      auto r = std::make_unique<Limit>();
      r->limit = l.limit;
      r->offset = l.offset;
      r->limitExpr = copy(l.limitExpr, map);
      r->offsetExpr = copy(l.offsetExpr, map);
      return r;
    }
    case OpKind::UnionAll: {
      auto& u = static_cast<const UnionAll&>(op);
      auto r = std::make_unique<UnionAll>();
      for (auto* c : u.columns) r->columns.push_back(mapped(c, map));
      for (auto& in : u.inputs) {
        r->inputs.emplace_back();
        for (auto* c : in) r->inputs.back().push_back(mapped(c, map));
      }
      return r;
    }
    case OpKind::CteScan: {  // another read of the same WITH query
      auto& c = static_cast<const CteScan&>(op);
      auto r = std::make_unique<CteScan>();
      r->cte = c.cte;
      r->name = c.name;
      r->alias = c.alias;
      for (auto& col : c.columns) r->columns.push_back({col.source, mapped(col.iu, map)});
      return r;
    }
    case OpKind::With:  // the optimizer's
    case OpKind::HashJoin:
    case OpKind::IndexJoin: break;
  }
  throw std::logic_error("cloneWithFreshIUs: a physical operator");
}

}  // namespace

OperatorPtr cloneTree(const Operator& op, const IUMap& map) {
  OperatorPtr r = copyOperator(op, map);
  r->estimatedRows = op.estimatedRows;
  for (auto& c : op.children) r->children.push_back(cloneTree(*c, map));
  return r;
}

OperatorPtr cloneWithFreshIUs(const Operator& root, IUSet& ius, IUMap& map) {
  for (const IU* iu : producedInTree(root))
    if (!map.count(iu)) map[iu] = ius.make(iu->type, iu->name);
  return cloneTree(root, map);
}

}  // namespace hyrax::plan
