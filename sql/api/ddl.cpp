#include "sql/api/ddl.hpp"

#include <algorithm>
#include <cctype>
#include <deque>

#include "engine/catalog/catalog.hpp"
#include "engine/index/art_index.hpp"
#include "engine/index/hash_index.hpp"
#include "engine/txn/table_ops.hpp"
#include "engine/txn/undo_log.hpp"
#include "sql/parser/parser.hpp"
#include "sql/semantic/binder.hpp"

namespace hyrax::sql {

namespace {

// Physical types a foreign key may compare byte for byte with its referenced key.
bool sameKeyType(const SqlType& a, const SqlType& b) {
  if (a.isString() && b.isString()) return true;
  if (a.id != b.id) return false;
  return a.id != TypeId::Decimal || a.scale == b.scale;
}

}  // namespace

void unlinkReferences(Table& t) {
  for (auto& fk : t.foreignKeys()) {
    auto& back = fk.referenced->referencedBy();
    back.erase(std::remove(back.begin(), back.end(), &fk), back.end());
  }
}

void linkReferences(Table& t) {
  for (auto& fk : t.foreignKeys()) fk.referenced->referencedBy().push_back(&fk);
}

void addForeignKey(Catalog& catalog, Table& t, const TableDefinition::Reference& r) {
  Table* ref = r.table == t.name() ? &t : catalog.findTable(r.table);
  if (!ref) throw Error(sqlstate::UndefinedTable, "relation \"" + r.table + "\" does not exist", r.pos);
  std::vector<uint32_t> refCols;
  if (r.refColumns.empty()) {
    if (ref->primaryKey().empty())
      throw Error(sqlstate::InvalidForeignKey, "there is no primary key for referenced table \"" + ref->name() + "\"", r.pos);
    refCols = ref->primaryKey();
  } else {
    for (auto& name : r.refColumns) {
      auto& cols = ref->columns();
      auto it = std::find_if(cols.begin(), cols.end(), [&](auto& c) { return c.name == name; });
      if (it == cols.end())
        throw Error(sqlstate::UndefinedColumn, "column \"" + name + "\" referenced in foreign key constraint does not exist", r.pos);
      refCols.push_back(static_cast<uint32_t>(it - cols.begin()));
    }
  }
  if (refCols.size() != r.columns.size())
    throw Error(sqlstate::InvalidForeignKey, "number of referencing and referenced columns for foreign key disagree", r.pos);
  // The referenced columns must be a PRIMARY KEY or UNIQUE: its index finds referenced rows. Both
  // sides are put in that index's column order, so lookups can use it.
  const Index* key = nullptr;
  for (auto& idx : ref->indexes()) {
    if (!idx->unique() || idx->columns().size() != refCols.size()) continue;
    if (std::is_permutation(refCols.begin(), refCols.end(), idx->columns().begin())) key = idx.get();
  }
  if (!key)
    throw Error(sqlstate::InvalidForeignKey, "there is no unique constraint matching given keys for referenced table \"" +
                                                 ref->name() + "\"", r.pos);
  ForeignKey fk;
  fk.name = r.name;
  fk.onDelete = r.onDelete == "cascade"       ? ForeignKey::OnDelete::Cascade
                : r.onDelete == "set null"    ? ForeignKey::OnDelete::SetNull
                : r.onDelete == "set default" ? ForeignKey::OnDelete::SetDefault
                                              : ForeignKey::OnDelete::NoAction;
  fk.referencing = &t;
  fk.referenced = ref;
  for (uint32_t c : key->columns()) {
    size_t i = static_cast<size_t>(std::find(refCols.begin(), refCols.end(), c) - refCols.begin());
    fk.columns.push_back(r.columns[i]);
    fk.referencedColumns.push_back(c);
    const ColumnDef& a = t.columns()[r.columns[i]];
    const ColumnDef& b = ref->columns()[c];
    if (!sameKeyType(a.type, b.type))
      throw Error(sqlstate::DatatypeMismatch, "foreign key constraint \"" + r.name + "\" cannot be implemented", r.pos)
          .withDetail("Key columns \"" + a.name + "\" and \"" + b.name + "\" are of incompatible types: " + a.type.name() +
                      " and " + b.type.name() + ".");
  }
  t.foreignKeys().push_back(std::move(fk));
}

void keepForeignKeys(UndoLog& undo, Table& owner, const std::function<bool(const ForeignKey&)>& keep) {
  if (std::all_of(owner.foreignKeys().begin(), owner.foreignKeys().end(), keep)) return;
  unlinkReferences(owner);
  auto before = std::make_shared<std::deque<ForeignKey>>(std::move(owner.foreignKeys()));
  owner.foreignKeys().clear();
  for (auto& fk : *before)
    if (keep(fk)) owner.foreignKeys().push_back(fk);
  linkReferences(owner);
  undo.logAction([&owner, before] {
    unlinkReferences(owner);
    owner.foreignKeys() = std::move(*before);
    linkReferences(owner);
  });
}

std::string firstBrokenView(Catalog& catalog) {
  for (const std::string& name : catalog.views()) {
    try {
      ast::StatementPtr parsed = parseStatement(catalog.findView(name)->sql);
      plan::QueryPlan p;
      Binder(catalog).bindSelect(*static_cast<const ast::SelectStmt&>(*parsed).select, p);
    } catch (const Error&) {
      return name;
    }
  }
  return {};
}

void dropBrokenViews(Catalog& catalog, UndoLog& undo, bool cascade, const std::string& object, SourcePos pos,
                     QueryResult& result) {
  // Each view dropped may break one on it in turn.
  for (std::string name = firstBrokenView(catalog); !name.empty(); name = firstBrokenView(catalog)) {
    if (!cascade)
      throw Error(sqlstate::DependentObjects, "cannot drop " + object + " because other objects depend on it", pos)
          .withDetail("view " + name + " depends on " + object);
    result.notices.push_back({"NOTICE", "drop cascades to view " + name});
    auto v = std::make_shared<Catalog::View>(catalog.detachView(name));
    undo.logAction([&catalog, name, v] { catalog.createView(name, *v); });
  }
}

QueryResult createTable(Catalog& catalog, UndoLog& undo, const ast::CreateTableStmt& c) {
  if (catalog.findTable(c.name) && c.ifNotExists) return QueryResult({}, {}, "CREATE TABLE");
  if (catalog.nameTaken(c.name)) throw Error(sqlstate::DuplicateTable, "relation \"" + c.name + "\" already exists", c.pos);
  TableDefinition def = bindCreateTable(catalog, c);
  for (auto& k : def.keys)
    if (catalog.nameTaken(k.name) || k.name == c.name)
      throw Error(sqlstate::DuplicateTable, "relation \"" + k.name + "\" already exists", c.pos);
  // Built aside and put into the catalog only when every constraint is in place.
  auto table = std::make_unique<Table>(c.name, std::move(def.columns), std::move(def.primaryKey));
  // Constraint indexes are ordered, as users of PostgreSQL's B-tree keys expect: they serve ranges
  // and prefixes (order lines of one district) as well as point lookups.
  for (auto& k : def.keys) table->addIndex(std::make_unique<ArtIndex>(k.name, *table, k.columns, true));
  table->checks() = std::move(def.checks);
  for (auto& r : def.references) addForeignKey(catalog, *table, r);
  Table& t = *table;
  linkReferences(t);
  catalog.attachTable(std::move(table));
  undo.logAction([&catalog, &t] {
    unlinkReferences(t);
    catalog.dropTable(t.name());
  });
  return QueryResult({}, {}, "CREATE TABLE");
}

QueryResult createTableAs(Catalog& catalog, UndoLog& undo, ast::CreateTableStmt& c,
                          const std::function<QueryResult(const ast::InsertStmt&)>& fill) {
  if (catalog.findTable(c.name) && c.ifNotExists) {
    QueryResult r({}, {}, "CREATE TABLE AS");
    r.notices.push_back({"NOTICE", "relation \"" + c.name + "\" already exists, skipping"});
    return r;
  }
  plan::QueryPlan p;
  Binder(catalog).bindSelect(*c.asQuery, p);
  if (c.asNames.size() > p.output.size())
    throw Error(sqlstate::SyntaxError, "too many column names were specified", c.asNamePos[p.output.size()]);
  ast::CreateTableStmt def(c.pos);
  def.name = c.name;
  for (size_t i = 0; i < p.output.size(); ++i) {
    ast::ColumnDefinition col;
    col.name = i < c.asNames.size() ? c.asNames[i] : p.outputNames[i];
    col.pos = i < c.asNamePos.size() ? c.asNamePos[i] : c.pos;
    col.type = p.output[i]->type.isNull() ? SqlType::text() : p.output[i]->type;
    col.type.nullable = true;
    def.columns.push_back(std::move(col));
  }
  createTable(catalog, undo, def);
  if (!c.withData) return QueryResult({}, {}, "CREATE TABLE AS");
  ast::InsertStmt insert(c.pos);
  insert.table = c.name;
  insert.tablePos = c.pos;
  insert.select = std::move(c.asQuery);
  QueryResult filled = fill(insert);
  const std::string& tag = filled.tag();  // "INSERT 0 n"
  QueryResult r({}, {}, "SELECT " + tag.substr(tag.rfind(' ') + 1));
  r.times = filled.times;
  return r;
}

QueryResult createView(Catalog& catalog, UndoLog& undo, const ast::CreateViewStmt& v) {
  if (catalog.nameTaken(v.name)) throw Error(sqlstate::DuplicateTable, "relation \"" + v.name + "\" already exists", v.namePos);
  // Bound once now, so a view that could not be used is never created.
  plan::QueryPlan p;
  Binder(catalog).bindSelect(*v.query, p);
  if (v.columns.size() > p.output.size())
    throw Error(sqlstate::InvalidColumnReference, "CREATE VIEW specifies more column names than columns", v.namePos);
  catalog.createView(v.name, {v.text, v.columns});
  undo.logAction([&catalog, name = v.name] { catalog.dropView(name); });
  return QueryResult({}, {}, "CREATE VIEW");
}

QueryResult createIndex(Catalog& catalog, UndoLog& undo, const ast::CreateIndexStmt& c) {
  Table* t = catalog.findTable(c.table);
  if (!t) throw Error(sqlstate::UndefinedTable, "relation \"" + c.table + "\" does not exist", c.tablePos);
  // Ordered (an adaptive radix tree) unless USING hash; btree is accepted for PostgreSQL's scripts.
  bool hash = c.method == "hash";
  if (!c.method.empty() && !hash && c.method != "art" && c.method != "btree")
    throw Error(sqlstate::UndefinedObject, "access method \"" + c.method + "\" does not exist", c.methodPos)
        .withDetail("hyrax has \"art\" (ordered, the default; \"btree\" means the same) and \"hash\".");
  std::vector<uint32_t> cols;
  std::string name = c.name;
  if (name.empty()) name = c.table;
  for (size_t i = 0; i < c.columns.size(); ++i) {
    auto& tc = t->columns();
    auto it = std::find_if(tc.begin(), tc.end(), [&](auto& col) { return col.name == c.columns[i]; });
    if (it == tc.end()) throw Error(sqlstate::UndefinedColumn, "column \"" + c.columns[i] + "\" does not exist", c.columnPos[i]);
    cols.push_back(static_cast<uint32_t>(it - tc.begin()));
    if (c.name.empty()) name += "_" + c.columns[i];
  }
  if (c.name.empty()) {
    std::string base = name + "_idx";
    name = base;
    for (int i = 1; catalog.nameTaken(name); ++i) name = base + std::to_string(i);
  }
  if (catalog.nameTaken(name)) {
    if (c.ifNotExists) return QueryResult({}, {}, "CREATE INDEX");
    throw Error(sqlstate::DuplicateTable, "relation \"" + name + "\" already exists", c.namePos.known() ? c.namePos : c.pos);
  }
  std::unique_ptr<Index> index;
  if (hash) {
    auto h = std::make_unique<HashIndex>(name, *t, cols, c.unique);
    h->reserve(t->rowCount());
    index = std::move(h);
  } else {
    index = std::make_unique<ArtIndex>(name, *t, cols, c.unique);
  }
  txn::buildIndex(*t, *index);
  t->addIndex(std::move(index));
  catalog.objectOid(name);  // its pg_class OID (and its constraint's), in the order of creation
  if (c.unique) catalog.constraintOid(t->name(), name);
  catalog.bump();
  undo.logAction([&catalog, t, name] {
    t->removeIndex(name);
    catalog.bump();
  });
  return QueryResult({}, {}, "CREATE INDEX");
}

// The sequence itself is not transactional (nextval is never undone); its existence is.
QueryResult createSequence(Catalog& catalog, UndoLog& undo, const ast::CreateSequenceStmt& c) {
  if (catalog.nameTaken(c.name)) throw Error(sqlstate::DuplicateTable, "relation \"" + c.name + "\" already exists", c.namePos);
  auto s = std::make_shared<Sequence>(makeSequence(c.name, c.options));
  catalog.createSequence(s);
  undo.logAction([&catalog, name = c.name] { catalog.detachSequence(name); });
  return QueryResult({}, {}, "CREATE SEQUENCE");
}

QueryResult dropObjects(Catalog& catalog, UndoLog& undo, const ast::DropTableStmt& d) {
  const char* what = d.object == ast::ObjectKind::View       ? "view"
                     : d.object == ast::ObjectKind::Index    ? "index"
                     : d.object == ast::ObjectKind::Sequence ? "sequence"
                                                             : "table";
  auto exists = [&](const std::string& n) {
    switch (d.object) {
      case ast::ObjectKind::View: return catalog.findView(n) != nullptr;
      case ast::ObjectKind::Index: return catalog.findIndex(n).second != nullptr;
      case ast::ObjectKind::Table: return catalog.findTable(n) != nullptr;
      case ast::ObjectKind::Sequence: return catalog.findSequence(n) != nullptr;
      default: return false;  // functions and procedures: sql/api/procedure
    }
  };
  // Check every name first: a failed DROP drops nothing.
  for (size_t i = 0; i < d.names.size(); ++i) {
    const std::string& n = d.names[i];
    if (!exists(n)) {
      if (d.ifExists) continue;
      throw Error(sqlstate::UndefinedTable, std::string(what) + " \"" + n + "\" does not exist", d.namePos[i]);
    }
    if (d.object == ast::ObjectKind::Table && !d.cascade) {
      for (const ForeignKey* fk : catalog.findTable(n)->referencedBy()) {
        if (std::find(d.names.begin(), d.names.end(), fk->referencing->name()) != d.names.end()) continue;
        throw Error(sqlstate::DependentObjects, "cannot drop table " + n + " because other objects depend on it", d.namePos[i])
            .withDetail("constraint " + fk->name + " on table " + fk->referencing->name() + " depends on table " + n);
      }
    }
    if (d.object == ast::ObjectKind::Sequence) {  // a column's DEFAULT nextval holds it (no CASCADE yet)
      auto seq = catalog.findSequence(n);
      for (const Table* t : catalog.tables())
        for (const ColumnDef& c : t->columns())
          if (c.defaultSequence == seq)
            throw Error(sqlstate::DependentObjects, "cannot drop sequence " + n + " because other objects depend on it", d.namePos[i])
                .withDetail("default value for column " + c.name + " of table " + t->name() + " depends on sequence " + n);
    }
    if (d.object == ast::ObjectKind::Index) {
      auto [t, idx] = catalog.findIndex(n);
      // The primary key's index, and one a foreign key looks its referenced rows up in, stay.
      bool constraint = idx->unique() && idx->columns() == t->primaryKey();
      for (const ForeignKey* fk : t->referencedBy()) constraint = constraint || fk->referencedColumns == idx->columns();
      if (constraint)
        throw Error(sqlstate::DependentObjects, "cannot drop index " + n + " because a constraint requires it", d.namePos[i]);
    }
  }
  QueryResult result({}, {}, "");
  for (auto& n : d.names) {
    if (!exists(n)) continue;
    switch (d.object) {
      case ast::ObjectKind::View: {
        auto v = std::make_shared<Catalog::View>(catalog.detachView(n));
        undo.logAction([&catalog, n, v] { catalog.createView(n, *v); });
        break;
      }
      case ast::ObjectKind::Index: {
        // Kept until the transaction ends: a ROLLBACK puts it back as it was (later writes to the
        // table are undone before this entry is).
        Table* t = catalog.findIndex(n).first;
        auto kept = std::make_shared<std::unique_ptr<Index>>(t->removeIndex(n));
        catalog.bump();
        undo.logAction([&catalog, t, kept] {
          t->addIndex(std::move(*kept));
          catalog.bump();
        });
        break;
      }
      case ast::ObjectKind::Table: {
        Table* t = catalog.findTable(n);
        // CASCADE: other tables' foreign keys on it go (those of tables dropped with it stay theirs).
        std::vector<Table*> owners;
        for (const ForeignKey* fk : t->referencedBy()) {
          Table* owner = fk->referencing;
          if (owner == t || std::find(d.names.begin(), d.names.end(), owner->name()) != d.names.end()) continue;
          result.notices.push_back({"NOTICE", "drop cascades to constraint " + fk->name + " on table " + owner->name()});
          if (std::find(owners.begin(), owners.end(), owner) == owners.end()) owners.push_back(owner);
        }
        for (Table* owner : owners) keepForeignKeys(undo, *owner, [t](const ForeignKey& fk) { return fk.referenced != t; });
        unlinkReferences(*t);
        auto kept = std::make_shared<std::unique_ptr<Table>>(catalog.detachTable(n));
        undo.logAction([&catalog, kept] {
          linkReferences(**kept);
          catalog.attachTable(std::move(*kept));
        });
        break;
      }
      case ast::ObjectKind::Sequence: {
        // Kept as it is: a ROLLBACK puts back the same object, its value included.
        std::shared_ptr<Sequence> kept = catalog.detachSequence(n);
        undo.logAction([&catalog, kept] { catalog.createSequence(kept); });
        break;
      }
      default: break;
    }
  }
  if (d.object == ast::ObjectKind::Table || d.object == ast::ObjectKind::View)  // views that read what went
    dropBrokenViews(catalog, undo, d.cascade, std::string(what) + " " + d.names[0], d.namePos[0], result);
  std::string tag = std::string("DROP ") + what;
  for (char& ch : tag) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  QueryResult done({}, {}, tag);
  done.notices = std::move(result.notices);
  return done;
}

QueryResult reindex(const Catalog& catalog, const ast::ReindexStmt& r) {
  using Target = ast::ReindexStmt::Target;
  bool found = false;
  if (r.target != Target::Table) found = catalog.findIndex(r.name).second != nullptr;
  if (!found && r.target != Target::Index) found = catalog.findTable(r.name) != nullptr;
  if (!found)
    throw Error(r.target == Target::Table ? sqlstate::UndefinedTable : sqlstate::UndefinedObject,
                std::string(r.target == Target::Table ? "relation" : "index") + " \"" + r.name + "\" does not exist",
                r.namePos);
  return QueryResult({}, {}, "REINDEX");
}

}  // namespace hyrax::sql
