// ALTER TABLE: each action changes the table in place and logs its undo, so a failed statement
// or a ROLLBACK leaves the table as it was. A change of the columns (ADD, DROP, SET/DROP NOT NULL,
// a PRIMARY KEY) gives the table new storage (Table::replaceColumns: the columns' arrays copied,
// rows keep their numbers) and builds every index anew on it; the storage before is kept for the
// undo. New constraints are checked against the rows the table holds, as PostgreSQL does.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <deque>

#include "engine/catalog/catalog.hpp"
#include "engine/index/art_index.hpp"
#include "engine/index/hash_index.hpp"
#include "engine/load/table_loader.hpp"
#include "engine/storage/statistics.hpp"
#include "engine/txn/table_ops.hpp"
#include "engine/txn/undo_log.hpp"
#include "engine/types/timestamp.hpp"
#include "sql/api/ddl.hpp"
#include "sql/parser/lexer.hpp"
#include "sql/parser/parser.hpp"

namespace hyrax::sql {

namespace {

bool contains(const std::vector<uint32_t>& v, uint32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::unique_ptr<Index> indexLike(const Index& like, Table& t, std::vector<uint32_t> columns) {
  if (dynamic_cast<const HashIndex*>(&like)) {
    auto h = std::make_unique<HashIndex>(like.name(), t, std::move(columns), like.unique());
    h->reserve(t.rowCount());
    return h;
  }
  return std::make_unique<ArtIndex>(like.name(), t, std::move(columns), like.unique());
}

class Alteration {
 public:
  Alteration(Catalog& catalog, UndoLog& undo, Table& t, const std::function<bool(const std::string&)>& firstRow,
             QueryResult& result)
      : catalog_(catalog), undo_(undo), t_(t), firstRow_(firstRow), result_(result) {}

  void apply(ast::AlterTableAction& a) {
    using Kind = ast::AlterTableAction::Kind;
    switch (a.kind) {
      case Kind::AddColumn: return addColumn(a);
      case Kind::AddConstraint: return addConstraint(a);
      case Kind::DropColumn: return dropColumn(a);
      case Kind::DropConstraint: return dropConstraint(a);
      case Kind::SetDefault: return setDefault(a, false);
      case Kind::DropDefault: return setDefault(a, true);
      case Kind::SetNotNull: return setNotNull(a, true);
      case Kind::DropNotNull: return setNotNull(a, false);
      case Kind::RenameTable: return renameTable(a);
      case Kind::RenameColumn: return renameColumn(a);
    }
  }

 private:
  std::string relation() const { return " of relation \"" + t_.name() + "\""; }
  void notice(std::string text) { result_.notices.push_back({"NOTICE", std::move(text)}); }

  int64_t findColumn(const std::string& name) const {
    auto& cols = t_.columns();
    for (size_t i = 0; i < cols.size(); ++i)
      if (cols[i].name == name) return static_cast<int64_t>(i);
    return -1;
  }
  // The column an ALTER COLUMN / DROP COLUMN names; 42703 when there is none (unless IF EXISTS:
  // then -1 and a notice).
  int64_t namedColumn(const ast::AlterTableAction& a) {
    int64_t c = findColumn(a.name);
    if (c >= 0) return c;
    if (a.ifExists) {
      notice("column \"" + a.name + "\"" + relation() + " does not exist, skipping");
      return -1;
    }
    throw Error(sqlstate::UndefinedColumn, "column \"" + a.name + "\"" + relation() + " does not exist", a.namePos);
  }

  std::vector<int64_t> sameColumns() const {
    std::vector<int64_t> from(t_.columns().size());
    for (size_t i = 0; i < from.size(); ++i) from[i] = static_cast<int64_t>(i);
    return from;
  }

  // Constraint and index names the table has: a new constraint is named apart from them.
  std::set<std::string> constraintNames() const {
    std::set<std::string> names;
    for (auto& i : t_.indexes()) names.insert(i->name());
    for (auto& c : t_.checks()) names.insert(c.name);
    for (auto& f : t_.foreignKeys()) names.insert(f.name);
    return names;
  }

  void requireNoNulls(uint32_t column) const {
    for (uint64_t r = 0; r < t_.rowCount(); ++r)
      if (t_.isNull(r, column))
        throw Error(sqlstate::NotNullViolation, "column \"" + t_.columns()[column].name + "\"" + relation() + " contains null values");
  }

  // New storage with `columns` (from[i]: Table::replaceColumns), every index built anew on it
  // (an index on a column that goes is dropped with it), foreign keys' column numbers moved along.
  void rebuild(std::vector<ColumnDef> columns, std::vector<uint32_t> primaryKey, const std::vector<int64_t>& from) {
    Table& t = t_;
    std::vector<int64_t> to(t.columns().size(), -1);  // old column -> new
    for (size_t i = 0; i < from.size(); ++i)
      if (from[i] >= 0) to[static_cast<size_t>(from[i])] = static_cast<int64_t>(i);
    const bool hadStatistics = t.statistics() != nullptr;
    auto before = t.replaceColumns(std::move(columns), std::move(primaryKey), from);
    undo_.logAction([&t, before] { t.restoreStorage(before); });

    std::vector<std::unique_ptr<Index>> fresh;
    for (auto& idx : t.indexes()) {
      std::vector<uint32_t> cols;
      bool gone = false;
      for (uint32_t c : idx->columns()) {
        if (to[c] < 0) gone = true;
        else cols.push_back(static_cast<uint32_t>(to[c]));
      }
      if (!gone) fresh.push_back(indexLike(*idx, t, std::move(cols)));
    }
    for (auto& idx : fresh) txn::buildIndex(t, *idx);
    auto old = std::make_shared<std::vector<std::unique_ptr<Index>>>(t.swapIndexes(std::move(fresh)));
    undo_.logAction([&t, old] { *old = t.swapIndexes(std::move(*old)); });

    // Foreign keys on a column that goes were dropped before this.
    using Saved = std::vector<std::pair<ForeignKey*, std::vector<uint32_t>>>;
    auto columnsBefore = std::make_shared<Saved>(), referencedBefore = std::make_shared<Saved>();
    auto move = [&](std::vector<uint32_t>& cols) {
      for (uint32_t& c : cols) c = static_cast<uint32_t>(to[c]);
    };
    for (ForeignKey& fk : t.foreignKeys()) {
      columnsBefore->push_back({&fk, fk.columns});
      move(fk.columns);
    }
    for (const ForeignKey* in : t.referencedBy()) {
      auto* fk = const_cast<ForeignKey*>(in);  // another table's (or this one's) key, which points here
      referencedBefore->push_back({fk, fk->referencedColumns});
      move(fk->referencedColumns);
    }
    undo_.logAction([columnsBefore, referencedBefore] {
      for (auto& [fk, cols] : *columnsBefore) fk->columns = cols;
      for (auto& [fk, cols] : *referencedBefore) fk->referencedColumns = cols;
    });
    if (hadStatistics) t.setStatistics(gatherStatistics(t));  // the undo puts the old ones back
  }

  // A new column's value in every row: its DEFAULT (identity and nextval: one value per row, as
  // INSERT would take them), else NULL; 23502 for a NOT NULL column without one.
  void fillColumn(uint32_t c) {
    const ColumnDef& col = t_.columns()[c];
    if (t_.rowCount() == 0) return;
    alignas(8) std::array<uint8_t, 16> value{};
    bool isNull = true;
    if (col.defaultValue) {
      col.defaultValue->encode(col.type, value.data());
      isNull = false;
    } else if (col.defaultNow) {
      text::encodeTimeAs(col.type.id, undo_.transactionTime(), value.data());
      isNull = false;
    }
    const bool perRow = col.sequence || col.defaultSequence;
    if (isNull && !perRow && !col.type.nullable)
      throw Error(sqlstate::NotNullViolation, "column \"" + col.name + "\"" + relation() + " contains null values");
    for (uint64_t r = 0; r < t_.rowCount(); ++r) {
      if (col.sequence) nextSequenceValue(*col.sequence, col.type, col.name, value.data());
      else if (col.defaultSequence) storeDefaultSequenceValue(col, value.data());
      t_.setValue(r, c, value.data(), isNull && !perRow, r == 0);
      // A long string is copied into the heap once; the other rows share those characters.
      if (r == 0 && col.type.isVarBytes() && !perRow && !isNull) std::memcpy(value.data(), t_.valuePtr(0, c), 16);
    }
  }

  // The new keys, checks and foreign keys of `def`, each checked against the rows there are.
  void addConstraints(TableDefinition& def) {
    Table& t = t_;
    for (auto& k : def.keys) {
      if (catalog_.nameTaken(k.name)) throw Error(sqlstate::DuplicateTable, "relation \"" + k.name + "\" already exists");
      auto idx = std::make_unique<ArtIndex>(k.name, t, k.columns, true);
      txn::buildIndex(t, *idx);  // 23505 on a duplicate
      auto all = t.swapIndexes({});
      // The primary key's index is a table's first, as CREATE TABLE makes it.
      all.insert(k.columns == t.primaryKey() ? all.begin() : all.end(), std::move(idx));
      t.swapIndexes(std::move(all));
      undo_.logAction([&t, name = k.name] { t.removeIndex(name); });
      catalog_.constraintOid(t.name(), k.name);
    }
    for (auto& check : def.checks) {
      if (firstRow_("SELECT 1 FROM " + quotedIdentifier(t.name()) + " WHERE NOT (" + check.sql + ") LIMIT 1"))
        throw Error(sqlstate::CheckViolation, "check constraint \"" + check.name + "\"" + relation() + " is violated by some row");
      t.checks().push_back(check);
      undo_.logAction([&t, name = check.name] {
        auto& c = t.checks();
        c.erase(std::remove_if(c.begin(), c.end(), [&](auto& k) { return k.name == name; }), c.end());
      });
    }
    for (auto& r : def.references) {
      addForeignKey(catalog_, t, r);
      ForeignKey& fk = t.foreignKeys().back();
      fk.referenced->referencedBy().push_back(&fk);
      undo_.logAction([&t] {
        ForeignKey& last = t.foreignKeys().back();
        auto& back = last.referenced->referencedBy();
        back.erase(std::remove(back.begin(), back.end(), &last), back.end());
        t.foreignKeys().pop_back();
      });
      std::string cond, match;
      for (size_t i = 0; i < fk.columns.size(); ++i) {
        std::string mine = "c." + quotedIdentifier(t.columns()[fk.columns[i]].name);
        cond += mine + " IS NOT NULL AND ";  // MATCH SIMPLE: a key with a NULL references nothing
        match += std::string(i ? " AND " : "") + "r." + quotedIdentifier(fk.referenced->columns()[fk.referencedColumns[i]].name) + " = " + mine;
      }
      if (firstRow_("SELECT 1 FROM " + quotedIdentifier(t.name()) + " AS c WHERE " + cond + "NOT EXISTS (SELECT 1 FROM " +
                    quotedIdentifier(fk.referenced->name()) + " AS r WHERE " + match + ") LIMIT 1"))
        throw Error(sqlstate::ForeignKeyViolation,
                    "insert or update on table \"" + t.name() + "\" violates foreign key constraint \"" + fk.name + "\"");
    }
  }

  // Foreign keys on this table (its own too) that `depends` picks: 2BP01 naming the first, or with CASCADE
  // dropped (each with a notice).
  void dropDependentKeys(const std::function<bool(const ForeignKey&)>& depends, bool cascade, const std::string& what,
                         const std::string& dependsOn, SourcePos pos) {
    std::vector<const ForeignKey*> found;
    for (const ForeignKey* fk : t_.referencedBy())
      if (depends(*fk)) found.push_back(fk);
    if (found.empty()) return;
    if (!cascade)
      throw Error(sqlstate::DependentObjects, "cannot drop " + what + " because other objects depend on it", pos)
          .withDetail("constraint " + found[0]->name + " on table " + found[0]->referencing->name() + " depends on " + dependsOn);
    std::vector<Table*> owners;
    for (const ForeignKey* fk : found) {
      notice("drop cascades to constraint " + fk->name + " on table " + fk->referencing->name());
      if (std::find(owners.begin(), owners.end(), fk->referencing) == owners.end()) owners.push_back(fk->referencing);
    }
    for (Table* owner : owners)
      keepForeignKeys(undo_, *owner, [&](const ForeignKey& fk) { return fk.referenced != &t_ || !depends(fk); });
  }

  bool checkBinds(const CheckConstraint& check) {
    try {
      ast::StatementPtr parsed = parseStatement("SELECT " + check.sql);
      plan::QueryPlan scratch;
      std::vector<const plan::IU*> ius;
      for (auto& c : t_.columns()) ius.push_back(scratch.ius.make(c.type, c.name));
      bindCheck(catalog_, scratch, t_.columns(), ius, *static_cast<const ast::SelectStmt&>(*parsed).select->items[0].expr);
      return true;
    } catch (const Error&) {
      return false;
    }
  }

  void addColumn(ast::AlterTableAction& a) {
    const ast::ColumnDefinition& col = a.columns[0];
    if (findColumn(col.name) >= 0) {
      if (a.ifExists) return notice("column \"" + col.name + "\"" + relation() + " already exists, skipping");
      throw Error(sqlstate::DuplicateColumn, "column \"" + col.name + "\"" + relation() + " already exists", col.pos);
    }
    TableDefinition def = bindTableDefinition(catalog_, t_.name(), t_.columns(), a.columns, a.constraints, constraintNames(),
                                              !t_.primaryKey().empty());
    std::vector<int64_t> from = sameColumns();
    from.push_back(Table::kNewColumn);
    const auto c = static_cast<uint32_t>(t_.columns().size());
    rebuild(def.columns, def.primaryKey.empty() ? t_.primaryKey() : def.primaryKey, from);
    fillColumn(c);
    addConstraints(def);
  }

  void addConstraint(ast::AlterTableAction& a) {
    TableDefinition def = bindTableDefinition(catalog_, t_.name(), t_.columns(), {}, a.constraints, constraintNames(),
                                              !t_.primaryKey().empty());
    bool nullability = false;  // a PRIMARY KEY makes its columns NOT NULL
    for (size_t i = 0; i < def.columns.size(); ++i)
      if (def.columns[i].type.nullable != t_.columns()[i].type.nullable) {
        requireNoNulls(static_cast<uint32_t>(i));
        nullability = true;
      }
    if (nullability || !def.primaryKey.empty())
      rebuild(def.columns, def.primaryKey.empty() ? t_.primaryKey() : def.primaryKey, sameColumns());
    addConstraints(def);
  }

  void dropColumn(const ast::AlterTableAction& a) {
    const int64_t found = namedColumn(a);
    if (found < 0) return;
    const auto c = static_cast<uint32_t>(found);
    const std::string what = "column " + a.name + " of table " + t_.name();
    // A key that references the column holds it; one of this table's keys on the column itself
    // goes with it (below).
    dropDependentKeys([&](const ForeignKey& fk) {
      return contains(fk.referencedColumns, c) && !(fk.referencing == &t_ && contains(fk.columns, c));
    }, a.cascade, what, what, a.namePos);
    keepForeignKeys(undo_, t_, [&](const ForeignKey& fk) {  // its own keys on the column go with it
      return !contains(fk.columns, c) && !(fk.referenced == &t_ && contains(fk.referencedColumns, c));
    });
    std::vector<ColumnDef> columns;
    std::vector<int64_t> from;
    for (uint32_t i = 0; i < t_.columns().size(); ++i)
      if (i != c) {
        columns.push_back(t_.columns()[i]);
        from.push_back(i);
      }
    std::vector<uint32_t> primaryKey;  // a primary key on the column goes with it, as in PostgreSQL
    if (!contains(t_.primaryKey(), c))
      for (uint32_t k : t_.primaryKey()) primaryKey.push_back(k > c ? k - 1 : k);
    rebuild(std::move(columns), std::move(primaryKey), from);

    // CHECK constraints that name the column go with it too.
    std::vector<CheckConstraint> kept;
    for (auto& check : t_.checks())
      if (checkBinds(check)) kept.push_back(check);
    if (kept.size() != t_.checks().size()) {
      Table& t = t_;
      auto before = std::make_shared<std::vector<CheckConstraint>>(std::move(t.checks()));
      t.checks() = std::move(kept);
      undo_.logAction([&t, before] { t.checks() = std::move(*before); });
    }
    // Views that read it: 2BP01, or with CASCADE dropped.
    dropBrokenViews(catalog_, undo_, a.cascade, what, a.namePos, result_);
  }

  void dropConstraint(const ast::AlterTableAction& a) {
    Table& t = t_;
    const std::string what = "constraint " + a.name + " on table " + t.name();
    if (Index* idx = t.findIndex(a.name); idx && idx->unique()) {  // PRIMARY KEY or UNIQUE
      const std::vector<uint32_t> cols = idx->columns();
      dropDependentKeys([&](const ForeignKey& fk) { return fk.referencedColumns == cols; }, a.cascade, what,
                        "index " + a.name, a.namePos);
      keepForeignKeys(undo_, t, [&](const ForeignKey& fk) { return fk.referenced != &t || fk.referencedColumns != cols; });
      const bool primary = cols == t.primaryKey();
      // Kept until the transaction ends; the undo puts it back where it was (the primary key's first).
      const auto at = static_cast<size_t>(std::find_if(t.indexes().begin(), t.indexes().end(),
                                                       [&](auto& i) { return i->name() == a.name; }) - t.indexes().begin());
      auto kept = std::make_shared<std::unique_ptr<Index>>(t.removeIndex(a.name));
      undo_.logAction([&t, at, kept] {
        auto all = t.swapIndexes({});
        all.insert(all.begin() + static_cast<std::ptrdiff_t>(at), std::move(*kept));
        t.swapIndexes(std::move(all));
      });
      if (primary) rebuild(t.columns(), {}, sameColumns());  // its columns stay NOT NULL, as in PostgreSQL
      return;
    }
    auto& checks = t.checks();
    auto check = std::find_if(checks.begin(), checks.end(), [&](auto& k) { return k.name == a.name; });
    if (check != checks.end()) {
      auto before = std::make_shared<std::vector<CheckConstraint>>(checks);
      checks.erase(check);
      undo_.logAction([&t, before] { t.checks() = std::move(*before); });
      return;
    }
    auto& keys = t.foreignKeys();
    if (std::any_of(keys.begin(), keys.end(), [&](auto& fk) { return fk.name == a.name; })) {
      keepForeignKeys(undo_, t, [&](const ForeignKey& fk) { return fk.name != a.name; });
      return;
    }
    if (a.ifExists) return notice("constraint \"" + a.name + "\"" + relation() + " does not exist, skipping");
    throw Error(sqlstate::UndefinedObject, "constraint \"" + a.name + "\"" + relation() + " does not exist", a.namePos);
  }

  void setDefault(ast::AlterTableAction& a, bool drop) {
    const int64_t found = namedColumn(a);
    if (found < 0) return;
    const auto c = static_cast<uint32_t>(found);
    const ColumnDef before = t_.columns()[c];
    if (before.sequence && !drop)
      throw Error(sqlstate::SyntaxError, "column \"" + a.name + "\"" + relation() + " is an identity column", a.namePos);
    ColumnDef after = before;
    after.defaultValue.reset();
    after.defaultNow = false;
    after.defaultSequence.reset();
    if (!drop) {
      ast::ColumnDefinition written;
      written.name = before.name;
      written.type = before.type;
      written.pos = a.namePos;
      written.defaultValue = std::move(a.defaultValue);
      bindColumnDefault(catalog_, after, written);
    }
    Table& t = t_;
    t.setColumnDefault(c, after);
    undo_.logAction([&t, c, before] { t.setColumnDefault(c, before); });
  }

  void setNotNull(const ast::AlterTableAction& a, bool notNull) {
    const int64_t found = namedColumn(a);
    if (found < 0) return;
    const auto c = static_cast<uint32_t>(found);
    if (t_.columns()[c].type.nullable != notNull) return;  // as it is already
    if (notNull) requireNoNulls(c);
    else if (contains(t_.primaryKey(), c))
      throw Error("42P16", "column \"" + a.name + "\" is in a primary key", a.namePos);
    std::vector<ColumnDef> columns = t_.columns();
    columns[c].type.nullable = !notNull;
    rebuild(std::move(columns), t_.primaryKey(), sameColumns());
  }

  // Views are text: one that reads the old name would break, so a rename refuses it (PostgreSQL,
  // whose views hold the table's OID, renames under them).
  void refuseBrokenViews(const std::string& object, SourcePos pos) {
    std::string view = firstBrokenView(catalog_);
    if (!view.empty())
      throw Error(sqlstate::FeatureNotSupported, "cannot rename " + object + ": view " + view + " reads it by its name", pos)
          .withDetail("A view is kept as its text here: drop it, rename, and create it again.");
  }

  static void moveInCatalog(Catalog& catalog, const std::string& from, const std::string& to) {
    std::unique_ptr<Table> t = catalog.detachTable(from);
    t->rename(to);
    catalog.attachTable(std::move(t));
  }

  void renameTable(const ast::AlterTableAction& a) {
    if (catalog_.nameTaken(a.newName))
      throw Error(sqlstate::DuplicateTable, "relation \"" + a.newName + "\" already exists", a.newNamePos);
    Catalog& catalog = catalog_;
    const std::string before = t_.name();
    moveInCatalog(catalog, before, a.newName);
    undo_.logAction([&catalog, before, after = a.newName] { moveInCatalog(catalog, after, before); });
    refuseBrokenViews("table " + before, a.pos);
  }

  void renameColumn(const ast::AlterTableAction& a) {
    const auto c = static_cast<uint32_t>(namedColumn(a));
    if (findColumn(a.newName) >= 0)
      throw Error(sqlstate::DuplicateColumn, "column \"" + a.newName + "\"" + relation() + " already exists", a.newNamePos);
    Table& t = t_;
    const std::string before = t.columns()[c].name;
    t.renameColumn(c, a.newName);
    undo_.logAction([&t, c, before] { t.renameColumn(c, before); });
    // CHECK constraints name the column in their text: it is renamed there too.
    auto saved = std::make_shared<std::vector<CheckConstraint>>(t.checks());
    for (auto& check : t.checks()) check.sql = renamedIdentifier(check.sql, before, a.newName);
    undo_.logAction([&t, saved] { t.checks() = std::move(*saved); });
    refuseBrokenViews("column " + before + " of table " + t.name(), a.pos);
  }

  // `sql` with each identifier that names `from` (unquoted: in any case) written as `to`, quoted.
  static std::string renamedIdentifier(const std::string& sql, const std::string& from, const std::string& to) {
    std::string lower = from;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::string out;
    for (const auto& tok : sqlparse::tokenize(sql)) {
      if (tok.kind == sqlparse::TokenKind::End) break;
      bool names = (tok.kind == sqlparse::TokenKind::Identifier && tok.text == lower) ||
                   (tok.kind == sqlparse::TokenKind::QuotedIdentifier && tok.text == from);
      out += (out.empty() ? "" : " ") + (names ? quotedIdentifier(to) : tok.raw);
    }
    return out;
  }

  Catalog& catalog_;
  UndoLog& undo_;
  Table& t_;
  const std::function<bool(const std::string&)>& firstRow_;
  QueryResult& result_;
};

}  // namespace

QueryResult alterTable(Catalog& catalog, UndoLog& undo, ast::AlterTableStmt& a,
                       const std::function<bool(const std::string& sql)>& firstRow) {
  QueryResult result({}, {}, "ALTER TABLE");
  Table* t = catalog.findTable(a.name);
  if (!t) {
    if (catalog.findView(a.name)) throw Error(sqlstate::WrongObjectType, "\"" + a.name + "\" is not a table", a.namePos);
    if (!a.ifExists) throw Error(sqlstate::UndefinedTable, "relation \"" + a.name + "\" does not exist", a.namePos);
    result.notices.push_back({"NOTICE", "relation \"" + a.name + "\" does not exist, skipping"});
    return result;
  }
  Alteration alteration(catalog, undo, *t, firstRow, result);
  for (auto& action : a.actions) alteration.apply(action);
  catalog.assignOids(*t);  // new constraints' and defaults' OIDs; the others keep theirs
  catalog.bump();
  undo.logAction([&catalog] { catalog.bump(); });
  return result;
}

}  // namespace hyrax::sql
