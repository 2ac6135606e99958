// Stored procedures: CREATE FUNCTION / PROCEDURE, CALL, and the PL/pgSQL-like body language.
// The body arrives as a string (usually $$ ... $$) and is parsed here at CREATE, with positions
// that point into the whole statement, so a syntax error in a body is reported where it is.
#include "sql/parser/parser_internal.hpp"

namespace hyrax::sqlparse {

namespace {

// Where the text of a string token starts: after its opening quote or dollar tag.
SourcePos bodyOrigin(const Token& t) {
  SourcePos p = t.pos;
  size_t open = 1;
  if (!t.raw.empty() && t.raw[0] == '$') open = t.raw.find('$', 1) + 1;
  advance(p, std::string_view(t.raw).substr(0, open));
  return p;
}

}  // namespace

StatementPtr Parser::createFunction(SourcePos pos, bool orReplace) {
  auto f = std::make_unique<CreateFunctionStmt>(pos);
  f->orReplace = orReplace;
  f->procedure = accept("procedure");
  if (!f->procedure) expect("function");
  f->namePos = cur().pos;
  f->name = identifier();
  expect("(");
  if (!is(")")) {
    do {
      PlVariable v;
      accept("in");
      if (is("out") || is("inout"))
        throw Error(sqlstate::FeatureNotSupported, "OUT and INOUT parameters are not supported", cur().pos);
      v.pos = cur().pos;
      v.name = identifier();
      v.type = typeName().withNullable(true);
      f->params.push_back(std::move(v));
    } while (accept(","));
  }
  expect(")");
  size_t bodyToken = SIZE_MAX;
  bool saidReturns = false;
  while (true) {
    if (!f->procedure && accept("returns")) {
      saidReturns = true;
      if (!accept("void")) f->returns = typeName().withNullable(true);
    } else if (accept("language")) {
      SourcePos lp = cur().pos;
      std::string lang = cur().kind == TokenKind::String ? stringLiteral() : identifier();
      if (lang != "plpgsql")
        throw Error(sqlstate::FeatureNotSupported, "language \"" + lang + "\" is not supported (use plpgsql)", lp);
    } else if (accept("as")) {
      if (cur().kind != TokenKind::String) syntaxError();
      bodyToken = i_++;
    } else {
      break;
    }
  }
  if (bodyToken == SIZE_MAX) throw Error(sqlstate::SyntaxError, "no function body specified", cur().pos);
  if (!f->procedure && !saidReturns)
    throw Error(sqlstate::InvalidFunctionDefinition, "function result type must be specified", f->namePos);
  const Token& body = t_[bodyToken];
  Parser p(tokenize(body.text, bodyOrigin(body)));
  p.plBody_ = true;
  p.procedureBody(*f);
  for (size_t k = 0; k < i_; ++k) f->text += (k ? " " : "") + t_[k].raw;
  return f;
}

void Parser::plDeclarations(std::vector<PlVariable>& out) {
  while (!is("begin")) {
    if (cur().kind == TokenKind::End) syntaxError();
    PlVariable v;
    v.pos = cur().pos;
    v.name = identifier();
    if (accept("record")) {  // a FOR loop's row: the loop declares its fields
      expect(";");
      continue;
    }
    accept("constant");
    v.type = typeName().withNullable(true);
    if (accept("not")) {
      expect("null");
      throw Error(sqlstate::FeatureNotSupported, "NOT NULL variables are not supported", v.pos);
    }
    if (accept(":=") || accept("=") || accept("default")) v.init = expr();
    expect(";");
    out.push_back(std::move(v));
  }
}

void Parser::procedureBody(CreateFunctionStmt& f) {
  SourcePos pos = cur().pos;
  if (accept("declare")) plDeclarations(f.declarations);
  PlStmtPtr outer = plBlockStatement(pos);
  // The body's own EXCEPTION section makes it a block inside the body.
  if (outer->handlers.empty()) f.body = std::move(outer->blocks[0]);
  else f.body.push_back(std::move(outer));
  accept(";");
  if (cur().kind != TokenKind::End) syntaxError();
}

namespace {

// The SQLSTATE (or class) of a condition name of PL/pgSQL's EXCEPTION WHEN.
const char* conditionCode(const std::string& name) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"others", "others"},
      {"raise_exception", "P0001"},
      {"no_data_found", "P0002"},
      {"too_many_rows", "P0003"},
      {"data_exception", "22"},
      {"division_by_zero", "22012"},
      {"numeric_value_out_of_range", "22003"},
      {"invalid_text_representation", "22P02"},
      {"string_data_right_truncation", "22001"},
      {"null_value_not_allowed", "22004"},
      {"invalid_datetime_format", "22007"},
      {"datetime_field_overflow", "22008"},
      {"integrity_constraint_violation", "23"},
      {"not_null_violation", "23502"},
      {"foreign_key_violation", "23503"},
      {"unique_violation", "23505"},
      {"check_violation", "23514"},
      {"cardinality_violation", "21000"},
      {"feature_not_supported", "0A000"},
  };
  for (auto& [n, code] : kNames)
    if (name == n) return code;
  return nullptr;
}

}  // namespace

// After DECLARE's variables (if any): BEGIN statements [EXCEPTION WHEN c [OR c] THEN statements
// ...] END.
PlStmtPtr Parser::plBlockStatement(SourcePos pos) {
  auto b = std::make_unique<PlStmt>(PlStmt::Kind::Block, pos);
  expect("begin");
  b->blocks.push_back(plBlock());
  if (accept("exception")) {
    do {
      expect("when");
      PlHandler h;
      h.pos = cur().pos;
      do {
        SourcePos cp = cur().pos;
        if (accept("sqlstate")) {
          std::string code = stringLiteral();
          if (code.size() != 5) throw Error(sqlstate::InvalidParameter, "invalid SQLSTATE code \"" + code + "\"", cp);
          h.conditions.push_back(code);
        } else {
          std::string name = identifier();
          const char* code = conditionCode(name);
          if (!code) throw Error(sqlstate::UndefinedObject, "unrecognized exception condition \"" + name + "\"", cp);
          h.conditions.push_back(code);
        }
      } while (accept("or"));
      expect("then");
      b->handlers.push_back(std::move(h));
      b->blocks.push_back(plBlock());
    } while (is("when"));
  }
  expect("end");
  return b;
}

// Statements up to (not including) END, ELSIF, ELSEIF, ELSE, EXCEPTION or an exception's WHEN.
PlBlock Parser::plBlock() {
  DepthGuard g(*this);
  PlBlock block;
  while (!is("end") && !is("elsif") && !is("elseif") && !is("else") && !is("exception") && !is("when") &&
         cur().kind != TokenKind::End)
    block.push_back(plStatement());
  return block;
}

PlStmtPtr Parser::plStatement() {
  SourcePos pos = cur().pos;
  using K = PlStmt::Kind;
  auto make = [&](K k) { return std::make_unique<PlStmt>(k, pos); };
  auto loopBody = [&](PlStmt& s) {
    expect("loop");
    s.blocks.push_back(plBlock());
    expect("end");
    expect("loop");
  };
  PlStmtPtr s;
  if (accept("if")) {
    s = make(K::If);
    s->conditions.push_back(expr());
    expect("then");
    s->blocks.push_back(plBlock());
    while (accept("elsif") || accept("elseif")) {
      s->conditions.push_back(expr());
      expect("then");
      s->blocks.push_back(plBlock());
    }
    if (accept("else")) s->blocks.push_back(plBlock());
    expect("end");
    expect("if");
  } else if (accept("while")) {
    s = make(K::While);
    s->conditions.push_back(expr());
    loopBody(*s);
  } else if (is("loop")) {
    s = make(K::Loop);
    loopBody(*s);
  } else if (accept("for")) {
    s = make(K::ForRange);
    s->targetPos = cur().pos;
    s->target = identifier();
    expect("in");
    if (atQuery()) {
      s->kind = K::ForQuery;
      s->query = select();
    } else {
      s->reverse = accept("reverse");
      s->expr = expr();
      expect("..");
      s->expr2 = expr();
    }
    loopBody(*s);
  } else if (accept("exit") || accept("continue")) {
    s = make(t_[i_ - 1].is("exit") ? K::Exit : K::Continue);
    if (accept("when")) s->expr = expr();
  } else if (accept("return")) {
    s = make(K::Return);
    if (!is(";")) s->expr = expr();
  } else if (accept("raise")) {
    s = make(K::Raise);
    if (is(";")) {
      s->level = "reraise";  // RAISE; in a handler: the error being handled, again
    } else {
      s->level = "exception";
      for (const char* l : {"exception", "warning", "notice", "info", "log", "debug"})
        if (accept(l)) s->level = l;
      s->format = stringLiteral();
      while (accept(",")) s->args.push_back(expr());
      if (accept("using")) {
        if (!accept("errcode")) syntaxError();
        if (!accept("=") && !accept(":=")) syntaxError();
        SourcePos cp = cur().pos;
        s->errcode = stringLiteral();
        if (s->errcode.size() != 5) throw Error(sqlstate::InvalidParameter, "invalid SQLSTATE code \"" + s->errcode + "\"", cp);
      }
      size_t percents = 0;
      for (size_t k = 0; k < s->format.size(); ++k) {
        if (s->format[k] != '%') continue;
        if (k + 1 < s->format.size() && s->format[k + 1] == '%') ++k;
        else ++percents;
      }
      if (percents != s->args.size())
        throw Error(sqlstate::SyntaxError,
                    std::string(percents > s->args.size() ? "too few" : "too many") + " parameters specified for RAISE", pos);
    }
  } else if (accept("null")) {
    s = make(K::Null);
  } else if (accept("perform")) {
    // PERFORM query: a SELECT whose rows are dropped (written without the word SELECT).
    s = make(K::Sql);
    s->perform = true;
    auto sel = std::make_unique<SelectStmt>(pos);
    Token select = t_[i_];
    select.kind = TokenKind::Identifier;
    select.text = select.raw = "select";
    t_.insert(t_.begin() + i_, select);
    sel->select = this->select();
    s->sql = std::move(sel);
  } else if (atQuery() || is("insert") || is("update") || is("delete") || is("call")) {
    s = make(K::Sql);
    s->sql = parseStatementBody();
  } else if (atIdentifier() && (ahead(1).is(":=") || ahead(1).is("="))) {
    s = make(K::Assign);
    s->targetPos = cur().pos;
    s->target = identifier();
    ++i_;
    s->expr = expr();
  } else if (is("begin") || is("declare")) {
    std::vector<PlVariable> declarations;
    if (accept("declare")) plDeclarations(declarations);
    s = plBlockStatement(pos);
    s->declarations = std::move(declarations);
  } else {
    syntaxError();
  }
  expect(";");
  return s;
}

StatementPtr Parser::call(SourcePos pos) {
  auto c = std::make_unique<CallStmt>(pos);
  c->namePos = cur().pos;
  c->name = identifier();
  expect("(");
  if (!is(")")) {
    do c->args.push_back(expr());
    while (accept(","));
  }
  expect(")");
  return c;
}

}  // namespace hyrax::sqlparse
