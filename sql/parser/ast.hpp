#pragma once
// The abstract syntax tree the parser builds and the binder reads. Every node carries the
// position of the token it starts at, for error messages.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/catalog/sequence.hpp"
#include "engine/types/sql_type.hpp"
#include "engine/util/error.hpp"

namespace hyrax::ast {

struct Select;

// ---- expressions ----
enum class ExprKind : uint8_t {
  Column,     // [table.]name
  Star,       // * or table.* (only in a select list and count(*))
  Integer,    // text holds the digits
  Decimal,    // text holds "12.50"
  Float,      // text holds "1.5e3"
  String,     // text holds the characters
  Boolean,    // boolValue
  Null,
  TypedLiteral,  // DATE/TIMESTAMP/TIME 'text' (type), INTERVAL 'text' [unit] (type INTERVAL, text, unit)
  Unary,      // op in {"-", "+", "NOT"}
  Binary,     // op in {"+","-","*","/","%","||","=","<>","<","<=",">",">=","AND","OR"}
  IsNull,     // args[0] IS [NOT] NULL
  Between,    // args[0] [NOT] BETWEEN args[1] AND args[2]
  InList,     // args[0] [NOT] IN (args[1..])
  InSelect,   // args[0] [NOT] IN (subquery)
  Like,       // args[0] [NOT] LIKE args[1] [ESCAPE args[2]]
  Case,       // [operand = args[0] if hasOperand] WHEN/THEN pairs, [ELSE last if hasElse]
  Cast,       // CAST(args[0] AS type) or args[0]::type
  Function,   // name(args) / name(DISTINCT args) / count(*) (star)
  Exists,     // EXISTS (subquery)
  Subquery,   // (subquery) as a scalar
  Quantified, // args[0] op ANY|SOME|ALL (subquery): op in `op`, "any" or "all" in `unit`; over an
              // array instead of a subquery, args[1] is the array (no subquery)
  Parameter,  // $n of a prepared statement: text holds n
  Default,    // DEFAULT as a value of INSERT ... VALUES: the column's default
  Row,        // (args[0], args[1], ...): a row value, compared element by element
  Array,      // ARRAY[args...] (subquery empty), or ARRAY(subquery)
  Subscript,  // args[0][args[1]]
  FieldSelect,  // (args[0]).name: a field of a composite value
};

struct Expr {
  ExprKind kind;
  SourcePos pos;
  std::string table;  // Column / Star qualifier; Function: its schema (pg_catalog.f(...)), else empty
  std::string name;   // Column name, Function name (lower-cased unless quoted)
  std::string op;     // Unary / Binary
  std::string text;   // literal text
  std::string unit;   // INTERVAL unit
  bool boolValue = false;
  bool negated = false;      // IS NOT NULL, NOT BETWEEN, NOT IN, NOT LIKE, NOT EXISTS
  bool distinct = false;     // count(DISTINCT x)
  bool star = false;         // count(*)
  bool filter = false;       // agg(...) FILTER (WHERE args.back()): the condition is the last arg
  bool hasOperand = false;   // CASE x WHEN ...
  bool hasElse = false;
  SqlType type;              // Cast target, TypedLiteral type
  // f(...) OVER (PARTITION BY p... ORDER BY o...): the call's own args, then windowPartitions
  // partition expressions, then the ORDER BY expressions, each with its (descending, nullsFirst
  // as OrderItem's) in windowOrder.
  bool window = false;
  size_t windowArgs = 0, windowPartitions = 0;
  std::vector<std::pair<bool, int>> windowOrder;
  // Its frame: 0 none given (RANGE UNBOUNDED PRECEDING to CURRENT ROW), 1 ROWS, 2 RANGE; its
  // start and end each a kind (0 UNBOUNDED PRECEDING, 1 n PRECEDING, 2 CURRENT ROW, 3 n
  // FOLLOWING, 4 UNBOUNDED FOLLOWING) and n.
  int windowFrame = 0;
  std::pair<int, int64_t> windowStart{0, 0}, windowEnd{2, 0};
  // agg(args ORDER BY o...): the ORDER BY expressions follow the call's args (before FILTER's
  // condition), each with its (descending, nullsFirst as OrderItem's) here.
  std::vector<std::pair<bool, int>> argumentOrder;
  std::vector<std::unique_ptr<Expr>> args;
  std::unique_ptr<Select> subquery;

  Expr(ExprKind k, SourcePos p) : kind(k), pos(p) {}
  ~Expr();  // without recursion (ast_destruction.cpp): chains make trees as deep as they are long
};
using ExprPtr = std::unique_ptr<Expr>;

// ---- FROM ----
enum class JoinType : uint8_t { Inner, Left, Right, Full, Cross };

struct TableRef {
  enum class Kind : uint8_t { Table, Join, Subquery, Function } kind;
  SourcePos pos;
  std::string schema;  // Table: schema.name (pg_catalog, information_schema, public); empty when unqualified
  std::string name;   // Table; Function: the table function's name (read_json)
  std::vector<ExprPtr> args;  // Function
  std::string alias;  // Table or Subquery
  std::vector<std::string> columnAliases;  // AS a (x, y)
  // Join
  JoinType joinType = JoinType::Inner;
  std::unique_ptr<TableRef> left, right;
  ExprPtr on;
  // JOIN ... USING (a, b), or NATURAL JOIN (the columns both sides have): equalities instead of
  // ON, and one merged column each in place of the two.
  std::vector<std::string> usingColumns;
  std::vector<SourcePos> usingPos;
  bool natural = false;
  // Subquery
  std::unique_ptr<Select> subquery;

  TableRef(Kind k, SourcePos p) : kind(k), pos(p) {}
};
using TableRefPtr = std::unique_ptr<TableRef>;

// ---- SELECT ----
struct SelectItem {
  ExprPtr expr;
  std::string alias;  // empty when none
  SourcePos pos;
};

struct OrderItem {
  ExprPtr expr;
  bool descending = false;
  int nullsFirst = -1;  // -1: default (NULLS LAST for ASC, FIRST for DESC), 0: LAST, 1: FIRST
};

struct CommonTableExpr;

enum class SetOp : uint8_t { None, Union, Intersect, Except };

// One SELECT, or (setOp != None) a set operation of two queries; either may carry ORDER BY and
// LIMIT/OFFSET. A set operation has no select list, FROM, WHERE or grouping of its own.
struct Select {
  SourcePos pos;
  SetOp setOp = SetOp::None;
  bool setAll = false;  // UNION ALL ...
  std::unique_ptr<Select> left, right;
  bool parenthesized = false;  // written in parentheses (keeps its own ORDER BY / LIMIT)
  std::vector<CommonTableExpr> with;  // WITH name [(columns)] AS (query), ...
  bool distinct = false;
  // SELECT DISTINCT ON (e, ...): of the rows equal in these, the first in ORDER BY's order.
  std::vector<ExprPtr> distinctOn;
  std::vector<SelectItem> items;
  // VALUES (...), (...): rows of expressions instead of a select list and FROM (the columns are
  // column1, column2 ... as in PostgreSQL).
  std::vector<std::vector<ExprPtr>> values;
  std::vector<TableRefPtr> from;  // comma-separated entries
  ExprPtr where;
  std::vector<ExprPtr> groupBy;
  ExprPtr having;
  std::vector<OrderItem> orderBy;
  ExprPtr limit;   // null: none
  ExprPtr offset;  // null: none
  // SELECT ... INTO a, b FROM ... (only inside a stored procedure): the variables the first row
  // goes to.
  std::vector<std::string> into;
  std::vector<SourcePos> intoPos;

  Select() = default;
  ~Select();  // without recursion along left/right (ast_destruction.cpp): a chain of UNIONs
};

// WITH's named queries: visible in the whole SELECT they precede, subqueries included.
struct CommonTableExpr {
  std::string name;
  std::vector<std::string> columns;
  std::unique_ptr<Select> query;
  SourcePos pos;
};

// ---- statements ----
enum class StmtKind : uint8_t {
  Select, CreateTable, DropTable, Insert, Explain, Copy, Analyze, CreateView,
  Update, Delete, Transaction, CreateIndex, Prepare, Execute, Deallocate,
  CreateFunction, Call, Setting, Reindex, CreateSequence, Role, AlterTable
};

struct Statement {
  StmtKind kind;
  SourcePos pos;
  explicit Statement(StmtKind k, SourcePos p) : kind(k), pos(p) {}
  virtual ~Statement() = default;
};
using StatementPtr = std::unique_ptr<Statement>;

struct SelectStmt : Statement {
  std::unique_ptr<Select> select;
  explicit SelectStmt(SourcePos p) : Statement(StmtKind::Select, p) {}
};

struct ColumnDefinition {
  std::string name;
  SqlType type;  // nullable unless NOT NULL / PRIMARY KEY
  SourcePos pos;
  std::unique_ptr<Expr> defaultValue;  // DEFAULT expr, or null
  bool identity = false;        // SERIAL types, GENERATED ... AS IDENTITY: numbered by a sequence
  bool identityAlways = false;  // GENERATED ALWAYS: INSERT may not give a value
};

// PRIMARY KEY, UNIQUE, CHECK, FOREIGN KEY, written after a column (then `columns` is that column)
// or as a table element.
struct TableConstraint {
  enum class Kind : uint8_t { PrimaryKey, Unique, Check, ForeignKey } kind;
  std::string name;  // CONSTRAINT name; empty: named as PostgreSQL would
  std::vector<std::string> columns;
  std::vector<SourcePos> columnPos;
  ExprPtr check;          // CHECK
  std::string checkText;  // CHECK, its expression as written
  std::string refTable;   // FOREIGN KEY ... REFERENCES refTable [(refColumns)]
  SourcePos refPos;
  std::vector<std::string> refColumns;
  std::string onDelete;  // FOREIGN KEY ... ON DELETE: "cascade", "set null", "set default"; empty: no action
  SourcePos pos;
};

struct CreateTableStmt : Statement {
  std::string name;
  bool ifNotExists = false;
  std::vector<ColumnDefinition> columns;
  std::vector<TableConstraint> constraints;
  // CREATE TABLE name [(column, ...)] AS query [WITH [NO] DATA]: the columns come from the query
  // (renamed by `asNames`), and its rows fill the table unless WITH NO DATA.
  std::unique_ptr<Select> asQuery;
  std::vector<std::string> asNames;
  std::vector<SourcePos> asNamePos;
  bool withData = true;
  explicit CreateTableStmt(SourcePos p) : Statement(StmtKind::CreateTable, p) {}
};

// ALTER TABLE [IF EXISTS] name action [, action ...]; the actions run in order, all or none. A
// RENAME is an ALTER TABLE's only action.
struct AlterTableAction {
  enum class Kind : uint8_t {
    AddColumn,       // ADD [COLUMN] [IF NOT EXISTS] column (its constraints in `constraints`)
    AddConstraint,   // ADD table constraint (`constraints`: the one)
    DropColumn,      // DROP [COLUMN] [IF EXISTS] name [RESTRICT | CASCADE]
    DropConstraint,  // DROP CONSTRAINT [IF EXISTS] name [RESTRICT | CASCADE]
    SetDefault,      // ALTER [COLUMN] name SET DEFAULT expr
    DropDefault,     // ALTER [COLUMN] name DROP DEFAULT
    SetNotNull,      // ALTER [COLUMN] name SET NOT NULL
    DropNotNull,     // ALTER [COLUMN] name DROP NOT NULL
    RenameTable,     // RENAME TO newName (the statement's only action)
    RenameColumn,    // RENAME [COLUMN] name TO newName (the statement's only action)
  } kind;
  SourcePos pos;
  std::vector<ColumnDefinition> columns;     // AddColumn: the one column
  std::vector<TableConstraint> constraints;  // AddColumn's column constraints; AddConstraint's
  std::string name;                         // the column or constraint the others name
  SourcePos namePos;
  std::string newName;  // RENAME
  SourcePos newNamePos;
  std::unique_ptr<Expr> defaultValue;  // SetDefault
  bool ifExists = false;               // IF [NOT] EXISTS
  bool cascade = false;
};

struct AlterTableStmt : Statement {
  std::string name;
  SourcePos namePos;
  bool ifExists = false;
  std::vector<AlterTableAction> actions;
  explicit AlterTableStmt(SourcePos p) : Statement(StmtKind::AlterTable, p) {}
};

enum class ObjectKind : uint8_t { Table, View, Index, Function, Procedure, Sequence };

struct DropTableStmt : Statement {  // DROP TABLE, DROP VIEW, DROP INDEX
  std::vector<std::string> names;
  std::vector<SourcePos> namePos;
  bool ifExists = false;
  bool cascade = false;  // [CASCADE | RESTRICT]: dependent foreign keys and views go too
  ObjectKind object = ObjectKind::Table;
  explicit DropTableStmt(SourcePos p) : Statement(StmtKind::DropTable, p) {}
};

// CREATE SEQUENCE name [INCREMENT [BY] n] [START [WITH] n] [MINVALUE n | NO MINVALUE]
// [MAXVALUE n | NO MAXVALUE] [CYCLE | NO CYCLE], options in any order.
struct CreateSequenceStmt : Statement {
  std::string name;
  SourcePos namePos;
  SequenceOptions options;
  explicit CreateSequenceStmt(SourcePos p) : Statement(StmtKind::CreateSequence, p) {}
};

// CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON table [USING hash] (columns)
struct CreateIndexStmt : Statement {
  std::string name;  // empty: table_columns_idx
  SourcePos namePos;
  std::string table;
  SourcePos tablePos;
  bool unique = false;
  bool ifNotExists = false;
  std::string method;  // empty: the default
  SourcePos methodPos;
  std::vector<std::string> columns;
  std::vector<SourcePos> columnPos;
  explicit CreateIndexStmt(SourcePos p) : Statement(StmtKind::CreateIndex, p) {}
};

// UPDATE table [[AS] alias] SET column = expr [, ...] [WHERE cond] [RETURNING items]
struct UpdateStmt : Statement {
  std::string table, alias;
  SourcePos tablePos;
  struct Assignment {
    std::string column;
    SourcePos pos;
    ExprPtr value;  // nullptr: DEFAULT
  };
  std::vector<Assignment> set;
  ExprPtr where;
  std::vector<SelectItem> returning;  // RETURNING's items over the new rows; empty: none
  explicit UpdateStmt(SourcePos p) : Statement(StmtKind::Update, p) {}
};

// DELETE FROM table [[AS] alias] [WHERE cond] [RETURNING items]
struct DeleteStmt : Statement {
  std::string table, alias;
  SourcePos tablePos;
  ExprPtr where;
  std::vector<SelectItem> returning;  // over the deleted rows; empty: none
  explicit DeleteStmt(SourcePos p) : Statement(StmtKind::Delete, p) {}
};

// PREPARE name [(types)] AS statement: compiled once, run by EXECUTE name [(values)].
struct PrepareStmt : Statement {
  std::string name;
  std::vector<SqlType> types;  // declared types of $1, $2 ...; the others are inferred
  StatementPtr statement;
  explicit PrepareStmt(SourcePos p) : Statement(StmtKind::Prepare, p) {}
};

struct ExecuteStmt : Statement {
  std::string name;
  SourcePos namePos;
  std::vector<ExprPtr> args;
  explicit ExecuteStmt(SourcePos p) : Statement(StmtKind::Execute, p) {}
};

// DEALLOCATE [PREPARE] name | ALL
struct DeallocateStmt : Statement {
  std::string name;  // empty: ALL
  SourcePos namePos;
  explicit DeallocateStmt(SourcePos p) : Statement(StmtKind::Deallocate, p) {}
};

// SET [SESSION] name {TO | =} value | DEFAULT; RESET name | ALL; SHOW name | ALL
struct SettingStmt : Statement {
  enum class Op : uint8_t { Set, Reset, Show } op;
  std::string name;  // lower case; empty: ALL
  SourcePos namePos;
  std::string value;  // SET's value as written (a string's characters, a number, a word)
  bool toDefault = false;  // SET name TO DEFAULT
  bool local = false;      // SET LOCAL: until the transaction ends
  SourcePos valuePos;
  SettingStmt(SourcePos p, Op o) : Statement(StmtKind::Setting, p), op(o) {}
};

// BEGIN / START TRANSACTION, COMMIT / END, ROLLBACK / ABORT, SAVEPOINT name, RELEASE [SAVEPOINT]
// name, ROLLBACK TO [SAVEPOINT] name
struct TransactionStmt : Statement {
  enum class Op : uint8_t { Begin, Commit, Rollback, Savepoint, Release, RollbackTo } op;
  bool readOnly = false;  // BEGIN READ ONLY (the isolation level is always serializable)
  std::string savepoint;  // SAVEPOINT, RELEASE, ROLLBACK TO: the savepoint's name
  SourcePos savepointPos;
  TransactionStmt(SourcePos p, Op o) : Statement(StmtKind::Transaction, p), op(o) {}
};

struct InsertStmt : Statement {
  std::string table;
  SourcePos tablePos;
  std::vector<std::string> columns;  // empty: all, in table order
  std::vector<SourcePos> columnPos;
  std::vector<std::vector<ExprPtr>> values;  // VALUES rows, or
  std::unique_ptr<Select> select;            // INSERT ... SELECT, or
  bool defaultValues = false;                // DEFAULT VALUES
  std::vector<SelectItem> returning;         // RETURNING's items over the new rows; empty: none
  explicit InsertStmt(SourcePos p) : Statement(StmtKind::Insert, p) {}
};

struct ExplainStmt : Statement {
  bool analyze = false, llvm = false, asm_ = false;
  StatementPtr statement;
  explicit ExplainStmt(SourcePos p) : Statement(StmtKind::Explain, p) {}
};

// COPY table [(columns)] FROM 'file' | STDIN [[WITH] (options)]
// COPY table [(columns)] | (query) TO 'file' | STDOUT [[WITH] (options)]
struct CopyOption {
  std::string name;   // lower case: format, delimiter, header, null, quote, escape
  std::string value;  // as written (FORMAT csv -> "csv"; HEADER alone -> "true")
  SourcePos pos;
};

// CREATE VIEW name [(columns)] AS query: the query's text is what the catalog keeps.
struct CreateViewStmt : Statement {
  std::string name;
  SourcePos namePos;
  std::vector<std::string> columns;
  std::unique_ptr<Select> query;
  std::string text;
  explicit CreateViewStmt(SourcePos p) : Statement(StmtKind::CreateView, p) {}
};

// ANALYZE [table]: gathers the optimizer's statistics (of every table when none is named).
struct AnalyzeStmt : Statement {
  std::string table;
  SourcePos tablePos;
  explicit AnalyzeStmt(SourcePos p) : Statement(StmtKind::Analyze, p) {}
};

// REINDEX {INDEX | TABLE} name, or SQLite's REINDEX name (an index, else a table).
struct ReindexStmt : Statement {
  enum class Target : uint8_t { Index, Table, Either } target = Target::Either;
  std::string name;
  SourcePos namePos;
  explicit ReindexStmt(SourcePos p) : Statement(StmtKind::Reindex, p) {}
};

// CREATE ROLE/USER name [[WITH] option ...], ALTER ROLE/USER name [[WITH] option ...],
// DROP ROLE/USER [IF EXISTS] name [, ...]. Options: LOGIN | NOLOGIN, [ENCRYPTED] PASSWORD 'pw' |
// PASSWORD NULL, and PostgreSQL's others (SUPERUSER, CREATEDB, CONNECTION LIMIT n, VALID UNTIL
// '...', ...), which are accepted and ignored: hyrax has no privileges yet. CREATE USER logs in.
struct RoleStmt : Statement {
  enum class Op : uint8_t { Create, Alter, Drop } op;
  std::vector<std::string> names;  // one but for DROP
  std::vector<SourcePos> namePos;
  bool ifExists = false;
  std::optional<bool> login;  // unset: as it was (ALTER), NOLOGIN for CREATE ROLE, LOGIN for CREATE USER
  // The password: set, and `password` null for PASSWORD NULL. Never printed (errors, logs).
  bool setsPassword = false;
  std::optional<std::string> password;
  RoleStmt(SourcePos p, Op o) : Statement(StmtKind::Role, p), op(o) {}
};

struct CopyStmt : Statement {
  std::string table;  // empty when copying a query's result
  SourcePos tablePos;
  std::vector<std::string> columns;
  std::vector<SourcePos> columnPos;
  std::unique_ptr<Select> query;
  bool from = true;    // FROM (load) or TO (unload)
  bool stdio = false;  // STDIN / STDOUT instead of a file
  std::string file;
  SourcePos filePos;
  std::vector<CopyOption> options;
  explicit CopyStmt(SourcePos p) : Statement(StmtKind::Copy, p) {}
};

// ---- stored procedures (procedure_parser.cpp) ----

// One statement of a procedure body (PL/pgSQL's subset).
struct PlStmt;
using PlStmtPtr = std::unique_ptr<PlStmt>;
using PlBlock = std::vector<PlStmtPtr>;

struct PlVariable {
  std::string name;
  SqlType type;
  SourcePos pos;
  ExprPtr init;  // DECLARE x type := init; null: NULL
};

// One WHEN of an EXCEPTION section: the conditions it catches, as SQLSTATEs ("22012") or classes
// ("22"); "others" catches every error but a cancel.
struct PlHandler {
  std::vector<std::string> conditions;
  SourcePos pos;
};

struct PlStmt {
  enum class Kind : uint8_t {
    Sql,       // sql: SELECT [INTO] / INSERT / UPDATE / DELETE (PERFORM query: a SELECT, rows dropped)
    Assign,    // target := expr
    If,        // conditions[i] THEN blocks[i] ...; blocks.size() > conditions.size(): ELSE
    While,     // WHILE conditions[0] LOOP blocks[0] END LOOP
    Loop,      // LOOP blocks[0] END LOOP (left by EXIT)
    ForQuery,  // FOR target IN query LOOP blocks[0] END LOOP: target.column for each output column
    ForRange,  // FOR target IN [REVERSE] expr .. expr2 LOOP blocks[0] END LOOP (integers)
    Exit,      // EXIT [WHEN expr]
    Continue,  // CONTINUE [WHEN expr]
    Return,    // RETURN [expr]
    Raise,     // RAISE level 'format' [, args] [USING ERRCODE = 'xxxxx']
    Null,      // NULL;
    Block,     // [DECLARE declarations] BEGIN blocks[0] [EXCEPTION WHEN handlers[i] THEN blocks[i + 1] ...] END
  } kind;
  SourcePos pos;
  StatementPtr sql;
  std::string target;
  SourcePos targetPos;
  ExprPtr expr, expr2;  // Assign/Return/Exit value or WHEN condition; ForRange bounds
  bool reverse = false;
  bool perform = false;  // Sql: PERFORM (a SELECT without INTO is an error otherwise)
  std::vector<ExprPtr> conditions;
  std::vector<PlBlock> blocks;
  std::unique_ptr<Select> query;  // ForQuery
  std::string level;              // Raise: exception, warning, notice, info, log, debug; reraise (RAISE;)
  std::string format;             // Raise: '%' takes the next argument
  std::string errcode;            // Raise: USING ERRCODE; empty: P0001 for EXCEPTION
  std::vector<ExprPtr> args;      // Raise
  std::vector<PlVariable> declarations;  // Block
  std::vector<PlHandler> handlers;       // Block
  PlStmt(Kind k, SourcePos p) : kind(k), pos(p) {}
};

// CREATE [OR REPLACE] FUNCTION|PROCEDURE name (params) [RETURNS type] AS $$ [DECLARE ...] BEGIN
// ... END $$ [LANGUAGE plpgsql]
struct CreateFunctionStmt : Statement {
  bool procedure = false, orReplace = false;
  std::string name;
  SourcePos namePos;
  std::vector<PlVariable> params;
  SqlType returns = SqlType::null();  // NULL type: none (a procedure, or RETURNS void)
  std::vector<PlVariable> declarations;
  PlBlock body;
  std::string text;  // the whole statement as written
  explicit CreateFunctionStmt(SourcePos p) : Statement(StmtKind::CreateFunction, p) {}
};

// CALL name(args), and SELECT name(args) of a function.
struct CallStmt : Statement {
  std::string name;
  SourcePos namePos;
  std::vector<ExprPtr> args;
  bool function = false;  // SELECT f(...): the function's value is the result
  explicit CallStmt(SourcePos p) : Statement(StmtKind::Call, p) {}
};

}  // namespace hyrax::ast
