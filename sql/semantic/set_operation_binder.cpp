// UNION, INTERSECT and EXCEPT. A chain of one operator (a UNION b UNION c ..., parsed left-deep)
// is bound as one n-ary operation, its parts taken down the left spine by a loop: each part is
// bound on its own and converted to the common column types. UNION ALL is a UnionAll operator of
// all parts. The distinct forms aggregate over it: UNION groups by every column; EXCEPT tags each
// row with the part it came from (1: the first, 2: any other) and keeps the groups seen only in
// the first (a EXCEPT b EXCEPT c is a EXCEPT (b UNION c)); INTERSECT of two parts keeps the
// groups seen in both, and a longer INTERSECT chain is a balanced tree of those (so a chain of
// 1,000 is 10 levels deep, not 1,000). GROUP BY treats NULLs as equal, as these operators must.
// INTERSECT ALL and EXCEPT ALL number the copies of each row on both sides (a Sort ranking rows
// within each partition of equal rows) and keep the left's copies whose number the right side
// has (semi join) or has not (anti join): min(m, n) and max(m - n, 0) copies of a row that comes
// m times on the left and n times on the right; a EXCEPT ALL b EXCEPT ALL c is a EXCEPT ALL
// (b UNION ALL c).
#include "engine/util/stack_depth.hpp"
#include "sql/optimizer/optimizer.hpp"
#include "sql/semantic/dependent_join.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprPtr;
using plan::OperatorPtr;

namespace {

const char* opName(ast::SetOp op) {
  return op == ast::SetOp::Union ? "UNION" : op == ast::SetOp::Intersect ? "INTERSECT" : "EXCEPT";
}

// One bound operand of a set operation.
struct SetPart {
  OperatorPtr op;
  std::vector<const plan::IU*> out;
  std::vector<std::string> names;
};

// The operands of a chain of `s`'s operator, left to right: down the left spine while the left
// operand is the same operator, written without parentheses, ORDER BY, LIMIT or WITH.
std::vector<const ast::Select*> chainOperands(const ast::Select& s) {
  std::vector<const ast::Select*> rights;
  const ast::Select* x = &s;
  for (;;) {
    rights.push_back(x->right.get());
    const ast::Select* l = x->left.get();
    const bool sameChain = l->setOp == s.setOp && l->setAll == s.setAll && !l->parenthesized && l->orderBy.empty() &&
                           !l->limit && !l->offset && l->with.empty();
    if (!sameChain) {
      rights.push_back(l);
      break;
    }
    x = l;
  }
  return {rights.rbegin(), rights.rend()};
}

// The part's columns converted to `types`: their IUs into `cols`, the casts in the Map returned
// (with nothing computed when none is needed; `overPart` puts it over the part).
std::unique_ptr<plan::Map> conversions(plan::QueryPlan& plan, const SetPart& part, const std::vector<SqlType>& types,
                                       std::vector<const plan::IU*>& cols) {
  auto map = std::make_unique<plan::Map>();
  for (size_t c = 0; c < part.out.size(); ++c) {
    ExprPtr e = castTo(Expr::column(part.out[c]), types[c]);
    if (e->kind == plan::ExprKind::Column) {
      cols.push_back(part.out[c]);
      continue;
    }
    const plan::IU* iu = plan.ius.make(types[c], part.out[c]->name);
    map->computed.push_back({iu, std::move(e)});
    cols.push_back(iu);
  }
  return map;
}
OperatorPtr overPart(std::unique_ptr<plan::Map> map, OperatorPtr part) {
  if (map->computed.empty()) return part;
  map->children.push_back(std::move(part));
  return map;
}

// `parts` (converted to `types`) as one operator: UNION ALL, UNION or EXCEPT of all of them,
// INTERSECT of exactly two. Returns the output IUs (named after the first part's columns).
SetPart combine(plan::QueryPlan& plan, ast::SetOp setOp, bool all, std::vector<SetPart> parts,
                const std::vector<SqlType>& types, SourcePos pos) {
  const bool tagged = setOp != ast::SetOp::Union;  // INTERSECT / EXCEPT: which part a row came from
  auto u = std::make_unique<plan::UnionAll>();
  for (size_t i = 0; i < parts.size(); ++i) {
    std::vector<const plan::IU*> cols;
    auto map = conversions(plan, parts[i], types, cols);
    if (tagged) {
      const plan::IU* tag = plan.ius.make(SqlType::int32(false), i == 0 ? "left" : "right");
      map->computed.push_back({tag, Expr::constant(Value::int32(i == 0 ? 1 : 2))});
      cols.push_back(tag);
    }
    u->inputs.push_back(std::move(cols));
    u->children.push_back(overPart(std::move(map), std::move(parts[i].op)));
  }
  SetPart result;
  result.names = std::move(parts[0].names);
  for (size_t c = 0; c < types.size(); ++c) {
    result.out.push_back(plan.ius.make(types[c], result.names[c]));
    u->columns.push_back(result.out.back());
  }
  const plan::IU* tag = nullptr;
  if (tagged) {
    tag = plan.ius.make(SqlType::int32(false), "input");
    u->columns.push_back(tag);
  }
  result.op = std::move(u);
  if (all) return result;
  // Distinct rows: group by every column; for INTERSECT / EXCEPT, min and max of the tags say
  // which parts a group was seen in (1: the first only, 2: others only, 1 and 2: both).
  auto agg = std::make_unique<plan::Aggregate>();
  for (auto& iu : result.out) {
    const plan::IU* g = plan.ius.make(iu->type, iu->name);
    agg->groups.push_back({g, Expr::column(iu)});
    iu = g;
  }
  const plan::IU *lo = nullptr, *hi = nullptr;
  if (tagged) {
    lo = plan.ius.make(SqlType::int32(true), "min");
    hi = plan.ius.make(SqlType::int32(true), "max");
    agg->aggregates.push_back({plan::AggFunc::Min, Expr::column(tag), lo});
    agg->aggregates.push_back({plan::AggFunc::Max, Expr::column(tag), hi});
  }
  agg->children.push_back(std::move(result.op));
  result.op = std::move(agg);
  if (tagged) {
    auto f = std::make_unique<plan::Filter>();
    if (setOp == ast::SetOp::Intersect)  // seen in both
      f->predicate = makeCompare(plan::CmpOp::Ne, Expr::column(lo), Expr::column(hi), pos);
    else  // seen in the first one only
      f->predicate = makeCompare(plan::CmpOp::Eq, Expr::column(hi), Expr::constant(Value::int32(1)), pos);
    f->children.push_back(std::move(result.op));
    result.op = std::move(f);
  }
  return result;
}

// The rows of `part` converted to `types`, each with its place among the equal rows before it
// (0, 1 ...): `cols` then the rank.
OperatorPtr ranked(plan::QueryPlan& plan, SetPart part, const std::vector<SqlType>& types,
                   std::vector<const plan::IU*>& cols) {
  OperatorPtr op = overPart(conversions(plan, part, types, cols), std::move(part.op));
  auto sort = std::make_unique<plan::Sort>();
  for (const plan::IU* c : cols) sort->keys.push_back({Expr::column(c), false, false});
  sort->partitionKeys = cols.size();
  sort->rank = plan.ius.make(SqlType::int64(false), "copy");
  cols.push_back(sort->rank);
  sort->children.push_back(std::move(op));
  return sort;
}

// INTERSECT ALL (semi join) or EXCEPT ALL (anti join) of two parts: the left's n-th copy of a row
// stays when the right has (has not) an n-th copy of it.
SetPart matchCopies(plan::QueryPlan& plan, ast::SetOp setOp, SetPart left, SetPart right,
                    const std::vector<SqlType>& types, SourcePos pos) {
  SetPart result;
  result.names = std::move(left.names);
  std::vector<const plan::IU*> l, r;
  auto join = std::make_unique<plan::Join>();
  join->kind = setOp == ast::SetOp::Intersect ? plan::JoinKind::Semi : plan::JoinKind::Anti;
  join->children.push_back(ranked(plan, std::move(left), types, l));
  join->children.push_back(ranked(plan, std::move(right), types, r));
  std::vector<ExprPtr> cond;
  for (size_t c = 0; c + 1 < l.size(); ++c) cond.push_back(nullSafeEquals(l[c], r[c]));
  cond.push_back(makeCompare(plan::CmpOp::Eq, Expr::column(l.back()), Expr::column(r.back()), pos));
  join->residual = conjunction(std::move(cond));
  l.pop_back();  // the rank is no output column
  result.out = std::move(l);
  result.op = std::move(join);
  return result;
}

// INTERSECT [ALL] of parts[from, to) as a balanced tree of two-part INTERSECTs.
SetPart intersectRange(plan::QueryPlan& plan, std::vector<SetPart>& parts, size_t from, size_t to,
                       const std::vector<SqlType>& types, bool all, SourcePos pos) {
  if (to - from == 1) return std::move(parts[from]);
  const size_t mid = from + (to - from) / 2;
  SetPart left = intersectRange(plan, parts, from, mid, types, all, pos);
  SetPart right = intersectRange(plan, parts, mid, to, types, all, pos);
  if (all) return matchCopies(plan, ast::SetOp::Intersect, std::move(left), std::move(right), types, pos);
  std::vector<SetPart> two;
  two.push_back(std::move(left));
  two.push_back(std::move(right));
  return combine(plan, ast::SetOp::Intersect, false, std::move(two), types, pos);
}

}  // namespace

OperatorPtr SelectBinder::bindSetOperation(const ast::Select& s, std::vector<const plan::IU*>& output,
                                           std::vector<std::string>& names) {
  checkStackDepth();  // chains of different operators still nest (a UNION b EXCEPT c ...)
  // Each part is bound, then checked against the ones before it (count and types), in the order
  // a left-deep binding would: the same errors at the same parts.
  std::vector<SetPart> parts;
  std::vector<SqlType> types;
  for (const ast::Select* side : chainOperands(s)) {
    SetPart part;
    SelectBinder b(catalog_, plan_, outer_);
    b.parent_ = this;  // WITH names of this query
    b.depth_ = depth_ + 1;
    part.op = b.bind(*side, part.out, part.names);
    if (parts.empty()) {
      for (auto* iu : part.out) types.push_back(iu->type);
      parts.push_back(std::move(part));
      continue;
    }
    if (part.out.size() != types.size())
      throw Error(sqlstate::SyntaxError, std::string("each ") + opName(s.setOp) + " query must have the same number of columns",
                  side->pos);
    // Common types, as the operation of the parts so far with this one would have them.
    for (size_t c = 0; c < types.size(); ++c) {
      const SqlType& l = types[c];
      const SqlType& r = part.out[c]->type;
      auto t = commonType(l, r);
      if (!t)
        throw Error(sqlstate::DatatypeMismatch,
                    std::string(opName(s.setOp)) + " types " + l.name() + " and " + r.name() + " cannot be matched", side->pos);
      SqlType type = t->isNull() ? SqlType::text() : *t;
      type.nullable = l.nullable || r.nullable || t->isNull();
      types[c] = type;
    }
    parts.push_back(std::move(part));
  }
  SetPart result;
  if (s.setOp == ast::SetOp::Intersect && (parts.size() > 2 || s.setAll)) {
    result = intersectRange(plan_, parts, 0, parts.size(), types, s.setAll, s.pos);
  } else if (s.setOp == ast::SetOp::Except && s.setAll) {
    SetPart first = std::move(parts[0]);
    parts.erase(parts.begin());
    SetPart rest = parts.size() == 1 ? std::move(parts[0]) : combine(plan_, ast::SetOp::Union, true, std::move(parts), types, s.pos);
    result = matchCopies(plan_, ast::SetOp::Except, std::move(first), std::move(rest), types, s.pos);
  } else {
    result = combine(plan_, s.setOp, s.setAll, std::move(parts), types, s.pos);
  }
  names = std::move(result.names);
  output = std::move(result.out);
  return orderOutputs(std::move(result.op), s, output, names, opName(s.setOp));
}

OperatorPtr SelectBinder::orderOutputs(OperatorPtr op, const ast::Select& s, const std::vector<const plan::IU*>& out,
                                       const std::vector<std::string>& names, const char* what) {
  if (!s.orderBy.empty()) {
    auto sort = std::make_unique<plan::Sort>();
    for (auto& o : s.orderBy) {
      const ast::Expr& e = *o.expr;
      const plan::IU* iu = orderByOutput(e, out, names);
      if (!iu)
        throw Error(sqlstate::FeatureNotSupported,
                    std::string("ORDER BY of ") + what + " takes output column names or positions only", e.pos);
      plan::SortKey k;
      k.expr = Expr::column(iu);
      k.descending = o.descending;
      k.nullsFirst = o.nullsFirst < 0 ? o.descending : o.nullsFirst == 1;
      sort->keys.push_back(std::move(k));
    }
    sort->children.push_back(std::move(op));
    op = std::move(sort);
  }
  return addLimit(std::move(op), s);
}

OperatorPtr SelectBinder::bindValues(const ast::Select& s, std::vector<const plan::IU*>& output,
                                     std::vector<std::string>& names) {
  const size_t width = s.values[0].size();
  std::vector<std::vector<ExprPtr>> rows;
  std::vector<SqlType> types;
  for (auto& row : s.values) {
    if (row.size() != width)
      throw Error(sqlstate::SyntaxError, "VALUES lists must all be the same length", row.front()->pos);
    std::vector<ExprPtr> bound;
    for (size_t c = 0; c < width; ++c) {
      ExprPtr e = bindExpr(*row[c], Clause::Values);
      if (types.size() < width) {
        types.push_back(e->type);
      } else {
        auto t = commonType(types[c], e->type);
        if (!t)
          throw Error(sqlstate::DatatypeMismatch,
                      "VALUES types " + types[c].name() + " and " + e->type.name() + " cannot be matched", row[c]->pos);
        const bool nullable = types[c].nullable || e->type.nullable || t->isNull();
        types[c] = *t;
        types[c].nullable = nullable;
      }
      bound.push_back(std::move(e));
    }
    rows.push_back(std::move(bound));
  }
  auto values = std::make_unique<plan::Values>();
  for (size_t c = 0; c < width; ++c) {
    if (types[c].isNull()) types[c] = SqlType::text().withNullable(true);  // NULL only: text, as PostgreSQL
    names.push_back("column" + std::to_string(c + 1));
    values->columns.push_back(plan_.ius.make(types[c], names.back()));
  }
  for (auto& row : rows) {
    for (size_t c = 0; c < width; ++c) row[c] = castTo(std::move(row[c]), types[c]);
    values->rows.push_back(std::move(row));
  }
  output = values->columns;
  return orderOutputs(std::move(values), s, output, names, "VALUES");
}

}  // namespace hyrax::sql
