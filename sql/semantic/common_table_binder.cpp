// WITH queries: each is bound once into the plan's commonTables, every one of a SELECT's before
// its other clauses (PostgreSQL's order, so the first error reported is the same), and every
// reference is a plan::CteScan of it with IUs of its own. Whether it is then computed once into
// a buffer (read two or more times), inlined where it is read (once) or dropped (never read) is
// the optimizer's decision (sql/optimizer/common_tables.cpp): only after binding is it known how
// often it is read, since the unnesting of correlated subqueries copies parts of the plan (and
// so its reads). Why bind one nobody reads: its errors (a missing column or table, a misplaced
// aggregate) are the statement's, as in PostgreSQL; its rows are never computed.
#include "sql/semantic/select_binder.hpp"

namespace hyrax::sql {

void SelectBinder::bindCommonTables(const std::vector<ast::CommonTableExpr>& with) {
  for (size_t i = 0; i < with.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (with[k].name == with[i].name)
        throw Error(sqlstate::DuplicateAlias, "WITH query name \"" + with[i].name + "\" specified more than once", with[i].pos);
  with_ = &with;
  // In order: each sees only those before it, all bound by then.
  for (auto& cte : with) bindCommonTable(*this, cte, cte.pos);
}

const SelectBinder::BoundCommonTable& SelectBinder::bindCommonTable(SelectBinder& owner, const ast::CommonTableExpr& cte,
                                                                    SourcePos pos) {
  auto it = owner.boundCtes_.find(&cte);
  if (it != owner.boundCtes_.end()) return it->second;
  // Bound as a derived table of the SELECT that has the WITH: it sees that SELECT's WITH queries
  // before it (and the enclosing ones'), not itself, and no outer query's columns, so its plan
  // reads nothing of the place it is read from and can run before the query.
  SelectBinder inner(catalog_, plan_, nullptr);
  inner.parent_ = &owner;
  inner.depth_ = depth_ + 1;
  if (inner.depth_ > 64) throw Error(sqlstate::TooComplex, "views or derived tables nested too deeply", pos);
  std::vector<const plan::IU*> out;
  std::vector<std::string> names;
  owner.expanding_.insert(&cte);
  plan::OperatorPtr op;
  try {
    op = inner.bind(*cte.query, out, names);
  } catch (...) {
    owner.expanding_.erase(&cte);
    throw;
  }
  owner.expanding_.erase(&cte);
  if (cte.columns.size() > out.size())
    throw Error(sqlstate::InvalidColumnReference,
                "WITH query \"" + cte.name + "\" has " + std::to_string(out.size()) + " columns available but " +
                    std::to_string(cte.columns.size()) + " columns specified",
                cte.pos);
  const auto id = static_cast<uint32_t>(plan_.commonTables.size());
  plan_.commonTables.push_back({id, cte.name, std::move(op), out});
  return owner.boundCtes_.emplace(&cte, BoundCommonTable{id, std::move(names)}).first->second;
}

plan::OperatorPtr SelectBinder::bindCommonTableRef(SelectBinder& owner, const ast::CommonTableExpr& cte,
                                                   const ast::TableRef& ref) {
  const std::string alias = ref.alias.empty() ? ref.name : ref.alias;
  for (auto& s : scope_)
    if (s.alias == alias) throw Error(sqlstate::DuplicateAlias, "table name \"" + alias + "\" specified more than once", ref.pos);
  const BoundCommonTable& bound = bindCommonTable(owner, cte, ref.pos);
  const plan::CommonTable& table = plan_.commonTables[bound.id];
  auto scan = std::make_unique<plan::CteScan>();
  scan->cte = table.id;
  scan->name = cte.name;
  scan->alias = alias;
  std::vector<const plan::IU*> ius;
  for (const plan::IU* source : table.columns) {
    ius.push_back(plan_.ius.make(source->type, source->name));
    scan->columns.push_back({source, ius.back()});
  }
  addDerivedScope(alias, ref.columnAliases.empty() ? cte.columns : ref.columnAliases, bound.names, ius, ref.pos);
  return scan;
}

}  // namespace hyrax::sql
