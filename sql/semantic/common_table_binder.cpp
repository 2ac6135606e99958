// WITH queries: each is bound once, when first read, into the plan's commonTables, and every
// reference is a plan::CteScan of it with IUs of its own. Whether it is then computed once into
// a buffer (read two or more times) or inlined where it is read (once) is the optimizer's
// decision (sql/optimizer/common_tables.cpp): only after binding is it known how often it is
// read, since the unnesting of correlated subqueries copies parts of the plan (and so its reads).
#include "sql/semantic/select_binder.hpp"

namespace hyrax::sql {

plan::OperatorPtr SelectBinder::bindCommonTableRef(SelectBinder& owner, const ast::CommonTableExpr& cte,
                                                   const ast::TableRef& ref) {
  const std::string alias = ref.alias.empty() ? ref.name : ref.alias;
  for (auto& s : scope_)
    if (s.alias == alias) throw Error(sqlstate::DuplicateAlias, "table name \"" + alias + "\" specified more than once", ref.pos);
  auto it = owner.boundCtes_.find(&cte);
  if (it == owner.boundCtes_.end()) {
    // Bound as a derived table of the SELECT that has the WITH: it sees that SELECT's other WITH
    // queries (and the enclosing ones'), not itself, and no outer query's columns, so its plan
    // reads nothing of the place it is read from and can run before the query.
    SelectBinder inner(catalog_, plan_, nullptr);
    inner.parent_ = &owner;
    inner.depth_ = depth_ + 1;
    if (inner.depth_ > 64) throw Error(sqlstate::TooComplex, "views or derived tables nested too deeply", ref.pos);
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
    const auto id = static_cast<uint32_t>(plan_.commonTables.size());
    plan_.commonTables.push_back({id, cte.name, std::move(op), out});
    it = owner.boundCtes_.emplace(&cte, BoundCommonTable{id, std::move(names)}).first;
  }
  const plan::CommonTable& table = plan_.commonTables[it->second.id];
  auto scan = std::make_unique<plan::CteScan>();
  scan->cte = table.id;
  scan->name = cte.name;
  scan->alias = alias;
  std::vector<const plan::IU*> ius;
  for (const plan::IU* source : table.columns) {
    ius.push_back(plan_.ius.make(source->type, source->name));
    scan->columns.push_back({source, ius.back()});
  }
  addDerivedScope(alias, ref.columnAliases.empty() ? cte.columns : ref.columnAliases, it->second.names, ius, ref.pos);
  return scan;
}

}  // namespace hyrax::sql
