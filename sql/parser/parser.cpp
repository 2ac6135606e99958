#include "sql/parser/parser.hpp"

#include <functional>
#include <set>

#include "sql/parser/lexer.hpp"

namespace hyrax {

using namespace ast;
using sqlparse::Token;
using sqlparse::TokenKind;

namespace {

// Words that cannot be a bare column alias or table alias (they continue the statement).
const std::set<std::string> kReserved = {
    "select", "from", "where", "group", "having", "order", "limit", "offset", "join", "inner", "left", "right",
    "full", "cross", "on", "and", "or", "not", "as", "union", "intersect", "except", "by", "asc", "desc",
    "nulls", "into", "values", "is", "in", "like", "between", "case", "when", "then", "else", "end", "null",
    "true", "false", "distinct", "all", "fetch", "outer", "using", "natural", "create", "table", "drop",
    "insert", "explain", "with", "escape", "to"};

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  StatementPtr statement() {
    StatementPtr s = parseStatementBody();
    accept(";");
    if (cur().kind != TokenKind::End) syntaxError();
    return s;
  }

 private:
  // ---- token helpers ----
  const Token& cur() const { return t_[i_]; }
  const Token& ahead(size_t k) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool is(const char* w) const { return cur().is(w); }
  bool accept(const char* w) {
    if (!is(w)) return false;
    ++i_;
    return true;
  }
  void expect(const char* w) {
    if (!accept(w)) syntaxError();
  }
  [[noreturn]] void syntaxError() const {
    if (cur().kind == TokenKind::End) throw Error(sqlstate::SyntaxError, "syntax error at end of input", cur().pos);
    const std::string& text = cur().raw;
    throw Error(sqlstate::SyntaxError, "syntax error at or near \"" + text + "\"", cur().pos);
  }
  std::string identifier() {
    if (cur().kind == TokenKind::QuotedIdentifier || (cur().kind == TokenKind::Identifier && !kReserved.count(cur().text)))
      return t_[i_++].text;
    syntaxError();
  }
  bool atIdentifier() const {
    return cur().kind == TokenKind::QuotedIdentifier || (cur().kind == TokenKind::Identifier && !kReserved.count(cur().text));
  }
  uint32_t unsignedNumber() {
    if (cur().kind != TokenKind::Integer) syntaxError();
    unsigned long v = std::stoul(cur().text.size() > 9 ? "4294967295" : cur().text);
    ++i_;
    return static_cast<uint32_t>(std::min<unsigned long>(v, UINT32_MAX));
  }

  // Bounds recursion: a hostile query gets 54001, not a stack overflow.
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxParseDepth)
        throw Error(sqlstate::TooComplex, "statement too complex: nesting exceeds " + std::to_string(kMaxParseDepth) + " levels",
                    p.cur().pos);
    }
    ~DepthGuard() { --p.depth_; }
  };
  // Loops that wrap their left operand again and again (a + b + c ..., a UNION b UNION c ...,
  // joins) build trees as deep as they are long without recursing here: each step counts against
  // the same bound, so the tree stays shallow enough for the recursive passes after parsing.
  struct ChainGuard {
    Parser& p;
    uint32_t n = 0;
    explicit ChainGuard(Parser& parser) : p(parser) {}
    void step() {
      if (++n + p.depth_ > kMaxParseDepth)
        throw Error(sqlstate::TooComplex, "statement too complex: nesting exceeds " + std::to_string(kMaxParseDepth) + " levels",
                    p.cur().pos);
    }
  };

  // ---- statements ----
  StatementPtr parseStatementBody() {
    DepthGuard g(*this);
    SourcePos pos = cur().pos;
    if (atQuery() || is("(")) {
      auto s = std::make_unique<SelectStmt>(pos);
      s->select = select();
      return s;
    }
    if (accept("create")) return createTable(pos);
    if (accept("drop")) return dropTable(pos);
    if (accept("insert")) return insert(pos);
    if (accept("explain")) return explain(pos);
    if (accept("copy")) return copy(pos);
    if (accept("analyze")) {
      auto a = std::make_unique<AnalyzeStmt>(pos);
      if (atIdentifier()) {
        a->tablePos = cur().pos;
        a->table = identifier();
      }
      return a;
    }
    syntaxError();
  }

  std::string stringLiteral() {
    if (cur().kind != TokenKind::String) syntaxError();
    return t_[i_++].text;
  }

  StatementPtr copy(SourcePos pos) {
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

  StatementPtr explain(SourcePos pos) {
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

  SqlType typeName() {
    SourcePos pos = cur().pos;
    auto param = [&](uint32_t& out) {
      expect("(");
      out = unsignedNumber();
      expect(")");
    };
    if (accept("boolean") || accept("bool")) return SqlType::boolean();
    if (accept("smallint") || accept("int2")) return SqlType::int16();
    if (accept("integer") || accept("int") || accept("int4")) return SqlType::int32();
    if (accept("bigint") || accept("int8")) return SqlType::int64();
    if (accept("real") || accept("float4")) return SqlType::float32();
    if (accept("float8") || accept("float")) return SqlType::float64();
    if (accept("double")) {
      expect("precision");
      return SqlType::float64();
    }
    if (accept("text")) return SqlType::text();
    if (accept("date")) return SqlType::date();
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
    if (cur().kind == TokenKind::Identifier && !kReserved.count(cur().text))
      throw Error(sqlstate::UndefinedObject, "type \"" + cur().text + "\" does not exist", pos);
    syntaxError();
  }

  StatementPtr createTable(SourcePos pos) {
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
    expect("table");
    auto c = std::make_unique<CreateTableStmt>(pos);
    if (accept("if")) {
      expect("not");
      expect("exists");
      c->ifNotExists = true;
    }
    c->name = identifier();
    expect("(");
    do {
      if (is("primary")) {
        c->primaryKeyPos = cur().pos;
        expect("primary");
        expect("key");
        expect("(");
        do c->primaryKey.push_back(identifier());
        while (accept(","));
        expect(")");
        continue;
      }
      ColumnDefinition col;
      col.pos = cur().pos;
      col.name = identifier();
      col.type = typeName();
      while (true) {
        if (accept("not")) {
          expect("null");
          col.type.nullable = false;
        } else if (accept("null")) {
          col.type.nullable = true;
        } else if (accept("primary")) {
          expect("key");
          col.primaryKey = true;
          col.type.nullable = false;
        } else {
          break;
        }
      }
      c->columns.push_back(std::move(col));
    } while (accept(","));
    expect(")");
    return c;
  }

  StatementPtr dropTable(SourcePos pos) {
    auto d = std::make_unique<DropTableStmt>(pos);
    if (!accept("view")) expect("table");
    else d->view = true;
    if (accept("if")) {
      expect("exists");
      d->ifExists = true;
    }
    do {
      d->namePos.push_back(cur().pos);
      d->names.push_back(identifier());
    } while (accept(","));
    return d;
  }

  StatementPtr insert(SourcePos pos) {
    expect("into");
    auto ins = std::make_unique<InsertStmt>(pos);
    ins->tablePos = cur().pos;
    ins->table = identifier();
    if (is("(") && !atQuery(1)) {
      expect("(");
      do {
        ins->columnPos.push_back(cur().pos);
        ins->columns.push_back(identifier());
      } while (accept(","));
      expect(")");
    }
    if (accept("values")) {
      do {
        expect("(");
        std::vector<ExprPtr> row;
        do row.push_back(expr());
        while (accept(","));
        expect(")");
        ins->values.push_back(std::move(row));
      } while (accept(","));
    } else if (atQuery() || is("(")) {
      ins->select = select();
    } else {
      syntaxError();
    }
    return ins;
  }

  // ---- SELECT ----
  // Does a query (SELECT or WITH ... SELECT) start `k` tokens ahead?
  bool atQuery(size_t k = 0) const { return ahead(k).is("select") || ahead(k).is("with"); }

  std::unique_ptr<Select> select() {
    DepthGuard g(*this);
    if (is("with")) {
      SourcePos withPos = cur().pos;
      ++i_;
      if (is("recursive")) throw Error(sqlstate::FeatureNotSupported, "WITH RECURSIVE is not supported yet", withPos);
      std::vector<CommonTableExpr> ctes;
      do {
        CommonTableExpr c;
        c.pos = cur().pos;
        c.name = identifier();
        if (accept("(")) {
          do c.columns.push_back(identifier());
          while (accept(","));
          expect(")");
        }
        expect("as");
        expect("(");
        c.query = select();
        expect(")");
        ctes.push_back(std::move(c));
      } while (accept(","));
      auto s = select();
      for (auto& c : s->with) ctes.push_back(std::move(c));
      s->with = std::move(ctes);
      return s;
    }
    auto s = setExpression();
    if (is("order") || is("limit") || is("offset") || is("fetch")) {
      if (s->parenthesized && (!s->orderBy.empty() || s->limit || s->offset)) {
        // (SELECT ... LIMIT n) ORDER BY ...: the outer clauses apply to the inner result.
        auto outer = std::make_unique<Select>();
        outer->pos = s->pos;
        SelectItem all;
        all.pos = s->pos;
        all.expr = std::make_unique<Expr>(ExprKind::Star, s->pos);
        outer->items.push_back(std::move(all));
        auto ref = std::make_unique<TableRef>(TableRef::Kind::Subquery, s->pos);
        ref->alias = "unnamed_subquery";
        ref->subquery = std::move(s);
        outer->from.push_back(std::move(ref));
        s = std::move(outer);
      }
      orderAndLimit(*s);
    }
    return s;
  }

  // UNION and EXCEPT (left to right) of INTERSECT terms, which bind tighter.
  std::unique_ptr<Select> setExpression() {
    auto l = intersectTerm();
    ChainGuard chain(*this);
    while (is("union") || is("except")) {
      chain.step();
      SetOp op = accept("union") ? SetOp::Union : (expect("except"), SetOp::Except);
      l = setOperation(op, std::move(l), [&] { return intersectTerm(); });
    }
    return l;
  }

  std::unique_ptr<Select> intersectTerm() {
    auto l = queryPrimary();
    ChainGuard chain(*this);
    while (accept("intersect")) {
      chain.step();
      l = setOperation(SetOp::Intersect, std::move(l), [&] { return queryPrimary(); });
    }
    return l;
  }

  std::unique_ptr<Select> setOperation(SetOp op, std::unique_ptr<Select> l, const std::function<std::unique_ptr<Select>()>& next) {
    DepthGuard g(*this);
    auto s = std::make_unique<Select>();
    s->pos = l->pos;
    s->setOp = op;
    s->setAll = accept("all");
    if (!s->setAll) accept("distinct");
    // ORDER BY / LIMIT written before UNION belong in parentheses.
    if (!l->parenthesized && (!l->orderBy.empty() || l->limit || l->offset)) syntaxError();
    s->left = std::move(l);
    s->right = next();
    // ORDER BY / LIMIT after the last operand belong to the whole operation.
    if (!s->right->parenthesized) {
      s->orderBy = std::move(s->right->orderBy);
      s->right->orderBy.clear();
      s->limit = std::move(s->right->limit);
      s->offset = std::move(s->right->offset);
    }
    return s;
  }

  std::unique_ptr<Select> queryPrimary() {
    DepthGuard g(*this);
    if (accept("(")) {
      auto s = select();
      expect(")");
      s->parenthesized = true;
      return s;
    }
    return selectCore();
  }

  // SELECT ... FROM ... WHERE ... GROUP BY ... HAVING ..., and ORDER BY / LIMIT when a set
  // operation does not follow (the caller moves them to it otherwise).
  std::unique_ptr<Select> selectCore() {
    auto s = std::make_unique<Select>();
    s->pos = cur().pos;
    expect("select");    if (accept("distinct")) s->distinct = true;
    else accept("all");
    do {
      SelectItem item;
      item.pos = cur().pos;
      if (is("*")) {
        item.expr = std::make_unique<Expr>(ExprKind::Star, cur().pos);
        ++i_;
      } else if (atIdentifier() && ahead(1).is(".") && ahead(2).is("*")) {
        item.expr = std::make_unique<Expr>(ExprKind::Star, cur().pos);
        item.expr->table = identifier();
        i_ += 2;
      } else {
        item.expr = expr();
        if (accept("as")) item.alias = identifier();
        else if (atIdentifier()) item.alias = identifier();
      }
      s->items.push_back(std::move(item));
    } while (accept(","));
    if (accept("from")) {
      ChainGuard chain(*this);  // the binder joins the entries left-deep
      do {
        chain.step();
        s->from.push_back(tableRef());
      } while (accept(","));
    }
    if (accept("where")) s->where = expr();
    if (accept("group")) {
      expect("by");
      do s->groupBy.push_back(expr());
      while (accept(","));
    }
    if (accept("having")) s->having = expr();
    if (!is("union") && !is("except") && !is("intersect")) orderAndLimit(*s);
    return s;
  }

  void orderAndLimit(Select& sel) {
    Select* s = &sel;
    if (accept("order")) {
      expect("by");
      do {
        OrderItem o;
        o.expr = expr();
        if (accept("desc")) o.descending = true;
        else accept("asc");
        if (accept("nulls")) {
          if (accept("first")) o.nullsFirst = 1;
          else if (accept("last")) o.nullsFirst = 0;
          else syntaxError();
        }
        s->orderBy.push_back(std::move(o));
      } while (accept(","));
    }
    for (int k = 0; k < 2; ++k) {
      if (!s->limit && accept("limit")) {
        if (!accept("all")) s->limit = expr();
      } else if (!s->offset && accept("offset")) {
        s->offset = expr();
        if (!accept("rows")) accept("row");
      } else if (!s->limit && accept("fetch")) {
        if (!accept("first")) expect("next");
        s->limit = is("row") || is("rows") ? literalOne() : expr();
        if (!accept("rows")) expect("row");
        expect("only");
      }
    }
  }

  ExprPtr literalOne() {
    auto e = std::make_unique<Expr>(ExprKind::Integer, cur().pos);
    e->text = "1";
    return e;
  }

  TableRefPtr tableRef() {
    TableRefPtr left = tablePrimary();
    ChainGuard chain(*this);
    while (true) {
      chain.step();
      SourcePos pos = cur().pos;
      JoinType jt;
      if (accept("cross")) {
        expect("join");
        jt = JoinType::Cross;
      } else if (accept("join")) {
        jt = JoinType::Inner;
      } else if (accept("inner")) {
        expect("join");
        jt = JoinType::Inner;
      } else if (is("left") || is("right") || is("full")) {
        jt = is("left") ? JoinType::Left : is("right") ? JoinType::Right : JoinType::Full;
        ++i_;
        accept("outer");
        expect("join");
      } else {
        return left;
      }
      auto j = std::make_unique<TableRef>(TableRef::Kind::Join, pos);
      j->joinType = jt;
      j->left = std::move(left);
      j->right = tablePrimary();
      if (jt != JoinType::Cross) {
        expect("on");
        j->on = expr();
      }
      left = std::move(j);
    }
  }

  TableRefPtr tablePrimary() {
    DepthGuard g(*this);
    SourcePos pos = cur().pos;
    TableRefPtr r;
    if (is("(") && (atQuery(1) || ahead(1).is("("))) {
      expect("(");
      r = std::make_unique<TableRef>(TableRef::Kind::Subquery, pos);
      r->subquery = select();
      expect(")");
    } else if (accept("(")) {
      r = tableRef();
      expect(")");
      return r;
    } else {
      r = std::make_unique<TableRef>(TableRef::Kind::Table, pos);
      r->name = identifier();
    }
    if (accept("as") || atIdentifier()) {
      r->alias = identifier();
      if (accept("(")) {
        do r->columnAliases.push_back(identifier());
        while (accept(","));
        expect(")");
      }
    }
    return r;
  }

  // ---- expressions, lowest precedence first ----
  ExprPtr expr() {
    DepthGuard g(*this);
    return orExpr();
  }

  ExprPtr binary(const char* op, ExprPtr a, ExprPtr b, SourcePos pos) {
    auto e = std::make_unique<Expr>(ExprKind::Binary, pos);
    e->op = op;
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return e;
  }

  ExprPtr orExpr() {
    ExprPtr e = andExpr();
    ChainGuard chain(*this);
    while (is("or")) {
      chain.step();
      SourcePos p = cur().pos;
      ++i_;
      e = binary("OR", std::move(e), andExpr(), p);
    }
    return e;
  }

  ExprPtr andExpr() {
    ExprPtr e = notExpr();
    ChainGuard chain(*this);
    while (is("and")) {
      chain.step();
      SourcePos p = cur().pos;
      ++i_;
      e = binary("AND", std::move(e), notExpr(), p);
    }
    return e;
  }

  ExprPtr notExpr() {
    DepthGuard g(*this);
    if (is("not") && !ahead(1).is("exists")) {
      auto e = std::make_unique<Expr>(ExprKind::Unary, cur().pos);
      ++i_;
      e->op = "NOT";
      e->args.push_back(notExpr());
      return e;
    }
    return comparison();
  }

  ExprPtr comparison() {
    ExprPtr e = concatExpr();
    ChainGuard chain(*this);
    while (true) {
      chain.step();
      SourcePos p = cur().pos;
      static const char* ops[] = {"=", "<>", "!=", "<", "<=", ">", ">="};
      bool matched = false;
      for (const char* op : ops) {
        if (is(op)) {
          ++i_;
          std::string sym = std::string(op) == "!=" ? "<>" : op;
          if ((is("any") || is("some") || is("all")) && ahead(1).is("(") && atQuery(2)) {
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
          matched = true;
          break;
        }
      }
      if (matched) continue;
      if (accept("is")) {
        auto n = std::make_unique<Expr>(ExprKind::IsNull, p);
        n->negated = accept("not");
        expect("null");
        n->args.push_back(std::move(e));
        e = std::move(n);
        continue;
      }
      bool negated = false;
      if (is("not") && (ahead(1).is("between") || ahead(1).is("in") || ahead(1).is("like"))) {
        negated = true;
        ++i_;
      }
      if (accept("between")) {
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
      } else if (accept("like")) {
        auto l = std::make_unique<Expr>(ExprKind::Like, p);
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

  ExprPtr concatExpr() {
    ExprPtr e = additive();
    ChainGuard chain(*this);
    while (is("||")) {
      chain.step();
      SourcePos p = cur().pos;
      ++i_;
      e = binary("||", std::move(e), additive(), p);
    }
    return e;
  }

  ExprPtr additive() {
    ExprPtr e = multiplicative();
    ChainGuard chain(*this);
    while (is("+") || is("-")) {
      chain.step();
      SourcePos p = cur().pos;
      std::string op = t_[i_++].text;
      e = binary(op == "+" ? "+" : "-", std::move(e), multiplicative(), p);
    }
    return e;
  }

  ExprPtr multiplicative() {
    ExprPtr e = unary();
    ChainGuard chain(*this);
    while (is("*") || is("/") || is("%")) {
      chain.step();
      SourcePos p = cur().pos;
      std::string op = t_[i_++].text;
      e = binary(op == "*" ? "*" : op == "/" ? "/" : "%", std::move(e), unary(), p);
    }
    return e;
  }

  ExprPtr unary() {
    DepthGuard g(*this);
    if (is("-") || is("+")) {
      auto e = std::make_unique<Expr>(ExprKind::Unary, cur().pos);
      e->op = t_[i_++].text;
      e->args.push_back(unary());
      return e;
    }
    ExprPtr e = primary();
    ChainGuard chain(*this);
    while (is("::")) {
      chain.step();
      SourcePos p = cur().pos;
      ++i_;
      auto c = std::make_unique<Expr>(ExprKind::Cast, p);
      c->type = typeName();
      c->args.push_back(std::move(e));
      e = std::move(c);
    }
    return e;
  }

  ExprPtr primary() {
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
      case TokenKind::End: syntaxError();
      default: break;
    }
    if (accept("(")) {
      if (atQuery()) {
        auto e = std::make_unique<Expr>(ExprKind::Subquery, pos);
        e->subquery = select();
        expect(")");
        return e;
      }
      ExprPtr e = expr();
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
      if (is("date") && ahead(1).kind == TokenKind::String) {
        ++i_;
        auto e = std::make_unique<Expr>(ExprKind::TypedLiteral, pos);
        e->type = SqlType::date(false);
        e->text = t_[i_++].text;
        return e;
      }
      if (is("interval") && ahead(1).kind == TokenKind::String) {
        ++i_;
        auto e = std::make_unique<Expr>(ExprKind::TypedLiteral, pos);
        e->type = SqlType::null();
        e->text = t_[i_++].text;
        if (cur().kind == TokenKind::Identifier && (is("day") || is("month") || is("year"))) {
          e->unit = t_[i_++].text;
          if (is("(") && ahead(1).kind == TokenKind::Integer && ahead(2).is(")")) i_ += 3;  // DAY (3): a precision
        }
        return e;
      }
      if (accept("case")) return caseExpr(pos);
      if (is("cast") && ahead(1).is("(")) {
        i_ += 2;
        auto e = std::make_unique<Expr>(ExprKind::Cast, pos);
        e->args.push_back(expr());
        expect("as");
        e->type = typeName();
        expect(")");
        return e;
      }
      if (is("exists") || (is("not") && ahead(1).is("exists"))) {
        bool neg = accept("not");
        expect("exists");
        expect("(");
        auto e = std::make_unique<Expr>(ExprKind::Exists, pos);
        e->negated = neg;
        e->subquery = select();
        expect(")");
        return e;
      }
    }
    if (!atIdentifier()) syntaxError();
    std::string name = identifier();
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
      if (accept("*")) {
        f->star = true;
      } else if (!is(")")) {
        if (accept("distinct")) f->distinct = true;
        else accept("all");
        do f->args.push_back(expr());
        while (accept(","));
      }
      expect(")");
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

  ExprPtr caseExpr(SourcePos pos) {
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

  std::vector<Token> t_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

StatementPtr parseStatement(std::string_view sql, SourcePos origin) {
  return Parser(sqlparse::tokenize(sql, origin)).statement();
}

std::string defaultColumnName(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Column: return e.name;
    case ExprKind::Function: return e.name;
    case ExprKind::Cast: return defaultColumnName(*e.args[0]);
    case ExprKind::Case: return "case";
    case ExprKind::Exists: return "exists";
    case ExprKind::Subquery:  // PostgreSQL names it after the subquery's column
      if (e.subquery->items.size() == 1)
        return e.subquery->items[0].alias.empty() ? defaultColumnName(*e.subquery->items[0].expr) : e.subquery->items[0].alias;
      return "?column?";
    default: return "?column?";
  }
}

}  // namespace hyrax
