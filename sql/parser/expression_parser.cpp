// Expressions by precedence climbing, lowest precedence first (OR, AND, NOT, comparisons and
// predicates, ||, + -, * / %, unary, primaries).
#include "sql/parser/parser_internal.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace hyrax::sqlparse {

ExprPtr Parser::expr() {
  DepthGuard g(*this);
  return orExpr();
}

ExprPtr Parser::binary(const char* op, ExprPtr a, ExprPtr b, SourcePos pos) {
  auto e = std::make_unique<Expr>(ExprKind::Binary, pos);
  e->op = op;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

ExprPtr Parser::orExpr() {
  ExprPtr e = andExpr();
  while (is("or")) {
    SourcePos p = cur().pos;
    ++i_;
    e = binary("OR", std::move(e), andExpr(), p);
  }
  return e;
}

ExprPtr Parser::andExpr() {
  ExprPtr e = notExpr();
  while (is("and")) {
    SourcePos p = cur().pos;
    ++i_;
    e = binary("AND", std::move(e), notExpr(), p);
  }
  return e;
}

ExprPtr Parser::notExpr() {
  DepthGuard g(*this);
  if (is("not")) {
    auto e = std::make_unique<Expr>(ExprKind::Unary, cur().pos);
    ++i_;
    ExprPtr operand = notExpr();
    // NOT binds more loosely than IS and comparisons: NOT EXISTS (...) IS NULL is
    // NOT ((EXISTS (...)) IS NULL). A bare NOT EXISTS stays one node (what unnesting reads).
    if (operand->kind == ExprKind::Exists && !operand->negated) {
      operand->negated = true;
      operand->pos = e->pos;
      return operand;
    }
    e->op = "NOT";
    e->args.push_back(std::move(operand));
    return e;
  }
  return comparison();
}

ExprPtr Parser::comparison() {
  ExprPtr e = concatExpr();
  ChainGuard chain(*this);
  while (true) {
    chain.step();
    SourcePos p = cur().pos;
    static const char* ops[] = {"=", "<>", "!=", "<", "<=", ">", ">=", "~", "!~", "~*", "!~*"};
    // OPERATOR(pg_catalog.op): PostgreSQL's spelling of an operator looked up in a named schema
    // (psql writes its regex matches so); hyrax's operators are all pg_catalog's.
    const char* op = nullptr;
    if (is("operator") && ahead(1).is("(")) {
      i_ += 2;
      if (is("pg_catalog") && ahead(1).is(".")) i_ += 2;
      for (const char* o : ops)
        if (is(o)) op = o;
      if (!op) syntaxError();  // an operator hyrax does not have, or none
      ++i_;
      expect(")");
    } else {
      for (const char* o : ops)
        if (is(o)) op = o;
      if (op) ++i_;
    }
    if (op) {
      std::string sym = std::string(op) == "!=" ? "<>" : op;
      if ((is("any") || is("some") || is("all")) && ahead(1).is("(") && !atQuery(2)) {  // op ANY (array)
        auto q = std::make_unique<Expr>(ExprKind::Quantified, p);
        q->op = sym;
        q->unit = is("all") ? "all" : "any";
        i_ += 2;
        q->args.push_back(std::move(e));
        q->args.push_back(expr());
        expect(")");
        e = std::move(q);
      } else if ((is("any") || is("some") || is("all")) && ahead(1).is("(") && atQuery(2)) {
        auto q = std::make_unique<Expr>(ExprKind::Quantified, p);
        q->op = sym;
        q->unit = is("all") ? "all" : "any";
        i_ += 2;
        q->args.push_back(std::move(e));
        q->subquery = select();
        expect(")");
        e = std::move(q);
      } else {
        e = binary(sym.c_str(), std::move(e), concatExpr(), p);
      }
      continue;
    }
    if (accept("is")) {
      const bool negated = accept("not");
      if (accept("distinct")) {  // a IS [NOT] DISTINCT FROM b (SQL:1999): NULL equal to NULL, never unknown
        expect("from");
        e = binary(negated ? "is not distinct from" : "is distinct from", std::move(e), concatExpr(), p);
        continue;
      }
      auto n = std::make_unique<Expr>(ExprKind::IsNull, p);
      n->negated = negated;
      expect("null");
      n->args.push_back(std::move(e));
      e = std::move(n);
      continue;
    }
    bool negated = false;
    if (is("not") && (ahead(1).is("between") || ahead(1).is("in") || ahead(1).is("like") || ahead(1).is("ilike") ||
                      (ahead(1).is("similar") && ahead(2).is("to")))) {
      negated = true;
      ++i_;
    }
    if (!negated && accept("overlaps")) {  // (s1, e1) OVERLAPS (s2, e2): SQL-92's, bound as a CASE
      e = binary("overlaps", std::move(e), concatExpr(), p);
    } else if (accept("between")) {
      auto b = std::make_unique<Expr>(ExprKind::Between, p);
      b->negated = negated;
      b->args.push_back(std::move(e));
      b->args.push_back(concatExpr());
      expect("and");
      b->args.push_back(concatExpr());
      e = std::move(b);
    } else if (accept("in")) {
      expect("(");
      std::unique_ptr<Expr> in;
      if (atQuery()) {
        in = std::make_unique<Expr>(ExprKind::InSelect, p);
        in->args.push_back(std::move(e));
        in->subquery = select();
      } else {
        in = std::make_unique<Expr>(ExprKind::InList, p);
        in->args.push_back(std::move(e));
        do in->args.push_back(expr());
        while (accept(","));
      }
      in->negated = negated;
      expect(")");
      e = std::move(in);
    } else if (is("like") || is("ilike") || (is("similar") && ahead(1).is("to"))) {
      auto l = std::make_unique<Expr>(ExprKind::Like, p);
      if (accept("ilike")) l->name = "ilike";  // PostgreSQL's: LIKE of both sides in lower case
      else if (accept("similar")) expect("to"), l->name = "similar";  // SQL's regular expressions
      else accept("like");
      l->negated = negated;
      l->args.push_back(std::move(e));
      l->args.push_back(concatExpr());
      if (accept("escape")) l->args.push_back(concatExpr());
      e = std::move(l);
    } else {
      return e;
    }
  }
}

ExprPtr Parser::concatExpr() {  // || and & (PostgreSQL's other operators: one level, left to right)
  ExprPtr e = additive();
  while (is("||") || is("&")) {
    SourcePos p = cur().pos;
    const char* op = is("&") ? "&" : "||";
    ++i_;
    e = binary(op, std::move(e), additive(), p);
  }
  return e;
}

ExprPtr Parser::additive() {
  ExprPtr e = multiplicative();
  while (is("+") || is("-")) {
    SourcePos p = cur().pos;
    std::string op = t_[i_++].text;
    e = binary(op == "+" ? "+" : "-", std::move(e), multiplicative(), p);
  }
  return e;
}

ExprPtr Parser::multiplicative() {
  ExprPtr e = unary();
  while (is("*") || is("/") || is("%")) {
    SourcePos p = cur().pos;
    std::string op = t_[i_++].text;
    e = binary(op == "*" ? "*" : op == "/" ? "/" : "%", std::move(e), unary(), p);
  }
  return e;
}

ExprPtr Parser::unary() {
  DepthGuard g(*this);
  if (is("-") || is("+")) {
    auto e = std::make_unique<Expr>(ExprKind::Unary, cur().pos);
    e->op = t_[i_++].text;
    e->args.push_back(unary());
    return e;
  }
  ExprPtr e = primary();
  ChainGuard chain(*this);
  while (is("::") || is("collate") || is("[") ||
         (is(".") && (ahead(1).kind == TokenKind::Identifier || ahead(1).kind == TokenKind::QuotedIdentifier))) {
    chain.step();
    SourcePos p = cur().pos;
    if (accept(".")) {  // (composite).field
      auto f = std::make_unique<Expr>(ExprKind::FieldSelect, p);
      f->args.push_back(std::move(e));
      f->name = identifier();
      e = std::move(f);
      continue;
    }
    if (accept("[")) {  // a[i]; slices a[i:j] are not supported
      auto s = std::make_unique<Expr>(ExprKind::Subscript, p);
      s->args.push_back(std::move(e));
      s->args.push_back(expr());
      if (is(":")) throw Error(sqlstate::FeatureNotSupported, "array slices a[i:j] are not supported", cur().pos);
      expect("]");
      e = std::move(s);
      continue;
    }
    if (accept("collate")) {
      // x COLLATE name: hyrax compares strings by their bytes, which is collation "C"; the names
      // that mean that here ("default" is the database's, which is C) are accepted and change
      // nothing, others are 42704.
      if (is("pg_catalog") && ahead(1).is(".")) i_ += 2;
      if (cur().kind != TokenKind::Identifier && cur().kind != TokenKind::QuotedIdentifier) syntaxError();
      std::string collation = t_[i_].text;
      if (collation != "default" && collation != "C" && collation != "c" && collation != "POSIX" && collation != "posix")
        throw Error(sqlstate::UndefinedObject, "collation \"" + collation + "\" does not exist", cur().pos);
      ++i_;
      continue;
    }
    ++i_;
    if (is("pg_catalog") && ahead(1).is(".")) i_ += 2;
    if (is("regclass") || is("regtype") || is("regnamespace") || is("regrole") || is("regproc")) {
      // x::regclass and its kin: no types of their own here, but the lookup of a name's OID
      // (sql/semantic/catalog_functions.cpp), bound as the call regclass(x).
      auto f = std::make_unique<Expr>(ExprKind::Function, p);
      f->name = t_[i_++].text;
      f->args.push_back(std::move(e));
      e = std::move(f);
      continue;
    }
    auto c = std::make_unique<Expr>(ExprKind::Cast, p);
    c->type = typeName(true);
    c->args.push_back(std::move(e));
    e = std::move(c);
  }
  return e;
}

ExprPtr Parser::primary() {
  const Token& t = cur();
  SourcePos pos = t.pos;
  auto literal = [&](ExprKind k) {
    auto e = std::make_unique<Expr>(k, pos);
    e->text = t_[i_++].text;
    return e;
  };
  switch (t.kind) {
    case TokenKind::Integer: return literal(ExprKind::Integer);
    case TokenKind::Decimal: return literal(ExprKind::Decimal);
    case TokenKind::Float: return literal(ExprKind::Float);
    case TokenKind::String: return literal(ExprKind::String);
    case TokenKind::Parameter: return literal(ExprKind::Parameter);
    case TokenKind::End: syntaxError();
    default: break;
  }
  // NOT where an operand is expected (a = NOT b, as in PostgreSQL): it takes what follows up to
  // its own precedence level, a = NOT b = c being a = (NOT (b = c)).
  if (is("not")) return notExpr();
  if (accept("(")) {
    if (atQuery()) {
      auto e = std::make_unique<Expr>(ExprKind::Subquery, pos);
      e->subquery = select();
      expect(")");
      return e;
    }
    ExprPtr e = expr();
    if (is(",")) {  // (a, b, ...): a row value
      auto row = std::make_unique<Expr>(ExprKind::Row, pos);
      row->args.push_back(std::move(e));
      while (accept(",")) row->args.push_back(expr());
      e = std::move(row);
    }
    expect(")");
    return e;
  }
  if (t.kind == TokenKind::Identifier) {
    if (accept("null")) return std::make_unique<Expr>(ExprKind::Null, pos);
    if (is("true") || is("false")) {
      auto e = std::make_unique<Expr>(ExprKind::Boolean, pos);
      e->boolValue = t_[i_++].text == "true";
      return e;
    }
    if ((is("date") || is("timestamp") || is("time")) && ahead(1).kind == TokenKind::String) {
      auto e = std::make_unique<Expr>(ExprKind::TypedLiteral, pos);
      const std::string& name = t_[i_++].text;
      e->type = name == "date" ? SqlType::date(false) : name == "time" ? SqlType::time(false) : SqlType::timestamp(false);
      e->text = t_[i_++].text;
      return e;
    }
    if (is("interval") && ahead(1).kind == TokenKind::String) {
      ++i_;
      auto e = std::make_unique<Expr>(ExprKind::TypedLiteral, pos);
      e->type = SqlType::interval(false);
      e->text = t_[i_++].text;
      if (cur().kind == TokenKind::Identifier &&
          (is("day") || is("month") || is("year") || is("hour") || is("minute") || is("second"))) {
        e->unit = t_[i_++].text;
        if (is("(") && ahead(1).kind == TokenKind::Integer && ahead(2).is(")")) i_ += 3;  // DAY (3): a precision
      }
      return e;
    }
    // SQL's niladic functions: no parentheses.
    if ((is("current_date") || is("current_timestamp") || is("localtimestamp") || is("current_time") || is("localtime") ||
         is("current_user") || is("session_user") || is("current_role") || is("user") || is("current_catalog") || is("current_schema")) &&
        !ahead(1).is("(")) {
      auto e = std::make_unique<Expr>(ExprKind::Function, pos);
      e->name = t_[i_++].text;
      return e;
    }
    if (accept("case")) return caseExpr(pos);
    if (is("array") && (ahead(1).is("[") || ahead(1).is("("))) {  // ARRAY[a, b, ...], ARRAY(subquery)
      ++i_;
      auto e = std::make_unique<Expr>(ExprKind::Array, pos);
      if (accept("(")) {
        if (!atQuery()) syntaxError();
        e->subquery = select();
        expect(")");
        return e;
      }
      expect("[");
      if (is("[")) throw Error(sqlstate::FeatureNotSupported, "multidimensional arrays are not supported", cur().pos);
      if (!is("]")) {
        do e->args.push_back(expr());
        while (accept(","));
      }
      expect("]");
      return e;
    }
    if (is("cast") && ahead(1).is("(")) {
      i_ += 2;
      auto e = std::make_unique<Expr>(ExprKind::Cast, pos);
      e->args.push_back(expr());
      expect("as");
      e->type = typeName(true);
      expect(")");
      return e;
    }
    if (accept("exists")) {
      expect("(");
      auto e = std::make_unique<Expr>(ExprKind::Exists, pos);
      e->subquery = select();
      expect(")");
      return e;
    }
  }
  // LEFT and RIGHT are reserved (joins), but followed by "(" they are the string functions, as in
  // PostgreSQL: the call below.
  const bool leftOrRight = (is("left") || is("right")) && cur().kind == TokenKind::Identifier && ahead(1).is("(");
  if (!leftOrRight && !atIdentifier()) syntaxError();
  std::string name = leftOrRight ? t_[i_++].text : identifier();
  std::string schema;
  if (is(".") && (ahead(1).kind == TokenKind::Identifier || ahead(1).kind == TokenKind::QuotedIdentifier) &&
      ahead(2).is("(")) {  // schema.function(...)
    schema = std::move(name);
    ++i_;
    name = identifier();
  }
  if ((name == "extract" || name == "substring") && is("(")) {
    // The standard's keyword forms: EXTRACT(field FROM x), SUBSTRING(x FROM a [FOR b]).
    size_t save = i_;
    expect("(");
    auto f = std::make_unique<Expr>(ExprKind::Function, pos);
    f->name = name;
    if (name == "extract" && atIdentifier() && ahead(1).is("from")) {
      f->unit = identifier();
      expect("from");
      f->args.push_back(expr());
      expect(")");
      return f;
    }
    if (name == "substring") {
      f->args.push_back(expr());
      if (accept("from")) {
        f->args.push_back(expr());
        if (accept("for")) f->args.push_back(expr());
        expect(")");
        return f;
      }
    }
    i_ = save;  // an ordinary call: substring(x, a, b)
  }
  if (name == "overlay" && is("(")) {  // OVERLAY(s PLACING t FROM start [FOR count])
    size_t save = i_;
    expect("(");
    auto f = std::make_unique<Expr>(ExprKind::Function, pos);
    f->name = name;
    f->args.push_back(expr());
    if (accept("placing")) {
      f->args.push_back(expr());
      expect("from");
      f->args.push_back(expr());
      if (accept("for")) f->args.push_back(expr());
      expect(")");
      return f;
    }
    i_ = save;  // an ordinary call: overlay(s, t, start [, count])
  }
  if (name == "position" && is("(")) {  // POSITION(needle IN s)
    size_t save = i_;
    expect("(");
    auto f = std::make_unique<Expr>(ExprKind::Function, pos);
    f->name = name;
    f->args.push_back(concatExpr());
    if (accept("in")) {
      f->args.push_back(expr());
      expect(")");
      return f;
    }
    i_ = save;
  }
  if (name == "trim" && is("(")) {  // TRIM([LEADING|TRAILING|BOTH] [characters] [FROM] s)
    expect("(");
    auto f = std::make_unique<Expr>(ExprKind::Function, pos);
    f->name = name;
    f->unit = accept("leading") ? "leading" : accept("trailing") ? "trailing" : (accept("both"), "both");
    if (accept("from")) {
      f->args.push_back(expr());
    } else {
      ExprPtr first = expr();
      if (accept("from")) {
        f->args.push_back(expr());
        f->args.push_back(std::move(first));  // args: s, characters
      } else {
        f->args.push_back(std::move(first));
        if (accept(",")) f->args.push_back(expr());  // trim(s, characters)
      }
    }
    expect(")");
    return f;
  }
  if (accept("(")) {
    auto f = std::make_unique<Expr>(ExprKind::Function, pos);
    f->name = name;
    f->table = schema;
    if (accept("*")) {
      f->star = true;
    } else if (!is(")")) {
      if (accept("distinct")) f->distinct = true;
      else accept("all");
      do f->args.push_back(expr());
      while (accept(","));
      if (accept("order")) {  // agg(args ORDER BY ...)
        expect("by");
        orderItems(*f, f->argumentOrder);
      }
    }
    expect(")");
    if (is("filter") && ahead(1).is("(") && ahead(2).is("where")) {  // agg(...) FILTER (WHERE condition)
      i_ += 3;
      f->args.push_back(expr());
      f->filter = true;
      expect(")");
    }
    if (accept("over")) {  // a window: OVER (PARTITION BY ... ORDER BY ... frame), OVER w, OVER (w ...)
      f->window = true;
      f->windowArgs = f->args.size();
      const SourcePos at = cur().pos;
      if (!is("(")) {
        std::string name = identifier();
        windowRefs_.push_back({f.get(), std::move(name), false, false, at});
        return f;
      }
      expect("(");
      const bool named = atIdentifier() && !is("partition") && !is("order") && !is("rows") && !is("range") && !is("groups");
      std::string name = named ? identifier() : "";
      if (named && is("partition"))
        throw Error("42P20", "cannot override PARTITION BY clause of window \"" + name + "\"", cur().pos);
      const bool frame = windowBody(*f);
      if (named) windowRefs_.push_back({f.get(), std::move(name), true, frame, at});
      expect(")");
    }
    return f;
  }
  auto c = std::make_unique<Expr>(ExprKind::Column, pos);
  if (accept(".")) {
    c->table = name;
    c->name = identifier();
  } else {
    c->name = name;
  }
  return c;
}

bool Parser::windowBody(Expr& f) {
  if (accept("partition")) {
    expect("by");
    do f.args.push_back(expr()), ++f.windowPartitions;
    while (accept(","));
  }
  if (accept("order")) {
    expect("by");
    orderItems(f, f.windowOrder);
  }
  if (!is("rows") && !is("range") && !is("groups")) return false;
  windowFrame(f);
  return true;
}

// WINDOW name AS (...), ...: each definition's tokens, checked by parsing them once.
void Parser::windowClause(std::vector<WindowDefinition>& defs) {
  do {
    const SourcePos at = cur().pos;
    std::string name = identifier();
    for (auto& d : defs)
      if (d.name == name) throw Error("42P20", "window \"" + name + "\" is already defined", at);
    expect("as");
    expect("(");
    if (atIdentifier() && !is("partition") && !is("order") && !is("rows") && !is("range") && !is("groups"))
      throw Error(sqlstate::FeatureNotSupported, "a window defined from another window is not supported", cur().pos);
    const size_t begin = i_;
    Expr scratch(ExprKind::Function, at);
    windowBody(scratch);
    defs.push_back({std::move(name), begin, i_});
    expect(")");
  } while (accept(","));
}

// Each call that names a window gets the window's PARTITION BY, ORDER BY and frame, parsed again
// from its definition's tokens (PostgreSQL's rules: a call may add ORDER BY and a frame to a
// window without them, never PARTITION BY; a window with a frame is only used as it is, OVER w).
void Parser::resolveWindowNames(const std::vector<WindowDefinition>& defs) {
  for (WindowReference& ref : windowRefs_) {
    const WindowDefinition* def = nullptr;
    for (auto& d : defs)
      if (d.name == ref.name) def = &d;
    if (!def) throw Error("42704", "window \"" + ref.name + "\" does not exist", ref.pos);
    Expr& call = *ref.call;
    Expr body(ExprKind::Function, ref.pos);
    const size_t resume = i_;
    i_ = def->begin;
    const bool frame = windowBody(body);
    i_ = resume;
    if (!body.windowOrder.empty() && !call.windowOrder.empty())
      throw Error("42P20", "cannot override ORDER BY clause of window \"" + ref.name + "\"", ref.pos);
    if (frame && ref.copied)
      throw Error("42P20", "cannot copy window \"" + ref.name + "\" because it has a frame clause", ref.pos);
    // The call's args: its own, then the window's partitions, then its ORDER BY (the window's or the call's).
    auto at = call.args.begin() + static_cast<std::ptrdiff_t>(call.windowArgs);
    std::vector<ExprPtr> partitions;
    for (size_t i = 0; i < body.windowPartitions; ++i) partitions.push_back(std::move(body.args[i]));
    call.args.insert(at, std::make_move_iterator(partitions.begin()), std::make_move_iterator(partitions.end()));
    call.windowPartitions = body.windowPartitions;
    if (!body.windowOrder.empty()) {
      for (size_t i = body.windowPartitions; i < body.args.size(); ++i) call.args.push_back(std::move(body.args[i]));
      call.windowOrder = body.windowOrder;
    }
    if (frame) {
      call.windowFrame = body.windowFrame;
      call.windowStart = body.windowStart;
      call.windowEnd = body.windowEnd;
    }
  }
}

// A window's frame: ROWS or RANGE, BETWEEN start AND end or start alone (to CURRENT ROW), each
// bound UNBOUNDED PRECEDING/FOLLOWING, CURRENT ROW or n PRECEDING/FOLLOWING with n a constant
// (Expr::windowFrame, windowStart, windowEnd). The binder checks what bounds may meet.
void Parser::windowFrame(Expr& f) {
  const SourcePos at = cur().pos;
  if (accept("groups")) throw Error(sqlstate::FeatureNotSupported, "GROUPS frames are not supported", at);
  f.windowFrame = accept("rows") ? 1 : (expect("range"), 2);
  auto bound = [&]() -> std::pair<int, int64_t> {
    if (accept("unbounded")) {
      if (accept("preceding")) return {0, 0};
      expect("following");
      return {4, 0};
    }
    if (accept("current")) {
      expect("row");
      return {2, 0};
    }
    const SourcePos offsetAt = cur().pos;
    if (cur().kind != TokenKind::Integer)
      throw Error(sqlstate::FeatureNotSupported, "a window frame's offset must be an integer constant here", offsetAt);
    const std::string digits = cur().text;
    ++i_;
    // Any BIGINT, as PostgreSQL takes; beyond it 22003. An offset past 2^62 rows reaches as far as
    // any partition goes, so it is kept as 2^62: the generated code adds it to a row's place.
    errno = 0;
    const long long value = std::strtoll(digits.c_str(), nullptr, 10);  // (digits: no sign)
    if (errno == ERANGE) throw Error(sqlstate::NumericOutOfRange, "window frame offset out of range", offsetAt);
    const int64_t n = std::min<int64_t>(value, int64_t{1} << 62);
    if (accept("preceding")) return {1, n};
    expect("following");
    return {3, n};
  };
  if (accept("between")) {
    f.windowStart = bound();
    expect("and");
    f.windowEnd = bound();
  } else {
    f.windowStart = bound();
    f.windowEnd = {2, 0};
  }
  if (accept("exclude")) throw Error(sqlstate::FeatureNotSupported, "EXCLUDE in a window frame is not supported", at);
}

// ORDER BY's items inside a call: each expression goes to f's args, its direction to `order`.
void Parser::orderItems(Expr& f, std::vector<std::pair<bool, int>>& order) {
  do {
    f.args.push_back(expr());
    bool desc = accept("desc");
    if (!desc) accept("asc");
    int nullsFirst = -1;
    if (accept("nulls")) nullsFirst = accept("first") ? 1 : (expect("last"), 0);
    order.push_back({desc, nullsFirst});
  } while (accept(","));
}

ExprPtr Parser::caseExpr(SourcePos pos) {
  auto e = std::make_unique<Expr>(ExprKind::Case, pos);
  if (!is("when")) {
    e->hasOperand = true;
    e->args.push_back(expr());
  }
  if (!is("when")) syntaxError();
  while (accept("when")) {
    e->args.push_back(expr());
    expect("then");
    e->args.push_back(expr());
  }
  if (accept("else")) {
    e->hasElse = true;
    e->args.push_back(expr());
  }
  expect("end");
  return e;
}

}  // namespace hyrax::sqlparse
