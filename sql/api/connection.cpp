// Statement execution: parse, plan (statement_planner.hpp), compile, run; DDL directly on the catalog.
#include <chrono>
#include <cstring>
#include <optional>

#include "codegen/translate/query_compiler.hpp"
#include "engine/catalog/catalog.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/runtime/sequence_calls.hpp"
#include "engine/runtime/thread_scope.hpp"
#include "sql/api/session_settings.hpp"
#include "sql/api/statement_cache.hpp"
#include "sql/api/text_result.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/types/timestamp.hpp"
#include "engine/util/on_exit.hpp"
#include "engine/txn/serial_executor.hpp"
#include "engine/txn/undo_log.hpp"
#include "sql/api/compiled_statement.hpp"
#include "sql/api/explain_analyze.hpp"
#include "sql/api/copy.hpp"
#include "sql/api/ddl.hpp"
#include "sql/api/procedure.hpp"
#include "sql/api/roles.hpp"
#include "sql/api/snapshot.hpp"
#include "sql/api/statement_timer.hpp"
#include "sql/api/database.hpp"
#include "sql/api/table_writer.hpp"
#include "sql/api/statement_planner.hpp"
#include "sql/parser/lexer.hpp"
#include "sql/parser/parser.hpp"
#include "sql/semantic/binder.hpp"
#include "sql/semantic/system_catalog.hpp"

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

void Connection::checkSyntax(std::string_view sql, SourcePos origin) {
  parseStatement(sql, origin);
}

// A prepared statement: its text's tree (to compile again when the schema changed) and the code.
struct Connection::Prepared {
  ast::StatementPtr statement;
  std::vector<SqlType> declared;
  std::shared_ptr<sql::CompiledStatement> compiled;
  std::string text;  // the PREPARE statement, and where it began: what a snapshot worker compiles
  SourcePos origin;
};

Connection::Connection(Database& db)
    : db_(db), undo_(std::make_unique<UndoLog>()),
      routineCaller_(std::make_unique<sql::SessionRoutines>(db.routines(), db.catalog(), *undo_, &cancel_)),
      sequences_(std::make_unique<SequenceSession>()),
      statementCache_(std::make_unique<sql::StatementCache>()),
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

void Connection::setSessionUser(const std::string& role) {
  settings_->setInitial("session_authorization", role, false);
  settings_->setInitial("is_superuser", role == sql::kRoleName ? "on" : "off", false);  // as pg_roles' rolsuper
}

bool Connection::setStartupSetting(const std::string& name, const std::string& value) {
  return settings_->setInitial(name, value, true);
}

std::optional<std::string> Connection::setting(const std::string& name) const { return settings_->settingValue(name); }

uint64_t Connection::settingsChanges() const { return settings_->changes(); }

std::vector<QueryResult> Connection::executeScript(std::string_view sql) {
  std::vector<QueryResult> results;
  for (auto& st : splitStatements(sql)) results.push_back(execute(st.text, SourcePos{st.line, st.column}));
  return results;
}

void Connection::beginImplicitBlock(bool pipeline) {
  if (!inImplicit_) queryTime_ = text::clockMicros();  // PostgreSQL's statement_timestamp(): the Query's arrival
  inImplicit_ = true;
  pipeline_ = pipeline;
}

void Connection::endImplicitBlock() {
  inImplicit_ = false;
  if (!implicitOpen_) return;
  const bool commit = txn_ == TransactionState::InBlock;
  if (implicitWrites_) db_.executor().run(this, [&] { endTransaction(commit); });
  else endTransaction(commit);  // only SET's changes, the session's own: no turn to wait for
}

int64_t Connection::transactionStart() const { return inImplicit_ ? queryTime_ : text::clockMicros(); }

QueryResult Connection::execute(std::string_view sql) { return execute(sql, SourcePos{1, 1}); }

QueryResult Connection::execute(std::string_view sql, SourcePos origin) {
  return withStatementTimeout([&] {
    return runOrAskSnapshot(
        [&](std::shared_ptr<sql::Snapshot>* snapshot) {
          RoutineCallerScope scope(routineCaller_.get());
          SequenceSessionScope sequences(sequences_.get());
          try {
            return run(sql, origin, snapshot);
          } catch (...) {
            // Whatever failed it, its parse too, fails an open block, as in PostgreSQL.
            if (txn_ == TransactionState::InBlock) txn_ = TransactionState::Failed;
            throw;
          }
        },
        sql, origin);
  });
}

QueryResult Connection::withStatementTimeout(const std::function<QueryResult()>& statement) {
  if (pending_) throw Error(sqlstate::ObjectNotInPrerequisiteState, "a call started on this connection has not finished");
  cancel_.store(false);
  timedOut_.store(false);
  std::optional<sql::StatementTimer> timer;
  if (uint64_t ms = settings_->statementTimeoutMs())
    timer.emplace(Clock::now() + std::chrono::milliseconds(ms), &cancel_, &timedOut_);
  try {
    return statement();
  } catch (const Error& e) {
    if (e.sqlstate() == sqlstate::QueryCanceled && timedOut_.load())
      throw Error(sqlstate::QueryCanceled, "canceling statement due to statement timeout", e.pos());
    throw;
  }
}

void Connection::refuseWriteIfReadOnly(const ast::Statement& stmt) const {
  if (!readOnly_ || txn_ == TransactionState::Idle) return;
  const char* what = nullptr;
  switch (stmt.kind) {
    case ast::StmtKind::Select:
    case ast::StmtKind::Explain:
    case ast::StmtKind::Setting:
    case ast::StmtKind::Prepare:
    case ast::StmtKind::Execute:  // checked when it runs: a prepared SELECT may
    case ast::StmtKind::Deallocate:
    case ast::StmtKind::Transaction: return;
    case ast::StmtKind::Copy:
      if (!static_cast<const ast::CopyStmt&>(stmt).from) return;
      what = "COPY FROM";
      break;
    case ast::StmtKind::Insert: what = "INSERT"; break;
    case ast::StmtKind::Update: what = "UPDATE"; break;
    case ast::StmtKind::Delete: what = "DELETE"; break;
    case ast::StmtKind::CreateTable: what = "CREATE TABLE"; break;
    case ast::StmtKind::DropTable: what = "DROP"; break;
    case ast::StmtKind::CreateIndex: what = "CREATE INDEX"; break;
    case ast::StmtKind::CreateView: what = "CREATE VIEW"; break;
    case ast::StmtKind::CreateFunction: what = "CREATE FUNCTION"; break;
    case ast::StmtKind::Call: what = "CALL"; break;
    case ast::StmtKind::Analyze: what = "ANALYZE"; break;
    case ast::StmtKind::Reindex: what = "REINDEX"; break;
    case ast::StmtKind::CreateSequence: what = "CREATE SEQUENCE"; break;
    case ast::StmtKind::AlterTable: what = "ALTER TABLE"; break;
    case ast::StmtKind::Role: {
      static const char* const kRole[] = {"CREATE ROLE", "ALTER ROLE", "DROP ROLE"};
      what = kRole[static_cast<int>(static_cast<const ast::RoleStmt&>(stmt).op)];
      break;
    }
  }
  throw Error(sqlstate::ReadOnlyTransaction, std::string("cannot execute ") + (what ? what : "this statement") +
                                                 " in a read-only transaction", stmt.pos);
}

void Connection::noteInline() { lastInline_ = db_.snapshots().noteWrite(db_.catalog().version()); }

// What besides the text a statement cache entry is compiled for (StatementCache's `settings`).
std::string Connection::cacheSettings() const {
  return std::to_string(static_cast<int>(settings_->executionPolicy().tier));
}

void Connection::endTransaction(bool commit) {
  if (commit) undo_->commit();
  else undo_->rollbackTo(0);
  settings_->endTransaction(commit);
  txn_ = TransactionState::Idle;
  if (implicitOpen_ ? implicitWrites_ : !blockOnSnapshot_) db_.executor().release(this);  // if it held it
  readOnly_ = blockOnSnapshot_ = implicitOpen_ = implicitWrites_ = false;
  pinned_.reset();
  savepoints_.clear();
}

std::vector<Connection::Savepoint>::iterator Connection::findSavepoint(const ast::TransactionStmt& t) {
  for (auto it = savepoints_.end(); it != savepoints_.begin();)
    if ((--it)->name == t.savepoint) return it;
  throw Error(sqlstate::InvalidSavepoint, "savepoint \"" + t.savepoint + "\" does not exist", t.savepointPos);
}

QueryResult Connection::transactionControl(const ast::TransactionStmt& t) {
  using Op = ast::TransactionStmt::Op;
  QueryResult r;
  switch (t.op) {
    case Op::Begin:
      r = QueryResult({}, {}, "BEGIN");
      if (txn_ != TransactionState::Idle && !implicitOpen_) {
        r.notices.push_back({"WARNING", "there is already a transaction in progress", "25001"});
        return r;
      }
      // In an implicit block (never a failed one: the Query stopped at its error), as PostgreSQL:
      // the Query's statements before it become part of the block it begins.
      if (!implicitOpen_) undo_->beginTransactionAt(transactionStart());  // now() for the whole block, as in PostgreSQL
      txn_ = TransactionState::InBlock;
      readOnly_ = t.readOnly;
      // A READ ONLY block on snapshots leaves the executor to others: its queries run on one
      // snapshot, which no one's later commits change. (Not one that wrote before: those writes
      // are in no snapshot, and it holds the executor already.)
      blockOnSnapshot_ = t.readOnly && settings_->analyticsOnSnapshot() && !implicitWrites_;
      if (!blockOnSnapshot_) db_.executor().hold(this);
      implicitOpen_ = implicitWrites_ = false;
      return r;
    case Op::Commit:
    case Op::Rollback: {
      bool commit = t.op == Op::Commit && txn_ == TransactionState::InBlock;
      // COMMIT of a failed block rolls it back, and says so in its tag, as PostgreSQL does.
      r = QueryResult({}, {}, commit || (t.op == Op::Commit && txn_ == TransactionState::Idle) ? "COMMIT" : "ROLLBACK");
      // Ending an implicit block warns too (no BEGIN came before: perhaps a mistake), as PostgreSQL.
      if (txn_ == TransactionState::Idle || implicitOpen_)
        r.notices.push_back({"WARNING", "there is no transaction in progress", "25P01"});
      if (txn_ != TransactionState::Idle) endTransaction(commit);
      return r;
    }
    case Op::Savepoint:
    case Op::Release:
    case Op::RollbackTo: {
      // Each one's name in PostgreSQL's errors, and its command tag.
      static const char* const kCommand[] = {"SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT"};
      static const char* const kTag[] = {"SAVEPOINT", "RELEASE", "ROLLBACK"};
      const int k = static_cast<int>(t.op) - static_cast<int>(Op::Savepoint);
      // As in PostgreSQL: only in a block begun by BEGIN (a Query's implicit one has none), and a
      // failed block takes only ROLLBACK [TO].
      if (txn_ == TransactionState::Idle || implicitOpen_)
        throw Error(sqlstate::NoActiveTransaction, std::string(kCommand[k]) + " can only be used in transaction blocks", t.pos);
      if (txn_ == TransactionState::Failed && t.op != Op::RollbackTo)
        throw Error(sqlstate::InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block",
                    t.pos);
      if (t.op == Op::Savepoint) {
        savepoints_.push_back({t.savepoint, undo_->savepoint()});
      } else if (t.op == Op::Release) {
        // The savepoint and every later one go; what was done since stays in the transaction.
        savepoints_.erase(findSavepoint(t), savepoints_.end());
      } else {
        // Undoes what came after the savepoint (settings too: SET logs its undo), which stays
        // set; later ones go. A failed block is usable again.
        auto it = findSavepoint(t);
        undo_->rollbackTo(it->undoLength);
        savepoints_.erase(it + 1, savepoints_.end());
        txn_ = TransactionState::InBlock;
      }
      return QueryResult({}, {}, kTag[k]);
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
  entry->text = std::string(statementText_);
  entry->origin = statementOrigin_;
  prepared_[p.name] = std::move(entry);
  QueryResult r({}, {}, "PREPARE");
  r.times = times;
  return r;
}

// EXECUTE of a prepared SELECT goes where the extended protocol's prepared query would
// (preparedQueryOnSnapshot). Null: it runs here.
std::shared_ptr<sql::Snapshot> Connection::executeOnSnapshot(const ast::ExecuteStmt& e) {
  auto it = prepared_.find(e.name);
  if (it == prepared_.end() || it->second->text.empty()) return nullptr;
  Prepared& p = *it->second;
  if (p.statement->kind != ast::StmtKind::Select) return nullptr;
  Catalog& catalog = db_.catalog();
  if (p.compiled->catalogVersion != catalog.version()) {
    PhaseTimes times;
    p.compiled = sql::compileStatement(catalog, *p.statement, p.declared, times);
  }
  const auto& types = p.compiled->plan.parameters;
  if (e.args.size() != types.size()) return nullptr;  // executePrepared says what is wrong
  if (!preparedQueryOnSnapshot(*p.statement, *p.compiled, p.text)) return nullptr;
  snapshotParameters_ = sql::Binder(catalog).bindConstants(e.args, types);
  snapshotText_ = p.text;
  snapshotOrigin_ = p.origin;
  return pickSnapshot(p.compiled);
}

QueryResult Connection::executePrepared(const ast::ExecuteStmt& e, PhaseTimes& times) {
  auto it = prepared_.find(e.name);
  if (it == prepared_.end()) throw Error("26000", "prepared statement \"" + e.name + "\" does not exist", e.namePos);
  Prepared& p = *it->second;
  if (p.statement->kind != ast::StmtKind::Select) refuseWriteIfReadOnly(*p.statement);  // fails the block (atomically)
  Catalog& catalog = db_.catalog();
  if (p.compiled->catalogVersion != catalog.version())  // the schema changed: bind and compile again
    p.compiled = sql::compileStatement(catalog, *p.statement, p.declared, times);
  const auto& types = p.compiled->plan.parameters;
  if (e.args.size() != types.size())
    throw Error(sqlstate::SyntaxError, "wrong number of parameters for prepared statement \"" + e.name + "\"", e.pos)
        .withDetail("Expected " + std::to_string(types.size()) + " parameters but got " + std::to_string(e.args.size()) + ".");
  auto values = std::make_shared<std::vector<Value>>(sql::Binder(catalog).bindConstants(e.args, types));
  return sql::runWithValues(*p.compiled, *undo_, std::move(values), &cancel_, times);
}

QueryResult Connection::run(std::string_view sql, SourcePos origin, std::shared_ptr<sql::Snapshot>* snapshot) {
  sql::SnapshotPool& snapshots = db_.snapshots();
  snapshots.sweep();
  PhaseTimes times;
  auto t = Clock::now();
  ast::StatementPtr stmt = parseStatement(sql, origin);
  times.parse = msSince(t);
  statementText_ = sql;  // for the statement cache, while dispatch() runs
  statementOrigin_ = origin;
  OnExit forget([&] { statementText_ = {}; });
  if (stmt->kind == ast::StmtKind::Transaction) {
    QueryResult r = transactionControl(static_cast<const ast::TransactionStmt&>(*stmt));
    noteInline();
    return r;
  }
  if (txn_ == TransactionState::Failed)
    throw Error(sqlstate::InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block",
                stmt->pos);
  try {
    refuseWriteIfReadOnly(*stmt);
  } catch (...) {
    txn_ = TransactionState::Failed;
    throw;
  }
  sequences_->readOnly = readOnly_ && txn_ != TransactionState::Idle;
  if (snapshot && stmt->kind == ast::StmtKind::Execute) {
    if (std::shared_ptr<sql::Snapshot> picked = executeOnSnapshot(static_cast<const ast::ExecuteStmt&>(*stmt))) {
      *snapshot = std::move(picked);
      return QueryResult();
    }
  }
  if (snapshot && runsOnSnapshot(*stmt, sql)) {
    // Between two statements, no block open that writes: a snapshot forked now sees exactly the
    // committed state. One forked earlier serves if it is fresh enough and shows this session's
    // own writes; a session with a test hook gets one of its own (forked while the hook is set).
    // Code this session compiled before the fork runs in the worker as it is.
    *snapshot = pickSnapshot(snapshotHook_ ? nullptr : compiledForSnapshots(*stmt, !pinned_));
    return QueryResult();
  }
  if (stmt->kind == ast::StmtKind::Setting) return atomically([&] { return dispatch(stmt, times); }, true);
  // A statement that may have written (also one that failed: it may have written and undone)
  // makes the snapshots taken before it stale; a query that logged no undo did not write.
  const bool reads = stmt->kind == ast::StmtKind::Select || stmt->kind == ast::StmtKind::Explain;
  bool wrote = true;
  OnExit noted([&] {
    if (wrote) noteInline();
  });
  return atomically([&] {
    const size_t logged = undo_->size();
    QueryResult r = dispatch(stmt, times);
    wrote = !reads || undo_->size() != logged;
    return r;
  });
}

// Each statement is atomic: on an error everything it did is undone (and an open block fails).
QueryResult Connection::atomically(const std::function<QueryResult()>& statement, bool sessionOnly) {
  ThreadScope<const MemoryLimit> memoryLimit(&settings_->memoryLimit());  // for the contexts it makes
  ThreadScope<const codegen::ExecutionPolicy> executionPolicy(&settings_->executionPolicy());  // for its compiles
  ThreadScope<const SessionValues> sessionValues(settings_.get());  // current_setting()
  const size_t savepoint = undo_->savepoint();
  if (txn_ == TransactionState::Idle) undo_->beginTransactionAt(transactionStart());  // a statement alone is a transaction
  try {
    QueryResult r = statement();
    if (txn_ == TransactionState::Idle && inImplicit_ && undo_->size() != 0) {
      // The first change in a Query's implicit block: kept until the Query ends (a later failure
      // undoes it).
      txn_ = TransactionState::InBlock;
      implicitOpen_ = true;
    }
    if (implicitOpen_ && !implicitWrites_ && !sessionOnly && undo_->size() != savepoint) {
      // Others must not see (nor build on) what the Query may still undo: they wait, as for BEGIN.
      implicitWrites_ = true;
      db_.executor().hold(this);
    }
    if (txn_ == TransactionState::Idle) {
      undo_->commit();
      settings_->endTransaction(true);
    }
    return r;
  } catch (...) {
    undo_->rollbackTo(savepoint);
    if (txn_ == TransactionState::Idle) settings_->endTransaction(false);
    if (txn_ == TransactionState::InBlock) txn_ = TransactionState::Failed;
    try {
      throw;
    } catch (const Error&) {
      throw;
    } catch (const std::bad_alloc&) {  // what the statement built did not fit: its error, not an internal one
      throw Error(sqlstate::OutOfMemory, kOutOfMemoryMessage);
    } catch (const std::exception& e) {  // a bug: the statement fails with XX000, as on a snapshot
      throw Error(sqlstate::InternalError, e.what());
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
  SequenceSessionScope sequences(sequences_.get());
  sequences_->readOnly = readOnly_ && txn_ != TransactionState::Idle;
  if (txn_ == TransactionState::Failed)
    throw Error(sqlstate::InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block");
  OnExit noted([this] { noteInline(); });
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
               !s.having && !s.distinct && s.distinctOn.empty() && !s.limit && !s.offset && s.orderBy.empty() && s.with.empty();
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
    case ast::StmtKind::CreateTable: {
      auto& c = static_cast<ast::CreateTableStmt&>(*stmtPtr);
      if (!c.asQuery) return sql::createTable(catalog, undo, c);
      return sql::createTableAs(catalog, undo, c, [&](const ast::InsertStmt& insert) {
        auto compiled = sql::compileStatement(catalog, insert, {}, times);
        return sql::runStatement(*compiled, undo, {}, &cancel_, times);
      });
    }
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
    case ast::StmtKind::CreateSequence:
      return sql::createSequence(catalog, undo, static_cast<const ast::CreateSequenceStmt&>(*stmt));
    case ast::StmtKind::AlterTable:
      return sql::alterTable(catalog, undo, static_cast<ast::AlterTableStmt&>(*stmtPtr), [&](const std::string& sql) {
        ast::StatementPtr parsed = parseStatement(sql);
        auto compiled = sql::compileQuery(catalog, *static_cast<const ast::SelectStmt&>(*parsed).select, times);
        return sql::runStatement(*compiled, undo, {}, &cancel_, times).rowCount() > 0;
      });
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
    case ast::StmtKind::Reindex: return sql::reindex(catalog, static_cast<const ast::ReindexStmt&>(*stmt));
    case ast::StmtKind::Role: {
      auto& r = static_cast<const ast::RoleStmt&>(*stmt);
      QueryResult result = db_.roles().apply(undo, r);
      if (r.op == ast::RoleStmt::Op::Create) catalog.roleOid(r.names[0]);  // its pg_roles OID, here on the executor
      // pg_roles is made when a statement is bound: a cached one must be bound again after the
      // change, and after its undoing.
      catalog.bump();
      undo.logAction([&catalog] { catalog.bump(); });
      return result;
    }
    case ast::StmtKind::Select:
    case ast::StmtKind::Insert:
    case ast::StmtKind::Update:
    case ast::StmtKind::Delete: {
      if (auto call = functionCall(*stmt)) return db_.routines().call(catalog, undo, *call, &cancel_, times);
      // The same text as before: its plan and code again (statement_cache.hpp says when not).
      const std::string tier = cacheSettings();
      std::shared_ptr<sql::CompiledStatement> compiled;
      const bool cache = !statementText_.empty() && settings_->statementCache();
      if (cache) compiled = statementCache_->find(statementText_, statementOrigin_, tier, catalog);
      if (!compiled) {
        compiled = sql::compileStatement(catalog, *stmt, {}, times);
        if (!compiled->plan.parameters.empty())
          throw Error("42P02", "there is no parameter $1 (parameters need PREPARE and EXECUTE)", stmt->pos);
        if (cache) statementCache_->add(statementText_, statementOrigin_, tier, compiled);
      }
      return sql::runStatement(*compiled, undo, {}, &cancel_, times);
    }
    case ast::StmtKind::Prepare: return prepare(static_cast<ast::PrepareStmt&>(*stmtPtr));
    case ast::StmtKind::Execute: return executePrepared(static_cast<const ast::ExecuteStmt&>(*stmt), times);
    case ast::StmtKind::Setting:
      // In a block for SET LOCAL: an explicit one, or a Query's implicit one (not a pipeline's).
      return settings_->apply(static_cast<const ast::SettingStmt&>(*stmt), undo,
                              (txn_ != TransactionState::Idle && !implicitOpen_) || (inImplicit_ && !pipeline_));
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
      ctx.transactionTime = undo.transactionTime();
      ctx.threads = settings_->executionPolicy().threads;
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
        text += sql::analyzeSummary(rows, times, ex.compiled->stats(), ex.ctx->runProfile());
      } else {
        text = plan::explain(target);
      }
      return explainResult(text, times);
    }
  }
  throw Error(sqlstate::InternalError, "unknown statement");
}

}  // namespace hyrax
