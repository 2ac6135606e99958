// The functions psql and drivers call on pg_catalog: version(), current_database(), current_setting(),
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
#include "sql/parser/parser.hpp"
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

std::string quoteIdent(const std::string& s) {
  bool plain = !s.empty() && (std::islower(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char c : s) plain = plain && (std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_');
  return plain ? s : quotedIdentifier(s);
}

std::string columnNames(const Table& t, const std::vector<uint32_t>& cols) {
  std::string s;
  for (size_t k = 0; k < cols.size(); ++k) s += (k ? ", " : "") + quoteIdent(t.columns()[cols[k]].name);
  return s;
}

}  // namespace

ExprPtr SelectBinder::bindCatalogFunction(const ast::Expr& e, Clause clause) {
  static const char* const kNames[] = {
      "version", "current_database", "current_catalog", "current_schema", "current_user", "session_user", "user",
      "current_role", "pg_table_is_visible", "pg_type_is_visible", "format_type", "pg_get_userbyid", "pg_get_indexdef",
      "pg_get_constraintdef", "pg_get_expr", "obj_description", "col_description", "shobj_description",
      "pg_encoding_to_char", "has_table_privilege", "has_schema_privilege", "has_database_privilege", "regclass",
      "regtype", "regnamespace", "regrole", "regproc", "current_setting", "pg_function_is_visible",
      "pg_get_statisticsobjdef_columns", "pg_relation_is_publishable",
      "pg_get_function_result", "pg_get_function_arguments", "pg_get_function_identity_arguments"};
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
    if (!args[i]->type.isNull() && !args[i]->type.isString() && !args[i]->type.isInteger())
      throw Error(sqlstate::UndefinedFunction, "function " + e.name + "(" + args[i]->type.name() + ", ...) does not exist", e.pos);
    const bool nullable = args[i]->type.nullable || args[i]->type.isNull();  // read before the move
    args[i] = castTo(std::move(args[i]), SqlType::int64(nullable));
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
    // The session's role, read when the query runs (a cached plan, a stored routine and a
    // snapshot worker all run for the session that calls them): session_authorization.
    count(0, 0);
    auto x = std::make_unique<Expr>(ExprKind::Call, SqlType::text(false), e.pos);
    x->func = plan::ScalarFunc::CurrentSetting;
    x->args.push_back(text("session_authorization"));
    x->args.push_back(Expr::constant(Value::boolean(false)));
    return x;
  }
  if (n == "current_setting") {
    // Read when the query runs (a cached plan sees a later SET): engine/runtime/session_values.hpp.
    count(1, 2);
    if (args[0]->type.isNull()) args[0] = castTo(std::move(args[0]), SqlType::text());
    if (!args[0]->type.isString()) throw Error(sqlstate::UndefinedFunction, "current_setting takes a setting's name as text", e.pos);
    bool missingOk = false;
    if (args.size() == 2) {
      ExprPtr m = foldConstants(std::move(args[1]));
      if (m->kind != ExprKind::Constant || m->type.id != TypeId::Bool || m->value.isNull())
        throw Error(sqlstate::FeatureNotSupported, "current_setting takes missing_ok as a boolean constant", e.args[1]->pos);
      missingOk = m->value.asInt() != 0;
      args.pop_back();
    }
    auto x = std::make_unique<Expr>(ExprKind::Call, SqlType::text(missingOk || args[0]->type.nullable), e.pos);
    x->func = plan::ScalarFunc::CurrentSetting;
    x->args.push_back(castTo(std::move(args[0]), SqlType::text()));
    x->args.push_back(Expr::constant(Value::boolean(missingOk)));
    return x;
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
  if (n == "pg_get_statisticsobjdef_columns") {  // CREATE STATISTICS does not exist: no such objects
    count(1, 1);
    return nullOf(SqlType::text());
  }
  if (n == "pg_relation_is_publishable") {  // a publication would publish the tables; there are none to ask
    count(1, 1);
    return nullOf(SqlType::boolean());
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
      for (const PgType& t : pgTypes()) arms.emplace_back(Value::int64(t.oid), Expr::constant(Value::boolean(true)));
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
  if (n == "pg_function_is_visible" || n == "pg_get_function_result" || n == "pg_get_function_arguments" ||
      n == "pg_get_function_identity_arguments") {
    // Over the stored routines (pg_proc): all are public's, so all visible; the result type as
    // format_type spells it (void when none, NULL for a procedure); the arguments as "name type"
    // (procedures' with IN, as PostgreSQL prints them). NULL for an OID that names none.
    count(1, 1);
    oid(0);
    std::vector<std::pair<Value, ExprPtr>> arms;
    if (catalog_.routineNames && catalog_.findRoutine)
      for (const std::string& name : catalog_.routineNames()) {
        RoutineSignature sig;
        if (!catalog_.findRoutine(name, sig)) continue;
        ExprPtr r;
        if (n == "pg_function_is_visible") {
          r = Expr::constant(Value::boolean(true));
        } else if (n == "pg_get_function_result") {
          r = sig.procedure ? nullOf(SqlType::text()) : text(sig.result.isNull() ? "void" : pgType(sig.result.id).sqlName);
        } else {
          std::string list;
          for (size_t i = 0; i < sig.params.size(); ++i)
            list += (i ? ", " : "") + std::string(sig.procedure ? "IN " : "") + quoteIdent(sig.paramNames[i]) + " " +
                    pgType(sig.params[i].id).sqlName;
          r = text(list);
        }
        arms.emplace_back(Value::int64(catalog_.routineOid(name)), std::move(r));
      }
    return lookup(args[0], std::move(arms), nullOf(n == "pg_function_is_visible" ? SqlType::boolean() : SqlType::text()), e.pos);
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
    for (const PgType& t : pgTypes()) {
      ExprPtr r;
      if (t.oid == 1043 || t.oid == 1700) {
        r = withMod(t.sqlName, t.oid == 1700);
      } else if (t.oid == 1042) {  // character(n); bpchar for typmod -1, character for none (NULL)
        std::vector<ExprPtr> a;
        a.push_back(makeIsNull(mod->clone(), false, e.pos));
        a.push_back(text("character"));
        a.push_back(makeCompare(plan::CmpOp::Ge, mod->clone(), int64(4), e.pos));
        a.push_back(makeConcat(makeConcat(text("character("), makeArith(plan::ArithOp::Sub, mod->clone(), int64(4), e.pos), e.pos),
                               text(")"), e.pos));
        a.push_back(text("bpchar"));
        r = makeCase(std::move(a), true, e.pos);
      } else {
        r = text(t.sqlName);
      }
      arms.emplace_back(Value::int64(t.oid), std::move(r));
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
    ExprPtr columnExpr;  // a column number known only when the query runs (pgjdbc's getIndexInfo)
    if (index && args.size() >= 2) {
      ExprPtr c = foldConstants(std::move(args[1]));
      if (!c->type.isInteger() && !c->type.isNull())
        throw Error(sqlstate::DatatypeMismatch, "pg_get_indexdef takes its column number as an integer", e.args[1]->pos);
      if (c->kind == ExprKind::Constant && c->value.isNull()) return nullOf(SqlType::text());
      if (c->kind == ExprKind::Constant) column = c->value.asInt();
      else columnExpr = castTo(std::move(c), SqlType::int64());
    }
    std::vector<std::pair<Value, ExprPtr>> arms;
    for (const Table* t : catalog_.tables()) {
      const std::string table = "public." + quoteIdent(t->name());
      if (index) {
        for (auto& i : t->indexes()) {
          auto definition = [&](int64_t col) {
            if (col == 0)
              return std::string("CREATE ") + (i->unique() ? "UNIQUE " : "") + "INDEX " + quoteIdent(i->name()) + " ON " +
                     table + " USING " + (dynamic_cast<const ArtIndex*>(i.get()) ? "btree" : "hash") + " (" +
                     columnNames(*t, i->columns()) + ")";
            if (col > 0 && static_cast<size_t>(col) <= i->columns().size())
              return quoteIdent(t->columns()[i->columns()[col - 1]].name);
            return std::string();
          };
          ExprPtr def;
          if (columnExpr) {  // CASE column WHEN 0 THEN the index WHEN 1 THEN its first column ... ELSE '' END
            std::vector<std::pair<Value, ExprPtr>> columns;
            for (int64_t col = 0; col <= static_cast<int64_t>(i->columns().size()); ++col)
              columns.emplace_back(Value::int64(col), text(definition(col)));
            def = lookup(columnExpr, std::move(columns), text(""), e.pos);
          } else {
            def = text(definition(column));
          }
          arms.emplace_back(Value::int64(catalog_.objectOid(i->name())), std::move(def));
        }
        continue;
      }
      auto constraint = [&](const std::string& name, std::string def) {
        arms.emplace_back(Value::int64(catalog_.constraintOid(t->name(), name)), text(def));
      };
      for (auto& i : t->indexes())
        if (i->unique())
          constraint(i->name(), std::string(isPrimaryKeyIndex(*t, *i) ? "PRIMARY KEY" : "UNIQUE") + " (" + columnNames(*t, i->columns()) + ")");
      for (auto& c : t->checks()) constraint(c.name, "CHECK (" + c.sql + ")");
      for (auto& f : t->foreignKeys())
        constraint(f.name, "FOREIGN KEY (" + columnNames(*t, f.columns) + ") REFERENCES " + quoteIdent(f.referenced->name()) +
                               "(" + columnNames(*f.referenced, f.referencedColumns) + ")");
    }
    return lookup(args[0], std::move(arms), nullOf(SqlType::text()), e.pos);
  }
  // x::regclass, x::regtype ... (the parser makes them calls): the OID a name stands for.
  count(1, 1);
  return bindRegObject(e.name, std::move(args[0]), false, e.pos);
}

// The objects x::regclass, ::regtype, ::regnamespace and ::regrole name: each one's names (the
// first is the one it prints as) and OID, from the catalog now.
std::vector<std::pair<std::vector<std::string>, int64_t>> SelectBinder::regObjects(const std::string& kind) const {
  std::vector<std::pair<std::vector<std::string>, int64_t>> out;
  if (kind == "regclass") {
    auto add = [&](const std::string& name) {
      // A relation hidden by a system table of its name is found as public.name only.
      if (makeSystemTable(catalog_, "pg_catalog", name)) out.push_back({{"public." + name}, catalog_.objectOid(name)});
      else out.push_back({{name, "public." + name}, catalog_.objectOid(name)});
    };
    for (const Table* t : catalog_.tables()) {
      add(t->name());
      for (auto& i : t->indexes()) add(i->name());
    }
    for (const std::string& v : catalog_.views()) add(v);
    for (auto& sq : catalog_.sequences()) add(sq->name);
    // pg_catalog's tables by PostgreSQL's fixed OIDs: drivers compare classoid with
    // 'pg_class'::regclass (pgjdbc's getTables). pg_class itself does not list them.
    static const std::pair<const char*, int64_t> kSystem[] = {
        {"pg_am", 2601},         {"pg_attrdef", 2604}, {"pg_attribute", 1249}, {"pg_class", 1259},
        {"pg_collation", 3456},  {"pg_constraint", 2606}, {"pg_database", 1262}, {"pg_description", 2609},
        {"pg_index", 2610},      {"pg_inherits", 2611}, {"pg_namespace", 2615}, {"pg_proc", 1255},
        {"pg_type", 1247}};
    for (auto& [name, oid] : kSystem) out.push_back({{name, std::string("pg_catalog.") + name}, oid});
  } else if (kind == "regtype") {
    for (const PgType& t : pgTypes()) {
      std::vector<std::string> names{t.sqlName, t.typname};
      for (const char* a : t.aliases) names.push_back(a);
      const size_t n = names.size();
      for (size_t i = 0; i < n; ++i) names.push_back("pg_catalog." + names[i]);
      out.push_back({names, t.oid});
    }
  } else if (kind == "regnamespace") {
    out.push_back({{"pg_catalog"}, kPgCatalogNamespaceOid});
    out.push_back({{"public"}, kPublicNamespaceOid});
    out.push_back({{"information_schema"}, kInformationSchemaNamespaceOid});
  } else if (kind == "regrole") {
    out.push_back({{kRoleName}, kBootstrapRoleOid});
  } else {
    throw Error(sqlstate::FeatureNotSupported, "::" + kind + " is not supported: functions have no OIDs here");
  }
  return out;
}

// reg*(x), as an OID (BIGINT: there are no reg* types here) or, asText, as the name it prints as
// (x::regclass::text). An integer is an OID already: as text, the object's name, or the number
// when it names nothing (as PostgreSQL prints it). A name as a constant is looked up now (42P01 /
// 42704 / 3F000 when it names nothing); a name computed per row ($1::regtype from a driver) is a
// CASE over the names, which answers NULL where PostgreSQL raises that error.
ExprPtr SelectBinder::bindRegObject(const std::string& kind, ExprPtr x, bool asText, SourcePos pos) {
  auto objects = regObjects(kind);
  if (x->type.isInteger()) {
    const bool nullable = x->type.nullable;  // read before the move
    x = castTo(std::move(x), SqlType::int64(nullable));
    if (!asText) return x;
    std::vector<std::pair<Value, ExprPtr>> arms;
    for (auto& [names, oid] : objects) arms.emplace_back(Value::int64(oid), text(names[0]));
    ExprPtr number = castTo(x->clone(), SqlType::text());
    return lookup(x, std::move(arms), std::move(number), pos);
  }
  if (x->type.isNull() || x->kind == ExprKind::Parameter) x = castTo(std::move(x), SqlType::text());
  if (!x->type.isString()) throw Error(sqlstate::CannotCoerce, "cannot cast type " + x->type.name() + " to " + kind, pos);
  ExprPtr c = foldConstants(std::move(x));
  if (c->kind != ExprKind::Constant) {
    std::vector<std::pair<Value, ExprPtr>> arms;
    for (auto& [names, oid] : objects)
      for (auto& name : names) arms.emplace_back(Value::string(name), asText ? text(names[0]) : int64(oid));
    return lookup(c, std::move(arms), asText ? nullOf(SqlType::text()) : nullOf(SqlType::int64()), pos);
  }
  if (c->value.isNull()) return asText ? nullOf(SqlType::text()) : nullOf(SqlType::int64());
  // A name as PostgreSQL reads one: unquoted parts lower-cased, "quoted" ones kept.
  const std::string& written = c->value.asString();
  std::string name;
  bool quoted = false;
  for (char ch : written) {
    if (ch == '"') quoted = !quoted;
    else name += quoted ? ch : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  for (auto& [names, oid] : objects)
    for (auto& n : names)
      if (n == name) return asText ? text(names[0]) : int64(oid);
  if (kind == "regclass") throw Error(sqlstate::UndefinedTable, "relation \"" + written + "\" does not exist", pos);
  if (kind == "regnamespace") throw Error(sqlstate::InvalidSchemaName, "schema \"" + written + "\" does not exist", pos);
  if (kind == "regrole") throw Error(sqlstate::UndefinedObject, "role \"" + written + "\" does not exist", pos);
  throw Error(sqlstate::UndefinedObject, "type \"" + written + "\" does not exist", pos);
}

}  // namespace hyrax::sql
