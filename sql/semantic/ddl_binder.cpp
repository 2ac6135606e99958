// CREATE TABLE: columns and constraints checked and named before anything is created.
#include <algorithm>
#include <set>

#include "engine/catalog/catalog.hpp"
#include "sql/optimizer/constant_folding.hpp"
#include "sql/semantic/binder.hpp"
#include "sql/semantic/select_binder.hpp"

namespace hyrax::sql {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (auto& n : names) s += (s.empty() ? "" : "_") + n;
  return s;
}

// CURRENT_TIMESTAMP, now(), LOCALTIMESTAMP or CURRENT_DATE, cast or not: a default computed per
// row (ColumnDef::defaultNow) rather than folded once at CREATE TABLE.
bool readsOnlyTheClock(const plan::Expr& e) {
  if (e.kind == plan::ExprKind::Cast) return readsOnlyTheClock(*e.args[0]);
  return e.kind == plan::ExprKind::Call &&
         (e.func == plan::ScalarFunc::CurrentTimestamp || e.func == plan::ScalarFunc::CurrentDate);
}

// nextval('s'), cast or not: a default taken per row (ColumnDef::defaultSequence); else nullptr.
const plan::Expr* nextvalCall(const plan::Expr& e) {
  if (e.kind == plan::ExprKind::Cast) return nextvalCall(*e.args[0]);
  bool next = e.kind == plan::ExprKind::SequenceCall && e.sequenceOp == plan::SequenceOp::NextVal;
  return next ? &e : nullptr;
}

}  // namespace

void bindColumnDefault(Catalog& catalog, ColumnDef& column, const ast::ColumnDefinition& c) {
  if (c.identity) {
    if (!c.type.isInteger())
      throw Error(sqlstate::InvalidParameter, "identity column \"" + c.name + "\" must be SMALLINT, INTEGER or BIGINT", c.pos);
    if (c.defaultValue)
      throw Error(sqlstate::SyntaxError, "both default and identity specified for column \"" + c.name + "\"", c.pos);
    column.sequence = std::make_shared<ColumnSequence>();
    column.sequence->always = c.identityAlways;
  }
  if (!c.defaultValue) return;
  plan::QueryPlan scratch;
  SelectBinder b(catalog, scratch);
  plan::ExprPtr e = foldConstants(assignTo(b.bindExpr(*c.defaultValue, Clause::Values), column, c.defaultValue->pos));
  if (const plan::Expr* next = nextvalCall(*e); next && c.type.isInteger()) {
    column.defaultSequence = next->sequence;
    return;
  }
  if (readsOnlyTheClock(*e) && c.type.isDateTime()) {
    column.defaultNow = true;
    return;
  }
  if (e->kind != plan::ExprKind::Constant)
    throw Error(sqlstate::FeatureNotSupported, "the default of column \"" + c.name + "\" must be a constant", c.defaultValue->pos);
  if (!e->value.isNull()) column.defaultValue = e->value;
}

TableDefinition bindCreateTable(Catalog& catalog, const ast::CreateTableStmt& stmt) {
  return bindTableDefinition(catalog, stmt.name, {}, stmt.columns, stmt.constraints, {}, false);
}

TableDefinition bindTableDefinition(Catalog& catalog, const std::string& tableName, std::vector<ColumnDef> existing,
                                    const std::vector<ast::ColumnDefinition>& columns,
                                    const std::vector<ast::TableConstraint>& constraints, std::set<std::string> takenNames,
                                    bool hasPrimaryKey) {
  TableDefinition def;
  std::set<std::string> seen;
  for (auto& c : existing) seen.insert(c.name);
  const size_t first = existing.size();  // the new columns' first index
  def.columns = std::move(existing);
  for (auto& c : columns) {
    if (!seen.insert(c.name).second)
      throw Error(sqlstate::DuplicateColumn, "column \"" + c.name + "\" specified more than once", c.pos);
    if (c.type.isArray())  // CREATE TABLE AS of an array value; the parser refuses T[] columns
      throw Error(sqlstate::FeatureNotSupported, "arrays are supported only in expressions, not as the type of a column", c.pos);
    def.columns.push_back({c.name, c.type});
  }
  auto columnIndexes = [&](const ast::TableConstraint& k) {
    std::vector<uint32_t> idx;
    for (size_t i = 0; i < k.columns.size(); ++i) {
      auto it = std::find_if(def.columns.begin(), def.columns.end(), [&](auto& c) { return c.name == k.columns[i]; });
      SourcePos pos = i < k.columnPos.size() ? k.columnPos[i] : k.pos;
      if (it == def.columns.end())
        throw Error(sqlstate::UndefinedColumn, "column \"" + k.columns[i] + "\" named in key does not exist", pos);
      uint32_t c = static_cast<uint32_t>(it - def.columns.begin());
      if (std::find(idx.begin(), idx.end(), c) != idx.end())
        throw Error(sqlstate::DuplicateColumn, "column \"" + k.columns[i] + "\" appears twice in constraint", pos);
      idx.push_back(c);
    }
    return idx;
  };
  std::set<std::string> names = std::move(takenNames);  // constraint names must differ
  auto name = [&](const ast::TableConstraint& k, std::string base) {
    std::string n = k.name.empty() ? base : k.name;
    for (int i = 1; k.name.empty() && names.count(n); ++i) n = base + std::to_string(i);
    if (!names.insert(n).second)
      throw Error(sqlstate::DuplicateObject, "constraint \"" + n + "\" for relation \"" + tableName + "\" already exists", k.pos);
    return n;
  };

  // Defaults: constants of the column's type (an expression of constants is computed now).
  for (size_t j = 0; j < columns.size(); ++j) bindColumnDefault(catalog, def.columns[first + j], columns[j]);

  // The primary key first (its index is the table's first), NOT NULL on its columns.
  for (auto& k : constraints) {
    if (k.kind != ast::TableConstraint::Kind::PrimaryKey) continue;
    if (!def.primaryKey.empty() || hasPrimaryKey)
      throw Error("42P16", "multiple primary keys for table \"" + tableName + "\" are not allowed", k.pos);
    def.primaryKey = columnIndexes(k);
    for (uint32_t c : def.primaryKey) def.columns[c].type.nullable = false;
    def.keys.push_back({name(k, tableName + "_pkey"), def.primaryKey});
  }
  plan::QueryPlan scratch;  // CHECK expressions are bound once here to catch errors now
  std::vector<const plan::IU*> ius;
  for (auto& c : def.columns) ius.push_back(scratch.ius.make(c.type, c.name));
  for (auto& k : constraints) {
    switch (k.kind) {
      case ast::TableConstraint::Kind::PrimaryKey: break;
      case ast::TableConstraint::Kind::Unique: {
        std::vector<uint32_t> cols = columnIndexes(k);
        bool same = false;  // UNIQUE on the key's columns adds nothing
        for (auto& existing : def.keys) same = same || existing.columns == cols;
        if (!same) def.keys.push_back({name(k, tableName + "_" + joined(k.columns) + "_key"), cols});
        break;
      }
      case ast::TableConstraint::Kind::Check: {
        bindCheck(catalog, scratch, def.columns, ius, *k.check);
        def.checks.push_back({name(k, tableName + (k.columns.empty() ? "" : "_" + k.columns[0]) + "_check"), k.checkText});
        break;
      }
      case ast::TableConstraint::Kind::ForeignKey: {
        std::vector<uint32_t> cols = columnIndexes(k);
        if (!k.refColumns.empty() && k.refColumns.size() != cols.size())
          throw Error(sqlstate::InvalidForeignKey, "number of referencing and referenced columns for foreign key disagree", k.refPos);
        def.references.push_back(
            {name(k, tableName + "_" + joined(k.columns) + "_fkey"), cols, k.refTable, k.refColumns, k.refPos, k.onDelete});
        break;
      }
    }
  }
  return def;
}

}  // namespace hyrax::sql
