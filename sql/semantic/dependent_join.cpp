#include "sql/semantic/dependent_join.hpp"

#include <algorithm>

#include "sql/optimizer/optimizer.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using namespace plan;

namespace {

[[noreturn]] void unsupported(const std::string& what) {
  throw Error(sqlstate::FeatureNotSupported, "a correlated subquery " + what + " is not supported yet");
}

OperatorPtr join(JoinKind kind, OperatorPtr left, OperatorPtr right, ExprPtr condition) {
  auto j = std::make_unique<Join>();
  j->kind = kind;
  j->residual = std::move(condition);
  j->children.push_back(std::move(left));
  j->children.push_back(std::move(right));
  return j;
}

class Unnester {
 public:
  Unnester(const Operator& outer, const std::vector<const IU*>& correlated, IUSet& ius)
      : outer_(outer), f_(correlated), fSet_(correlated.begin(), correlated.end()), ius_(ius) {}

  // D ⋈dep op: `op` rewritten to read no IU of F; `d` receives, for each f, the IU of its output
  // that holds f's value.
  OperatorPtr unnest(OperatorPtr op, IUMap& d) {
    if (!depends(*op)) return join(JoinKind::Inner, domain(d), std::move(op), nullptr);
    switch (op->kind) {
      case OpKind::Filter: {
        auto& f = static_cast<Filter&>(*op);
        if (!depends(*op->child()))
          if (OperatorPtr r = substituteDomain(op->children[0], f.predicate, d)) return r;
        op->children[0] = unnest(std::move(op->children[0]), d);
        substituteIUs(f.predicate, d);
        return op;
      }
      case OpKind::Map: {
        op->children[0] = unnest(std::move(op->children[0]), d);
        for (auto& c : static_cast<Map&>(*op).computed) substituteIUs(c.expr, d);
        return op;
      }
      case OpKind::Expand: {  // unnest(outer.a) in FROM: one expansion per outer value
        op->children[0] = unnest(std::move(op->children[0]), d);
        for (auto& a : static_cast<plan::Expand&>(*op).args) substituteIUs(a, d);
        return op;
      }
      case OpKind::Join: return unnestJoin(std::move(op), d);
      case OpKind::Aggregate: return unnestAggregate(std::move(op), d);
      case OpKind::Sort: {
        auto& s = static_cast<Sort&>(*op);
        if (s.limit != UINT64_MAX) unsupported("under LIMIT");  // set after binding
        if (s.onlyOrders()) return unnest(std::move(op->children[0]), d);  // order means nothing here
        // Partitions (INTERSECT/EXCEPT ALL's ranks of copies): per outer value too, so the domain's
        // columns lead the partition keys.
        op->children[0] = unnest(std::move(op->children[0]), d);
        std::vector<SortKey> keys;
        for (const IU* f : f_) keys.push_back({Expr::column(d.at(f)), false, false});
        for (auto& k : s.keys) {
          substituteIUs(k.expr, d);
          keys.push_back(std::move(k));
        }
        s.keys = std::move(keys);
        s.partitionKeys += f_.size();
        for (auto& w : s.windows)
          for (auto& a : w.args) substituteIUs(a, d);
        return op;
      }
      case OpKind::Limit: return unnestLimit(std::move(op), d);
      case OpKind::UnionAll: return unnestUnion(std::move(op), d);
      case OpKind::Values: {
        auto& v = static_cast<Values&>(*op);
        if (v.rows.size() != 1) unsupported("in VALUES of several rows");
        auto m = std::make_unique<Map>();  // the row, computed once per outer value
        for (size_t i = 0; i < v.columns.size(); ++i) m->computed.push_back({v.columns[i], std::move(v.rows[0][i])});
        m->children.push_back(domain(d));
        for (auto& c : m->computed) substituteIUs(c.expr, d);
        return m;
      }
      default: unsupported("of this form");
    }
  }

 private:
  // LIMIT/OFFSET [after ORDER BY] per outer value: a Sort on the domain's columns, then the
  // subquery's order, keeping the rows from OFFSET on, at most LIMIT of them, per domain value.
  OperatorPtr unnestLimit(OperatorPtr op, IUMap& d) {
    auto& l = static_cast<Limit&>(*op);
    if (l.runTimeCount()) unsupported("under LIMIT or OFFSET of a parameter");
    OperatorPtr input = std::move(op->children[0]);
    std::vector<SortKey> order;
    if (input->kind == OpKind::Sort) {
      auto& s = static_cast<Sort&>(*input);
      if (s.partitionKeys || s.limit != UINT64_MAX) unsupported("under LIMIT of this form");
      order = std::move(s.keys);
      input = std::move(input->children[0]);
    }
    auto sort = std::make_unique<Sort>();
    sort->children.push_back(unnest(std::move(input), d));
    for (const IU* f : f_) sort->keys.push_back({Expr::column(d.at(f)), false, false});
    sort->partitionKeys = f_.size();
    for (auto& k : order) {
      substituteIUs(k.expr, d);  // ORDER BY an outer column: one value per partition
      sort->keys.push_back(std::move(k));
    }
    sort->partitionOffset = l.offset;
    sort->partitionLimit = l.limit;
    return sort;
  }

  bool depends(const Operator& op) const {
    return anyExprInTree(op, [&](const Expr& e) { return readsAny(e, fSet_); });
  }

  OperatorPtr domain(IUMap& d) { return correlationDomain(outer_, f_, ius_, d); }

  // σ_p(D × T) where p has `f = e` (e over T) for every f: T with f := e, no D (nullptr if p
  // lacks one). The equalities become `e IS NOT NULL`; the rest of p reads the computed values.
  OperatorPtr substituteDomain(OperatorPtr& input, ExprPtr& predicate, IUMap& d) {
    std::vector<ExprPtr> parts;
    splitConjuncts(predicate->clone(), parts);
    const IURefs below = input->producedSet();
    std::vector<ExprPtr> bound(f_.size());
    for (auto& p : parts) {
      if (p->kind != ExprKind::Compare || p->cmp != CmpOp::Eq) continue;
      for (int side = 0; side < 2; ++side) {
        const Expr& col = *p->args[side];
        const Expr& other = *p->args[1 - side];
        if (col.kind != ExprKind::Column || !fSet_.count(col.iu) || !readsOnly(other, below) ||
            !other.type.sameAs(col.iu->type))
          continue;
        size_t i = std::find(f_.begin(), f_.end(), col.iu) - f_.begin();
        if (bound[i]) continue;
        bound[i] = std::move(p->args[1 - side]);
        p.reset();
        break;
      }
    }
    if (std::any_of(bound.begin(), bound.end(), [](const ExprPtr& e) { return !e; })) return nullptr;
    auto m = std::make_unique<Map>();
    std::vector<ExprPtr> rest;
    for (size_t i = 0; i < f_.size(); ++i) {
      const IU* v = ius_.make(bound[i]->type, f_[i]->name);
      d[f_[i]] = v;
      if (bound[i]->type.nullable) rest.push_back(makeIsNull(Expr::column(v), true, {}));
      m->computed.push_back({v, std::move(bound[i])});
    }
    m->children.push_back(std::move(input));
    for (auto& p : parts)
      if (p) {
        substituteIUs(p, d);
        rest.push_back(std::move(p));
      }
    OperatorPtr r = std::move(m);
    if (ExprPtr cond = conjunction(std::move(rest))) {
      auto filter = std::make_unique<Filter>();
      filter->predicate = std::move(cond);
      filter->children.push_back(std::move(r));
      r = std::move(filter);
    }
    return r;
  }

  OperatorPtr unnestJoin(OperatorPtr op, IUMap& d) {
    auto& j = static_cast<Join&>(*op);
    if (!j.keys.empty()) unsupported("in a join the optimizer has seen");  // the binder makes none
    const bool leftDep = depends(*op->child(0)), rightDep = depends(*op->child(1));
    IUMap right;  // the right input's copy of the outer values, where it gets one
    switch (j.kind) {
      case JoinKind::Inner:
        if (!leftDep && !rightDep) {  // only the condition is correlated: a filter over the join
          auto f = std::make_unique<Filter>();
          f->predicate = std::move(j.residual);
          f->children.push_back(std::move(op));
          return unnest(std::move(f), d);
        }
        if (leftDep && rightDep)
          unnestBothSides(j, d, right);
        else
          op->children[leftDep ? 0 : 1] = unnest(std::move(op->children[leftDep ? 0 : 1]), d);
        break;
      case JoinKind::LeftOuter:
      case JoinKind::Semi:
      case JoinKind::Anti:
      case JoinKind::Mark:
        // The right side sees each outer value through its own copy of the domain, matched with
        // the preserved side's: a preserved row must never meet rows of another outer value.
        if (rightDep)
          unnestBothSides(j, d, right);
        else
          op->children[0] = unnest(std::move(op->children[0]), d);
        break;
      case JoinKind::FullOuter: return unnestFullJoin(std::move(op), d);
      default: unsupported("in this join");
    }
    substituteIUs(j.residual, d);
    substituteIUs(j.markCondition, d);
    return op;
  }

  // Both inputs depend: each gets its own domain, and the join matches them.
  void unnestBothSides(Join& j, IUMap& d, IUMap& right) {
    j.children[0] = unnest(std::move(j.children[0]), d);
    j.children[1] = unnest(std::move(j.children[1]), right);
    std::vector<ExprPtr> cond;
    if (j.residual) cond.push_back(std::move(j.residual));
    for (const IU* f : f_) cond.push_back(nullSafeEquals(d.at(f), right.at(f)));
    j.residual = conjunction(std::move(cond));
  }

  // A FULL JOIN per outer value: both inputs get their domain and the join matches them; a row
  // carries the value of whichever side it has (a marker tells a missing left side from a NULL
  // outer value).
  OperatorPtr unnestFullJoin(OperatorPtr op, IUMap& d) {
    auto& j = static_cast<Join&>(*op);
    IUMap left, right;
    unnestBothSides(j, left, right);
    substituteIUs(j.residual, left);
    auto present = std::make_unique<Map>();
    const IU* leftPresent = ius_.make(SqlType::boolean(false), "present");
    present->computed.push_back({leftPresent, Expr::constant(Value::boolean(true))});
    present->children.push_back(std::move(op->children[0]));
    op->children[0] = std::move(present);
    auto passOn = [&](const IU* iu) {
      const IU* out = ius_.make(iu->type.withNullable(true), iu->name);
      j.outerColumns.push_back({iu, out});
      return out;
    };
    const IU* present0 = passOn(leftPresent);
    auto choose = std::make_unique<Map>();
    for (const IU* f : f_) {
      const IU* l = passOn(left.at(f));
      const IU* r = passOn(right.at(f));
      std::vector<ExprPtr> arms;
      arms.push_back(makeIsNull(Expr::column(present0), true, {}));
      arms.push_back(Expr::column(l));
      arms.push_back(Expr::column(r));
      const IU* v = ius_.make(f->type.withNullable(true), f->name);
      choose->computed.push_back({v, makeCase(std::move(arms), true, {})});
      d[f] = v;
    }
    choose->children.push_back(std::move(op));
    return choose;
  }

  OperatorPtr unnestAggregate(OperatorPtr op, IUMap& d) {
    auto& agg = static_cast<Aggregate&>(*op);
    IUMap below;
    op->children[0] = unnest(std::move(op->children[0]), below);
    for (auto& g : agg.groups) substituteIUs(g.expr, below);
    for (auto& a : agg.aggregates) substituteIUs(a.arg, below);
    const bool scalar = agg.groups.empty();  // one row even for no input
    for (const IU* f : f_) {
      const IU* g = ius_.make(below.at(f)->type, f->name);
      agg.groups.push_back({g, Expr::column(below.at(f))});
      d[f] = g;
    }
    if (!scalar) return op;
    // Grouped by the outer value, an aggregate without GROUP BY has no row for a value whose
    // input is empty; it must have one (count 0, the others NULL: the "count bug"). The domain,
    // left outer joined with the groups, gives each value its row.
    IUMap groupOf = d;
    IUMap dom;
    OperatorPtr domainRows = domain(dom);
    std::vector<ExprPtr> cond;
    for (const IU* f : f_) cond.push_back(nullSafeEquals(dom.at(f), groupOf.at(f)));
    auto map = std::make_unique<Map>();
    auto outerJoin = std::make_unique<Join>();
    outerJoin->kind = JoinKind::LeftOuter;
    outerJoin->residual = conjunction(std::move(cond));
    for (auto& a : agg.aggregates) {
      const IU* original = a.iu;
      a.iu = ius_.make(original->type, original->name);
      const IU* extended = ius_.make(original->type.withNullable(true), original->name);
      outerJoin->outerColumns.push_back({a.iu, extended});
      ExprPtr value = Expr::column(extended);
      if (a.func == AggFunc::Count || a.func == AggFunc::CountStar) {
        std::vector<ExprPtr> arms;
        arms.push_back(makeIsNull(Expr::column(extended), false, {}));
        arms.push_back(Expr::constant(Value::int64(0)));
        arms.push_back(std::move(value));
        value = makeCase(std::move(arms), true, {});
        value->type.nullable = false;  // the ELSE arm is taken only when it is not NULL
      }
      map->computed.push_back({original, std::move(value)});
    }
    outerJoin->children.push_back(std::move(domainRows));
    outerJoin->children.push_back(std::move(op));
    map->children.push_back(std::move(outerJoin));
    d = dom;
    return map;
  }

  OperatorPtr unnestUnion(OperatorPtr op, IUMap& d) {
    auto& u = static_cast<UnionAll&>(*op);
    std::vector<IU*> columns;
    for (const IU* f : f_) {
      columns.push_back(ius_.make(f->type, f->name));
      d[f] = columns.back();
    }
    for (size_t c = 0; c < op->children.size(); ++c) {
      IUMap mine;
      op->children[c] = unnest(std::move(op->children[c]), mine);
      for (const IU* f : f_) u.inputs[c].push_back(mine.at(f));
    }
    for (size_t i = 0; i < f_.size(); ++i) {
      // The inputs' copies may differ in nullability only; the union's column admits NULL if any does.
      bool nullable = false;
      for (auto& in : u.inputs) nullable = nullable || in[u.columns.size() + i]->type.nullable;
      columns[i]->type.nullable = nullable;
    }
    u.columns.insert(u.columns.end(), columns.begin(), columns.end());
    return op;
  }

  const Operator& outer_;
  const std::vector<const IU*>& f_;
  const IURefs fSet_;
  IUSet& ius_;
};

// The SQL value that stands for NULL in a key that may be NULL: zero bytes of the type's layout
// (0, '', 0.0, the epoch day ...); a second key tells it from a real one.
ExprPtr zeroOf(const SqlType& t) {
  alignas(16) unsigned char zeros[64] = {};
  return Expr::constant(Value::decode(t.withNullable(false), zeros));
}

}  // namespace

// D: the distinct values of F in (a copy of) the outer input. A superset serves as well (the join
// with the outer input drops values it does not have), so the copy is of the smallest part of the
// input whose rows have all of F: below filters, joins and earlier subqueries' joins, usually one
// table. (A copy of the whole input would also copy the copies made for its earlier subqueries:
// exponential in their number.)
OperatorPtr correlationDomain(const Operator& outer, const std::vector<const IU*>& f, IUSet& ius, IUMap& d) {
  const Operator* source = &outer;
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (auto& c : source->children) {
      const IURefs has = c->producedSet();
      if (std::all_of(f.begin(), f.end(), [&](const IU* iu) { return has.count(iu) > 0; })) {
        source = c.get();
        deeper = true;
        break;
      }
    }
  }
  // A copy that calls nextval() or a stored function computes other values than the input: its
  // domain would miss outer values (a wrong answer), so that is refused.
  if (hasVolatileCall(*source)) unsupported("over a volatile function (nextval, setval, a stored function)");
  IUMap copyOf;
  OperatorPtr copy = cloneWithFreshIUs(*source, ius, copyOf);
  auto agg = std::make_unique<Aggregate>();
  for (const IU* iu : f) {
    const IU* g = ius.make(iu->type, iu->name);
    agg->groups.push_back({g, Expr::column(copyOf.at(iu))});
    d[iu] = g;
  }
  agg->children.push_back(std::move(copy));
  return agg;
}

ExprPtr nullSafeEquals(const IU* a, const IU* b) {
  if (!a->type.nullable && !b->type.nullable) return makeCompare(CmpOp::Eq, Expr::column(a), Expr::column(b), {});
  auto orZero = [](const IU* x) {
    std::vector<ExprPtr> arms;
    arms.push_back(makeIsNull(Expr::column(x), false, {}));
    arms.push_back(zeroOf(x->type));
    arms.push_back(Expr::column(x));
    return makeCase(std::move(arms), true, {});
  };
  auto isNull = [](const IU* x) {
    std::vector<ExprPtr> arms;
    arms.push_back(makeIsNull(Expr::column(x), false, {}));
    arms.push_back(Expr::constant(Value::int32(1)));
    arms.push_back(Expr::constant(Value::int32(0)));
    return makeCase(std::move(arms), true, {});
  };
  std::vector<ExprPtr> parts;
  parts.push_back(makeCompare(CmpOp::Eq, orZero(a), orZero(b), {}));
  parts.push_back(makeCompare(CmpOp::Eq, isNull(a), isNull(b), {}));
  return conjunction(std::move(parts));
}

DependentJoin unnestDependentJoin(OperatorPtr subquery, const Operator& outerInput,
                                  const std::vector<const IU*>& correlated, IUSet& ius) {
  Unnester u(outerInput, correlated, ius);
  IUMap d;
  DependentJoin r;
  r.subquery = u.unnest(std::move(subquery), d);
  for (const IU* f : correlated) r.correlation.push_back({f, d.at(f)});
  return r;
}

}  // namespace hyrax::sql
