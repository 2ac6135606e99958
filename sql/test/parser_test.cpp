#include <catch2/catch.hpp>

#include "sql/parser/parser.hpp"
#include "sql/parser/statement_splitter.hpp"

using namespace hyrax;

namespace {
Error errorOf(const std::string& sql, SourcePos origin = {1, 1}) {
  try {
    parseStatement(sql, origin);
  } catch (const Error& e) {
    return e;
  }
  FAIL("no error for " << sql);
  return Error("", "");
}
}  // namespace

TEST_CASE("syntax errors name the token and its line and column") {
  Error e = errorOf("SELECT a,\n  b FROM t WHERE WHERE");
  CHECK(e.sqlstate() == "42601");
  CHECK(e.message() == "syntax error at or near \"WHERE\"");
  CHECK(e.pos().line == 2);
  CHECK(e.pos().column == 18);
  Error end = errorOf("SELECT 1 +");
  CHECK(end.message() == "syntax error at end of input");
  Error str = errorOf("SELECT 'abc");
  CHECK(str.pos().column == 8);
  // Positions are relative to the script the statement came from.
  Error shifted = errorOf("SELECT ,", {5, 3});
  CHECK(shifted.pos().line == 5);
  CHECK(shifted.pos().column == 10);
}

TEST_CASE("deep nesting is rejected with 54001 instead of overflowing the stack") {
  for (const char* unit : {"(", "- ", "NOT "}) {
    std::string sql = "SELECT ";
    for (int i = 0; i < 100000; ++i) sql += unit;
    sql += "1";
    CHECK(errorOf(sql).sqlstate() == "54001");
  }
}

TEST_CASE("expressions parse with SQL's precedence") {
  auto s = parseStatement("SELECT 1 + 2 * 3 = 7 AND NOT x IS NULL OR y");
  auto& sel = static_cast<ast::SelectStmt&>(*s);
  const ast::Expr& e = *sel.select->items[0].expr;
  REQUIRE(e.kind == ast::ExprKind::Binary);
  CHECK(e.op == "OR");
  const ast::Expr& andE = *e.args[0];
  CHECK(andE.op == "AND");
  CHECK(andE.args[0]->op == "=");
  CHECK(andE.args[0]->args[0]->op == "+");
  CHECK(andE.args[0]->args[0]->args[1]->op == "*");
  CHECK(andE.args[1]->kind == ast::ExprKind::Unary);
  CHECK(andE.args[1]->args[0]->kind == ast::ExprKind::IsNull);
}

TEST_CASE("statements: types, keys, EXPLAIN options, identifiers") {
  auto c = parseStatement("create table \"T\" (a decimal(12,2) not null, b varchar(5), c char, primary key (a))");
  auto& ct = static_cast<ast::CreateTableStmt&>(*c);
  CHECK(ct.name == "T");
  CHECK(ct.columns[0].type.id == TypeId::Decimal);
  CHECK(ct.columns[0].type.scale == 2);
  CHECK_FALSE(ct.columns[0].type.nullable);
  CHECK(ct.columns[2].type.length == 1);
  REQUIRE(ct.constraints.size() == 1);
  CHECK(ct.constraints[0].columns == std::vector<std::string>{"a"});
  auto x = parseStatement("EXPLAIN (ANALYZE, LLVM) SELECT 1");
  auto& ex = static_cast<ast::ExplainStmt&>(*x);
  CHECK(ex.analyze);
  CHECK(ex.llvm);
  CHECK(errorOf("CREATE TABLE t (a DECIMAL(19,2))").sqlstate() == "0A000");
  CHECK(errorOf("CREATE TABLE t (a VARCHAR(0))").sqlstate() == "22023");
}

TEST_CASE("scripts split at semicolons outside quotes and comments") {
  auto parts = splitStatements("SELECT ';';\n-- a comment; still a comment\nSELECT /* ; */ 2;\n  SELECT 3");
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].text == "SELECT ';';");
  CHECK(parts[1].line == 2);
  CHECK(parts[2].text == "SELECT 3");
  CHECK(parts[2].line == 4);
  CHECK(parts[2].column == 3);
  CHECK_FALSE(parts[2].complete);
  CHECK(splitStatements("SELECT 1; -- trailing comment\n").size() == 1);
}

TEST_CASE("empty statements and comment-only text split into nothing") {
  CHECK(splitStatements(";;;").empty());
  CHECK(splitStatements("-- only a comment\n").empty());
  CHECK(splitStatements("/* a; b */ ; -- c\n;").empty());
  auto parts = splitStatements(";\nSELECT 1;;\n-1;\n/* x */ SELECT 2");
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].text == "SELECT 1;");
  CHECK(parts[1].text == "-1;");
  CHECK(parts[2].text == "/* x */ SELECT 2");
  CHECK_FALSE(parts[2].complete);
  CHECK(splitStatements("'unterminated; string").size() == 1);  // incomplete, not a comment
}

TEST_CASE("PostgreSQL's catalog syntax: schema-qualified names, OPERATOR(), COLLATE, reg* casts") {
  auto s = parseStatement(
      "SELECT pg_catalog.format_type(a, b), c.relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default, "
      "x::pg_catalog.regclass::pg_catalog.text, n !~* 'p' FROM pg_catalog.pg_class c, public.t");
  auto& sel = *static_cast<ast::SelectStmt&>(*s).select;
  const ast::Expr& f = *sel.items[0].expr;
  CHECK(f.kind == ast::ExprKind::Function);
  CHECK(f.table == "pg_catalog");
  CHECK(f.name == "format_type");
  const ast::Expr& m = *sel.items[1].expr;  // COLLATE leaves the pattern as it was
  CHECK(m.kind == ast::ExprKind::Binary);
  CHECK(m.op == "~");
  CHECK(m.args[1]->kind == ast::ExprKind::String);
  const ast::Expr& cast = *sel.items[2].expr;  // ::regclass is the call regclass(x), then a cast
  CHECK(cast.kind == ast::ExprKind::Cast);
  CHECK(cast.type.id == TypeId::Text);
  CHECK(cast.args[0]->kind == ast::ExprKind::Function);
  CHECK(cast.args[0]->name == "regclass");
  CHECK(sel.items[3].expr->op == "!~*");
  REQUIRE(sel.from.size() == 2);
  CHECK(sel.from[0]->schema == "pg_catalog");
  CHECK(sel.from[0]->name == "pg_class");
  CHECK(sel.from[0]->alias == "c");
  CHECK(sel.from[1]->schema == "public");
  CHECK(errorOf("SELECT a OPERATOR(pg_catalog.+) b").sqlstate() == "42601");  // only comparisons and regex
  CHECK(errorOf("SELECT a COLLATE \"de_DE\"").sqlstate() == "42704");
}
