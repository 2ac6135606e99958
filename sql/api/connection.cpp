// Statement execution: parse, plan (statement_planner.hpp), compile, run; DDL directly on the catalog.
#include <chrono>
#include <cstring>
#include <optional>

#include "codegen/translate/query_compiler.hpp"
#include "engine/catalog/catalog.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/runtime/thread_scope.hpp"
#include "sql/api/session_settings.hpp"
#include "sql/api/text_result.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/txn/serial_executor.hpp"
#include "engine/txn/undo_log.hpp"
#include "sql/api/compiled_statement.hpp"
#include "sql/api/copy.hpp"
#include "sql/api/ddl.hpp"
#include "sql/api/procedure.hpp"
#include "sql/api/snapshot.hpp"
#include "sql/api/database.hpp"
#include "sql/api/table_writer.hpp"
#include "sql/api/statement_planner.hpp"
#include "sql/parser/parser.hpp"
#include "sql/semantic/binder.hpp"

namespace hyrax {

namespace {

using sql::Clock;
using sql::msSince;

QueryResult explainResult(const std::string& text, PhaseTimes times) {
  std::vector<std::vector<std::string>> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back({text.substr(start, nl - start)});
    start = nl + 1;
  }
  QueryResult r = sql::textResult({"QUERY PLAN"}, lines, "EXPLAIN");
  r.times = times;
  return r;
}

}  // namespace

// A prepared statement: its text's tree (to compile again when the schema changed) and the code.
struct Connection::Prepared {
  ast::StatementPtr statement;
  std::vector<SqlType> declared;
  std::unique_ptr<sql::CompiledStatement> compiled;
};

Connection::Connection(Database& db)
    : db_(db), undo_(std::make_unique<UndoLog>()),
      routineCaller_(std::make_unique<sql::SessionRoutines>(db.routines(), db.catalog(), *undo_, &cancel_)),
      settings_(std::make_unique<SessionSettings>()) {}

Connection::~Connection() {
  if (pending_) {
    try {
      finishCall();
    } catch (...) {  // its error has no one to go to; what it did was undone
    }
  }
  if (txn_ == TransactionState::Idle) return;
  try {
    db_.executor().run(this, [&] { endTransaction(false); });
  } catch (...) {  // a destructor does not throw; the executor is released either way
  }
}

std::vector<QueryResult> Connection::executeScript(std::string_view sql) {
  std::vector<QueryResult> results;
  for (auto& st : splitStatements(sql)) results.push_back(execute(st.text, SourcePos{st.line, st.column}));
  return results;
}

QueryResult Connection::execute(std::string_view sql) { return execute(sql, SourcePos{1, 1}); }

QueryResult Connection::execute(std::string_view sql, SourcePos origin) {
  if (pending_) throw Error(sqlstate::ObjectNotInPrerequisiteState, "a call started on this connection has not finished");
  cancel_.store(false);
  QueryResult r;
  // A query on a snapshot: the executor forks and goes on; this thread waits for the child's
  // answer. A child that found the query writes (a stored function it called changed a table)
  // answers "run it inline", and the second round does.
  for (bool mayFork = true;; mayFork = false) {
    std::unique_ptr<sql::SnapshotQuery> snapshot;
    db_.executor().run(this, [&] {
      RoutineCallerScope scope(routineCaller_.get());
      r = run(sql, origin, mayFork ? &snapshot : nullptr);
    });
    if (!snapshot) return r;
    snapshotPid_.store(snapshot->pid());
    std::optional<QueryResult> answer;
    try {
      answer = snapshot->finish(cancel_);
    } catch (...) {
      snapshotPid_.store(0);
      throw;
    }
    snapshotPid_.store(0);
    if (answer) return std::move(*answer);
  }
}

// A SELECT (or EXPLAIN ANALYZE of one) or a COPY ... TO a file outside a transaction block, with
// SET analytics = 'snapshot'; not a stored function called alone (that is a call, which may
// write). COPY ... TO STDOUT stays inline: its rows go to this process's stream.
bool Connection::runsOnSnapshot(const ast::Statement& stmt) const {
  if (!settings_->analyticsOnSnapshot() || txn_ != TransactionState::Idle) return false;
  if (stmt.kind == ast::StmtKind::Explain) {
    auto& e = static_cast<const ast::ExplainStmt&>(stmt);
    return e.analyze && e.statement->kind == ast::StmtKind::Select;
  }
  if (stmt.kind == ast::StmtKind::Copy) {
    auto& c = static_cast<const ast::CopyStmt&>(stmt);
    return !c.from && !c.stdio;
  }
  return stmt.kind == ast::StmtKind::Select && !isFunctionCall(stmt);
}

void Connection::endTransaction(bool commit) {
  if (commit) undo_->commit();
  else undo_->rollbackTo(0);
  txn_ = TransactionState::Idle;
  db_.executor().release(this);
}

QueryResult Connection::transactionControl(const ast::TransactionStmt& t) {
  using Op = ast::TransactionStmt::Op;
  QueryResult r;
  switch (t.op) {
    case Op::Begin:
      r = QueryResult({}, {}, "BEGIN");
      if (txn_ != TransactionState::Idle) {
        r.notices.push_back({"WARNING", "there is already a transaction in progress"});
        return r;
      }
      txn_ = TransactionState::InBlock;
      db_.executor().hold(this);
      return r;
    case Op::Commit:
    case Op::Rollback: {
      bool commit = t.op == Op::Commit && txn_ == TransactionState::InBlock;
      // COMMIT of a failed block rolls it back, and says so in its tag, as PostgreSQL does.
      r = QueryResult({}, {}, commit || (t.op == Op::Commit && txn_ == TransactionState::Idle) ? "COMMIT" : "ROLLBACK");
      if (txn_ == TransactionState::Idle) {
        r.notices.push_back({"WARNING", "there is no transaction in progress"});
        return r;
      }
      endTransaction(commit);
      return r;
    }
  }
  return r;
}

QueryResult Connection::prepare(ast::PrepareStmt& p) {
  if (prepared_.count(p.name)) throw Error("42P05", "prepared statement \"" + p.name + "\" already exists", p.pos);
  auto entry = std::make_unique<Prepared>();
  entry->declared = p.types;
  PhaseTimes times;
  entry->compiled = sql::compileStatement(db_.catalog(), *p.statement, p.types, times);
  entry->statement = std::move(p.statement);
  prepared_[p.name] = std::move(entry);
  QueryResult r({}, {}, "PREPARE");
  r.times = times;
  return r;
}

QueryResult Connection::executePrepared(const ast::ExecuteStmt& e, PhaseTimes& times) {
  auto it = prepared_.find(e.name);
  if (it == prepared_.end()) throw Error("26000", "prepared statement \"" + e.name + "\" does not exist", e.namePos);
  Prepared& p = *it->second;
  Catalog& catalog = db_.catalog();
  if (p.compiled->catalogVersion != catalog.version())  // the schema changed: bind and compile again
    p.compiled = sql::compileStatement(catalog, *p.statement, p.declared, times);
  const auto& types = p.compiled->plan.parameters;
  if (e.args.size() != types.size())
    throw Error(sqlstate::SyntaxError, "wrong number of parameters for prepared statement \"" + e.name + "\"", e.pos)
        .withDetail("Expected " + std::to_string(types.size()) + " parameters but got " + std::to_string(e.args.size()) + ".");
  auto values = std::make_shared<std::vector<Value>>(sql::Binder(catalog).bindConstants(e.args, types));
  std::vector<ValueSlot> slots(std::max<size_t>(types.size(), 1), ValueSlot{});
  for (size_t i = 0; i < values->size(); ++i) {
    if ((*values)[i].isNull()) slots[i].null = 1;
    else (*values)[i].encode(types[i], slots[i].bytes());
  }
  QueryResult r = sql::runStatement(*p.compiled, *undo_, slots, &cancel_, times);
  r.keepAlive(values);  // result strings may be parameter values
  return r;
}

QueryResult Connection::run(std::string_view sql, SourcePos origin, std::unique_ptr<sql::SnapshotQuery>* snapshot) {
  PhaseTimes times;
  auto t = Clock::now();
  ast::StatementPtr stmt = parseStatement(sql, origin);
  times.parse = msSince(t);
  if (stmt->kind == ast::StmtKind::Transaction) return transactionControl(static_cast<const ast::TransactionStmt&>(*stmt));
  if (txn_ == TransactionState::Failed)
    throw Error(sqlstate::InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block",
                stmt->pos);
  if (snapshot && runsOnSnapshot(*stmt)) {
    // Between two statements, no block open: the fork sees exactly the committed state.
    *snapshot = sql::SnapshotQuery::start([&]() -> QueryResult {  // runs in the child only
      if (snapshotHook_) snapshotHook_();
      ThreadScope<const MemoryLimit> memoryLimit(&settings_->memoryLimit());
      const size_t logged = undo_->size();
      QueryResult r = dispatch(stmt, times);
      if (undo_->size() != logged) throw sql::RunInlineInstead{};  // it wrote: lost here
      return r;
    });
    return QueryResult();
  }
  return atomically([&] { return dispatch(stmt, times); });
}

// Each statement is atomic: on an error everything it did is undone (and an open block fails).
QueryResult Connection::atomically(const std::function<QueryResult()>& statement) {
  ThreadScope<const MemoryLimit> memoryLimit(&settings_->memoryLimit());  // for the contexts it makes
  const size_t savepoint = undo_->savepoint();
  try {
    QueryResult r = statement();
    if (txn_ == TransactionState::Idle) undo_->commit();
    return r;
  } catch (...) {
    undo_->rollbackTo(savepoint);
    if (txn_ == TransactionState::InBlock) txn_ = TransactionState::Failed;
    try {
      throw;
    } catch (const std::bad_alloc&) {  // what the statement built did not fit: its error, not an internal one
      throw Error(sqlstate::OutOfMemory, kOutOfMemoryMessage);
    }
  }
}

QueryResult Connection::call(const std::string& name, const std::vector<Value>& args) {
  if (pending_) throw Error(sqlstate::ObjectNotInPrerequisiteState, "a call started on this connection has not finished");
  cancel_.store(false);
  QueryResult r;
  db_.executor().run(this, [&] { r = callOnExecutor(name, args); });
  return r;
}

QueryResult Connection::callOnExecutor(const std::string& name, const std::vector<Value>& args) {
  RoutineCallerScope scope(routineCaller_.get());
  if (txn_ == TransactionState::Failed)
    throw Error(sqlstate::InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block");
  return atomically([&] { return db_.routines().call(db_.catalog(), *undo_, name, args, &cancel_); });
}

// A started call: what it needs lives here until finishCall().
struct Connection::PendingCall {
  std::string name;
  std::vector<Value> args;
  QueryResult result;
  std::function<void()> work;
  SerialExecutor::Ticket ticket;
};

void Connection::startCall(const std::string& name, std::vector<Value> args) {
  if (pending_) throw Error(sqlstate::ObjectNotInPrerequisiteState, "a call started on this connection has not finished");
  cancel_.store(false);
  auto p = std::make_unique<PendingCall>();
  p->name = name;
  p->args = std::move(args);
  PendingCall* raw = p.get();
  p->work = [this, raw] { raw->result = callOnExecutor(raw->name, raw->args); };
  p->ticket = db_.executor().submit(this, p->work);
  pending_ = std::move(p);
}

QueryResult Connection::finishCall() {
  if (!pending_) throw Error(sqlstate::ObjectNotInPrerequisiteState, "no call was started on this connection");
  std::unique_ptr<PendingCall> p = std::move(pending_);
  db_.executor().wait(p->ticket);
  return std::move(p->result);
}

// SELECT f(args) of a stored function (alone: no FROM, nothing else) is a call of it.
bool Connection::isFunctionCall(const ast::Statement& stmt) const {
  if (stmt.kind != ast::StmtKind::Select) return false;
  const ast::Select& s = *static_cast<const ast::SelectStmt&>(stmt).select;
  bool alone = s.setOp == ast::SetOp::None && s.from.empty() && !s.where && s.items.size() == 1 && s.groupBy.empty() &&
               !s.having && !s.distinct && !s.limit && !s.offset && s.orderBy.empty() && s.with.empty();
  if (!alone) return false;
  // Alone it is a call (no plan at all); elsewhere in a query the plan calls it for each row.
  const ast::Expr& e = *s.items[0].expr;
  return e.kind == ast::ExprKind::Function && !e.distinct && !e.star && e.table.empty() && db_.routines().exists(e.name);
}

std::unique_ptr<ast::CallStmt> Connection::functionCall(const ast::Statement& stmt) {
  if (!isFunctionCall(stmt)) return nullptr;
  ast::Expr& e = *static_cast<const ast::SelectStmt&>(stmt).select->items[0].expr;
  auto call = std::make_unique<ast::CallStmt>(stmt.pos);
  call->name = e.name;
  call->namePos = e.pos;
  call->function = true;
  call->args = std::move(e.args);
  return call;
}

QueryResult Connection::dispatch(ast::StatementPtr& stmtPtr, PhaseTimes& times) {
  const ast::Statement* stmt = stmtPtr.get();
  Catalog& catalog = db_.catalog();
  UndoLog& undo = *undo_;

  switch (stmt->kind) {
    case ast::StmtKind::CreateTable:
      return sql::createTable(catalog, undo, static_cast<const ast::CreateTableStmt&>(*stmt));
    case ast::StmtKind::DropTable: {
      auto& d = static_cast<const ast::DropTableStmt&>(*stmt);
      if (d.object == ast::ObjectKind::Function || d.object == ast::ObjectKind::Procedure)
        return db_.routines().drop(catalog, undo, d);
      return sql::dropObjects(catalog, undo, d);
    }
    case ast::StmtKind::CreateFunction: {
      std::unique_ptr<ast::CreateFunctionStmt> f(static_cast<ast::CreateFunctionStmt*>(stmtPtr.release()));
      return db_.routines().create(catalog, undo, std::move(f), times);
    }
    case ast::StmtKind::Call:
      return db_.routines().call(catalog, undo, static_cast<const ast::CallStmt&>(*stmt), &cancel_, times);
    case ast::StmtKind::CreateView:
      return sql::createView(catalog, undo, static_cast<const ast::CreateViewStmt&>(*stmt));
    case ast::StmtKind::CreateIndex:
      return sql::createIndex(catalog, undo, static_cast<const ast::CreateIndexStmt&>(*stmt));
    case ast::StmtKind::Transaction:
      return transactionControl(static_cast<const ast::TransactionStmt&>(*stmt));
    case ast::StmtKind::Analyze: {
      auto& a = static_cast<const ast::AnalyzeStmt&>(*stmt);
      std::vector<Table*> targets;
      if (!a.table.empty()) {
        Table* t = catalog.findTable(a.table);
        if (!t) throw Error(sqlstate::UndefinedTable, "relation \"" + a.table + "\" does not exist", a.tablePos);
        targets.push_back(t);
      } else {
        for (const Table* t : catalog.tables()) targets.push_back(catalog.findTable(t->name()));
      }
      for (Table* t : targets) t->setStatistics(gatherStatistics(*t));
      return QueryResult({}, {}, "ANALYZE");
    }
    case ast::StmtKind::Select:
    case ast::StmtKind::Insert:
    case ast::StmtKind::Update:
    case ast::StmtKind::Delete: {
      if (auto call = functionCall(*stmt)) return db_.routines().call(catalog, undo, *call, &cancel_, times);
      auto compiled = sql::compileStatement(catalog, *stmt, {}, times);
      if (!compiled->plan.parameters.empty())
        throw Error("42P02", "there is no parameter $1 (parameters need PREPARE and EXECUTE)", stmt->pos);
      return sql::runStatement(*compiled, undo, {}, &cancel_, times);
    }
    case ast::StmtKind::Prepare: return prepare(static_cast<ast::PrepareStmt&>(*stmtPtr));
    case ast::StmtKind::Execute: return executePrepared(static_cast<const ast::ExecuteStmt&>(*stmt), times);
    case ast::StmtKind::Setting: return settings_->apply(static_cast<const ast::SettingStmt&>(*stmt), undo);
    case ast::StmtKind::Deallocate: {
      auto& d = static_cast<const ast::DeallocateStmt&>(*stmt);
      if (d.name.empty()) prepared_.clear();
      else if (!prepared_.erase(d.name))
        throw Error("26000", "prepared statement \"" + d.name + "\" does not exist", d.namePos);
      return QueryResult({}, {}, d.name.empty() ? "DEALLOCATE ALL" : "DEALLOCATE");
    }
    case ast::StmtKind::Copy: {
      CopyContext ctx{catalog, copyIn_, copyOut_,
                      [&](const ast::Select& sel) {
                        auto compiled = sql::compileQuery(catalog, sel, times);
                        return sql::runStatement(*compiled, undo, {}, &cancel_, times);
                      }, progress_,
                      [&](Table& table, uint64_t first) { sql::finishLoad(catalog, undo, table, first, &cancel_); }};
      ctx.cancel = &cancel_;
      QueryResult r = executeCopy(static_cast<const ast::CopyStmt&>(*stmt), ctx);
      r.times = times;
      return r;
    }
    case ast::StmtKind::Explain: {
      auto& e = static_cast<const ast::ExplainStmt&>(*stmt);
      if (e.analyze && e.statement->kind == ast::StmtKind::Insert)
        throw Error(sqlstate::FeatureNotSupported, "EXPLAIN ANALYZE of INSERT is not supported yet", e.pos);
      if (e.statement->kind != ast::StmtKind::Select && e.statement->kind != ast::StmtKind::Insert &&
          e.statement->kind != ast::StmtKind::Update && e.statement->kind != ast::StmtKind::Delete)
        throw Error(sqlstate::FeatureNotSupported, "EXPLAIN supports SELECT, INSERT, UPDATE and DELETE", e.statement->pos);
      // The plan execution would run (UPDATE, DELETE: the one that finds the rows and computes
      // their new values, which EXPLAIN ANALYZE runs without changing anything).
      sql::PlannedStatement planned = sql::planStatement(catalog, *e.statement, {}, times);
      const plan::QueryPlan& target = planned.plan;
      std::string text;
      if (e.llvm || e.asm_) {
        codegen::CompileOptions opts;
        opts.keepIR = e.llvm;
        opts.keepAssembly = e.asm_;
        sql::Execution ex = sql::compileAndRun(target, opts, &cancel_, times, false);
        text = e.llvm ? ex.compiled->ir() : "";
        if (e.asm_) text += ex.compiled->assembly();
      } else if (e.analyze) {
        codegen::CompileOptions opts;
        opts.countRows = true;
        sql::Execution ex = sql::compileAndRun(target, opts, &cancel_, times);
        uint64_t rows = 0;
        for (auto& c : ex.ctx->takeResults()) rows += c->rowCount();
        text = plan::explain(target, &ex.ctx->operatorCounters());
        char buf[512];
        std::snprintf(buf, sizeof(buf),
                      "Result rows: %llu\nParse: %.3f ms\nPlan: %.3f ms\nCodegen: %.3f ms\nLLVM optimize: %.3f ms\n"
                      "Machine code: %.3f ms\nExecute: %.3f ms\nTotal: %.3f ms\n",
                      static_cast<unsigned long long>(rows), times.parse, times.plan, times.codegen, times.optimize,
                      times.machineCode, times.execute, times.total());
        text += buf;
        double forkMs = 0;
        if (sql::inSnapshotChild(&forkMs)) std::snprintf(buf, sizeof(buf), "Ran on: snapshot (fork %.3f ms)\n", forkMs);
        else std::snprintf(buf, sizeof(buf), "Ran on: inline\n");
        text += buf;
      } else {
        text = plan::explain(target);
      }
      return explainResult(text, times);
    }
  }
  throw Error(sqlstate::InternalError, "unknown statement");
}

}  // namespace hyrax
