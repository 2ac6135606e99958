// UNION, INTERSECT and EXCEPT. Both inputs are bound on their own and converted to common column
// types; UNION ALL is a UnionAll operator. The distinct forms aggregate over it: UNION groups by
// every column; INTERSECT and EXCEPT tag each row with the input it came from and keep the groups
// seen in both / only in the left one (GROUP BY treats NULLs as equal, as these operators must).
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

}  // namespace

OperatorPtr SelectBinder::bindSetOperation(const ast::Select& s, std::vector<const plan::IU*>& output,
                                           std::vector<std::string>& names) {
  if (s.setAll && s.setOp != ast::SetOp::Union)
    throw Error(sqlstate::FeatureNotSupported, std::string(opName(s.setOp)) + " ALL is not supported yet", s.pos);
  std::vector<const plan::IU*> outs[2];
  std::vector<std::string> inNames[2];
  OperatorPtr inputs[2];
  const ast::Select* sides[2] = {s.left.get(), s.right.get()};
  for (int i = 0; i < 2; ++i) {
    SelectBinder b(catalog_, plan_, outer_);
    b.parent_ = this;  // WITH names of this query
    b.depth_ = depth_ + 1;
    inputs[i] = b.bind(*sides[i], outs[i], inNames[i]);
  }
  if (outs[0].size() != outs[1].size())
    throw Error(sqlstate::SyntaxError, std::string("each ") + opName(s.setOp) + " query must have the same number of columns",
                s.right->pos);
  // Common types; each input converts its columns where they differ.
  std::vector<SqlType> types;
  for (size_t c = 0; c < outs[0].size(); ++c) {
    auto t = commonType(outs[0][c]->type, outs[1][c]->type);
    if (!t)
      throw Error(sqlstate::DatatypeMismatch, std::string(opName(s.setOp)) + " types " + outs[0][c]->type.name() + " and " +
                                                  outs[1][c]->type.name() + " cannot be matched", s.right->pos);
    SqlType type = t->isNull() ? SqlType::text() : *t;
    type.nullable = outs[0][c]->type.nullable || outs[1][c]->type.nullable || t->isNull();
    types.push_back(type);
  }
  const bool tagged = s.setOp != ast::SetOp::Union;  // INTERSECT / EXCEPT: which input a row came from
  auto u = std::make_unique<plan::UnionAll>();
  for (int i = 0; i < 2; ++i) {
    auto map = std::make_unique<plan::Map>();
    std::vector<const plan::IU*> cols;
    for (size_t c = 0; c < outs[i].size(); ++c) {
      ExprPtr e = castTo(Expr::column(outs[i][c]), types[c]);
      if (e->kind == plan::ExprKind::Column) {
        cols.push_back(outs[i][c]);
        continue;
      }
      const plan::IU* iu = plan_.ius.make(types[c], outs[i][c]->name);
      map->computed.push_back({iu, std::move(e)});
      cols.push_back(iu);
    }
    if (tagged) {
      const plan::IU* tag = plan_.ius.make(SqlType::int32(false), i == 0 ? "left" : "right");
      map->computed.push_back({tag, Expr::constant(Value::int32(i == 0 ? 1 : 2))});
      cols.push_back(tag);
    }
    if (!map->computed.empty()) {
      map->children.push_back(std::move(inputs[i]));
      inputs[i] = std::move(map);
    }
    u->inputs.push_back(std::move(cols));
    u->children.push_back(std::move(inputs[i]));
  }
  std::vector<const plan::IU*> out;
  for (size_t c = 0; c < types.size(); ++c) {
    out.push_back(plan_.ius.make(types[c], inNames[0][c]));
    u->columns.push_back(out.back());
  }
  const plan::IU* tag = nullptr;
  if (tagged) {
    tag = plan_.ius.make(SqlType::int32(false), "input");
    u->columns.push_back(tag);
  }
  OperatorPtr op = std::move(u);
  if (!s.setAll) {
    // Distinct rows: group by every column; for INTERSECT / EXCEPT, min and max of the tags say
    // which inputs a group was seen in (1: left only, 2: right only, 1 and 2: both).
    auto agg = std::make_unique<plan::Aggregate>();
    for (auto& iu : out) {
      const plan::IU* g = plan_.ius.make(iu->type, iu->name);
      agg->groups.push_back({g, Expr::column(iu)});
      iu = g;
    }
    const plan::IU *lo = nullptr, *hi = nullptr;
    if (tagged) {
      lo = plan_.ius.make(SqlType::int32(true), "min");
      hi = plan_.ius.make(SqlType::int32(true), "max");
      agg->aggregates.push_back({plan::AggFunc::Min, Expr::column(tag), lo});
      agg->aggregates.push_back({plan::AggFunc::Max, Expr::column(tag), hi});
    }
    agg->children.push_back(std::move(op));
    op = std::move(agg);
    if (tagged) {
      auto f = std::make_unique<plan::Filter>();
      if (s.setOp == ast::SetOp::Intersect)  // seen in both
        f->predicate = makeCompare(plan::CmpOp::Ne, Expr::column(lo), Expr::column(hi), s.pos);
      else  // seen in the left one only
        f->predicate = makeCompare(plan::CmpOp::Eq, Expr::column(hi), Expr::constant(Value::int32(1)), s.pos);
      f->children.push_back(std::move(op));
      op = std::move(f);
    }
  }
  names = inNames[0];

  // ORDER BY of a set operation: output columns by position or name.
  if (!s.orderBy.empty()) {
    auto sort = std::make_unique<plan::Sort>();
    for (auto& o : s.orderBy) {
      const ast::Expr& e = *o.expr;
      const plan::IU* iu = orderByOutput(e, out, names);
      if (!iu)
        throw Error(sqlstate::FeatureNotSupported,
                    std::string("ORDER BY of ") + opName(s.setOp) + " takes output column names or positions only", e.pos);
      plan::SortKey k;
      k.expr = Expr::column(iu);
      k.descending = o.descending;
      k.nullsFirst = o.nullsFirst < 0 ? o.descending : o.nullsFirst == 1;
      sort->keys.push_back(std::move(k));
    }
    sort->children.push_back(std::move(op));
    op = std::move(sort);
  }
  op = addLimit(std::move(op), s);
  output = std::move(out);
  return op;
}

}  // namespace hyrax::sql
