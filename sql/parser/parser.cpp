// Statements (CREATE, DROP, INSERT, COPY, EXPLAIN, ANALYZE) and type names; the entry points.
#include <cctype>
#include <set>

#include "engine/types/utf8.hpp"
#include "sql/parser/parser_internal.hpp"

namespace hyrax::sqlparse {

namespace {

const std::set<std::string> kReserved = {
    "select", "from", "where", "group", "having", "order", "limit", "offset", "join", "inner", "left", "right",
    "full", "cross", "on", "and", "or", "not", "as", "union", "intersect", "except", "by", "asc", "desc",
    "nulls", "into", "values", "is", "in", "like", "ilike", "between", "case", "when", "then", "else", "end", "null",
    "true", "false", "distinct", "all", "fetch", "outer", "using", "natural", "create", "table", "drop",
    "insert", "explain", "with", "escape", "to", "default", "constraint", "primary", "unique", "check",
    "foreign", "references", "returning", "window"};

}  // namespace

bool isReserved(const std::string& word) { return kReserved.count(word) > 0; }

void Parser::identifierList(std::vector<std::string>& names, std::vector<SourcePos>& positions) {
  expect("(");
  do {
    positions.push_back(cur().pos);
    names.push_back(identifier());
  } while (accept(","));
  expect(")");
}

StatementPtr Parser::parseStatementBody() {
  DepthGuard g(*this);
  SourcePos pos = cur().pos;
  if (atQuery() || is("(")) {
    auto s = std::make_unique<SelectStmt>(pos);
    s->select = select();
    return s;
  }
  if (accept("create")) {
    bool orReplace = false;
    if (accept("or")) {
      expect("replace");
      orReplace = true;
      if (!is("function") && !is("procedure")) syntaxError();
    }
    if (is("function") || is("procedure")) return createFunction(pos, orReplace);
    if (accept("sequence")) return createSequence(pos);
    if (is("role") || is("user")) return role(pos, RoleStmt::Op::Create);
    return createTable(pos);
  }
  if (accept("alter")) {
    if (is("role") || is("user")) return role(pos, RoleStmt::Op::Alter);
    if (accept("table")) return alterTable(pos);
    syntaxError();
  }
  if (is("drop") && (ahead(1).is("role") || ahead(1).is("user"))) {
    ++i_;
    return role(pos, RoleStmt::Op::Drop);
  }
  if (accept("call")) return call(pos);
  if (accept("drop")) return dropTable(pos);
  if (accept("insert")) return insert(pos);
  if (accept("update")) return update(pos);
  if (accept("prepare")) {
    auto p = std::make_unique<PrepareStmt>(pos);
    p->name = identifier();
    if (accept("(")) {
      do p->types.push_back(typeName());
      while (accept(","));
      expect(")");
    }
    expect("as");
    p->statement = parseStatementBody();
    auto k = p->statement->kind;
    if (k != StmtKind::Select && k != StmtKind::Insert && k != StmtKind::Update && k != StmtKind::Delete)
      throw Error(sqlstate::SyntaxError, "PREPARE takes SELECT, INSERT, UPDATE or DELETE", p->statement->pos);
    return p;
  }
  if (accept("execute")) {
    auto e = std::make_unique<ExecuteStmt>(pos);
    e->namePos = cur().pos;
    e->name = identifier();
    if (accept("(")) {
      do e->args.push_back(expr());
      while (accept(","));
      expect(")");
    }
    return e;
  }
  if (accept("deallocate")) {
    auto d = std::make_unique<DeallocateStmt>(pos);
    accept("prepare");
    d->namePos = cur().pos;
    if (!accept("all")) d->name = identifier();
    return d;
  }
  if (accept("delete")) return deleteFrom(pos);
  if (accept("begin") || (is("start") && ahead(1).is("transaction"))) {
    if (accept("start")) expect("transaction");
    else if (!accept("work")) accept("transaction");
    auto t = std::make_unique<TransactionStmt>(pos, TransactionStmt::Op::Begin);
    transactionModes(*t);
    return t;
  }
  if (accept("commit") || accept("end")) {
    if (!accept("work")) accept("transaction");
    return std::make_unique<TransactionStmt>(pos, TransactionStmt::Op::Commit);
  }
  if (is("rollback") || is("abort")) {
    const bool rollback = accept("rollback") || (expect("abort"), false);
    if (!accept("work")) accept("transaction");
    if (rollback && accept("to")) {  // ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name
      accept("savepoint");
      return savepointStmt(pos, TransactionStmt::Op::RollbackTo);
    }
    return std::make_unique<TransactionStmt>(pos, TransactionStmt::Op::Rollback);
  }
  if (accept("savepoint")) return savepointStmt(pos, TransactionStmt::Op::Savepoint);
  if (accept("release")) {  // RELEASE [SAVEPOINT] name
    accept("savepoint");
    return savepointStmt(pos, TransactionStmt::Op::Release);
  }
  if (accept("explain")) return explain(pos);
  if (is("set") || is("reset") || is("show")) return setting(pos);
  if (accept("copy")) return copy(pos);
  if (accept("analyze")) {
    auto a = std::make_unique<AnalyzeStmt>(pos);
    if (atIdentifier()) {
      a->tablePos = cur().pos;
      a->table = identifier();
    }
    return a;
  }
  if (accept("reindex")) {
    auto r = std::make_unique<ReindexStmt>(pos);
    if (accept("index")) r->target = ReindexStmt::Target::Index;
    else if (accept("table")) r->target = ReindexStmt::Target::Table;
    r->namePos = cur().pos;
    r->name = identifier();
    return r;
  }
  syntaxError();
}

// After SAVEPOINT, RELEASE [SAVEPOINT] or ROLLBACK ... TO [SAVEPOINT]: the savepoint's name.
StatementPtr Parser::savepointStmt(SourcePos pos, TransactionStmt::Op op) {
  auto t = std::make_unique<TransactionStmt>(pos, op);
  t->savepointPos = cur().pos;
  t->savepoint = identifier();
  return t;
}

// BEGIN's modes, as PostgreSQL takes them: ISOLATION LEVEL ..., READ WRITE | READ ONLY, [NOT]
// DEFERRABLE, separated by commas or not. Every level is serializable here (transactions run one
// at a time), so the level is accepted and has no effect.
void Parser::transactionModes(TransactionStmt& t) {
  for (bool first = true;; first = false) {
    if (!first && !accept(",") && !is("isolation") && !is("read") && !is("not") && !is("deferrable")) return;
    if (first && !is("isolation") && !is("read") && !is("not") && !is("deferrable")) return;
    if (accept("isolation")) {
      expect("level");
      if (accept("serializable")) continue;
      if (accept("repeatable")) {
        expect("read");
        continue;
      }
      expect("read");
      if (!accept("committed")) expect("uncommitted");
    } else if (accept("read")) {
      if (accept("only")) t.readOnly = true;
      else if (accept("write")) t.readOnly = false;
      else syntaxError();
    } else if (accept("not")) {
      expect("deferrable");
    } else {
      expect("deferrable");
    }
  }
}

StatementPtr Parser::setting(SourcePos pos) {
  using Op = SettingStmt::Op;
  Op op = accept("set") ? Op::Set : accept("reset") ? Op::Reset : (expect("show"), Op::Show);
  auto s = std::make_unique<SettingStmt>(pos, op);
  if (op == Op::Set && !(s->local = accept("local"))) accept("session");
  s->namePos = cur().pos;
  if (op != Op::Set && accept("all")) return s;
  // PostgreSQL's spellings of two settings: SET TIME ZONE x, SHOW TIME ZONE (timezone) and SHOW
  // TRANSACTION ISOLATION LEVEL (transaction_isolation).
  const bool timeZone = is("time") && ahead(1).is("zone");
  if (timeZone) {
    i_ += 2;
    s->name = "timezone";
  } else if (op == Op::Show && is("transaction") && ahead(1).is("isolation") && ahead(2).is("level")) {
    i_ += 3;
    s->name = "transaction_isolation";
  } else {
    s->name = identifier();
  }
  if (op != Op::Set) return s;
  if (!timeZone && !accept("to")) expect("=");
  s->valuePos = cur().pos;
  if (accept("default") || (timeZone && accept("local"))) {
    s->toDefault = true;
    return s;
  }
  // A value, or a list of them (SET search_path = "$user", public; SET datestyle = ISO, MDY): the
  // items joined by ", ", a quoted identifier kept in its quotes, as PostgreSQL shows them.
  do {
    bool negative = accept("-");
    const Token& v = cur();
    if (v.kind == TokenKind::String || v.kind == TokenKind::Integer || v.kind == TokenKind::Decimal ||
        v.kind == TokenKind::Float || (!negative && (v.kind == TokenKind::Identifier || v.kind == TokenKind::QuotedIdentifier))) {
      if (!s->value.empty()) s->value += ", ";
      s->value += v.kind == TokenKind::QuotedIdentifier ? "\"" + v.text + "\"" : (negative ? "-" : "") + v.text;
      ++i_;
    } else {
      syntaxError();
    }
  } while (accept(","));
  return s;
}

std::string Parser::stringLiteral() {
  if (cur().kind != TokenKind::String) syntaxError();
  return t_[i_++].text;
}

StatementPtr Parser::copy(SourcePos pos) {
  auto c = std::make_unique<CopyStmt>(pos);
  if (accept("(")) {
    c->query = select();
    expect(")");
  } else {
    c->tablePos = cur().pos;
    c->table = identifier();
    if (accept("(")) {
      do {
        c->columnPos.push_back(cur().pos);
        c->columns.push_back(identifier());
      } while (accept(","));
      expect(")");
    }
  }
  if (accept("to")) c->from = false;
  else expect("from");
  if (c->query && c->from) syntaxError();
  c->filePos = cur().pos;
  if (accept(c->from ? "stdin" : "stdout")) c->stdio = true;
  else c->file = stringLiteral();
  accept("with");
  auto option = [&](bool legacy) {
    CopyOption o;
    o.pos = cur().pos;
    if (cur().kind != TokenKind::Identifier) syntaxError();
    o.name = t_[i_++].text;
    if (legacy && (o.name == "csv" || o.name == "binary")) {  // PostgreSQL's old spelling: WITH CSV HEADER
      o.value = o.name;
      o.name = "format";
    } else if (o.name == "header" && (is(",") || is(")") || is(";") || cur().kind == TokenKind::End || legacy)) {
      o.value = "true";
    } else {
      if (legacy) accept("as");
      if (cur().kind == TokenKind::String) o.value = stringLiteral();
      else if (cur().kind == TokenKind::End) syntaxError();
      else o.value = t_[i_++].text;
    }
    c->options.push_back(o);
  };
  if (accept("(")) {
    do option(false);
    while (accept(","));
    expect(")");
  } else {
    while (cur().kind != TokenKind::End && !is(";")) option(true);
  }
  return c;
}

StatementPtr Parser::explain(SourcePos pos) {
  auto e = std::make_unique<ExplainStmt>(pos);
  if (is("(") && (ahead(1).is("analyze") || ahead(1).is("llvm") || ahead(1).is("asm"))) {
    expect("(");
    do {
      if (accept("analyze")) e->analyze = true;
      else if (accept("llvm")) e->llvm = true;
      else if (accept("asm")) e->asm_ = true;
      else syntaxError();
    } while (accept(","));
    expect(")");
  } else if (accept("analyze")) {
    e->analyze = true;
  }
  e->statement = parseStatementBody();
  if (e->statement->kind == StmtKind::Explain) throw Error(sqlstate::SyntaxError, "EXPLAIN cannot explain EXPLAIN", pos);
  return e;
}

SqlType Parser::typeName(bool array) {
  SourcePos pos = cur().pos;
  // T[] (T[n]: the size is not checked, as in PostgreSQL): arrays of integers and text; and
  // pg_catalog's vector types. One dimension only.
  auto asArray = [&](SqlType t, uint16_t oid) {
    if (!array) throw Error(sqlstate::FeatureNotSupported, "arrays are supported only in expressions, not as the type of a column or a routine's value", pos);
    if (!t.isInteger() && !t.isString())
      throw Error(sqlstate::FeatureNotSupported, "arrays of " + t.name() + " are not supported", pos);
    if (is("[") && ahead(1).is("[")) throw Error(sqlstate::FeatureNotSupported, "multidimensional arrays are not supported", pos);
    return SqlType::array(t.isInteger() ? t.id : TypeId::Text, oid);
  };
  if (is("pg_catalog") && ahead(1).is(".")) i_ += 2;
  if (accept("int2vector")) return asArray(SqlType::int16(), 22);
  if (accept("oidvector")) return asArray(SqlType::int64(), 30);
  const bool oid = is("oid"), name = is("name"), quotedChar = cur().kind == TokenKind::QuotedIdentifier && cur().text == "char";
  if (quotedChar) ++i_;
  SqlType t = quotedChar ? SqlType::text() : scalarTypeName(pos);
  if (!is("[")) return t;
  ++i_;
  if (cur().kind == TokenKind::Integer) ++i_;
  expect("]");
  uint16_t arrayOid = oid ? 1028 : name ? 1003 : quotedChar ? 1002 : t.id == TypeId::Varchar ? 1015 : 0;
  SqlType r = asArray(t, arrayOid);
  if (is("[")) throw Error(sqlstate::FeatureNotSupported, "multidimensional arrays are not supported", pos);
  return r;
}

SqlType Parser::scalarTypeName(SourcePos pos) {
  auto param = [&](uint32_t& out) {
    expect("(");
    out = unsignedNumber();
    expect(")");
  };
  if (is("pg_catalog") && ahead(1).is(".")) i_ += 2;  // pg_catalog.text: the built-in types are pg_catalog's
  if (accept("boolean") || accept("bool")) return SqlType::boolean();
  if (accept("oid")) return SqlType::int64();  // OIDs are BIGINT here (unsigned 32-bit in PostgreSQL)
  if (accept("name")) return SqlType::text();  // PostgreSQL's 63-byte identifier type
  if (accept("smallint") || accept("int2")) return SqlType::int16();
  if (accept("integer") || accept("int") || accept("int4")) return SqlType::int32();
  if (accept("bigint") || accept("int8")) return SqlType::int64();
  if (accept("real") || accept("float4")) return SqlType::float32();
  if (accept("float8")) return SqlType::float64();
  if (accept("float")) {  // FLOAT(p): p binary digits, REAL up to 24, DOUBLE PRECISION up to 53
    if (!is("(")) return SqlType::float64();
    uint32_t p = 0;
    param(p);
    if (p < 1) throw Error(sqlstate::InvalidParameter, "precision for type float must be at least 1 bit", pos);
    if (p > 53) throw Error(sqlstate::InvalidParameter, "precision for type float must be less than 54 bits", pos);
    return p <= 24 ? SqlType::float32() : SqlType::float64();
  }
  if (accept("double")) {
    expect("precision");
    return SqlType::float64();
  }
  if (accept("text")) return SqlType::text();
  if (accept("date")) return SqlType::date();
  if (is("timestamp") || is("time")) {
    // TIMESTAMP [(6)] [WITHOUT TIME ZONE], TIME likewise: microseconds, no time zone.
    bool time = t_[i_++].text == "time";
    if (accept("(")) {
      uint32_t p = unsignedNumber();
      expect(")");
      if (p != 6)
        throw Error(sqlstate::FeatureNotSupported, std::string(time ? "TIME" : "TIMESTAMP") + "(" + std::to_string(p) +
                                                       ") is not supported yet: fractions are kept to microseconds (6)", pos);
    }
    if (accept("without")) {
      expect("time");
      expect("zone");
    } else if (is("with") && ahead(1).is("time")) {
      throw Error(sqlstate::FeatureNotSupported, std::string(time ? "TIME" : "TIMESTAMP") + " WITH TIME ZONE is not supported yet", pos);
    }
    return time ? SqlType::time() : SqlType::timestamp();
  }
  if (accept("interval")) return SqlType::interval();
  if (accept("decimal") || accept("numeric")) {
    uint32_t p = 18, s = 0;
    if (accept("(")) {
      p = unsignedNumber();
      if (accept(",")) s = unsignedNumber();
      expect(")");
    }
    if (p < 1 || p > SqlType::kMaxDecimalPrecision)
      throw Error(sqlstate::FeatureNotSupported, "DECIMAL precision " + std::to_string(p) + " must be between 1 and 18", pos);
    if (s > p) throw Error(sqlstate::InvalidParameter, "DECIMAL scale " + std::to_string(s) + " must be between 0 and precision " + std::to_string(p), pos);
    return SqlType::decimal(static_cast<uint8_t>(p), static_cast<uint8_t>(s));
  }
  bool isChar = accept("char") || accept("character");
  if (isChar && !accept("varying")) {
    uint32_t n = 1;
    if (is("(")) param(n);
    if (n < 1) throw Error(sqlstate::InvalidParameter, "length for type char must be at least 1", pos);
    return SqlType::charN(n);
  }
  if (isChar || accept("varchar")) {
    uint32_t n = 0;
    if (is("(")) {
      param(n);
      if (n < 1) throw Error(sqlstate::InvalidParameter, "length for type varchar must be at least 1", pos);
    }
    return SqlType::varchar(n);
  }
  if (cur().kind == TokenKind::Identifier && !isReserved(cur().text))
    throw Error(sqlstate::UndefinedObject, "type \"" + cur().text + "\" does not exist", pos);
  syntaxError();
}

StatementPtr Parser::createTable(SourcePos pos) {
  if (accept("view")) {
    auto v = std::make_unique<CreateViewStmt>(pos);
    v->namePos = cur().pos;
    v->name = identifier();
    if (accept("(")) {
      do v->columns.push_back(identifier());
      while (accept(","));
      expect(")");
    }
    expect("as");
    size_t from = i_;
    v->query = select();
    for (size_t k = from; k < i_; ++k) v->text += (k > from ? " " : "") + t_[k].raw;
    return v;
  }
  bool unique = accept("unique");
  if (unique || is("index")) return createIndex(pos, unique);
  expect("table");
  auto c = std::make_unique<CreateTableStmt>(pos);
  if (accept("if")) {
    expect("not");
    expect("exists");
    c->ifNotExists = true;
  }
  c->name = identifier();
  // CREATE TABLE name [(a, b)] AS query: a list of bare names followed by AS, or AS at once.
  const size_t save = i_;
  if (is("(")) {
    std::vector<SourcePos> positions;
    std::vector<std::string> names;
    bool bare = true;
    expect("(");
    do {
      if (!atIdentifier()) {
        bare = false;
        break;
      }
      positions.push_back(cur().pos);
      names.push_back(identifier());
    } while (accept(","));
    if (bare && accept(")") && is("as")) {
      c->asNames = std::move(names);
      c->asNamePos = std::move(positions);
    } else {
      i_ = save;
    }
  }
  if (accept("as")) {
    c->asQuery = select();
    if (accept("with")) {
      c->withData = !accept("no");
      expect("data");
    }
    return c;
  }
  expect("(");
  do {
    if (is("constraint") || is("primary") || is("unique") || is("check") || is("foreign")) {
      c->constraints.push_back(constraint(nullptr));
      continue;
    }
    c->columns.push_back(columnDefinition(c->constraints));
  } while (accept(","));
  expect(")");
  return c;
}

ColumnDefinition Parser::columnDefinition(std::vector<TableConstraint>& constraints) {
  ColumnDefinition col;
  col.pos = cur().pos;
  col.name = identifier();
  if (accept("serial") || accept("serial4")) col.type = SqlType::int32(false), col.identity = true;
  else if (accept("bigserial") || accept("serial8")) col.type = SqlType::int64(false), col.identity = true;
  else if (accept("smallserial") || accept("serial2")) col.type = SqlType::int16(false), col.identity = true;
  else col.type = typeName();
  while (true) {
    if (accept("not")) {
      expect("null");
      col.type.nullable = false;
    } else if (accept("null")) {
      col.type.nullable = true;
    } else if (accept("default")) {
      col.defaultValue = expr();
    } else if (accept("generated")) {  // GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY
      col.identityAlways = accept("always");
      if (!col.identityAlways) expect("by"), expect("default");
      expect("as");
      expect("identity");
      col.identity = true;
      col.type.nullable = false;
    } else if (is("constraint") || is("primary") || is("unique") || is("check") || is("references")) {
      constraints.push_back(constraint(&col));
      if (constraints.back().kind == TableConstraint::Kind::PrimaryKey) col.type.nullable = false;
    } else {
      break;
    }
  }
  return col;
}

std::vector<std::string> Parser::columnList(std::vector<SourcePos>* positions) {
  std::vector<std::string> names;
  expect("(");
  do {
    if (positions) positions->push_back(cur().pos);
    names.push_back(identifier());
  } while (accept(","));
  expect(")");
  return names;
}

TableConstraint Parser::constraint(const ColumnDefinition* column) {
  TableConstraint k;
  k.pos = cur().pos;
  if (accept("constraint")) k.name = identifier();
  SourcePos kindPos = cur().pos;
  if (column) {
    k.columns = {column->name};
    k.columnPos = {column->pos};
  }
  if (accept("primary")) {
    expect("key");
    k.kind = TableConstraint::Kind::PrimaryKey;
    if (!column) k.columns = columnList(&k.columnPos);
  } else if (accept("unique")) {
    k.kind = TableConstraint::Kind::Unique;
    if (!column) k.columns = columnList(&k.columnPos);
  } else if (accept("check")) {
    k.kind = TableConstraint::Kind::Check;
    expect("(");
    size_t from = i_;
    k.check = expr();
    for (size_t t = from; t < i_; ++t) k.checkText += (t > from ? " " : "") + t_[t].raw;
    expect(")");
  } else if (column ? is("references") : accept("foreign")) {
    if (!column) {
      expect("key");
      k.columns = columnList(&k.columnPos);
    }
    k.kind = TableConstraint::Kind::ForeignKey;
    expect("references");
    k.refPos = cur().pos;
    k.refTable = identifier();
    if (is("(")) k.refColumns = columnList(nullptr);
    while (accept("on")) {  // ON DELETE / ON UPDATE action
      SourcePos at = cur().pos;
      bool onDelete = accept("delete");
      if (!onDelete) expect("update");
      std::string action;
      if (accept("cascade")) action = "cascade";
      else if (accept("set")) action = accept("null") ? "set null" : (expect("default"), "set default");
      else if (!accept("restrict")) expect("no"), expect("action");
      if (!onDelete && !action.empty()) {
        std::string upper = action;
        for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        throw Error(sqlstate::FeatureNotSupported, "ON UPDATE " + upper + " is not supported (only NO ACTION and RESTRICT)", at);
      }
      if (onDelete) k.onDelete = action;
    }
  } else {
    syntaxError();
  }
  if (k.pos.line == kindPos.line && k.pos.column == kindPos.column) k.pos = kindPos;
  return k;
}

StatementPtr Parser::createIndex(SourcePos pos, bool unique) {
  expect("index");
  auto c = std::make_unique<CreateIndexStmt>(pos);
  c->unique = unique;
  if (accept("if")) {
    expect("not");
    expect("exists");
    c->ifNotExists = true;
  }
  if (!is("on")) {
    c->namePos = cur().pos;
    c->name = identifier();
  }
  expect("on");
  c->tablePos = cur().pos;
  c->table = identifier();
  if (accept("using")) {
    c->methodPos = cur().pos;
    c->method = identifier();
  }
  // Each column may say ASC or DESC and NULLS FIRST or LAST. The index stores keys ascending
  // whatever they say: it is an access path, and the planner reads it backwards or sorts where an
  // order asks for it, so the answers are the same.
  expect("(");
  do {
    c->columnPos.push_back(cur().pos);
    c->columns.push_back(identifier());
    if (!accept("asc")) accept("desc");
    if (accept("nulls") && !accept("first")) expect("last");
  } while (accept(","));
  expect(")");
  return c;
}

StatementPtr Parser::update(SourcePos pos) {
  auto u = std::make_unique<UpdateStmt>(pos);
  u->tablePos = cur().pos;
  u->table = identifier();
  if (accept("as")) u->alias = identifier();
  else if (atIdentifier() && !is("set")) u->alias = identifier();
  expect("set");
  do {
    UpdateStmt::Assignment a;
    a.pos = cur().pos;
    a.column = identifier();
    if (accept(".")) {  // SET t.col = ... is not SQL; say so plainly
      throw Error(sqlstate::SyntaxError, "column names in SET cannot be qualified", a.pos);
    }
    expect("=");
    if (!accept("default")) a.value = expr();
    u->set.push_back(std::move(a));
  } while (accept(","));
  if (accept("where")) u->where = expr();
  returning(u->returning);
  return u;
}

StatementPtr Parser::deleteFrom(SourcePos pos) {
  expect("from");
  auto d = std::make_unique<DeleteStmt>(pos);
  d->tablePos = cur().pos;
  d->table = identifier();
  if (accept("as")) d->alias = identifier();
  else if (atIdentifier()) d->alias = identifier();
  if (accept("where")) d->where = expr();
  returning(d->returning);
  return d;
}

StatementPtr Parser::dropTable(SourcePos pos) {
  auto d = std::make_unique<DropTableStmt>(pos);
  if (accept("view")) d->object = ObjectKind::View;
  else if (accept("index")) d->object = ObjectKind::Index;
  else if (accept("function")) d->object = ObjectKind::Function;
  else if (accept("procedure")) d->object = ObjectKind::Procedure;
  else if (accept("sequence")) d->object = ObjectKind::Sequence;
  else expect("table");
  if (accept("if")) {
    expect("exists");
    d->ifExists = true;
  }
  do {
    d->namePos.push_back(cur().pos);
    d->names.push_back(identifier());
    if ((d->object == ObjectKind::Function || d->object == ObjectKind::Procedure) && accept("(")) {
      // Argument types pick an overload in PostgreSQL; names are unique here, so they are only read.
      if (!is(")")) {
        do {
          if (atIdentifier() && !ahead(1).is(")") && !ahead(1).is(",") && !ahead(1).is("(")) identifier();
          typeName();
        } while (accept(","));
      }
      expect(")");
    }
  } while (accept(","));
  d->cascade = accept("cascade");
  if (!d->cascade) accept("restrict");
  return d;
}

StatementPtr Parser::insert(SourcePos pos) {
  expect("into");
  auto ins = std::make_unique<InsertStmt>(pos);
  ins->tablePos = cur().pos;
  ins->table = identifier();
  if (is("(") && !atQuery(1)) identifierList(ins->columns, ins->columnPos);
  if (accept("default")) {
    expect("values");
    ins->defaultValues = true;
  } else if (accept("values")) {
    do {
      expect("(");
      std::vector<ExprPtr> row;
      do {
        SourcePos at = cur().pos;
        if (accept("default")) {
          row.push_back(std::make_unique<Expr>(ExprKind::Default, at));
        } else {
          row.push_back(expr());
        }
      } while (accept(","));
      expect(")");
      ins->values.push_back(std::move(row));
    } while (accept(","));
  } else if (atQuery() || is("(")) {
    ins->select = select();
  } else {
    syntaxError();
  }
  returning(ins->returning);
  return ins;
}

void Parser::returning(std::vector<SelectItem>& items) {
  if (accept("returning")) selectList(items);
}

}  // namespace hyrax::sqlparse

namespace hyrax {

using namespace ast;

StatementPtr parseStatement(std::string_view sql, SourcePos origin) {
  // Text that is not UTF-8 is refused whole, before anything reads it (PostgreSQL does the same
  // on receipt); the position is the offending byte's.
  if (size_t bad = invalidUtf8At(sql); bad != std::string_view::npos) {
    SourcePos at = origin;
    for (size_t i = 0; i < bad; ++i) {
      if (sql[i] == '\n') {
        ++at.line;
        at.column = 1;
      } else {
        ++at.column;
      }
    }
    throw Error(sqlstate::CharacterNotInRepertoire, invalidUtf8Message(sql, bad), at);
  }
  return sqlparse::Parser(sqlparse::tokenize(sql, origin)).statement();
}

std::string quotedIdentifier(const std::string& name) {
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace hyrax
