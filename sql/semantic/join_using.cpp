// JOIN ... USING (a, b) and NATURAL JOIN: the named columns (or those both sides have) are
// compared for equality instead of an ON condition, and each pair becomes one merged column: the
// left's for INNER and LEFT joins, the right's for RIGHT, COALESCE(left, right) for FULL. The bare
// name and SELECT * mean the merged column (first in SELECT *, as SQL has it); `t.a` still reaches
// each side's own.
#include <algorithm>

#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprPtr;
using plan::OperatorPtr;

namespace {

// The IU `name` means on one side of the join (scope entries [from, to), bare names only);
// nullptr when that side has none; 42702 when it has several.
const plan::IU* sideColumn(const std::vector<ScopeEntry>& scope, size_t from, size_t to, const std::string& name,
                           const char* side, SourcePos pos) {
  const plan::IU* found = nullptr;
  for (size_t i = from; i < to; ++i) {
    if (scope[i].qualifiedOnly.count(name)) continue;
    for (auto& [n, iu] : scope[i].columns) {
      if (n != name) continue;
      if (found)
        throw Error(sqlstate::AmbiguousColumn,
                    "common column name \"" + name + "\" appears more than once in " + side + " table", pos);
      found = iu;
    }
  }
  return found;
}

}  // namespace

std::vector<std::string> SelectBinder::usingNames(const ast::TableRef& ref, size_t leftScope, size_t rightScope) const {
  if (!ref.natural) return ref.usingColumns;
  std::vector<std::string> names;  // the left's bare names, in order, that the right has too
  for (size_t i = leftScope; i < rightScope; ++i)
    for (auto& [name, iu] : scope_[i].columns) {
      if (scope_[i].qualifiedOnly.count(name) || std::find(names.begin(), names.end(), name) != names.end()) continue;
      for (size_t k = rightScope; k < scope_.size(); ++k)
        if (!scope_[k].qualifiedOnly.count(name) &&
            std::any_of(scope_[k].columns.begin(), scope_[k].columns.end(), [&](auto& c) { return c.first == name; })) {
          names.push_back(name);
          break;
        }
    }
  return names;
}

ExprPtr SelectBinder::usingCondition(const ast::TableRef& ref, const std::vector<std::string>& names, size_t leftScope,
                                     size_t rightScope) {
  std::vector<ExprPtr> parts;
  for (size_t i = 0; i < names.size(); ++i) {
    const SourcePos pos = i < ref.usingPos.size() ? ref.usingPos[i] : ref.pos;
    for (size_t k = 0; k < i; ++k)
      if (names[k] == names[i])
        throw Error(sqlstate::DuplicateColumn, "column name \"" + names[i] + "\" appears more than once in USING clause",
                    pos);
    const plan::IU* l = sideColumn(scope_, leftScope, rightScope, names[i], "left", pos);
    const plan::IU* r = sideColumn(scope_, rightScope, scope_.size(), names[i], "right", pos);
    for (auto [iu, side] : {std::pair{l, "left"}, std::pair{r, "right"}})
      if (!iu)
        throw Error(sqlstate::UndefinedColumn,
                    "column \"" + names[i] + "\" specified in USING clause does not exist in " + side + " table", pos);
    parts.push_back(makeCompare(plan::CmpOp::Eq, Expr::column(l, pos), Expr::column(r, pos), pos));
  }
  if (parts.empty()) return nullptr;  // NATURAL JOIN of sides with no common name: a cross product
  return parts.size() == 1 ? std::move(parts[0]) : makeLogic(plan::ExprKind::And, std::move(parts), ref.pos);
}

OperatorPtr SelectBinder::mergeUsingColumns(const ast::TableRef& ref, const std::vector<std::string>& names,
                                            OperatorPtr join, size_t leftScope, size_t rightScope) {
  if (names.empty()) return join;
  ScopeEntry merged;
  auto coalesced = std::make_unique<plan::Map>();
  for (const std::string& name : names) {
    const plan::IU* l = sideColumn(scope_, leftScope, rightScope, name, "left", ref.pos);
    const plan::IU* r = sideColumn(scope_, rightScope, scope_.size(), name, "right", ref.pos);
    const plan::IU* iu = ref.joinType == ast::JoinType::Right ? r : l;
    if (ref.joinType == ast::JoinType::Full) {
      std::vector<ExprPtr> arms;
      arms.push_back(makeIsNull(Expr::column(l), true, ref.pos));
      arms.push_back(Expr::column(l));
      arms.push_back(Expr::column(r));
      ExprPtr e = makeCase(std::move(arms), true, ref.pos);
      iu = plan_.ius.make(e->type, name);
      coalesced->computed.push_back({iu, std::move(e)});
    }
    merged.columns.push_back({name, iu});
  }
  for (size_t i = leftScope; i < scope_.size(); ++i)
    for (const std::string& name : names) scope_[i].qualifiedOnly.insert(name);
  scope_.insert(scope_.begin() + static_cast<std::ptrdiff_t>(leftScope), std::move(merged));
  if (coalesced->computed.empty()) return join;
  coalesced->children.push_back(std::move(join));
  return coalesced;
}

}  // namespace hyrax::sql
