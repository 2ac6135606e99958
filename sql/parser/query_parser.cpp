// Queries: WITH, SELECT and its clauses, UNION/INTERSECT/EXCEPT, ORDER BY and LIMIT, FROM and joins.
#include "sql/parser/parser_internal.hpp"

namespace hyrax::sqlparse {

std::unique_ptr<Select> Parser::select() {
  DepthGuard g(*this);
  if (is("with")) {
    SourcePos withPos = cur().pos;
    ++i_;
    if (is("recursive")) throw Error(sqlstate::FeatureNotSupported, "WITH RECURSIVE is not supported yet", withPos);
    std::vector<CommonTableExpr> ctes;
    do {
      CommonTableExpr c;
      c.pos = cur().pos;
      c.name = identifier();
      if (accept("(")) {
        do c.columns.push_back(identifier());
        while (accept(","));
        expect(")");
      }
      expect("as");
      expect("(");
      c.query = select();
      expect(")");
      ctes.push_back(std::move(c));
    } while (accept(","));
    auto s = select();
    for (auto& c : s->with) ctes.push_back(std::move(c));
    s->with = std::move(ctes);
    return s;
  }
  auto s = setExpression();
  if (is("order") || is("limit") || is("offset") || is("fetch")) {
    if (s->parenthesized && (!s->orderBy.empty() || s->limit || s->offset)) {
      // (SELECT ... LIMIT n) ORDER BY ...: the outer clauses apply to the inner result.
      auto outer = std::make_unique<Select>();
      outer->pos = s->pos;
      SelectItem all;
      all.pos = s->pos;
      all.expr = std::make_unique<Expr>(ExprKind::Star, s->pos);
      outer->items.push_back(std::move(all));
      auto ref = std::make_unique<TableRef>(TableRef::Kind::Subquery, s->pos);
      ref->alias = "unnamed_subquery";
      ref->subquery = std::move(s);
      outer->from.push_back(std::move(ref));
      s = std::move(outer);
    }
    orderAndLimit(*s);
  }
  return s;
}

// UNION and EXCEPT (left to right) of INTERSECT terms, which bind tighter.
// A chain of one operator is no nesting; a change of operator (UNION to EXCEPT, UNION ALL to
// UNION) makes the chain so far an operand of the next run, one level deeper: the binder binds a
// run n-ary but recurses once per run, so runs count toward the depth limit.
std::unique_ptr<Select> Parser::setExpression() {
  auto l = intersectTerm();
  ChainGuard runs(*this);
  while (is("union") || is("except")) {
    SetOp op = accept("union") ? SetOp::Union : (expect("except"), SetOp::Except);
    l = setOperation(op, std::move(l), [&] { return intersectTerm(); });
    const Select& left = *l->left;
    if (left.setOp != SetOp::None && !left.parenthesized && (left.setOp != l->setOp || left.setAll != l->setAll)) runs.step();
  }
  return l;
}

std::unique_ptr<Select> Parser::intersectTerm() {
  auto l = queryPrimary();
  while (accept("intersect")) {
    l = setOperation(SetOp::Intersect, std::move(l), [&] { return queryPrimary(); });
  }
  return l;
}

std::unique_ptr<Select> Parser::setOperation(SetOp op, std::unique_ptr<Select> l,
                                             const std::function<std::unique_ptr<Select>()>& next) {
  DepthGuard g(*this);
  auto s = std::make_unique<Select>();
  s->pos = l->pos;
  s->setOp = op;
  s->setAll = accept("all");
  if (!s->setAll) accept("distinct");
  // ORDER BY / LIMIT written before UNION belong in parentheses.
  if (!l->parenthesized && (!l->orderBy.empty() || l->limit || l->offset)) syntaxError();
  s->left = std::move(l);
  s->right = next();
  // ORDER BY / LIMIT after the last operand belong to the whole operation.
  if (!s->right->parenthesized) {
    s->orderBy = std::move(s->right->orderBy);
    s->right->orderBy.clear();
    s->limit = std::move(s->right->limit);
    s->offset = std::move(s->right->offset);
  }
  return s;
}

std::unique_ptr<Select> Parser::queryPrimary() {
  DepthGuard g(*this);
  if (accept("(")) {
    auto s = select();
    expect(")");
    s->parenthesized = true;
    return s;
  }
  if (is("values")) return valuesCore();
  return selectCore();
}

std::unique_ptr<Select> Parser::valuesCore() {
  auto s = std::make_unique<Select>();
  s->pos = cur().pos;
  expect("values");
  do {
    expect("(");
    std::vector<ExprPtr> row;
    do row.push_back(expr());
    while (accept(","));
    expect(")");
    s->values.push_back(std::move(row));
  } while (accept(","));
  if (!is("union") && !is("except") && !is("intersect")) orderAndLimit(*s);
  return s;
}

// expr [[AS] alias] | * | table.*, ... (a select list, or RETURNING's)
void Parser::selectList(std::vector<SelectItem>& items) {
  do {
    SelectItem item;
    item.pos = cur().pos;
    if (is("*")) {
      item.expr = std::make_unique<Expr>(ExprKind::Star, cur().pos);
      ++i_;
    } else if (atIdentifier() && ahead(1).is(".") && ahead(2).is("*")) {
      item.expr = std::make_unique<Expr>(ExprKind::Star, cur().pos);
      item.expr->table = identifier();
      i_ += 2;
    } else {
      item.expr = expr();
      if (accept("as")) item.alias = identifier();
      else if (atIdentifier()) item.alias = identifier();
    }
    items.push_back(std::move(item));
  } while (accept(","));
}

// SELECT ... FROM ... WHERE ... GROUP BY ... HAVING ..., and ORDER BY / LIMIT when a set
// operation does not follow (the caller moves them to it otherwise).
std::unique_ptr<Select> Parser::selectCore() {
  // This SELECT's named-window calls (a subquery in it has its own).
  std::vector<WindowReference> outerRefs = std::move(windowRefs_);
  windowRefs_.clear();
  auto s = std::make_unique<Select>();
  s->pos = cur().pos;
  expect("select");
  if (accept("distinct")) {
    if (accept("on")) {  // DISTINCT ON (e, ...)
      expect("(");
      do s->distinctOn.push_back(expr());
      while (accept(","));
      expect(")");
    } else {
      s->distinct = true;
    }
  } else {
    accept("all");
  }
  selectList(s->items);
  if (plBody_ && accept("into")) {
    accept("strict");
    do {
      s->intoPos.push_back(cur().pos);
      s->into.push_back(identifier());
    } while (accept(","));
  }
  if (accept("from")) {
    ChainGuard chain(*this);  // the binder joins the entries left-deep
    do {
      chain.step();
      s->from.push_back(tableRef());
    } while (accept(","));
  }
  if (accept("where")) s->where = expr();
  if (accept("group")) {
    expect("by");
    do s->groupBy.push_back(expr());
    while (accept(","));
  }
  if (accept("having")) s->having = expr();
  std::vector<WindowDefinition> windows;
  if (accept("window")) windowClause(windows);
  if (!is("union") && !is("except") && !is("intersect")) orderAndLimit(*s);
  resolveWindowNames(windows);
  windowRefs_ = std::move(outerRefs);
  return s;
}

void Parser::orderAndLimit(Select& sel) {
  Select* s = &sel;
  if (accept("order")) {
    expect("by");
    do {
      OrderItem o;
      o.expr = expr();
      if (accept("desc")) o.descending = true;
      else accept("asc");
      if (accept("nulls")) {
        if (accept("first")) o.nullsFirst = 1;
        else if (accept("last")) o.nullsFirst = 0;
        else syntaxError();
      }
      s->orderBy.push_back(std::move(o));
    } while (accept(","));
  }
  for (int k = 0; k < 2; ++k) {
    if (!s->limit && accept("limit")) {
      if (!accept("all")) s->limit = expr();
    } else if (!s->offset && accept("offset")) {
      s->offset = expr();
      if (!accept("rows")) accept("row");
    } else if (!s->limit && accept("fetch")) {
      if (!accept("first")) expect("next");
      s->limit = is("row") || is("rows") ? literalOne() : expr();
      if (!accept("rows")) expect("row");
      expect("only");
    }
  }
}

ExprPtr Parser::literalOne() {
  auto e = std::make_unique<Expr>(ExprKind::Integer, cur().pos);
  e->text = "1";
  return e;
}

TableRefPtr Parser::tableRef() {
  TableRefPtr left = tablePrimary();
  ChainGuard chain(*this);
  while (true) {
    chain.step();
    SourcePos pos = cur().pos;
    JoinType jt;
    const bool natural = accept("natural");
    if (natural && is("cross")) syntaxError();
    if (accept("cross")) {
      expect("join");
      jt = JoinType::Cross;
    } else if (accept("join")) {
      jt = JoinType::Inner;
    } else if (accept("inner")) {
      expect("join");
      jt = JoinType::Inner;
    } else if (is("left") || is("right") || is("full")) {
      jt = is("left") ? JoinType::Left : is("right") ? JoinType::Right : JoinType::Full;
      ++i_;
      accept("outer");
      expect("join");
    } else {
      if (natural) syntaxError();
      return left;
    }
    auto j = std::make_unique<TableRef>(TableRef::Kind::Join, pos);
    j->joinType = jt;
    j->left = std::move(left);
    j->right = tablePrimary();
    j->natural = natural;
    if (jt != JoinType::Cross && !natural) {
      if (accept("using")) {
        identifierList(j->usingColumns, j->usingPos);
      } else {
        expect("on");
        j->on = expr();
      }
    }
    left = std::move(j);
  }
}

TableRefPtr Parser::tablePrimary() {
  DepthGuard g(*this);
  SourcePos pos = cur().pos;
  TableRefPtr r;
  if (is("(") && (atQuery(1) || ahead(1).is("("))) {
    expect("(");
    r = std::make_unique<TableRef>(TableRef::Kind::Subquery, pos);
    r->subquery = select();
    expect(")");
  } else if (accept("(")) {
    r = tableRef();
    expect(")");
    return r;
  } else {
    r = std::make_unique<TableRef>(TableRef::Kind::Table, pos);
    r->name = identifier();
    if (accept(".")) {  // schema.table
      r->schema = std::move(r->name);
      r->name = identifier();
    }
    if (accept("(")) {  // a table function: read_json('file')
      r->kind = TableRef::Kind::Function;
      if (!accept(")")) {
        do r->args.push_back(expr());
        while (accept(","));
        expect(")");
      }
    }
  }
  if (accept("as") || atIdentifier()) {
    r->alias = identifier();
    if (accept("(")) {
      do r->columnAliases.push_back(identifier());
      while (accept(","));
      expect(")");
    }
  }
  return r;
}

}  // namespace hyrax::sqlparse
