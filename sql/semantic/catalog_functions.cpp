// The functions psql and drivers call on pg_catalog: version(), current_database(),
// current_user, format_type, pg_get_userbyid, pg_get_indexdef, pg_get_constraintdef, pg_get_expr,
// pg_table_is_visible, obj_description, pg_encoding_to_char, has_*_privilege and the casts
// x::regclass / x::regtype. Those that read the catalog become, at bind time, a CASE over the
// objects the catalog holds now (the way pg_class is made: system_catalog.hpp), so generated
// code needs nothing new and a plan never reads a catalog that changed under it (a change of
// the catalog compiles cached statements again).
#include <cctype>

#include "engine/catalog/catalog.hpp"
#include "engine/index/art_index.hpp"
#include "sql/optimizer/constant_folding.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/system_catalog.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;

namespace {

ExprPtr text(const std::string& s) { return Expr::constant(Value::string(s)); }
ExprPtr nullOf(const SqlType& t) { return Expr::constant(Value::null(t)); }
ExprPtr int64(int64_t x) { return Expr::constant(Value::int64(x)); }

// CASE WHEN key = k1 THEN r1 ... ELSE otherwise END (otherwise alone when there are no arms).
ExprPtr lookup(const ExprPtr& key, std::vector<std::pair<Value, ExprPtr>> arms, ExprPtr otherwise, SourcePos pos) {
  if (arms.empty()) return otherwise;
  std::vector<ExprPtr> args;
  for (auto& [k, r] : arms) {
    args.push_back(makeCompare(plan::CmpOp::Eq, key->clone(), Expr::constant(k), pos));
    args.push_back(std::move(r));
  }
  args.push_back(std::move(otherwise));
  return makeCase(std::move(args), true, pos);
}

// The PostgreSQL spelling of a type by OID (format_type without a typmod); empty: not one of ours.
const char* typeNameOf(int64_t oid) {
  switch (oid) {
    case 16: return "boolean";
    case 20: return "bigint";
    case 21: return "smallint";
    case 23: return "integer";
    case 25: return "text";
    case 700: return "real";
    case 701: return "double precision";
    case 1042: return "bpchar";
    case 1043: return "character varying";
    case 1082: return "date";
    case 1083: return "time without time zone";
    case 1114: return "timestamp without time zone";
    case 1186: return "interval";
    case 1700: return "numeric";
    default: return "";
  }
}

std::string quoteIdent(const std::string& s) {
  bool plain = !s.empty() && (std::islower(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char c : s) plain = plain && (std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_');
  if (plain) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string columnNames(const Table& t, const std::vector<uint32_t>& cols) {
  std::string s;
  for (size_t k = 0; k < cols.size(); ++k) s += (k ? ", " : "") + quoteIdent(t.columns()[cols[k]].name);
  return s;
}

bool isPrimaryKey(const Table& t, const Index& i) { return !t.primaryKey().empty() && i.unique() && i.columns() == t.primaryKey(); }

}  // namespace

ExprPtr SelectBinder::bindCatalogFunction(const ast::Expr& e, Clause clause) {
  static const char* const kNames[] = {
      "version", "current_database", "current_catalog", "current_schema", "current_user", "session_user", "user",
      "current_role", "pg_table_is_visible", "pg_type_is_visible", "format_type", "pg_get_userbyid", "pg_get_indexdef",
      "pg_get_constraintdef", "pg_get_expr", "obj_description", "col_description", "shobj_description",
      "pg_encoding_to_char", "has_table_privilege", "has_schema_privilege", "has_database_privilege", "regclass",
      "regtype", "regnamespace", "regrole", "regproc"};
  bool known = false;
  for (const char* n : kNames) known = known || e.name == n;
  if (!known) return nullptr;
  std::vector<ExprPtr> args;
  for (auto& a : e.args) args.push_back(bindExpr(*a, clause));
  auto count = [&](size_t lo, size_t hi) {
    if (args.size() < lo || args.size() > hi) {
      std::string sig;
      for (size_t i = 0; i < args.size(); ++i) sig += (i ? ", " : "") + args[i]->type.name();
      throw Error(sqlstate::UndefinedFunction, "function " + e.name + "(" + sig + ") does not exist", e.pos);
    }
  };
  // An OID argument: an integer (OIDs are BIGINT here) or a string literal of one ('16384').
  auto oid = [&](size_t i) {
    if (args[i]->type.isNull() || args[i]->type.isString() || args[i]->type.isInteger())
      args[i] = castTo(std::move(args[i]), SqlType::int64(args[i]->type.nullable || args[i]->type.isNull()));
    else
      throw Error(sqlstate::UndefinedFunction, "function " + e.name + "(" + args[i]->type.name() + ", ...) does not exist", e.pos);
  };
  const std::string& n = e.name;

  if (n == "version") {
    count(0, 0);
    // Tools read "PostgreSQL <major>.<minor>" from its start: the protocol and catalog are 15's.
    return text("PostgreSQL 15.0 (hyrax 0.1), compiled-query main-memory database");
  }
  if (n == "current_database" || n == "current_catalog") {
    count(0, 0);
    return text(kDatabaseName);
  }
  if (n == "current_schema") {
    count(0, 0);
    return text("public");
  }
  if (n == "current_user" || n == "session_user" || n == "user" || n == "current_role") {
    count(0, 0);
    return text(kRoleName);
  }
  if (n == "has_table_privilege" || n == "has_schema_privilege" || n == "has_database_privilege") {
    // The one role is a superuser: every privilege it is asked about, it has.
    count(2, 3);
    return Expr::constant(Value::boolean(true));
  }
  if (n == "obj_description" || n == "col_description" || n == "shobj_description") {
    count(1, 2);  // COMMENT ON does not exist: no object has a description
    return nullOf(SqlType::text());
  }
  if (n == "pg_encoding_to_char") {
    count(1, 1);
    oid(0);
    std::vector<std::pair<Value, ExprPtr>> arms;
    arms.emplace_back(Value::int64(6), text("UTF8"));
    return makeCase([&] {
      std::vector<ExprPtr> a;
      a.push_back(makeIsNull(args[0]->clone(), false, e.pos));
      a.push_back(nullOf(SqlType::text()));
      a.push_back(lookup(args[0], std::move(arms), text(""), e.pos));
      return a;
    }(), true, e.pos);
  }
  if (n == "pg_get_expr") {
    // pg_attrdef.adbin holds the expression's text here (no parse trees): it is its own printout.
    count(2, 3);
    if (!args[0]->type.isString() && !args[0]->type.isNull()) throw Error(sqlstate::UndefinedFunction, "pg_get_expr takes the text of an expression", e.pos);
    return castTo(std::move(args[0]), SqlType::text());
  }
  if (n == "pg_get_userbyid") {
    count(1, 1);
    oid(0);
    std::vector<std::pair<Value, ExprPtr>> arms;
    arms.emplace_back(Value::int64(kBootstrapRoleOid), text(kRoleName));
    ExprPtr unknown = makeConcat(makeConcat(text("unknown (OID="), args[0]->clone(), e.pos), text(")"), e.pos);
    return lookup(args[0], std::move(arms), std::move(unknown), e.pos);
  }
  if (n == "pg_table_is_visible" || n == "pg_type_is_visible") {
    // Visible: found by its bare name on the search path (pg_catalog, then public). Every type
    // is pg_catalog's; a relation of public is hidden only by a system table of its name.
    // NULL for an OID that names nothing, as in PostgreSQL.
    count(1, 1);
    oid(0);
    std::vector<std::pair<Value, ExprPtr>> arms;
    if (n == "pg_type_is_visible") {
      for (int64_t t : {16, 20, 21, 23, 25, 700, 701, 1042, 1043, 1082, 1083, 1114, 1186, 1700})
        arms.emplace_back(Value::int64(t), Expr::constant(Value::boolean(true)));
    } else {
      auto add = [&](const std::string& name) {
        arms.emplace_back(Value::int64(catalog_.objectOid(name)),
                          Expr::constant(Value::boolean(!makeSystemTable(catalog_, "pg_catalog", name))));
      };
      for (const Table* t : catalog_.tables()) {
        add(t->name());
        for (auto& i : t->indexes()) add(i->name());
      }
      for (const std::string& v : catalog_.views()) add(v);
      for (auto& s : catalog_.sequences()) add(s->name);
    }
    return lookup(args[0], std::move(arms), nullOf(SqlType::boolean()), e.pos);
  }
  if (n == "format_type") {
    // format_type(type OID, typmod): the type's SQL spelling, with its length or precision
    // when the typmod gives one (NULL typmod: none); NULL for a NULL OID, ??? for an unknown one.
    count(2, 2);
    oid(0);
    if (args[1]->type.isNull()) args[1] = castTo(std::move(args[1]), SqlType::int32());
    if (!args[1]->type.isInteger()) throw Error(sqlstate::UndefinedFunction, "format_type takes an integer typmod", e.pos);
    ExprPtr mod = castTo(std::move(args[1]), SqlType::int64(true));
    auto withMod = [&](const std::string& base, bool numeric) {
      // CASE WHEN mod >= 4 THEN base || '(' || ... || ')' ELSE base END
      ExprPtr m4 = makeArith(plan::ArithOp::Sub, mod->clone(), int64(4), e.pos);
      ExprPtr inner;
      if (numeric) {
        ExprPtr p = makeArith(plan::ArithOp::Div, m4->clone(), int64(65536), e.pos);
        ExprPtr s = makeArith(plan::ArithOp::Mod, std::move(m4), int64(65536), e.pos);
        inner = makeConcat(makeConcat(std::move(p), text(","), e.pos), std::move(s), e.pos);
      } else {
        inner = std::move(m4);
      }
      std::vector<ExprPtr> a;
      a.push_back(makeCompare(plan::CmpOp::Ge, mod->clone(), int64(4), e.pos));
      a.push_back(makeConcat(makeConcat(text(base + "("), std::move(inner), e.pos), text(")"), e.pos));
      a.push_back(text(base));
      return makeCase(std::move(a), true, e.pos);
    };
    std::vector<std::pair<Value, ExprPtr>> arms;
    for (int64_t t : {16, 20, 21, 23, 25, 700, 701, 1042, 1043, 1082, 1083, 1114, 1186, 1700}) {
      std::string name = typeNameOf(t);
      ExprPtr r = t == 1043 ? withMod(name, false) : t == 1042 ? nullptr : t == 1700 ? withMod(name, true) : text(name);
      if (t == 1042) {  // bpchar without a length, character(n) with one
        std::vector<ExprPtr> a;
        a.push_back(makeCompare(plan::CmpOp::Ge, mod->clone(), int64(4), e.pos));
        a.push_back(makeConcat(makeConcat(text("character("), makeArith(plan::ArithOp::Sub, mod->clone(), int64(4), e.pos), e.pos),
                               text(")"), e.pos));
        a.push_back(text("bpchar"));
        r = makeCase(std::move(a), true, e.pos);
      }
      arms.emplace_back(Value::int64(t), std::move(r));
    }
    std::vector<ExprPtr> a;
    a.push_back(makeIsNull(args[0]->clone(), false, e.pos));
    a.push_back(nullOf(SqlType::text()));
    a.push_back(lookup(args[0], std::move(arms), text("???"), e.pos));
    return makeCase(std::move(a), true, e.pos);
  }
  if (n == "pg_get_indexdef" || n == "pg_get_constraintdef") {
    // The definitions as PostgreSQL prints them (pretty or not: the same here); NULL for an OID
    // that names nothing. pg_get_indexdef(oid, column, pretty) with a column other than 0 asks
    // for one key column's name.
    const bool index = n == "pg_get_indexdef";
    count(1, index ? 3 : 2);
    oid(0);
    int64_t column = 0;
    if (index && args.size() >= 2) {
      ExprPtr c = foldConstants(std::move(args[1]));
      if (c->kind != ExprKind::Constant || !c->type.isInteger() || c->value.isNull())
        throw Error(sqlstate::FeatureNotSupported, "pg_get_indexdef takes its column number as an integer constant", e.args[1]->pos);
      column = c->value.asInt();
    }
    std::vector<std::pair<Value, ExprPtr>> arms;
    for (const Table* t : catalog_.tables()) {
      const std::string table = "public." + quoteIdent(t->name());
      if (index) {
        for (auto& i : t->indexes()) {
          std::string def;
          if (column == 0)
            def = std::string("CREATE ") + (i->unique() ? "UNIQUE " : "") + "INDEX " + quoteIdent(i->name()) + " ON " + table +
                  " USING " + (dynamic_cast<const ArtIndex*>(i.get()) ? "btree" : "hash") + " (" +
                  columnNames(*t, i->columns()) + ")";
          else if (column > 0 && static_cast<size_t>(column) <= i->columns().size())
            def = quoteIdent(t->columns()[i->columns()[column - 1]].name);
          arms.emplace_back(Value::int64(catalog_.objectOid(i->name())), def.empty() ? text("") : text(def));
        }
        continue;
      }
      auto constraint = [&](const std::string& name, std::string def) {
        arms.emplace_back(Value::int64(catalog_.objectOid("constraint:" + t->name() + "." + name)), text(def));
      };
      for (auto& i : t->indexes())
        if (i->unique())
          constraint(i->name(), std::string(isPrimaryKey(*t, *i) ? "PRIMARY KEY" : "UNIQUE") + " (" + columnNames(*t, i->columns()) + ")");
      for (auto& c : t->checks()) constraint(c.name, "CHECK (" + c.sql + ")");
      for (auto& f : t->foreignKeys())
        constraint(f.name, "FOREIGN KEY (" + columnNames(*t, f.columns) + ") REFERENCES " + quoteIdent(f.referenced->name()) +
                               "(" + columnNames(*f.referenced, f.referencedColumns) + ")");
    }
    return lookup(args[0], std::move(arms), nullOf(SqlType::text()), e.pos);
  }
  // x::regclass, x::regtype ... (the parser makes them calls): the OID a name stands for, found
  // now; an integer is an OID already. There are no reg* types: the result is a BIGINT and
  // prints as a number, where PostgreSQL prints the name back.
  count(1, 1);
  if (args[0]->type.isInteger()) return castTo(std::move(args[0]), SqlType::int64(args[0]->type.nullable));
  ExprPtr c = foldConstants(std::move(args[0]));
  if (c->kind != ExprKind::Constant || !(c->type.isString() || c->type.isNull()))
    throw Error(sqlstate::FeatureNotSupported, "::" + n + " takes a string constant or an OID here", e.pos);
  if (c->value.isNull()) return nullOf(SqlType::int64());
  std::string name = c->value.asString();
  if (n == "regclass") {
    std::string schema;
    if (auto dot = name.find('.'); dot != std::string::npos) {
      schema = name.substr(0, dot);
      name = name.substr(dot + 1);
    }
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    else for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if ((schema.empty() || schema == "public") && catalog_.nameTaken(name) &&
        !(schema.empty() && makeSystemTable(catalog_, "pg_catalog", name)))
      return int64(catalog_.objectOid(name));
    throw Error(sqlstate::UndefinedTable, "relation \"" + c->value.asString() + "\" does not exist", e.pos);
  }
  if (n == "regtype") {
    for (int64_t t : {16, 20, 21, 23, 25, 700, 701, 1042, 1043, 1082, 1083, 1114, 1186, 1700})
      if (name == typeNameOf(t)) return int64(t);
    throw Error(sqlstate::UndefinedObject, "type \"" + name + "\" does not exist", e.pos);
  }
  if (n == "regnamespace") {
    if (name == "pg_catalog") return int64(kPgCatalogNamespaceOid);
    if (name == "public") return int64(kPublicNamespaceOid);
    if (name == "information_schema") return int64(kInformationSchemaNamespaceOid);
    throw Error(sqlstate::InvalidSchemaName, "schema \"" + name + "\" does not exist", e.pos);
  }
  if (n == "regrole") {
    if (name == kRoleName) return int64(kBootstrapRoleOid);
    throw Error(sqlstate::UndefinedObject, "role \"" + name + "\" does not exist", e.pos);
  }
  throw Error(sqlstate::FeatureNotSupported, "::regproc is not supported: functions have no OIDs here", e.pos);
}

}  // namespace hyrax::sql
