#pragma once
// Internal to sql/parser: the recursive-descent parser, one class whose parts live in
//   parser.cpp             statements (CREATE, DROP, INSERT, UPDATE, DELETE, transactions, COPY,
//                          EXPLAIN, ANALYZE) and types,
//   query_parser.cpp       queries: WITH, SELECT, set operations, ORDER BY/LIMIT, FROM and joins,
//   expression_parser.cpp  expressions by precedence climbing, lowest precedence first.
#include <functional>
#include <string>
#include <vector>

#include "sql/parser/ast.hpp"
#include "sql/parser/lexer.hpp"
#include "sql/parser/parser.hpp"

namespace hyrax::sqlparse {

using namespace hyrax::ast;

// Words that cannot be a bare column or table alias (they continue the statement).
bool isReserved(const std::string& word);

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  StatementPtr statement() {
    StatementPtr s = parseStatementBody();
    accept(";");
    if (cur().kind != TokenKind::End) syntaxError();
    // A window name no SELECT defines (one in a set operation's ORDER BY has no WINDOW clause).
    if (!windowRefs_.empty())
      throw Error("42704", "window \"" + windowRefs_[0].name + "\" does not exist", windowRefs_[0].pos);
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
  bool atIdentifier() const {
    return cur().kind == TokenKind::QuotedIdentifier || (cur().kind == TokenKind::Identifier && !isReserved(cur().text));
  }
  std::string identifier() {
    if (atIdentifier()) return t_[i_++].text;
    syntaxError();
  }
  uint32_t unsignedNumber() {
    if (cur().kind != TokenKind::Integer) syntaxError();
    unsigned long v = std::stoul(cur().text.size() > 9 ? "4294967295" : cur().text);
    ++i_;
    return static_cast<uint32_t>(std::min<unsigned long>(v, UINT32_MAX));
  }

  [[noreturn]] void tooComplex() const {
    throw Error(sqlstate::TooComplex, "statement too complex: nesting exceeds " + std::to_string(kMaxParseDepth) + " levels",
                cur().pos);
  }

  // Bounds recursion: a hostile query gets 54001, not a stack overflow.
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxParseDepth) p.tooComplex();
    }
    ~DepthGuard() { --p.depth_; }
  };
  // Chains of one binary operator (a + b + c ..., a OR b OR ..., a UNION b UNION c ...) are loops
  // here and count nothing: they are no nesting, and the passes after parsing take them (AND, OR
  // and set operations are bound n-ary; a long arithmetic chain stays left-deep, and the passes
  // that recurse over it stop with 54001 where the stack runs short, engine/util/stack_depth.hpp).
  // Postfix chains (x::int::int ..., x IS NULL IS NULL ..., a = b = c) and joins, where a long
  // chain is no real query, still count each step against the nesting bound; a chain of set
  // operations counts each change of operator (query_parser.cpp).
  struct ChainGuard {
    Parser& p;
    uint32_t n = 0;
    explicit ChainGuard(Parser& parser) : p(parser) {}
    void step() {
      if (++n + p.depth_ > kMaxParseDepth) p.tooComplex();
    }
  };

  // Does a query (SELECT or WITH ... SELECT) start `k` tokens ahead?
  bool atQuery(size_t k = 0) const { return ahead(k).is("select") || ahead(k).is("with") || ahead(k).is("values"); }

  // ( name, name ... ): the names and where each stands (INSERT's columns, JOIN ... USING).
  void identifierList(std::vector<std::string>& names, std::vector<SourcePos>& positions);

  // ---- statements (parser.cpp) ----
  StatementPtr parseStatementBody();
  std::string stringLiteral();
  StatementPtr copy(SourcePos pos);
  StatementPtr setting(SourcePos pos);  // SET, RESET, SHOW
  void transactionModes(TransactionStmt& t);  // BEGIN's ISOLATION LEVEL, READ ONLY, ...
  StatementPtr savepointStmt(SourcePos pos, TransactionStmt::Op op);  // the name after SAVEPOINT ...
  // ORDER BY's items in a call (a window's, an aggregate's): expressions into f.args.
  void orderItems(Expr& f, std::vector<std::pair<bool, int>>& order);
  void windowFrame(Expr& f);  // ROWS|RANGE ... of OVER (...): Expr::windowFrame, windowStart, windowEnd
  StatementPtr explain(SourcePos pos);
  // A type's name; `array` allows T[] (casts), else an array type is 0A000 (columns, routines).
  SqlType typeName(bool array = false);
  SqlType scalarTypeName(SourcePos pos);
  StatementPtr createTable(SourcePos pos);
  StatementPtr createSequence(SourcePos pos);  // after CREATE SEQUENCE (sequence_parser.cpp)
  // After CREATE, ALTER or DROP, at ROLE or USER (role_parser.cpp).
  StatementPtr role(SourcePos pos, RoleStmt::Op op);
  StatementPtr dropTable(SourcePos pos);
  StatementPtr insert(SourcePos pos);
  StatementPtr update(SourcePos pos);
  StatementPtr deleteFrom(SourcePos pos);
  StatementPtr createIndex(SourcePos pos, bool unique);
  TableConstraint constraint(const ColumnDefinition* column);  // column: written after it
  // A column of CREATE TABLE or ALTER TABLE ADD: name, type, NOT NULL, DEFAULT, identity; the
  // constraints written after it go to `constraints`.
  ColumnDefinition columnDefinition(std::vector<TableConstraint>& constraints);
  StatementPtr alterTable(SourcePos pos);  // after ALTER TABLE (alter_table_parser.cpp)
  std::vector<std::string> columnList(std::vector<SourcePos>* positions);  // (a, b, ...)

  // ---- stored procedures (procedure_parser.cpp) ----
  StatementPtr createFunction(SourcePos pos, bool orReplace);  // at FUNCTION or PROCEDURE
  StatementPtr call(SourcePos pos);                             // after CALL
  void procedureBody(CreateFunctionStmt& f);  // [DECLARE ...] BEGIN ... END
  void plDeclarations(std::vector<PlVariable>& out);  // after DECLARE, up to BEGIN
  PlStmtPtr plBlockStatement(SourcePos pos);    // [DECLARE ...] BEGIN ... [EXCEPTION ...] END
  PlBlock plBlock();
  PlStmtPtr plStatement();

  // ---- queries (query_parser.cpp) ----
  std::unique_ptr<Select> select();
  std::unique_ptr<Select> setExpression();
  std::unique_ptr<Select> intersectTerm();
  std::unique_ptr<Select> setOperation(SetOp op, std::unique_ptr<Select> l,
                                       const std::function<std::unique_ptr<Select>()>& next);
  std::unique_ptr<Select> queryPrimary();
  std::unique_ptr<Select> selectCore();
  void selectList(std::vector<SelectItem>& items);
  void returning(std::vector<SelectItem>& items);  // [RETURNING select list] of INSERT, UPDATE, DELETE
  std::unique_ptr<Select> valuesCore();  // VALUES (...), (...) as a query
  void orderAndLimit(Select& sel);
  ExprPtr literalOne();
  TableRefPtr tableRef();
  TableRefPtr tablePrimary();

  // ---- expressions (expression_parser.cpp) ----
  ExprPtr expr();
  ExprPtr binary(const char* op, ExprPtr a, ExprPtr b, SourcePos pos);
  ExprPtr orExpr();
  ExprPtr andExpr();
  ExprPtr notExpr();
  ExprPtr comparison();
  ExprPtr concatExpr();
  ExprPtr additive();
  ExprPtr multiplicative();
  ExprPtr unary();
  ExprPtr primary();
  ExprPtr caseExpr(SourcePos pos);

  std::vector<Token> t_;
  size_t i_ = 0;
  int depth_ = 0;
  bool plBody_ = false;  // parsing a procedure body: SELECT ... INTO is allowed
  // Window calls of the SELECT being parsed that name a window of its WINDOW clause (OVER w,
  // OVER (w ORDER BY ...)), resolved once that clause is read (resolveWindowNames).
  struct WindowReference {
    Expr* call;
    std::string name;
    bool copied;     // OVER (w ...), not OVER w
    bool ownFrame;   // the call gave its own frame
    SourcePos pos;
  };
  std::vector<WindowReference> windowRefs_;
  struct WindowDefinition {
    std::string name;
    size_t begin, end;  // its tokens inside the parentheses, parsed again for each reference
  };
  void windowClause(std::vector<WindowDefinition>& defs);
  void resolveWindowNames(const std::vector<WindowDefinition>& defs);
  // A window's PARTITION BY, ORDER BY and frame into call f (the OVER (...) body from the current
  // token); returns whether a frame was given.
  bool windowBody(Expr& f);
};

}  // namespace hyrax::sqlparse
