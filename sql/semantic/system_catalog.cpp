// pg_catalog's tables and information_schema's views, made from the Catalog at bind time
// (system_catalog.hpp). Each maker lists its columns once and adds one row per object.
#include "sql/semantic/system_catalog.hpp"

#include <variant>
#include <vector>

#include "engine/catalog/catalog.hpp"
#include "engine/index/hash_index.hpp"
#include "engine/index/index.hpp"
#include "engine/storage/table.hpp"
#include "engine/util/error.hpp"
#include "sql/parser/parser.hpp"
#include "sql/semantic/binder.hpp"

namespace hyrax::sql {

namespace {

// A cell as the makers write it; converted to the column's type when the row is added.
using Cell = std::variant<std::monostate, int64_t, std::string, bool, double>;
constexpr std::monostate null{};

class Maker {
 public:
  // Column types by letter: o OID (BIGINT), n name / t text / c "char" (TEXT), b BOOLEAN,
  // i INTEGER, s SMALLINT, f REAL, ts TIMESTAMP is not needed (NULL-only columns use t); arrays
  // (a cell is the array's text, "{1,2}"): v int2vector, V oidvector, O oid[], T text[], N
  // name[], C "char"[], A aclitem[], S int2[].
  Maker(std::string name, std::vector<std::pair<const char*, char>> columns) : name_(std::move(name)) {
    for (auto& [n, k] : columns) {
      SqlType t = k == 'o' ? SqlType::int64() : k == 'b' ? SqlType::boolean() : k == 'i' ? SqlType::int32()
                : k == 's' ? SqlType::int16() : k == 'f' ? SqlType::float32()
                : k == 'v' ? SqlType::array(TypeId::Int16, 22) : k == 'V' ? SqlType::array(TypeId::Int64, 30)
                : k == 'O' ? SqlType::array(TypeId::Int64, 1028) : k == 'T' ? SqlType::array(TypeId::Text, 1009)
                : k == 'N' ? SqlType::array(TypeId::Text, 1003) : k == 'C' ? SqlType::array(TypeId::Text, 1002)
                : k == 'A' ? SqlType::array(TypeId::Text, 1034) : k == 'S' ? SqlType::array(TypeId::Int16, 1005)
                           : SqlType::text();
      defs_.push_back({n, t});
    }
  }
  void row(std::vector<Cell> cells) {
    if (cells.size() != defs_.size()) throw Error(sqlstate::InternalError, name_ + ": a row of the wrong width");
    std::vector<Value> values;
    for (size_t i = 0; i < cells.size(); ++i) {
      const SqlType& t = defs_[i].type;
      const Cell& c = cells[i];
      if (std::holds_alternative<std::monostate>(c)) values.push_back(Value::null(t));
      else if (auto* s = std::get_if<std::string>(&c)) values.push_back(Value::string(*s, t.isArray() ? t.withNullable(false) : SqlType::text(false)));
      else if (auto* b = std::get_if<bool>(&c)) values.push_back(Value::boolean(*b));
      else if (auto* d = std::get_if<double>(&c)) values.push_back(Value::float32(static_cast<float>(*d)));
      else {
        int64_t x = std::get<int64_t>(c);
        values.push_back(t.id == TypeId::Int16 ? Value::int16(static_cast<int16_t>(x))
                         : t.id == TypeId::Int32 ? Value::int32(static_cast<int32_t>(x)) : Value::int64(x));
      }
    }
    rows_.push_back(std::move(values));
  }
  std::unique_ptr<Table> make() {
    auto t = std::make_unique<Table>(name_, defs_);
    for (auto& r : rows_) t->appendRow(r.data());
    return t;
  }

 private:
  std::string name_;
  std::vector<ColumnDef> defs_;
  std::vector<std::vector<Value>> rows_;
};

Cell str(std::string s) { return Cell(std::move(s)); }
Cell num(int64_t x) { return Cell(x); }

constexpr int64_t kDefaultCollationOid = 100;

// attalign / typalign: c (char), s (short), i (int), d (double); varlena values align as int.
const char* alignOf(int64_t length) {
  return length == 1 ? "c" : length == 2 ? "s" : length == 4 || length < 0 ? "i" : "d";
}

bool isStringType(TypeId id) { return id == TypeId::Char || id == TypeId::Varchar || id == TypeId::Text; }

// A column's DEFAULT as PostgreSQL prints it (pg_get_expr of pg_attrdef.adbin); empty: none.
std::string defaultText(const ColumnDef& c) {
  if (c.defaultNow) return c.type.id == TypeId::Date ? "CURRENT_DATE" : "CURRENT_TIMESTAMP";
  if (c.defaultSequence) return "nextval('" + c.defaultSequence->name + "'::regclass)";
  if (!c.defaultValue) return "";
  const Value& v = *c.defaultValue;
  if (v.isNull()) return "NULL";
  std::string text = v.toString();
  if (c.type.isNumeric() && (text.empty() || text[0] != '-')) return text;
  if (c.type.id == TypeId::Bool) return text == "t" || text == "true" ? "true" : "false";
  std::string quoted = "'";
  for (char ch : text) quoted += ch == '\'' ? std::string("''") : std::string(1, ch);
  quoted += "'::";
  return quoted + (c.type.id == TypeId::Char ? "bpchar" : pgType(c.type.id).sqlName);
}

std::string zeros(size_t n) {
  std::string s;
  for (size_t k = 0; k < n; ++k) s += k ? ",0" : "0";
  return s;
}

// pg_index.indcollation (the default collation for string keys, else 0) and indclass (the
// operator class: PostgreSQL's default btree or hash one of the key's type; 0 here, there being
// no pg_opclass).
std::string indexCollations(const Table& t, const Index& i) {
  std::string s;
  for (size_t k = 0; k < i.columns().size(); ++k)
    s += std::string(k ? "," : "") + (t.columns()[i.columns()[k]].type.isString() ? std::to_string(kDefaultCollationOid) : "0");
  return "{" + s + "}";
}
std::string indexClasses(const Table&, const Index& i) { return "{" + zeros(i.columns().size()) + "}"; }

std::string columnList(const Table& t, const std::vector<uint32_t>& cols, const char* sep, bool attnums) {
  std::string s;
  for (size_t k = 0; k < cols.size(); ++k)
    s += (k ? sep : "") + (attnums ? std::to_string(cols[k] + 1) : t.columns()[cols[k]].name);
  return s;
}

// A view's columns: its query bound now (as every use of the view binds it). None for a view
// that no longer binds, and none while the columns of another view are being found (a view that
// reads pg_attribute would otherwise find itself again, for ever).
std::vector<ColumnDef> viewColumns(Catalog& catalog, const std::string& name) {
  thread_local bool finding = false;
  const Catalog::View* view = catalog.findView(name);
  if (!view || finding) return {};
  struct Finding {
    Finding() { finding = true; }
    ~Finding() { finding = false; }
  } scope;
  std::vector<ColumnDef> out;
  try {
    ast::StatementPtr parsed = parseStatement(view->sql);
    plan::QueryPlan plan;
    Binder(catalog).bindSelect(*static_cast<const ast::SelectStmt&>(*parsed).select, plan);
    for (size_t i = 0; i < plan.output.size(); ++i)
      out.push_back({i < view->columns.size() ? view->columns[i] : plan.outputNames[i], plan.output[i]->type});
  } catch (const Error&) {
    out.clear();
  }
  return out;
}

std::unique_ptr<Table> pgNamespace() {
  Maker m("pg_catalog.pg_namespace", {{"oid", 'o'}, {"nspname", 'n'}, {"nspowner", 'o'}, {"nspacl", 't'}});
  m.row({num(kPgCatalogNamespaceOid), str("pg_catalog"), num(kBootstrapRoleOid), null});
  m.row({num(kPublicNamespaceOid), str("public"), num(kBootstrapRoleOid), null});
  m.row({num(kInformationSchemaNamespaceOid), str("information_schema"), num(kBootstrapRoleOid), null});
  return m.make();
}

std::unique_ptr<Table> pgClass(Catalog& catalog) {
  Maker m("pg_catalog.pg_class", {{"oid", 'o'}, {"relname", 'n'}, {"relnamespace", 'o'}, {"reltype", 'o'}, {"reloftype", 'o'},
                       {"relowner", 'o'}, {"relam", 'o'}, {"relfilenode", 'o'}, {"reltablespace", 'o'},
                       {"relpages", 'i'}, {"reltuples", 'f'}, {"relallvisible", 'i'}, {"reltoastrelid", 'o'},
                       {"relhasindex", 'b'}, {"relisshared", 'b'}, {"relpersistence", 'c'}, {"relkind", 'c'},
                       {"relnatts", 's'}, {"relchecks", 's'}, {"relhasrules", 'b'}, {"relhastriggers", 'b'},
                       {"relhassubclass", 'b'}, {"relrowsecurity", 'b'}, {"relforcerowsecurity", 'b'},
                       {"relispopulated", 'b'}, {"relreplident", 'c'}, {"relispartition", 'b'}, {"relrewrite", 'o'},
                       {"relacl", 'A'}, {"reloptions", 'T'}, {"relpartbound", 't'}});
  auto rel = [&](const std::string& name, int64_t am, double tuples, bool hasIndex, const char* kind, int64_t natts,
                 int64_t checks) {
    m.row({num(catalog.objectOid(name)), str(name), num(kPublicNamespaceOid), num(0), num(0), num(kBootstrapRoleOid),
           num(am), num(0), num(0), num(0), Cell(tuples), num(0), num(0), Cell(hasIndex), Cell(false), str("p"),
           str(kind), num(natts), num(checks), Cell(false), Cell(false), Cell(false), Cell(false), Cell(false),
           Cell(true), str(kind[0] == 'r' ? "d" : "n"), Cell(false), num(0), null, null, null});
  };
  for (const Table* t : catalog.tables()) {
    rel(t->name(), 2, static_cast<double>(t->rowCount()), !t->indexes().empty(), "r",
        static_cast<int64_t>(t->columns().size()), static_cast<int64_t>(t->checks().size()));
    for (auto& i : t->indexes())
      rel(i->name(), dynamic_cast<const HashIndex*>(i.get()) ? 405 : 403, static_cast<double>(t->rowCount()), false,
          "i", static_cast<int64_t>(i->columns().size()), 0);
  }
  for (const std::string& v : catalog.views())
    rel(v, 0, 0, false, "v", static_cast<int64_t>(viewColumns(catalog, v).size()), 0);
  for (auto& s : catalog.sequences()) rel(s->name, 0, 1, false, "S", 3, 0);
  return m.make();
}

std::unique_ptr<Table> pgAttribute(Catalog& catalog) {
  Maker m("pg_catalog.pg_attribute", {{"attrelid", 'o'}, {"attname", 'n'}, {"atttypid", 'o'}, {"attstattarget", 'i'},
                           {"attlen", 's'}, {"attnum", 's'}, {"attndims", 'i'}, {"atttypmod", 'i'}, {"attbyval", 'b'},
                           {"attalign", 'c'}, {"attstorage", 'c'}, {"attcompression", 'c'}, {"attnotnull", 'b'},
                           {"atthasdef", 'b'}, {"atthasmissing", 'b'}, {"attidentity", 'c'}, {"attgenerated", 'c'},
                           {"attisdropped", 'b'}, {"attislocal", 'b'}, {"attinhcount", 'i'}, {"attcollation", 'o'},
                           {"attacl", 'A'}, {"attoptions", 'T'}});
  auto attribute = [&](int64_t relid, const ColumnDef& c, int64_t attnum) {
    const int64_t len = pgType(c.type.id).length;
    const bool varlena = len < 0;
    m.row({num(relid), str(c.name), num(pgTypeOid(c.type)), num(-1), num(len), num(attnum), num(0),
           num(pgTypeMod(c.type)), Cell(!varlena && len <= 8), str(alignOf(len)),
           str(varlena ? (c.type.id == TypeId::Decimal ? "m" : "x") : "p"), str(""), Cell(!c.type.nullable),
           Cell(!defaultText(c).empty()), Cell(false), str(c.sequence ? (c.sequence->always ? "a" : "d") : ""), str(""),
           Cell(false), Cell(true), num(0), num(isStringType(c.type.id) ? kDefaultCollationOid : 0), null, null});
  };
  for (const Table* t : catalog.tables()) {
    int64_t relid = catalog.objectOid(t->name());
    for (size_t i = 0; i < t->columns().size(); ++i) attribute(relid, t->columns()[i], static_cast<int64_t>(i + 1));
    for (auto& index : t->indexes()) {  // an index's columns are its key's, numbered from 1
      int64_t k = 0;
      for (uint32_t c : index->columns()) {
        ColumnDef key = t->columns()[c];
        key.defaultValue.reset();
        key.defaultNow = false;
        key.sequence.reset();
        key.defaultSequence.reset();
        key.type.nullable = true;  // PostgreSQL's index attributes are never NOT NULL
        attribute(catalog.objectOid(index->name()), key, ++k);
      }
    }
  }
  for (const std::string& v : catalog.views()) {
    auto columns = viewColumns(catalog, v);
    for (size_t i = 0; i < columns.size(); ++i) {
      columns[i].type.nullable = true;  // PostgreSQL marks no view column NOT NULL
      attribute(catalog.objectOid(v), columns[i], static_cast<int64_t>(i + 1));
    }
  }
  for (auto& sq : catalog.sequences()) {  // a sequence's one row: last_value, log_cnt, is_called
    int64_t relid = catalog.objectOid(sq->name);
    attribute(relid, {"last_value", SqlType::int64(false)}, 1);
    attribute(relid, {"log_cnt", SqlType::int64(false)}, 2);
    attribute(relid, {"is_called", SqlType::boolean(false)}, 3);
  }
  return m.make();
}

std::unique_ptr<Table> pgTypeTable() {
  Maker m("pg_catalog.pg_type", {{"oid", 'o'}, {"typname", 'n'}, {"typnamespace", 'o'}, {"typowner", 'o'}, {"typlen", 's'},
                      {"typbyval", 'b'}, {"typtype", 'c'}, {"typcategory", 'c'}, {"typispreferred", 'b'},
                      {"typisdefined", 'b'}, {"typdelim", 'c'}, {"typrelid", 'o'}, {"typelem", 'o'},
                      {"typarray", 'o'}, {"typinput", 't'}, {"typoutput", 't'}, {"typreceive", 't'}, {"typsend", 't'},
                      {"typalign", 'c'}, {"typstorage", 'c'}, {"typnotnull", 'b'}, {"typbasetype", 'o'},
                      {"typtypmod", 'i'}, {"typndims", 'i'}, {"typcollation", 'o'}, {"typdefault", 't'}});
  for (auto& t : pgTypes()) {
    const bool varlena = t.length < 0;
    std::string n = t.typname;
    m.row({num(t.oid), str(n), num(kPgCatalogNamespaceOid), num(kBootstrapRoleOid), num(t.length),
           Cell(!varlena && t.length <= 8), str("b"), str(t.category),
           Cell(n == "bool" || n == "float8" || n == "text" || n == "timestamp" || n == "interval"), Cell(true), str(","),
           num(0), num(0), num(t.arrayOid), str(n + "in"), str(n + "out"), str(n + "recv"), str(n + "send"),
           str(alignOf(t.length)),
           str(varlena ? (n == "numeric" ? "m" : "x") : "p"), Cell(false), num(0), num(-1), num(0),
           num(isStringType(t.id) ? kDefaultCollationOid : 0), null});
  }
  // Element types of pg_catalog's arrays that hyrax keeps as BIGINT or TEXT, and the array types.
  auto base = [&](int64_t oid, const char* name, int64_t len, const char* category, int64_t arrayOid, bool collatable) {
    m.row({num(oid), str(name), num(kPgCatalogNamespaceOid), num(kBootstrapRoleOid), num(len), Cell(len > 0 && len <= 8),
           str("b"), str(category), Cell(false), Cell(true), str(","), num(0), num(0), num(arrayOid),
           str(std::string(name) + "in"), str(std::string(name) + "out"), str(std::string(name) + "recv"),
           str(std::string(name) + "send"), str(alignOf(len)), str(len < 0 ? "x" : "p"), Cell(false), num(0), num(-1),
           num(0), num(collatable ? 950 : 0), null});
  };
  base(26, "oid", 4, "N", 1028, false);
  base(19, "name", 64, "S", 1003, true);
  base(18, "char", 1, "Z", 1002, false);
  base(1033, "aclitem", 12, "U", 1034, false);
  for (auto& a : pgArrayTypes()) {
    const bool vector = a.oid == 22 || a.oid == 30;
    m.row({num(a.oid), str(a.typname), num(kPgCatalogNamespaceOid), num(kBootstrapRoleOid), num(-1), Cell(false), str("b"),
           str("A"), Cell(false), Cell(true), str(","), num(0), num(a.element), num(vector ? 0 : 0),
           str(vector ? std::string(a.typname) + "in" : "array_in"), str(vector ? std::string(a.typname) + "out" : "array_out"),
           str(vector ? std::string(a.typname) + "recv" : "array_recv"), str(vector ? std::string(a.typname) + "send" : "array_send"),
           str(a.element == 20 ? "d" : "i"), str("x"), Cell(false), num(0), num(-1), num(0),
           num(a.element == 25 || a.element == 1043 ? kDefaultCollationOid : a.element == 19 ? 950 : 0), null});
  }
  return m.make();
}

std::unique_ptr<Table> pgIndex(Catalog& catalog) {
  Maker m("pg_catalog.pg_index", {{"indexrelid", 'o'}, {"indrelid", 'o'}, {"indnatts", 's'}, {"indnkeyatts", 's'},
                       {"indisunique", 'b'}, {"indnullsnotdistinct", 'b'}, {"indisprimary", 'b'},
                       {"indisexclusion", 'b'}, {"indimmediate", 'b'}, {"indisclustered", 'b'}, {"indisvalid", 'b'},
                       {"indcheckxmin", 'b'}, {"indisready", 'b'}, {"indislive", 'b'}, {"indisreplident", 'b'},
                       {"indkey", 'v'}, {"indcollation", 'V'}, {"indclass", 'V'}, {"indoption", 'v'},
                       {"indexprs", 't'}, {"indpred", 't'}});
  for (const Table* t : catalog.tables())
    for (auto& i : t->indexes()) {
      auto n = static_cast<int64_t>(i->columns().size());
      m.row({num(catalog.objectOid(i->name())), num(catalog.objectOid(t->name())), num(n), num(n), Cell(i->unique()),
             Cell(false), Cell(isPrimaryKeyIndex(*t, *i)), Cell(false), Cell(true), Cell(false), Cell(true),
             Cell(false), Cell(true), Cell(true), Cell(false), str("{" + columnList(*t, i->columns(), ",", true) + "}"),
             str(indexCollations(*t, *i)), str(indexClasses(*t, *i)), str("{" + zeros(i->columns().size()) + "}"), null,
             null});
    }
  return m.make();
}

std::unique_ptr<Table> pgAttrdef(Catalog& catalog) {
  // adbin is PostgreSQL's parse tree of the default; here the expression's text, which is what
  // pg_get_expr(adbin, adrelid) gives back.
  Maker m("pg_catalog.pg_attrdef", {{"oid", 'o'}, {"adrelid", 'o'}, {"adnum", 's'}, {"adbin", 't'}});
  for (const Table* t : catalog.tables())
    for (size_t i = 0; i < t->columns().size(); ++i) {
      std::string d = defaultText(t->columns()[i]);
      if (d.empty()) continue;
      m.row({num(catalog.defaultOid(t->name(), t->columns()[i].name)),
             num(catalog.objectOid(t->name())), num(static_cast<int64_t>(i + 1)), str(d)});
    }
  return m.make();
}

std::unique_ptr<Table> pgConstraint(Catalog& catalog) {
  // Primary keys (p), unique indexes made by UNIQUE constraints or CREATE UNIQUE INDEX (u: hyrax
  // keeps no difference), CHECK (c) and foreign keys (f); conkey and confkey are int2[].
  Maker m("pg_catalog.pg_constraint", {{"oid", 'o'}, {"conname", 'n'}, {"connamespace", 'o'}, {"contype", 'c'},
                            {"condeferrable", 'b'}, {"condeferred", 'b'}, {"convalidated", 'b'}, {"conrelid", 'o'},
                            {"contypid", 'o'}, {"conindid", 'o'}, {"conparentid", 'o'}, {"confrelid", 'o'},
                            {"conislocal", 'b'}, {"coninhcount", 'i'}, {"connoinherit", 'b'}, {"conkey", 'S'},
                            {"confkey", 'S'}, {"consrc", 't'}});
  auto add = [&](const Table& t, const std::string& name, const char* type, int64_t index, int64_t frel,
                 const std::string& key, Cell fkey, Cell src) {
    m.row({num(catalog.constraintOid(t.name(), name)), str(name), num(kPublicNamespaceOid),
           str(type), Cell(false), Cell(false), Cell(true), num(catalog.objectOid(t.name())), num(0), num(index), num(0),
           num(frel), Cell(true), num(0), Cell(false), key.empty() ? Cell(null) : str(key), std::move(fkey), std::move(src)});
  };
  for (const Table* t : catalog.tables()) {
    for (auto& i : t->indexes())
      if (i->unique())
        add(*t, i->name(), isPrimaryKeyIndex(*t, *i) ? "p" : "u", catalog.objectOid(i->name()), 0,
            "{" + columnList(*t, i->columns(), ",", true) + "}", null, null);
    for (auto& c : t->checks()) add(*t, c.name, "c", 0, 0, "", null, str(c.sql));
    for (auto& f : t->foreignKeys())
      add(*t, f.name, "f", 0, catalog.objectOid(f.referenced->name()), "{" + columnList(*t, f.columns, ",", true) + "}",
          str("{" + columnList(*f.referenced, f.referencedColumns, ",", true) + "}"), null);
  }
  return m.make();
}

std::unique_ptr<Table> pgDatabase() {
  Maker m("pg_catalog.pg_database", {{"oid", 'o'}, {"datname", 'n'}, {"datdba", 'o'}, {"encoding", 'i'}, {"datlocprovider", 'c'},
                          {"datistemplate", 'b'}, {"datallowconn", 'b'}, {"datconnlimit", 'i'}, {"dattablespace", 'o'},
                          {"datcollate", 't'}, {"datctype", 't'}, {"daticulocale", 't'}, {"datacl", 'A'}});
  m.row({num(kDatabaseOid), str(kDatabaseName), num(kBootstrapRoleOid), num(6), str("c"), Cell(false), Cell(true),
         num(-1), num(1663), str("C"), str("C"), null, null});
  return m.make();
}

// The built-in role (the superuser every session is) and those CREATE ROLE made; passwords show
// as PostgreSQL's pg_roles shows them, never their verifiers. pg_user lists the ones that log in.
std::unique_ptr<Table> pgRoles(Catalog& catalog, const std::string& name) {
  std::vector<RoleDescription> created = catalog.roleList ? catalog.roleList() : std::vector<RoleDescription>{};
  if (name == "pg_user") {
    Maker m("pg_catalog.pg_user", {{"usename", 'n'}, {"usesysid", 'o'}, {"usecreatedb", 'b'}, {"usesuper", 'b'}, {"userepl", 'b'},
                        {"usebypassrls", 'b'}, {"passwd", 't'}, {"valuntil", 't'}, {"useconfig", 'T'}});
    m.row({str(kRoleName), num(kBootstrapRoleOid), Cell(true), Cell(true), Cell(false), Cell(false), str("********"),
           null, null});
    for (const RoleDescription& r : created)
      if (r.login)
        m.row({str(r.name), num(catalog.roleOid(r.name)), Cell(false), Cell(false), Cell(false), Cell(false),
               r.hasPassword ? str("********") : null, null, null});
    return m.make();
  }
  Maker m("pg_catalog." + name, {{"oid", 'o'}, {"rolname", 'n'}, {"rolsuper", 'b'}, {"rolinherit", 'b'}, {"rolcreaterole", 'b'},
                 {"rolcreatedb", 'b'}, {"rolcanlogin", 'b'}, {"rolreplication", 'b'}, {"rolconnlimit", 'i'},
                 {"rolpassword", 't'}, {"rolvaliduntil", 't'}, {"rolbypassrls", 'b'}, {"rolconfig", 'T'}});
  m.row({num(kBootstrapRoleOid), str(kRoleName), Cell(true), Cell(true), Cell(true), Cell(true), Cell(true), Cell(false),
         num(-1), str("********"), null, Cell(false), null});
  for (const RoleDescription& r : created)
    m.row({num(catalog.roleOid(r.name)), str(r.name), Cell(false), Cell(true), Cell(false), Cell(false), Cell(r.login),
           Cell(false), num(-1), r.hasPassword ? str("********") : null, null, Cell(false), null});
  return m.make();
}

std::unique_ptr<Table> pgAm() {
  Maker m("pg_catalog.pg_am", {{"oid", 'o'}, {"amname", 'n'}, {"amhandler", 't'}, {"amtype", 'c'}});
  // Tables are heap; ordered indexes (ART) answer to btree, as they serve what a B-tree serves.
  m.row({num(2), str("heap"), str("heap_tableam_handler"), str("t")});
  m.row({num(403), str("btree"), str("bthandler"), str("i")});
  m.row({num(405), str("hash"), str("hashhandler"), str("i")});
  return m.make();
}

std::unique_ptr<Table> pgCollation() {
  Maker m("pg_catalog.pg_collation", {{"oid", 'o'}, {"collname", 'n'}, {"collnamespace", 'o'}, {"collowner", 'o'},
                           {"collprovider", 'c'}, {"collisdeterministic", 'b'}, {"collencoding", 'i'},
                           {"collcollate", 't'}, {"collctype", 't'}});
  m.row({num(kDefaultCollationOid), str("default"), num(kPgCatalogNamespaceOid), num(kBootstrapRoleOid), str("d"),
         Cell(true), num(-1), null, null});
  m.row({num(950), str("C"), num(kPgCatalogNamespaceOid), num(kBootstrapRoleOid), str("c"), Cell(true), num(-1),
         str("C"), str("C")});
  m.row({num(951), str("POSIX"), num(kPgCatalogNamespaceOid), num(kBootstrapRoleOid), str("c"), Cell(true), num(-1),
         str("POSIX"), str("POSIX")});
  return m.make();
}

std::unique_ptr<Table> pgProc(Catalog& catalog) {
  // The stored functions and procedures (hyrax's built-in functions are not listed).
  Maker m("pg_catalog.pg_proc", {{"oid", 'o'}, {"proname", 'n'}, {"pronamespace", 'o'}, {"proowner", 'o'},
                                 {"prokind", 'c'}, {"prosecdef", 'b'}, {"proisstrict", 'b'}, {"proretset", 'b'},
                                 {"provolatile", 'c'}, {"pronargs", 's'}, {"pronargdefaults", 's'},
                                 {"prorettype", 'o'}, {"proargtypes", 'V'}, {"proargnames", 'T'}, {"prosrc", 't'}});
  if (!catalog.routineNames || !catalog.findRoutine) return m.make();
  for (const std::string& name : catalog.routineNames()) {
    RoutineSignature sig;
    if (!catalog.findRoutine(name, sig)) continue;
    std::string types, names;
    for (size_t i = 0; i < sig.params.size(); ++i) {
      types += (i ? "," : "") + std::to_string(pgTypeOid(sig.params[i]));
      names += (i ? "," : "") + sig.paramNames[i];
    }
    m.row({num(catalog.routineOid(name)), str(name), num(kPublicNamespaceOid), num(kBootstrapRoleOid),
           str(sig.procedure ? "p" : "f"), Cell(false), Cell(false), Cell(false), str("v"),
           num(static_cast<int64_t>(sig.params.size())), num(0),
           num(sig.result.isNull() ? kVoidTypeOid : pgTypeOid(sig.result)), str("{" + types + "}"),
           names.empty() ? Cell(null) : str("{" + names + "}"), null});
  }
  return m.make();
}

std::unique_ptr<Table> hyraxSettings(const Catalog& catalog) {
  // What pg_settings shows besides the values: those are read when the query runs.
  Maker m("pg_catalog.hyrax_settings", {{"name", 't'}, {"short_desc", 't'}, {"boot_val", 't'}, {"context", 't'}});
  if (catalog.settingDescriptions)
    for (auto& d : catalog.settingDescriptions())
      m.row({str(d.name), str(d.description), str(d.defaultValue), str(d.readOnly ? "internal" : "user")});
  return m.make();
}

std::unique_ptr<Table> emptyTable(const std::string& name) {
  if (name == "pg_description")
    return Maker("pg_catalog." + name, {{"objoid", 'o'}, {"classoid", 'o'}, {"objsubid", 'i'}, {"description", 't'}}).make();
  if (name == "pg_inherits")
    return Maker("pg_catalog." + name, {{"inhrelid", 'o'}, {"inhparent", 'o'}, {"inhseqno", 'i'}, {"inhdetachpending", 'b'}}).make();
  // What psql's \d and \du ask about and hyrax does not have: role membership, row security
  // policies, extended statistics, publications.
  if (name == "pg_auth_members")
    return Maker("pg_catalog." + name, {{"oid", 'o'}, {"roleid", 'o'}, {"member", 'o'}, {"grantor", 'o'}, {"admin_option", 'b'}}).make();
  if (name == "pg_policy")
    return Maker("pg_catalog." + name, {{"oid", 'o'}, {"polname", 'n'}, {"polrelid", 'o'}, {"polcmd", 'c'}, {"polpermissive", 'b'},
                                        {"polroles", 'O'}, {"polqual", 't'}, {"polwithcheck", 't'}}).make();
  if (name == "pg_statistic_ext")
    return Maker("pg_catalog." + name, {{"oid", 'o'}, {"stxrelid", 'o'}, {"stxname", 'n'}, {"stxnamespace", 'o'}, {"stxowner", 'o'},
                                        {"stxstattarget", 'i'}, {"stxkeys", 'v'}, {"stxkind", 'C'}, {"stxexprs", 't'}}).make();
  if (name == "pg_publication")
    return Maker("pg_catalog." + name, {{"oid", 'o'}, {"pubname", 'n'}, {"pubowner", 'o'}, {"puballtables", 'b'}, {"pubinsert", 'b'},
                                        {"pubupdate", 'b'}, {"pubdelete", 'b'}, {"pubtruncate", 'b'}, {"pubviaroot", 'b'}}).make();
  if (name == "pg_publication_namespace")
    return Maker("pg_catalog." + name, {{"oid", 'o'}, {"pnpubid", 'o'}, {"pnnspid", 'o'}}).make();
  if (name == "pg_publication_rel")
    return Maker("pg_catalog." + name, {{"oid", 'o'}, {"prpubid", 'o'}, {"prrelid", 'o'}, {"prqual", 't'}, {"prattrs", 'v'}}).make();
  return nullptr;
}

// information_schema.
std::unique_ptr<Table> informationSchema(Catalog& catalog, const std::string& name) {
  if (name == "schemata") {
    Maker m("information_schema." + name, {{"catalog_name", 't'}, {"schema_name", 't'}, {"schema_owner", 't'},
                   {"default_character_set_catalog", 't'}, {"default_character_set_schema", 't'},
                   {"default_character_set_name", 't'}, {"sql_path", 't'}});
    for (const char* s : {"information_schema", "pg_catalog", "public"})
      m.row({str(kDatabaseName), str(s), str(kRoleName), null, null, null, null});
    return m.make();
  }
  if (name == "tables") {
    Maker m("information_schema." + name, {{"table_catalog", 't'}, {"table_schema", 't'}, {"table_name", 't'}, {"table_type", 't'},
                   {"self_referencing_column_name", 't'}, {"reference_generation", 't'},
                   {"user_defined_type_catalog", 't'}, {"user_defined_type_schema", 't'},
                   {"user_defined_type_name", 't'}, {"is_insertable_into", 't'}, {"is_typed", 't'},
                   {"commit_action", 't'}});
    auto add = [&](const std::string& n, bool view) {
      m.row({str(kDatabaseName), str("public"), str(n), str(view ? "VIEW" : "BASE TABLE"), null, null, null, null, null,
             str(view ? "NO" : "YES"), str("NO"), null});
    };
    for (const Table* t : catalog.tables()) add(t->name(), false);
    for (const std::string& v : catalog.views()) add(v, true);
    return m.make();
  }
  if (name == "columns") {
    Maker m("information_schema." + name, {{"table_catalog", 't'}, {"table_schema", 't'}, {"table_name", 't'}, {"column_name", 't'},
                   {"ordinal_position", 'i'}, {"column_default", 't'}, {"is_nullable", 't'}, {"data_type", 't'},
                   {"character_maximum_length", 'i'}, {"character_octet_length", 'i'}, {"numeric_precision", 'i'},
                   {"numeric_precision_radix", 'i'}, {"numeric_scale", 'i'}, {"datetime_precision", 'i'},
                   {"udt_catalog", 't'}, {"udt_schema", 't'}, {"udt_name", 't'}, {"is_identity", 't'},
                   {"identity_generation", 't'}, {"is_generated", 't'}, {"is_updatable", 't'}});
    auto column = [&](const std::string& table, const ColumnDef& c, size_t i, bool updatable) {
        const SqlType& ty = c.type;
        std::string d = defaultText(c);
        Cell charLen = null, octets = null, precision = null, radix = null, scale = null, dtPrecision = null;
        if ((ty.id == TypeId::Char || ty.id == TypeId::Varchar) && ty.length) {
          charLen = num(ty.length);
          octets = num(int64_t{ty.length} * 4);
        } else if (ty.id == TypeId::Text || ty.id == TypeId::Varchar) {
          octets = num(1073741824);
        }
        const int64_t bits = ty.id == TypeId::Int16 ? 16 : ty.id == TypeId::Int32 ? 32 : ty.id == TypeId::Int64 ? 64
                           : ty.id == TypeId::Float32 ? 24 : ty.id == TypeId::Float64 ? 53 : 0;
        if (bits) {
          precision = num(bits);
          radix = num(2);
          if (ty.isInteger()) scale = num(0);
        } else if (ty.id == TypeId::Decimal) {
          precision = num(ty.precision);
          radix = num(10);
          scale = num(ty.scale);
        }
        if (ty.id == TypeId::Date) dtPrecision = num(0);
        if (ty.id == TypeId::Timestamp || ty.id == TypeId::Time || ty.id == TypeId::Interval) dtPrecision = num(6);
        const std::string udt = pgType(ty.id).typname;
        m.row({str(kDatabaseName), str("public"), str(table), str(c.name), num(static_cast<int64_t>(i + 1)),
               d.empty() ? Cell(null) : str(d), str(ty.nullable ? "YES" : "NO"), str(pgType(ty.id).sqlName), charLen, octets,
               precision, radix, scale, dtPrecision, str(kDatabaseName), str("pg_catalog"), str(udt),
               str(c.sequence ? "YES" : "NO"), c.sequence ? str(c.sequence->always ? "ALWAYS" : "BY DEFAULT") : Cell(null),
               str("NEVER"), str(updatable ? "YES" : "NO")});
    };
    for (const Table* t : catalog.tables())
      for (size_t i = 0; i < t->columns().size(); ++i) column(t->name(), t->columns()[i], i, true);
    for (const std::string& v : catalog.views()) {  // views are read only here
      auto columns = viewColumns(catalog, v);
      for (size_t i = 0; i < columns.size(); ++i) {
        columns[i].type.nullable = true;
        column(v, columns[i], i, false);
      }
    }
    return m.make();
  }
  return nullptr;
}

}  // namespace

const char* systemViewSql(const std::string& schema, const std::string& name) {
  if ((schema.empty() || schema == "pg_catalog") && name == "pg_settings")
    return "SELECT s.name, current_setting(s.name) AS setting, CAST(NULL AS TEXT) AS unit, 'hyrax' AS category, "
           "s.short_desc, CAST(NULL AS TEXT) AS extra_desc, s.context, 'string' AS vartype, "
           "CASE WHEN current_setting(s.name) = s.boot_val THEN 'default' ELSE 'session' END AS source, "
           "CAST(NULL AS TEXT) AS min_val, CAST(NULL AS TEXT) AS max_val, s.boot_val, s.boot_val AS reset_val, "
           "false AS pending_restart FROM pg_catalog.hyrax_settings s";
  return nullptr;
}

bool isSystemSchema(const std::string& schema) { return schema == "pg_catalog" || schema == "information_schema"; }

const std::vector<PgType>& pgTypes() {
  static const std::vector<PgType> kTypes = {
      {TypeId::Bool, 16, "bool", "boolean", {}, 1, "B", 1000},
      {TypeId::Int64, 20, "int8", "bigint", {}, 8, "N", 1016},
      {TypeId::Int16, 21, "int2", "smallint", {}, 2, "N", 1005},
      {TypeId::Int32, 23, "int4", "integer", {"int"}, 4, "N", 1007},
      {TypeId::Text, 25, "text", "text", {}, -1, "S", 1009},
      {TypeId::Float32, 700, "float4", "real", {}, 4, "N", 1021},
      {TypeId::Float64, 701, "float8", "double precision", {"float"}, 8, "N", 1022},
      {TypeId::Char, 1042, "bpchar", "character", {"char"}, -1, "S", 1014},
      {TypeId::Varchar, 1043, "varchar", "character varying", {}, -1, "S", 1015},
      {TypeId::Date, 1082, "date", "date", {}, 4, "D", 1182},
      {TypeId::Time, 1083, "time", "time without time zone", {}, 8, "D", 1183},
      {TypeId::Timestamp, 1114, "timestamp", "timestamp without time zone", {}, 8, "D", 1115},
      {TypeId::Interval, 1186, "interval", "interval", {}, 16, "T", 1187},
      {TypeId::Decimal, 1700, "numeric", "numeric", {"decimal"}, -1, "N", 1231},
  };
  return kTypes;
}

const std::vector<PgArrayType>& pgArrayTypes() {
  static const std::vector<PgArrayType> kArrays = {
      {22, "int2vector", 21}, {30, "oidvector", 26}, {1002, "_char", 18},  {1003, "_name", 19},
      {1005, "_int2", 21},    {1007, "_int4", 23},   {1009, "_text", 25},  {1015, "_varchar", 1043},
      {1016, "_int8", 20},    {1028, "_oid", 26},    {1034, "_aclitem", 1033},
  };
  return kArrays;
}

const PgType& pgType(TypeId id) {
  static const PgType unknown{TypeId::Null, 705, "unknown", "unknown", {}, -2, "X", 0};
  static const PgType array{TypeId::Array, 0, "anyarray", "ARRAY", {}, -1, "A", 0};  // the OID is the SqlType's
  if (id == TypeId::Array) return array;
  for (auto& t : pgTypes())
    if (t.id == id) return t;
  return unknown;  // an untyped NULL
}

int64_t pgTypeOid(const SqlType& t) { return t.isArray() ? t.arrayOid : pgType(t.id).oid; }

bool isPrimaryKeyIndex(const Table& t, const Index& i) {
  return !t.primaryKey().empty() && i.unique() && i.columns() == t.primaryKey();
}

int32_t pgTypeMod(const SqlType& t) {
  if ((t.id == TypeId::Char || t.id == TypeId::Varchar) && t.length) return static_cast<int32_t>(t.length) + 4;
  if (t.id == TypeId::Decimal) return ((int32_t{t.precision} << 16) | t.scale) + 4;
  return -1;
}

std::unique_ptr<Table> makeSystemTable(Catalog& catalog, const std::string& schema, const std::string& name) {
  std::unique_ptr<Table> t;
  if (schema == "information_schema") {
    t = informationSchema(catalog, name);
  } else if (schema == "pg_catalog") {
    if (name == "pg_namespace") t = pgNamespace();
    else if (name == "pg_class") t = pgClass(catalog);
    else if (name == "pg_attribute") t = pgAttribute(catalog);
    else if (name == "pg_type") t = pgTypeTable();
    else if (name == "pg_index") t = pgIndex(catalog);
    else if (name == "pg_attrdef") t = pgAttrdef(catalog);
    else if (name == "pg_constraint") t = pgConstraint(catalog);
    else if (name == "pg_database") t = pgDatabase();
    else if (name == "pg_roles" || name == "pg_authid" || name == "pg_user") t = pgRoles(catalog, name);
    else if (name == "pg_am") t = pgAm();
    else if (name == "pg_collation") t = pgCollation();
    else if (name == "pg_proc") t = pgProc(catalog);
    else if (name == "hyrax_settings") t = hyraxSettings(catalog);
    else t = emptyTable(name);
  }
  return t;
}

}  // namespace hyrax::sql
