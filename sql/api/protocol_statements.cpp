// The extended query protocol's statements (Connection::prepareStatement, executeStatement,
// describeStatement, closeStatement): what a PostgreSQL server's Parse, Describe, Bind/Execute
// and Close need. A SELECT, INSERT, UPDATE or DELETE is compiled when prepared, so that Describe
// knows its parameter and result types without running it; every other statement is kept as
// text and run through execute() (BEGIN, SET, DDL: clients send everything through Parse).
#include <optional>

#include "engine/catalog/catalog.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/runtime/sequence_calls.hpp"
#include "engine/runtime/thread_scope.hpp"
#include "engine/txn/serial_executor.hpp"
#include "engine/txn/undo_log.hpp"
#include "engine/util/on_exit.hpp"
#include "sql/api/compiled_statement.hpp"
#include "sql/api/database.hpp"
#include "sql/api/procedure.hpp"
#include "sql/api/session_settings.hpp"
#include "sql/api/snapshot.hpp"
#include "sql/api/statement_cache.hpp"
#include "sql/parser/parser.hpp"
#include "sql/semantic/binder.hpp"

namespace hyrax {

struct Connection::ProtocolStatement {
  std::string name;
  // CALL p($1, ...) or SELECT f($1, ...) with parameters: the routine is called with the bound
  // values (Connection::call), its parameters' types typing the $n. Null for other statements.
  std::unique_ptr<ast::CallStmt> call;
  std::vector<int> callParameter;  // per argument of `call`: the $n it is (0-based), -1 for a constant
  std::vector<Value> callConstant;  // per argument: a constant's value, bound once at prepare
  ast::StatementPtr statement;                       // the compiled kinds: to compile again after DDL
  std::vector<SqlType> declared;                     // declared types ($n without one: TypeId::Null)
  std::shared_ptr<sql::CompiledStatement> compiled;  // null: run as text by execute()
  StatementDescription description;
};

namespace {

bool sameColumns(const std::vector<ResultColumn>& a, const std::vector<ResultColumn>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || !a[i].type.sameAs(b[i].type)) return false;
  return true;
}

// What a statement kept as text returns, as far as it is known before it runs.
Connection::StatementDescription describeText(const ast::Statement& stmt) {
  Connection::StatementDescription d;
  switch (stmt.kind) {
    case ast::StmtKind::Explain: d.columns = {{"QUERY PLAN", SqlType::text(false)}}; break;
    case ast::StmtKind::Setting: {
      auto& s = static_cast<const ast::SettingStmt&>(stmt);
      if (s.op != ast::SettingStmt::Op::Show) break;
      if (s.name.empty())
        for (const char* c : {"name", "setting", "description"}) d.columns.push_back({c, SqlType::text(false)});
      else d.columns = {{s.name, SqlType::text(false)}};
      break;
    }
    case ast::StmtKind::Select:   // a stored function called alone: its routine's result
    case ast::StmtKind::Execute:  // SQL's EXECUTE of a PREPARE'd statement
    case ast::StmtKind::Call: d.columnsKnown = false; break;
    default: break;
  }
  return d;
}

// Compiles `stmt`; a parameter neither declared nor typed by where it stands becomes TEXT, as
// PostgreSQL types `SELECT $1` (it refuses some others, `$1 IS NULL`, with 42P18; hyrax takes
// those as text too). One at a time, as 42P18 names them, so that the others keep the types
// their places give them (`SELECT $1 ... WHERE a = $2`: $2 stays an INTEGER).
std::shared_ptr<sql::CompiledStatement> compileTypingRestAsText(Catalog& catalog, const ast::Statement& stmt,
                                                                 std::vector<SqlType>& declared, PhaseTimes& times) {
  for (;;) {
    try {
      return sql::compileStatement(catalog, stmt, declared, times);
    } catch (const Error& e) {
      if (e.sqlstate() != sqlstate::IndeterminateDatatype) throw;
      // "could not determine data type of parameter $n" (sql/semantic/parameters.cpp)
      const std::string& m = e.message();
      size_t dollar = m.rfind('$');
      if (dollar == std::string::npos || dollar + 1 >= m.size() || m.size() - dollar > 6) throw;
      size_t n = std::stoul(m.substr(dollar + 1));
      if (n == 0 || (n <= declared.size() && !declared[n - 1].isNull())) throw;  // no progress: give up
      if (declared.size() < n) declared.resize(n, SqlType::null());
      declared[n - 1] = SqlType::text();
    }
  }
}

std::string countMismatch(size_t got, const std::string& name, size_t wanted) {
  return "bind message supplies " + std::to_string(got) + " parameters, but prepared statement \"" + name +
         "\" requires " + std::to_string(wanted);
}

}  // namespace

Connection::StatementDescription Connection::prepareStatement(const std::string& name, std::string_view sql,
                                                              const std::vector<std::optional<SqlType>>& declaredTypes) {
  if (!name.empty() && protocolStatements_.count(name))
    throw Error(sqlstate::DuplicatePreparedStatement, "prepared statement \"" + name + "\" already exists");
  if (name.empty()) protocolStatements_.erase(name);  // gone even if its successor fails, as in PostgreSQL
  auto entry = std::make_shared<ProtocolStatement>();
  entry->name = name;
  const std::string text(sql);
  for (const auto& t : declaredTypes) entry->declared.push_back(t ? t->withNullable(true) : SqlType::null());
  db_.executor().run(this, [&] {
    RoutineCallerScope scope(routineCaller_.get());
    try {
      ast::StatementPtr stmt = parseStatement(text);
      // As in PostgreSQL, a failed block refuses all but ending it, and an error here fails it.
      if (txn_ == TransactionState::Failed && stmt->kind != ast::StmtKind::Transaction)
        throw Error(sqlstate::InFailedTransaction,
                    "current transaction is aborted, commands ignored until end of transaction block", stmt->pos);
      const bool compiles = (stmt->kind == ast::StmtKind::Select || stmt->kind == ast::StmtKind::Insert ||
                             stmt->kind == ast::StmtKind::Update || stmt->kind == ast::StmtKind::Delete) &&
                            !isFunctionCall(*stmt);
      std::unique_ptr<ast::CallStmt> call;
      if (stmt->kind == ast::StmtKind::Call) call.reset(static_cast<ast::CallStmt*>(stmt.release()));
      else call = functionCall(*stmt);
      if (call) {
        prepareCall(*entry, std::move(call));
        return;
      }
      if (!compiles) {
        if (!entry->declared.empty())
          throw Error(sqlstate::ProtocolViolation, "parameter types given for a statement without parameters");
        entry->description = describeText(*stmt);
        return;
      }
      // The same text with the same declared types reuses its code (the cache's own key for
      // statements without parameters is kept apart: theirs never take any).
      std::string key = cacheSettings() + "|protocol";
      for (const SqlType& t : entry->declared) {
        key += '|';
        key += t.name();
      }
      Catalog& catalog = db_.catalog();
      const bool cache = settings_->statementCache();
      if (cache) entry->compiled = statementCache_->find(text, SourcePos{1, 1}, key, catalog);
      if (!entry->compiled) {
        ThreadScope<const MemoryLimit> memoryLimit(&settings_->memoryLimit());
        ThreadScope<const codegen::ExecutionPolicy> executionPolicy(&settings_->executionPolicy());
        entry->compiled = compileTypingRestAsText(catalog, *stmt, entry->declared, entry->description.times);
        if (cache) statementCache_->add(text, SourcePos{1, 1}, key, entry->compiled);
      }
      entry->statement = std::move(stmt);
      entry->description.parameters = entry->compiled->plan.parameters;
      entry->description.columns = entry->compiled->resultColumns();
    } catch (...) {
      if (txn_ == TransactionState::InBlock) txn_ = TransactionState::Failed;
      throw;
    }
  });
  entry->description.text = text;
  protocolStatements_[name] = entry;
  return entry->description;
}

// A routine call with $n among its arguments: typed by the routine's parameters, so that
// Describe names them and Execute binds them (as PostgreSQL prepares CALL p($1, $2)). Without any
// $n the statement runs as text, as before. On the executor thread.
void Connection::prepareCall(ProtocolStatement& entry, std::unique_ptr<ast::CallStmt> call) {
  std::vector<int> parameters;
  bool any = false;
  for (auto& a : call->args) {
    const bool isParameter = a->kind == ast::ExprKind::Parameter;
    parameters.push_back(isParameter ? std::stoi(a->text) - 1 : -1);
    any = any || isParameter;
  }
  entry.description.columnsKnown = false;  // a function's value, a procedure's OUT parameters: known once it ran
  if (!any) {
    if (!entry.declared.empty())
      throw Error(sqlstate::ProtocolViolation, "parameter types given for a statement without parameters");
    entry.call = std::move(call);  // the text runs as it is
    return;
  }
  std::shared_ptr<const ast::CreateFunctionStmt> def = db_.routines().definition(call->name);
  if (!def)
    throw Error(sqlstate::UndefinedFunction, (call->function ? "function " : "procedure ") + call->name + " does not exist",
                call->namePos);
  sql::Routines::checkCall(*call, *def);
  // The constants' values, once: Execute casts them with the bound parameters.
  std::vector<ast::ExprPtr> constants;
  std::vector<SqlType> constantTypes;
  for (size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i] < 0) {
      constants.push_back(std::move(call->args[i]));
      constantTypes.push_back(def->params[i].type);
    }
  std::vector<Value> constantValues = sql::Binder(db_.catalog()).bindConstants(constants, constantTypes);
  entry.callConstant.assign(parameters.size(), Value());
  for (size_t i = 0, k = 0; i < parameters.size(); ++i)
    if (parameters[i] < 0) entry.callConstant[i] = std::move(constantValues[k++]);
  std::vector<SqlType> types;
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i] < 0) continue;
    const auto n = static_cast<size_t>(parameters[i]);
    if (types.size() <= n) types.resize(n + 1, SqlType::null());
    if (types[n].isNull()) types[n] = def->params[i].type.withNullable(true);
  }
  for (size_t n = 0; n < types.size(); ++n) {
    if (n < entry.declared.size() && !entry.declared[n].isNull()) types[n] = entry.declared[n];  // cast at Execute
    if (types[n].isNull())
      throw Error(sqlstate::IndeterminateDatatype, "could not determine data type of parameter $" + std::to_string(n + 1));
  }
  entry.description.parameters = types;
  entry.callParameter = std::move(parameters);
  entry.call = std::move(call);
}

const Connection::StatementDescription& Connection::describeStatement(const std::string& name) const {
  auto it = protocolStatements_.find(name);
  if (it == protocolStatements_.end())
    throw Error(sqlstate::UndefinedPreparedStatement, "prepared statement \"" + name + "\" does not exist");
  return it->second->description;
}

void Connection::closeStatement(const std::string& name) { protocolStatements_.erase(name); }

QueryResult Connection::executeStatement(const std::string& name, const std::vector<Value>& args) {
  auto it = protocolStatements_.find(name);
  if (it == protocolStatements_.end())
    throw Error(sqlstate::UndefinedPreparedStatement, "prepared statement \"" + name + "\" does not exist");
  std::shared_ptr<ProtocolStatement> s = it->second;  // alive while it runs, whatever it closes
  if (s->call && !s->callParameter.empty()) {
    const std::vector<SqlType>& types = s->description.parameters;
    if (args.size() != types.size()) throw Error(sqlstate::ProtocolViolation, countMismatch(args.size(), name, types.size()));
    // Each argument: its bound value, or its constant, cast to the routine's parameter type as it
    // is now (CREATE OR REPLACE may have changed it since the prepare).
    std::shared_ptr<const ast::CreateFunctionStmt> def = db_.routines().definition(s->call->name);
    if (!def) throw Error(sqlstate::UndefinedFunction, "routine " + s->call->name + " does not exist", s->call->namePos);
    sql::Routines::checkCall(*s->call, *def);
    std::vector<Value> values;
    std::vector<SqlType> wanted;
    for (size_t i = 0; i < s->callParameter.size(); ++i) {
      values.push_back(s->callParameter[i] >= 0 ? args[static_cast<size_t>(s->callParameter[i])] : s->callConstant[i]);
      wanted.push_back(def->params[i].type);
    }
    values = sql::Binder(db_.catalog()).castValues(values, wanted);
    return withStatementTimeout([&] { return call(s->call->name, values); });
  }
  if (!s->compiled) {
    if (!args.empty()) throw Error(sqlstate::ProtocolViolation, countMismatch(args.size(), name, 0));
    return execute(s->description.text);
  }
  return withStatementTimeout([&] {
    return runOrAskSnapshot(
        [&](std::shared_ptr<sql::Snapshot>* snapshot) {
          RoutineCallerScope scope(routineCaller_.get());
          SequenceSessionScope sequences(sequences_.get());
          return runProtocolStatement(*s, args, snapshot);
        },
        s->description.text, SourcePos{1, 1});
  });
}

// On the executor thread: as run() and executePrepared() do for SQL text.
QueryResult Connection::runProtocolStatement(ProtocolStatement& s, const std::vector<Value>& args,
                                             std::shared_ptr<sql::Snapshot>* snapshot) {
  db_.snapshots().sweep();
  if (txn_ == TransactionState::Failed)
    throw Error(sqlstate::InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block");
  try {
    refuseWriteIfReadOnly(*s.statement);
  } catch (...) {
    txn_ = TransactionState::Failed;
    throw;
  }
  sequences_->readOnly = readOnly_ && txn_ != TransactionState::Idle;
  const bool reads = s.statement->kind == ast::StmtKind::Select;
  bool wrote = true;
  OnExit noted([&] {
    if (wrote) noteInline();
  });
  return atomically([&] {
    Catalog& catalog = db_.catalog();
    PhaseTimes times;
    if (s.compiled->catalogVersion != catalog.version()) {  // the schema changed: bind and compile again
      std::shared_ptr<sql::CompiledStatement> again = compileTypingRestAsText(catalog, *s.statement, s.declared, times);
      // The client was told the types at Describe and decodes by them (PostgreSQL's error too).
      if (!sameColumns(again->resultColumns(), s.description.columns) || again->plan.parameters.size() != s.description.parameters.size())
        throw Error(sqlstate::FeatureNotSupported, "cached plan must not change result type");
      s.compiled = std::move(again);
    }
    const std::vector<SqlType>& types = s.compiled->plan.parameters;
    if (args.size() != types.size()) throw Error(sqlstate::ProtocolViolation, countMismatch(args.size(), s.name, types.size()));
    auto values = std::make_shared<std::vector<Value>>(sql::Binder(catalog).castValues(args, types));
    if (snapshot && preparedQueryOnSnapshot(*s.statement, *s.compiled, s.description.text)) {  // the worker gets the values, cast
      snapshotParameters_ = std::move(*values);
      *snapshot = pickSnapshot(s.compiled);
      wrote = false;
      return QueryResult();
    }
    const size_t logged = undo_->size();
    QueryResult r = sql::runWithValues(*s.compiled, *undo_, std::move(values), &cancel_, times);
    wrote = !reads || undo_->size() != logged;
    return r;
  });
}

}  // namespace hyrax
