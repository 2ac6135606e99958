// Binding of statements and of a SELECT's clauses into a plan.
#include "sql/semantic/binder.hpp"

#include <algorithm>
#include <set>

#include "engine/catalog/catalog.hpp"
#include "sql/optimizer/constant_folding.hpp"
#include "sql/optimizer/optimizer.hpp"
#include "sql/parser/parser.hpp"
#include "sql/semantic/column_names.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/system_catalog.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprPtr;
using plan::OperatorPtr;

// A scan of all of `t`'s columns under the reference's alias (else `name`) and column aliases.
OperatorPtr SelectBinder::bindScan(Table& t, const ast::TableRef& ref, const std::string& name) {
  auto scan = std::make_unique<plan::TableScan>();
  scan->table = &t;
  scan->alias = ref.alias.empty() ? name : ref.alias;
  for (auto& s : scope_)
    if (s.alias == scan->alias)
      throw Error(sqlstate::DuplicateAlias, "table name \"" + scan->alias + "\" specified more than once", ref.pos);
  ScopeEntry entry{scan->alias, {}, {}};
  const auto& cols = t.columns();
  if (ref.columnAliases.size() > cols.size())
    throw Error(sqlstate::InvalidColumnReference, "table \"" + name + "\" has " + std::to_string(cols.size()) +
                                                      " columns available but more were specified", ref.pos);
  for (uint32_t i = 0; i < cols.size(); ++i) {
    std::string column = i < ref.columnAliases.size() ? ref.columnAliases[i] : cols[i].name;
    const plan::IU* iu = plan_.ius.make(cols[i].type, cols[i].name);
    scan->columns.push_back({i, iu});
    entry.columns.push_back({column, iu});
  }
  scope_.push_back(std::move(entry));
  return scan;
}

OperatorPtr SelectBinder::bindTableRef(const ast::TableRef& ref) {
  switch (ref.kind) {
    case ast::TableRef::Kind::Table: {
      // A WITH query of this SELECT or an enclosing one hides a table of the same name.
      bool unseenCte = false;  // one of that name that this place may not read
      for (SelectBinder* b = ref.schema.empty() ? this : nullptr; b; b = b->parent_) {
        if (!b->with_) continue;
        bool seen = true;
        for (auto& cte : *b->with_) {
          // Without RECURSIVE a WITH query sees only those before it in its list, not itself nor
          // later ones (SQL, PostgreSQL): the name means what it meant outside.
          seen = seen && !b->expanding_.count(&cte);
          if (cte.name != ref.name) continue;
          if (seen) return bindCommonTableRef(*b, cte, ref);
          unseenCte = true;
        }
      }
      // Schemas: public holds the user's tables, views and sequences; pg_catalog and
      // information_schema the system tables, made now from the catalog (system_catalog.hpp). As
      // in PostgreSQL, pg_catalog comes first on the search path, before public.
      if (!ref.schema.empty() && ref.schema != "public" && !isSystemSchema(ref.schema))
        throw Error(sqlstate::InvalidSchemaName, "schema \"" + ref.schema + "\" does not exist", ref.pos);
      if (const char* sql = systemViewSql(ref.schema, ref.name)) {  // pg_settings
        ast::StatementPtr parsed = parseStatement(sql);
        return bindDerived(*static_cast<const ast::SelectStmt&>(*parsed).select, nullptr,
                           ref.alias.empty() ? ref.name : ref.alias, ref.columnAliases, ref.pos);
      }
      if (ref.schema != "public")
        if (Table* system = systemTable(ref.schema.empty() ? "pg_catalog" : ref.schema, ref.name))
          return bindScan(*system, ref, ref.name);
      if (isSystemSchema(ref.schema))
        throw Error(sqlstate::UndefinedTable, "relation \"" + ref.schema + "." + ref.name + "\" does not exist", ref.pos);
      if (const Catalog::View* view = catalog_.findView(ref.name)) {
        // A view is its query, parsed again here and bound like a derived table.
        ast::StatementPtr parsed;
        try {
          parsed = parseStatement(view->sql);
        } catch (Error& err) {
          throw Error(err.sqlstate(), "in view \"" + ref.name + "\": " + err.message(), ref.pos);
        }
        const auto& query = *static_cast<const ast::SelectStmt&>(*parsed).select;
        try {
          return bindDerived(query, nullptr, ref.alias.empty() ? ref.name : ref.alias,
                             ref.columnAliases.empty() ? view->columns : ref.columnAliases, ref.pos);
        } catch (Error& err) {
          if (err.sqlstate() == sqlstate::TooComplex) throw;
          throw Error(err.sqlstate(), "in view \"" + ref.name + "\": " + err.message(), ref.pos);
        }
      }
      Table* t = catalog_.findTable(ref.name);
      if (!t) {
        Error err(sqlstate::UndefinedTable, "relation \"" + ref.name + "\" does not exist", ref.pos);
        if (unseenCte)
          err.withDetail("There is a WITH item named \"" + ref.name + "\", but it cannot be referenced from this part of the query.");
        throw err;
      }
      return bindScan(*t, ref, ref.name);
    }
    case ast::TableRef::Kind::Function:
      if ((ref.schema.empty() || ref.schema == "pg_catalog") && (ref.name == "unnest" || ref.name == "generate_series"))
        return bindSetFunction(ref);
      return bindScan(bindTableFunction(ref), ref, ref.name);
    case ast::TableRef::Kind::Subquery:
      if (ref.alias.empty()) throw Error(sqlstate::SyntaxError, "subquery in FROM must have an alias", ref.pos);
      return bindDerived(*ref.subquery, this, ref.alias, ref.columnAliases, ref.pos, outer_);
    case ast::TableRef::Kind::Join: {
      size_t leftScope = scope_.size();
      OperatorPtr left = bindTableRef(*ref.left);
      size_t rightScope = scope_.size();
      OperatorPtr right = bindTableRef(*ref.right);
      auto join = std::make_unique<plan::Join>();
      if (ref.joinType == ast::JoinType::Inner || ref.joinType == ast::JoinType::Cross) {
        join->children.push_back(std::move(left));
        join->children.push_back(std::move(right));
        OperatorPtr op = std::move(join);
        if (ref.on) op = addFilter(std::move(op), *ref.on, Clause::On, "JOIN/ON");
        if (ref.natural || !ref.usingColumns.empty()) {
          const std::vector<std::string> names = usingNames(ref, leftScope, rightScope);
          if (ExprPtr cond = usingCondition(ref, names, leftScope, rightScope)) {
            auto f = std::make_unique<plan::Filter>();
            f->predicate = std::move(cond);
            f->children.push_back(std::move(op));
            op = std::move(f);
          }
          op = mergeUsingColumns(ref, names, std::move(op), leftScope, rightScope);
        }
        return op;
      }
      // LEFT (RIGHT) JOIN: a left outer join preserving the left (right) side, which comes first;
      // FULL: both sides' rows all come out. The ON condition reads the inputs' own IUs; above the
      // join, the columns of a side whose rows may be missing are the join's nullable copies.
      const bool leftPreserved = ref.joinType != ast::JoinType::Right;
      join->kind = ref.joinType == ast::JoinType::Full ? plan::JoinKind::FullOuter : plan::JoinKind::LeftOuter;
      join->children.push_back(leftPreserved ? std::move(left) : std::move(right));
      join->children.push_back(leftPreserved ? std::move(right) : std::move(left));
      if (ref.on) {
        plan::OperatorPtr* saved = input_;
        input_ = nullptr;  // a subquery in ON joins onto one of the join's inputs, not above it
        outerJoinInputs_ = {&join->children[0], &join->children[1]};
        fullJoin_ = join->kind == plan::JoinKind::FullOuter;
        join->residual = bindExpr(*ref.on, Clause::On);
        outerJoinInputs_ = {};
        input_ = saved;
        requireBoolean(*join->residual, "JOIN/ON");
        if (!onConditions_.empty()) {  // subqueries reading both inputs: see bindSubquery
          onConditions_.push_back(std::move(join->residual));
          join->residual = conjunction(std::move(onConditions_));
          onConditions_.clear();
        }
      }
      const bool merging = ref.natural || !ref.usingColumns.empty();
      const std::vector<std::string> names = merging ? usingNames(ref, leftScope, rightScope) : std::vector<std::string>{};
      if (merging) join->residual = usingCondition(ref, names, leftScope, rightScope);
      if (fullRightCopy_) {  // a FULL JOIN whose ON has a subquery reading both inputs
        std::vector<const plan::IU*> pCols, nCols, outputs;
        for (size_t i = leftScope; i < scope_.size(); ++i)
          for (auto& c : scope_[i].columns) (i < rightScope ? pCols : nCols).push_back(c.second);
        OperatorPtr op = fullJoinReadingBoth(std::move(join), pCols, nCols, outputs, ref.pos);
        size_t k = 0;
        for (size_t i = leftScope; i < scope_.size(); ++i)
          for (auto& c : scope_[i].columns) c.second = outputs[k++];
        return op;
      }
      size_t from = leftPreserved ? rightScope : leftScope, to = leftPreserved ? scope_.size() : rightScope;
      if (join->kind == plan::JoinKind::FullOuter) from = leftScope, to = scope_.size();
      for (size_t i = from; i < to; ++i)
        for (auto& [name, iu] : scope_[i].columns) {
          const plan::IU* outer = plan_.ius.make(iu->type.withNullable(true), iu->name);
          join->outerColumns.push_back({iu, outer});
          iu = outer;
        }
      if (merging) return mergeUsingColumns(ref, names, std::move(join), leftScope, rightScope);
      return join;
    }
  }
  throw Error(sqlstate::InternalError, "unknown FROM entry", ref.pos);
}

OperatorPtr SelectBinder::bindDerived(const ast::Select& query, SelectBinder* parent, const std::string& alias,
                                      const std::vector<std::string>& columnAliases, SourcePos pos, SelectBinder* outer) {
  for (auto& s : scope_)
    if (s.alias == alias) throw Error(sqlstate::DuplicateAlias, "table name \"" + alias + "\" specified more than once", pos);
  // Not correlated with the FROM it stands in (SQL-92 has no LATERAL), but inside a subquery it
  // may read the enclosing queries' columns, as any part of the subquery may.
  SelectBinder inner(catalog_, plan_, outer);
  inner.parent_ = parent;
  inner.depth_ = depth_ + 1;  // views in views (a view may outlive what it was made from)
  if (inner.depth_ > 64) throw Error(sqlstate::TooComplex, "views or derived tables nested too deeply", pos);
  std::vector<const plan::IU*> out;
  std::vector<std::string> names;
  OperatorPtr op = inner.bind(query, out, names);
  addDerivedScope(alias, columnAliases, names, out, pos);
  return op;
}

void SelectBinder::addDerivedScope(const std::string& alias, const std::vector<std::string>& columnAliases,
                                   const std::vector<std::string>& names, const std::vector<const plan::IU*>& ius,
                                   SourcePos pos) {
  ScopeEntry entry{alias, {}, {}};
  if (columnAliases.size() > ius.size())
    throw Error(sqlstate::InvalidColumnReference, "too many column aliases for \"" + alias + "\"", pos);
  for (size_t i = 0; i < ius.size(); ++i)
    entry.columns.push_back({i < columnAliases.size() ? columnAliases[i] : names[i], ius[i]});
  scope_.push_back(std::move(entry));
}

OperatorPtr SelectBinder::addFilter(OperatorPtr op, const ast::Expr& cond, Clause clause, const char* name) {
  auto f = std::make_unique<plan::Filter>();
  plan::OperatorPtr* saved = input_;
  input_ = &op;  // subqueries in the condition join onto its input
  f->predicate = bindExpr(cond, clause);
  input_ = saved;
  if (f->predicate->kind == plan::ExprKind::Constant && f->predicate->type.isString())
    f->predicate = castTo(std::move(f->predicate), SqlType::boolean());
  requireBoolean(*f->predicate, name);
  f->children.push_back(std::move(op));
  return f;
}

OperatorPtr SelectBinder::bindFrom(const ast::Select& s) {
  if (s.from.empty()) {
    auto v = std::make_unique<plan::Values>();
    v->rows.emplace_back();  // one row without columns
    return v;
  }
  OperatorPtr op;
  for (auto& ref : s.from) {
    OperatorPtr next = bindTableRef(*ref);
    if (!op) {
      op = std::move(next);
      continue;
    }
    auto join = std::make_unique<plan::Join>();  // a cross product until the optimizer finds keys
    join->children.push_back(std::move(op));
    join->children.push_back(std::move(next));
    op = std::move(join);
  }
  return op;
}

void SelectBinder::bindCount(const ast::Expr& e, const char* what, uint64_t& constant, ExprPtr& atRunTime) {
  // As PostgreSQL: any number, converted to BIGINT (2.5 rounds to 3); $1 is a BIGINT parameter.
  ExprPtr x = bindExpr(e, Clause::Limit);
  const SqlType& t = x->type;
  if (!t.isNull() && !t.isNumeric())
    throw Error(sqlstate::DatatypeMismatch, std::string("argument of ") + what + " must be type bigint, not type " + t.name(), e.pos);
  std::vector<const plan::IU*> columns;
  x->collectIUs(columns);
  if (!columns.empty())
    throw Error("42P10", std::string("argument of ") + what + " must not contain variables", e.pos);
  x = foldConstants(castTo(std::move(x), SqlType::int64(true)));
  if (x->kind != plan::ExprKind::Constant) {
    atRunTime = std::move(x);  // a parameter's: the query checks it when it runs
    return;
  }
  if (x->value.isNull()) return;  // no limit, no offset
  if (x->value.asInt() < 0)
    throw Error(what[0] == 'L' ? sqlstate::InvalidRowCount : sqlstate::InvalidOffsetCount,
                std::string(what) + " must not be negative", e.pos);
  constant = static_cast<uint64_t>(x->value.asInt());
}

OperatorPtr SelectBinder::bind(const ast::Select& s, std::vector<const plan::IU*>& output, std::vector<std::string>& names) {
  binding_ = true;
  for (;;) {
    try {
      OperatorPtr op = bindOnce(s, output, names);
      binding_ = false;
      return op;
    } catch (const RetryBinding& r) {
      if (r.owner != this) {
        binding_ = false;
        throw;
      }
      // Start over with what a fresh binder has (depth_, outer_, parent_ and the noted outer
      // aggregates stay).
      output.clear();
      names.clear();
      with_ = nullptr;
      expanding_.clear();
      boundCtes_.clear();  // bound again: the plans bound so far stay unread (dropped)
      input_ = nullptr;
      outerJoinInputs_ = {};
      scope_.clear();
      aggregate_ = nullptr;
      groupSources_.clear();
      probing_ = false;
      fullRightCopy_.reset();
      fullRightCopyOf_.clear();
      onConditions_.clear();
    } catch (...) {
      binding_ = false;
      throw;
    }
  }
}

OperatorPtr SelectBinder::bindOnce(const ast::Select& s, std::vector<const plan::IU*>& output,
                                   std::vector<std::string>& names) {
  if (!s.with.empty()) bindCommonTables(s.with);
  if (s.setOp != ast::SetOp::None) return bindSetOperation(s, output, names);
  if (!s.values.empty()) return bindValues(s, output, names);
  OperatorPtr op = bindFrom(s);
  if (s.where) op = addFilter(std::move(op), *s.where, Clause::Where, "WHERE");

  // ---- aggregation ----
  // HAVING without GROUP BY makes the whole input one group (SQL-92 7.8, as PostgreSQL), with or
  // without an aggregate in it: `SELECT 1 FROM t HAVING cond` answers one row or none.
  bool aggregating = !s.groupBy.empty() || s.having || !outerAggregates_.empty();
  for (auto& item : s.items) aggregating = aggregating || containsOwnAggregate(*item.expr);
  for (auto& o : s.orderBy) aggregating = aggregating || containsOwnAggregate(*o.expr);
  if (aggregating) {
    auto agg = std::make_unique<plan::Aggregate>();
    input_ = &op;  // a subquery in GROUP BY is one more value of each input row: it joins onto `op`
    for (auto& g : s.groupBy) {
      const ast::Expr* ge = g.get();
      // GROUP BY 2 / GROUP BY alias refer to the select list (PostgreSQL's rule).
      if (ge->kind == ast::ExprKind::Integer) {
        size_t n = std::stoul(ge->text.size() > 9 ? "0" : ge->text);
        if (n < 1 || n > s.items.size())
          throw Error(sqlstate::InvalidColumnReference, "GROUP BY position " + ge->text + " is not in select list", ge->pos);
        ge = s.items[n - 1].expr.get();
      } else if (ge->kind == ast::ExprKind::Column && ge->table.empty()) {
        bool inScope = false;
        for (auto& e : scope_)
          for (auto& c : e.columns) inScope = inScope || c.first == ge->name;
        if (!inScope) {
          const ast::Expr* named = nullptr;  // compared by the GROUP BY's name, not the match's
          for (auto& item : s.items)
            if (item.alias == ge->name) {
              if (named) throw Error(sqlstate::AmbiguousColumn, "GROUP BY \"" + ge->name + "\" is ambiguous", ge->pos);
              named = item.expr.get();
            }
          if (named) ge = named;
        }
      }
      if (containsAggregate(*ge)) throw Error(sqlstate::GroupingError, "aggregate functions are not allowed in GROUP BY", ge->pos);
      ExprPtr e = bindExpr(*ge, Clause::GroupBy);
      const plan::IU* iu = nullptr;
      for (auto& existing : agg->groups)
        if (plan::sameExpr(*existing.expr, *e)) iu = existing.iu;
      if (!iu) {
        iu = plan_.ius.make(e->type, e->kind == plan::ExprKind::Column ? e->iu->name : "group");
        agg->groups.push_back({iu, std::move(e)});
      }
      groupSources_.push_back({ge, iu});
    }
    input_ = nullptr;
    aggregate_ = agg.get();
    agg->children.push_back(std::move(op));
    op = std::move(agg);
  }
  if (s.having) {
    op = addFilter(std::move(op), *s.having, Clause::Having, "HAVING");
  }

  // ---- select list (and ORDER BY): their subqueries join onto `op` ----
  input_ = &op;
  expandSelectList(s, op);
  auto map = std::make_unique<plan::Map>();
  std::vector<const plan::IU*> out;
  std::vector<const ast::Expr*> sourceExprs;
  // An outer query's column as an output is copied into one of this SELECT's own: an operator
  // reading the outputs as lists of IUs (a set operation's inputs) would otherwise read the outer
  // column where no expression shows it, and the subquery would not be seen as correlated.
  auto outerColumn = [&](const plan::IU* iu) {
    for (const SelectBinder* b = outer_; b; b = b->outer_)
      if (b->inScope(iu)) return true;
    return false;
  };
  auto addOutput = [&](ExprPtr e, const std::string& name, const ast::Expr* src) {
    const plan::IU* iu;
    if (e->kind == plan::ExprKind::Column && !outerColumn(e->iu)) {
      iu = e->iu;
    } else {
      iu = plan_.ius.make(e->type, name);
      map->computed.push_back({iu, std::move(e)});
    }
    out.push_back(iu);
    names.push_back(name);
    sourceExprs.push_back(src);
  };
  for (auto& item : s.items) {
    if (item.expr->kind == ast::ExprKind::Star) {
      bool any = false;
      for (auto& entry : scope_) {
        if (!item.expr->table.empty() && entry.alias != item.expr->table) continue;
        any = true;
        for (auto& [name, iu] : entry.columns) {
          if (item.expr->table.empty() && entry.qualifiedOnly.count(name)) continue;  // the merged USING column
          ast::Expr col(ast::ExprKind::Column, item.expr->pos);
          col.table = entry.alias;
          col.name = name;
          addOutput(bindExpr(col, Clause::Select), name, nullptr);
        }
      }
      if (!any && !item.expr->table.empty())
        throw Error(sqlstate::UndefinedTable, "missing FROM-clause entry for table \"" + item.expr->table + "\"", item.pos);
      if (!any) throw Error(sqlstate::SyntaxError, "SELECT * with no tables specified is not valid", item.pos);
      continue;
    }
    if (selectSrf_ && item.expr->kind == ast::ExprKind::Function && item.expr->name == "_pg_expandarray") {
      // A composite item: its fields as two columns (bindFieldSelect reads them by these names).
      const std::string name = item.alias.empty() ? "_pg_expandarray" : item.alias;
      addOutput(Expr::column(selectSrfValue_, item.pos), name + ".x", nullptr);
      addOutput(Expr::column(selectSrfOrdinal_, item.pos), name + ".n", nullptr);
      continue;
    }
    addOutput(bindExpr(*item.expr, Clause::Select), item.alias.empty() ? defaultColumnName(*item.expr) : item.alias,
              item.expr.get());
  }

  // ---- ORDER BY and DISTINCT ON: positions, output names, or expressions ----
  auto sortColumn = [&](const ast::Expr& e, const char* clause) {
    const plan::IU* iu = orderByOutput(e, out, names, clause);
    if (!iu) {
      ExprPtr x = bindExpr(e, Clause::OrderBy);
      for (size_t i = 0; i < out.size() && !iu; ++i) {
        if (x->kind == plan::ExprKind::Column && x->iu == out[i]) iu = out[i];
        for (auto& c : map->computed)
          if (!iu && c.iu == out[i] && plan::sameExpr(*c.expr, *x)) iu = out[i];
      }
      if (!iu) {
        if (s.distinct)
          throw Error(sqlstate::InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list", e.pos);
        if (x->kind == plan::ExprKind::Column) {
          iu = x->iu;
        } else {
          // The same expression in DISTINCT ON and ORDER BY is one key (they are compared by key).
          for (auto& c : map->computed)
            if (!iu && plan::sameExpr(*c.expr, *x)) iu = c.iu;
          if (!iu) {
            iu = plan_.ius.make(x->type, "order");
            map->computed.push_back({iu, std::move(x)});
          }
        }
      }
    }
    if (iu->type.isArray())  // PostgreSQL orders arrays element by element; their text would not
      throw Error(sqlstate::FeatureNotSupported, std::string(clause) + " an array is not supported", e.pos);
    return iu;
  };
  std::vector<plan::SortKey> keys;
  for (auto& o : s.orderBy) {
    const plan::IU* iu = sortColumn(*o.expr, "ORDER BY");
    // A key that came before cannot change the order again: PostgreSQL drops it from the sort
    // (targetIsInSortList, whatever its direction), so DISTINCT ON (a) ... ORDER BY a, b, a is
    // accepted there (here it was 42P10: the second a came after b).
    if (std::any_of(keys.begin(), keys.end(), [&](const plan::SortKey& k) { return k.expr->iu == iu; })) continue;
    plan::SortKey k;
    k.expr = Expr::column(iu);
    k.descending = o.descending;
    k.nullsFirst = o.nullsFirst < 0 ? o.descending : o.nullsFirst == 1;
    keys.push_back(std::move(k));
  }
  std::vector<const plan::IU*> distinctOn;
  std::vector<SourcePos> distinctOnPos;
  for (auto& e : s.distinctOn) {
    const plan::IU* iu = sortColumn(*e, "DISTINCT ON");
    if (std::find(distinctOn.begin(), distinctOn.end(), iu) != distinctOn.end()) continue;
    distinctOn.push_back(iu);
    distinctOnPos.push_back(e->pos);
  }
  input_ = nullptr;
  if (aggregate_) splitDistinctAggregates(op, *aggregate_);
  // Copies of the aggregation made before that (a subquery's domain of outer aggregate values)
  // still hold f(DISTINCT x), which only the split computes.
  splitCopiedDistinctAggregates(op);
  if (!map->computed.empty()) {
    map->children.push_back(std::move(op));
    op = std::move(map);
  }

  if (s.distinct) {
    auto d = std::make_unique<plan::Aggregate>();
    for (size_t i = 0; i < out.size(); ++i) {
      const plan::IU* iu = plan_.ius.make(out[i]->type, out[i]->name);
      d->groups.push_back({iu, Expr::column(out[i])});
      for (auto& k : keys)
        if (k.expr->iu == out[i]) k.expr = Expr::column(iu);
      out[i] = iu;
    }
    d->children.push_back(std::move(op));
    op = std::move(d);
  }
  if (!distinctOn.empty()) {
    op = distinctOnSort(std::move(op), std::move(keys), distinctOn, distinctOnPos);
  } else if (!keys.empty()) {
    auto sort = std::make_unique<plan::Sort>();
    sort->keys = std::move(keys);
    sort->children.push_back(std::move(op));
    op = std::move(sort);
  }
  op = addLimit(std::move(op), s);
  output = std::move(out);
  return op;
}

// DISTINCT ON (d, ...): one Sort whose first keys, the DISTINCT ON columns, are partitions of
// which only the first row goes on (partitionLimit 1); the rest of ORDER BY decides which row is
// first. As in PostgreSQL the DISTINCT ON columns must lead ORDER BY (42P10); those ORDER BY does
// not name come after its ones, ascending, so the Sort's order is also ORDER BY's and no second
// sort is needed. Without ORDER BY the rows come ordered by the DISTINCT ON columns.
OperatorPtr SelectBinder::distinctOnSort(OperatorPtr op, std::vector<plan::SortKey> orderBy,
                                         const std::vector<const plan::IU*>& distinctOn,
                                         const std::vector<SourcePos>& positions) {
  auto mismatch = [&](const plan::IU* iu) {
    size_t i = std::find(distinctOn.begin(), distinctOn.end(), iu) - distinctOn.begin();
    return Error(sqlstate::InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions",
                 positions[i]);
  };
  auto sort = std::make_unique<plan::Sort>();
  std::vector<bool> named(distinctOn.size(), false);
  bool skipped = false;  // an ORDER BY key that is no DISTINCT ON column came already
  for (auto& k : orderBy) {
    auto it = std::find(distinctOn.begin(), distinctOn.end(), k.expr->iu);
    if (it == distinctOn.end()) {
      skipped = true;
      continue;
    }
    if (skipped) throw mismatch(*it);
    if (!named[it - distinctOn.begin()]) sort->keys.push_back({Expr::column(*it), k.descending, k.nullsFirst});
    named[it - distinctOn.begin()] = true;
  }
  for (size_t i = 0; i < distinctOn.size(); ++i) {
    if (named[i]) continue;
    if (skipped) throw mismatch(distinctOn[i]);
    sort->keys.push_back({Expr::column(distinctOn[i]), false, false});
  }
  sort->partitionKeys = sort->keys.size();
  sort->partitionLimit = 1;
  for (auto& k : orderBy)
    if (std::find(distinctOn.begin(), distinctOn.end(), k.expr->iu) == distinctOn.end()) sort->keys.push_back(std::move(k));
  sort->children.push_back(std::move(op));
  return sort;
}

const plan::IU* SelectBinder::orderByOutput(const ast::Expr& e, const std::vector<const plan::IU*>& out,
                                            const std::vector<std::string>& names, const char* clause) {
  const plan::IU* iu = nullptr;
  if (e.kind == ast::ExprKind::Integer) {
    size_t n = e.text.size() > 9 ? 0 : std::stoul(e.text);
    if (n < 1 || n > out.size())
      throw Error(sqlstate::InvalidColumnReference, std::string(clause) + " position " + e.text + " is not in select list", e.pos);
    iu = out[n - 1];
  } else if (e.kind == ast::ExprKind::Column && e.table.empty()) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] != e.name) continue;
      if (iu && iu != out[i]) throw Error(sqlstate::AmbiguousColumn, std::string(clause) + " \"" + e.name + "\" is ambiguous", e.pos);
      iu = out[i];
    }
  }
  return iu;
}

OperatorPtr SelectBinder::addLimit(OperatorPtr op, const ast::Select& s) {
  if (!s.limit && !s.offset) return op;
  auto l = std::make_unique<plan::Limit>();
  if (s.limit) bindCount(*s.limit, "LIMIT", l->limit, l->limitExpr);
  if (s.offset) bindCount(*s.offset, "OFFSET", l->offset, l->offsetExpr);
  l->children.push_back(std::move(op));
  return l;
}

void Binder::bindSelect(const ast::Select& select, plan::QueryPlan& out) {
  SelectBinder b(catalog_, out);
  out.root = b.bind(select, out.output, out.outputNames);
  resolveParameters(out);
}

OperatorPtr assignOutputs(plan::QueryPlan& plan, OperatorPtr op, const std::vector<const plan::IU*>& values,
                          const std::vector<ColumnDef>& targets, SourcePos pos) {
  auto map = std::make_unique<plan::Map>();
  for (size_t i = 0; i < values.size(); ++i) {
    ExprPtr e = assignTo(Expr::column(values[i]), targets[i], pos);
    if (e->kind == plan::ExprKind::Column) {
      plan.output.push_back(values[i]);
      continue;
    }
    const plan::IU* iu = plan.ius.make(e->type, targets[i].name);
    map->computed.push_back({iu, std::move(e)});
    plan.output.push_back(iu);
  }
  if (map->computed.empty()) return op;
  map->children.push_back(std::move(op));
  return map;
}

void Binder::bindSelectInto(const ast::Select& select, const std::vector<ColumnDef>& targets, plan::QueryPlan& out) {
  SelectBinder b(catalog_, out);
  std::vector<const plan::IU*> values;
  out.root = b.bind(select, values, out.outputNames);
  if (values.size() < targets.size())
    throw Error(sqlstate::SyntaxError, "query returns fewer columns than INTO targets", select.pos);
  values.resize(targets.size());  // PL/pgSQL ignores the extra columns
  out.outputNames.resize(targets.size());
  out.root = assignOutputs(out, std::move(out.root), values, targets, select.pos);
  resolveParameters(out);
}

void Binder::bindInsert(const ast::InsertStmt& stmt, BoundWrite& out) {
  Table* t = catalog_.findTable(stmt.table);
  if (!t) throw Error(sqlstate::UndefinedTable, "relation \"" + stmt.table + "\" does not exist", stmt.tablePos);
  out.table = t;
  const auto& cols = t->columns();
  if (stmt.columns.empty()) {
    if (!stmt.defaultValues)
      for (uint32_t i = 0; i < cols.size(); ++i) out.columns.push_back(i);
  } else {
    for (size_t k = 0; k < stmt.columns.size(); ++k) {
      const std::string& name = stmt.columns[k];
      auto it = std::find_if(cols.begin(), cols.end(), [&](auto& c) { return c.name == name; });
      if (it == cols.end())
        throw Error(sqlstate::UndefinedColumn, "column \"" + name + "\" of relation \"" + stmt.table + "\" does not exist",
                    stmt.columnPos[k]);
      uint32_t idx = static_cast<uint32_t>(it - cols.begin());
      if (std::find(out.columns.begin(), out.columns.end(), idx) != out.columns.end())
        throw Error(sqlstate::DuplicateColumn, "column \"" + name + "\" specified more than once", stmt.columnPos[k]);
      out.columns.push_back(idx);
    }
  }
  // Assignment: each value converts to its column's type.
  auto assign = [&](ExprPtr e, uint32_t col, SourcePos pos) { return assignTo(std::move(e), cols[col], pos); };
  auto checkCount = [&](size_t n, SourcePos pos) {
    if (n > out.columns.size()) throw Error(sqlstate::SyntaxError, "INSERT has more expressions than target columns", pos);
    if (n < out.columns.size()) throw Error(sqlstate::SyntaxError, "INSERT has more target columns than expressions", pos);
  };
  if (stmt.defaultValues && !stmt.columns.empty())
    throw Error(sqlstate::SyntaxError, "DEFAULT VALUES takes no column list", stmt.columnPos[0]);
  // An identity column whose value is DEFAULT in every VALUES row counts as left out (the write
  // numbers it); GENERATED ALWAYS takes nothing else.
  std::vector<size_t> positions;  // of out.columns kept, in VALUES rows
  for (size_t i = 0; i < out.columns.size(); ++i) {
    const ColumnDef& c = cols[out.columns[i]];
    bool allDefault = !stmt.values.empty() && c.sequence;
    for (auto& row : stmt.values) allDefault = allDefault && i < row.size() && row[i]->kind == ast::ExprKind::Default;
    if (allDefault) continue;
    if (c.sequence && c.sequence->always)
      throw Error("428C9", "cannot insert a non-DEFAULT value into column \"" + c.name + "\"",
                  stmt.columns.empty() ? stmt.pos : stmt.columnPos[i])
          .withDetail("Column \"" + c.name + "\" is an identity column defined as GENERATED ALWAYS.");
    positions.push_back(i);
  }
  size_t written = out.columns.size();
  if (positions.size() != written) {
    std::vector<uint32_t> kept;
    for (size_t i : positions) kept.push_back(out.columns[i]);
    out.columns = std::move(kept);
  }
  if (!stmt.values.empty() || stmt.defaultValues) {
    auto values = std::make_unique<plan::Values>();
    for (uint32_t c : out.columns) values->columns.push_back(out.plan.ius.make(cols[c].type.withNullable(true), cols[c].name));
    SelectBinder b(catalog_, out.plan);
    for (auto& row : stmt.values) {
      if (row.size() != written) {
        if (row.size() > written) throw Error(sqlstate::SyntaxError, "INSERT has more expressions than target columns", row.back()->pos);
        throw Error(sqlstate::SyntaxError, "INSERT has more target columns than expressions", row.empty() ? stmt.pos : row.back()->pos);
      }
      std::vector<ExprPtr> bound;
      for (size_t k = 0; k < positions.size(); ++k) {
        const ast::Expr& item = *row[positions[k]];
        uint32_t col = out.columns[k];
        if (item.kind == ast::ExprKind::Default && cols[col].sequence)
          throw Error(sqlstate::FeatureNotSupported,
                      "DEFAULT for identity column \"" + cols[col].name + "\" in some rows only: give every row a value or none",
                      item.pos);
        bound.push_back(item.kind == ast::ExprKind::Default ? defaultOf(cols[col], item.pos)
                                                             : assign(b.bindExpr(item, Clause::Values), col, item.pos));
      }
      values->rows.push_back(std::move(bound));
    }
    if (stmt.defaultValues) values->rows.emplace_back();  // one row of nothing but defaults
    out.plan.output = values->columns;
    out.plan.root = std::move(values);
  } else {
    SelectBinder b(catalog_, out.plan);
    std::vector<const plan::IU*> selOut;
    std::vector<std::string> names;
    OperatorPtr op = b.bind(*stmt.select, selOut, names);
    checkCount(selOut.size(), stmt.select->pos);
    std::vector<ColumnDef> targets;
    for (uint32_t c : out.columns) targets.push_back(cols[c]);
    out.plan.root = assignOutputs(out.plan, std::move(op), selOut, targets, stmt.select->pos);
  }
  // Columns left out that have a DEFAULT get it (the others stay NULL).
  auto defaults = std::make_unique<plan::Map>();
  for (uint32_t c = 0; c < cols.size(); ++c) {
    if ((!cols[c].defaultValue && !cols[c].defaultNow && !cols[c].defaultSequence) || std::find(out.columns.begin(), out.columns.end(), c) != out.columns.end()) continue;
    const plan::IU* iu = out.plan.ius.make(cols[c].type.withNullable(true), cols[c].name);
    defaults->computed.push_back({iu, defaultOf(cols[c], stmt.pos)});
    out.plan.output.push_back(iu);
    out.columns.push_back(c);
  }
  if (!defaults->computed.empty()) {
    defaults->children.push_back(std::move(out.plan.root));
    out.plan.root = std::move(defaults);
  }
  for (auto* iu : out.plan.output) out.plan.outputNames.push_back(iu->name);
  resolveParameters(out.plan);
  bindReturning(stmt.returning, stmt.table, out);
  if (t->checks().empty()) return;
  // CHECK constraints see the whole new row: columns the INSERT leaves out are NULL.
  std::vector<const plan::IU*> row(cols.size(), nullptr);
  for (size_t i = 0; i < out.columns.size(); ++i) row[out.columns[i]] = out.plan.output[i];
  auto nulls = std::make_unique<plan::Map>();
  for (uint32_t c = 0; c < cols.size(); ++c) {
    if (row[c]) continue;
    row[c] = out.plan.ius.make(cols[c].type.withNullable(true), cols[c].name);
    nulls->computed.push_back({row[c], Expr::constant(Value::null(cols[c].type.withNullable(true)))});
  }
  if (!nulls->computed.empty()) {
    nulls->children.push_back(std::move(out.plan.root));
    out.plan.root = std::move(nulls);
  }
  addCheckOutputs(catalog_, out.plan, *t, row);
}

}  // namespace hyrax::sql
