// Where a session's queries run: on the executor or on a fork snapshot (sql/api/snapshot.hpp),
// which snapshot, what travels to its worker, and what the worker does with it.
#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>

#include "codegen/translate/query_compiler.hpp"
#include "engine/catalog/catalog.hpp"
#include "engine/runtime/sequence_calls.hpp"
#include "engine/runtime/thread_scope.hpp"
#include "engine/types/timestamp.hpp"
#include "engine/txn/serial_executor.hpp"
#include "engine/txn/undo_log.hpp"
#include "sql/api/compiled_statement.hpp"
#include "sql/api/database.hpp"
#include "sql/api/procedure.hpp"
#include "sql/api/session_settings.hpp"
#include "sql/api/snapshot.hpp"
#include "sql/api/snapshot_wire.hpp"
#include "sql/api/statement_cache.hpp"
#include "sql/parser/lexer.hpp"
#include "sql/parser/parser.hpp"

namespace hyrax {

using sql::Clock;
using sql::msSince;

namespace {

// Every thread of this worker process at `nice`, and SCHED_IDLE or not: a worker serves its
// snapshot's queries in turn, and its pool threads, started for an earlier query, would keep that
// query's priority (Linux's nice value and policy are per thread). Advice: where refused (an
// unprivileged process may not raise its priority), what was stands.
void applyWorkerPriority(int nice, bool idle) {
  sched_param none{};
  auto apply = [&](pid_t tid) {
    sched_setscheduler(tid, idle ? SCHED_IDLE : SCHED_OTHER, &none);
    setpriority(PRIO_PROCESS, static_cast<id_t>(tid), nice);
  };
  apply(0);
  if (DIR* tasks = opendir("/proc/self/task")) {
    while (dirent* e = readdir(tasks))
      if (pid_t tid = static_cast<pid_t>(std::atoi(e->d_name)); tid > 0 && tid != gettid()) apply(tid);
    closedir(tasks);
  }
}

}  // namespace

// A query on a snapshot: the executor picks (or forks) the snapshot and goes on; this thread
// hands the query to a worker there and waits for its answer. A worker that found the query
// writes (a stored function it called changed a table) answers "run it inline", and the second
// round does.
QueryResult Connection::runOrAskSnapshot(const std::function<QueryResult(std::shared_ptr<sql::Snapshot>*)>& onExecutor,
                                         std::string_view sql, SourcePos origin) {
  QueryResult r;
  bool mayFork = true, retried = false;
  for (;;) {
    std::shared_ptr<sql::Snapshot> snapshot;
    snapshotText_.reset();
    snapshotParameters_.clear();
    db_.executor().run(this, [&] { r = onExecutor(mayFork ? &snapshot : nullptr); });
    if (!snapshot) return r;
    std::optional<QueryResult> answer;
    try {
      try {
        // now() in a READ ONLY block is the block's start, as on the executor
        int64_t now = txn_ == TransactionState::Idle ? transactionStart() : undo_->transactionTime();
        sql::SnapshotRequest request{snapshotText_ ? *snapshotText_ : std::string(sql),
                                     snapshotText_ ? snapshotOrigin_ : origin,
                                     settings_->values(),
                                     snapshotHook_ ? reinterpret_cast<uint64_t>(this) : 0,
                                     now,
                                     snapshotCompiled_,
                                     snapshotParameters_};
        struct LongWait {
          const std::function<void(bool)>& hook;
          explicit LongWait(const std::function<void(bool)>& h) : hook(h) {
            if (hook) hook(true);
          }
          ~LongWait() {
            if (hook) hook(false);
          }
        } longWait(longWaitHook_);
        std::unique_ptr<sql::SnapshotQuery> query = snapshot->start(request);
        answer = query->finish(cancel_, &snapshotPid_);
      } catch (const Error&) {
        // The snapshot process was gone (killed from outside), and the query with it: once
        // more, on a new snapshot (it only reads). A READ ONLY block's own snapshot cannot be
        // replaced: the block fails.
        if (!snapshot->broken() || retried || pinned_) throw;
        retried = true;
        continue;
      }
    } catch (...) {
      if (txn_ == TransactionState::InBlock) txn_ = TransactionState::Failed;
      throw;
    }
    if (answer) return std::move(*answer);
    mayFork = false;
    if (readOnly_ && txn_ != TransactionState::Idle) {
      txn_ = TransactionState::Failed;
      throw Error(sqlstate::ReadOnlyTransaction, "cannot execute a function that writes in a read-only transaction");
    }
  }
}

// Does the statement's text call nextval, currval or setval? Such a statement runs inline: on a
// snapshot nextval's step would be lost and currval would not see this session's values. A call
// the text does not show (in a view, a stored function) sends the worker back here instead.
static bool callsSequenceFunction(std::string_view sql) {
  if (sql.find("val") == std::string_view::npos) return false;  // the common case, without lexing
  std::vector<sqlparse::Token> tokens;
  try {
    tokens = sqlparse::tokenize(sql);
  } catch (const Error&) {
    return false;  // the parser reports it
  }
  for (size_t i = 0; i + 1 < tokens.size(); ++i)
    if ((tokens[i].is("nextval") || tokens[i].is("currval") || tokens[i].is("setval")) && tokens[i + 1].is("("))
      return true;
  return false;
}

// A SELECT (or EXPLAIN ANALYZE of one) or a COPY ... TO a file, outside a transaction block or in
// a READ ONLY one, with SET analytics = 'snapshot'; outside a block, not a stored function called
// alone (that is a call, which may write). COPY ... TO STDOUT stays inline: its rows go to this
// process's stream.
bool Connection::runsOnSnapshot(const ast::Statement& stmt, std::string_view sql) const {
  const bool outsideBlock = changesOwnOnly();
  if (outsideBlock ? !settings_->analyticsOnSnapshot() : !blockOnSnapshot_) return false;
  bool readOnly;
  if (stmt.kind == ast::StmtKind::Explain) {
    auto& e = static_cast<const ast::ExplainStmt&>(stmt);
    readOnly = e.analyze && e.statement->kind == ast::StmtKind::Select;
  } else if (stmt.kind == ast::StmtKind::Copy) {
    auto& c = static_cast<const ast::CopyStmt&>(stmt);
    readOnly = !c.from && !c.stdio;
  } else {
    readOnly = stmt.kind == ast::StmtKind::Select && (!outsideBlock || !isFunctionCall(stmt));
  }
  // Only then the text: writes, which stay here anyway, are not lexed a second time.
  return readOnly && !callsSequenceFunction(sql);
}

bool Connection::changesOwnOnly() const {
  return txn_ == TransactionState::Idle || (implicitOpen_ && !implicitWrites_);
}

// A prepared query (the extended protocol's, or EXECUTE's) runs on a snapshot where a query sent
// as text would, if it reads a big table (sql::readsBigTable): a point query stays on the
// executor, where it takes microseconds instead of a worker's milliseconds, and sees the newest
// state; a report does not hold the executor's transactions up. In a READ ONLY block on snapshots
// every query reads the block's snapshot.
bool Connection::preparedQueryOnSnapshot(const ast::Statement& stmt, const sql::CompiledStatement& code,
                                         std::string_view text) const {
  if (stmt.kind != ast::StmtKind::Select) return false;
  const bool blockOnSnapshot = blockOnSnapshot_ && txn_ != TransactionState::Idle;
  if (!blockOnSnapshot && !sql::readsBigTable(code.plan)) return false;  // (before the text is lexed again)
  return runsOnSnapshot(stmt, text);
}

// The snapshot a query runs on: the READ ONLY block's own, or the newest fresh enough (or a new
// fork; see SnapshotPool::acquire). `code` (the session's compiled statement, or null) goes to the
// worker when the snapshot was forked after it was compiled, so the worker has it at the same
// address; otherwise the worker compiles the text.
std::shared_ptr<sql::Snapshot> Connection::pickSnapshot(std::shared_ptr<sql::CompiledStatement> code) {
  sql::SnapshotPool& snapshots = db_.snapshots();
  std::shared_ptr<sql::Snapshot> snapshot;
  if (pinned_) snapshot = pinned_;
  else if (snapshotHook_) snapshot = snapshots.acquire(0, snapshots.epoch(), false);
  else
    snapshot = snapshots.acquire(settings_->snapshotMaxAgeMs(), lastInline_, true,
                                 code ? code->compiledAt : sql::Snapshot::Clock::time_point{});
  if (code && code->compiledAt >= snapshot->forkedAt()) code = nullptr;  // not in it: the worker compiles
  snapshotCompiled_ = reinterpret_cast<uint64_t>(code.get());
  if (blockOnSnapshot_ && txn_ != TransactionState::Idle) pinned_ = snapshot;
  return snapshot;
}

// The statement cache serves queries on snapshots too: the parent's cached CompiledStatement is in
// every snapshot forked after it was compiled, at the same address, so a worker runs it without
// planning or compiling (LLVM's ~3-8 ms a query, and the copy-on-write faults of a compile in a
// fresh process). A text is compiled here, on the executor thread (the catalog is stable only
// there), the second time it comes: a query sent once costs the executor nothing; a stream of
// repeated reports pays one compile per text. Errors are left to the worker, which reports them
// as always.
std::shared_ptr<sql::CompiledStatement> Connection::compiledForSnapshots(const ast::Statement& stmt, bool mayCompile) {
  if (stmt.kind != ast::StmtKind::Select || !settings_->statementCache() || statementText_.empty()) return nullptr;
  const std::string tier = cacheSettings();
  Catalog& catalog = db_.catalog();
  if (auto found = statementCache_->find(statementText_, statementOrigin_, tier, catalog)) return found;
  if (!mayCompile || !statementCache_->seenBefore(statementText_, statementOrigin_, tier)) return nullptr;
  try {
    // The session's compile tier as it is: under 'auto' the executor makes only the cheap code
    // (2-5 ms for a TPC-H query) and keeps its IR, and a worker that runs it compiles the
    // optimized code on a background thread of its own when the work left merits it, as an
    // inline run does (the worker's result is lost with it, so each worker decides anew).
    // Forcing the optimized tier here held the executor, and so every session's transactions,
    // for LLVM's full pipeline (20-70 ms a text, ~290 ms New-Order latencies beside a CH stream)
    // to get code that runs ~2% faster than the cheap code (bench/README.md).
    ThreadScope<const MemoryLimit> memoryLimit(&settings_->memoryLimit());
    ThreadScope<const codegen::ExecutionPolicy> executionPolicy(&settings_->executionPolicy());
    PhaseTimes times;
    std::shared_ptr<sql::CompiledStatement> compiled = sql::compileStatement(catalog, stmt, {}, times);
    if (!compiled->plan.parameters.empty()) return nullptr;
    if (compiled->compiled) {
      const codegen::CompileStats& stats = compiled->compiled->stats();
      snapshotCompileTier_ = stats.adaptive ? "adaptive" : stats.optimized ? "optimized" : "cheap";
    }
    statementCache_->add(statementText_, statementOrigin_, tier, compiled);
    return compiled;
  } catch (const std::exception&) {
    return nullptr;
  }
}

QueryResult Connection::serveSnapshotRequest(Database& db, const sql::SnapshotRequest& request) {
  Connection con(db);
  con.settings_->restore(request.settings);
  con.undo_->beginTransactionAt(request.transactionTime);  // the session's, not this process's clock
  // This worker runs this query (and its snapshot's next ones, each at its own priority): it
  // yields to the executor's transactions as asked. SCHED_IDLE
  // (the default) runs it only on a core nothing else wants: a transaction's wake-up takes the core
  // at once, and the scheduler counts such a core as free when it places the executor's threads.
  applyWorkerPriority(con.settings_->analyticsNice(), con.settings_->analyticsIdle());
  if (request.hookOwner) {  // the owner's copy in this process, as it was at the fork
    auto* owner = reinterpret_cast<const Connection*>(request.hookOwner);
    if (owner->snapshotHook_) owner->snapshotHook_();
  }
  RoutineCallerScope scope(con.routineCaller_.get());
  SequenceSessionScope sequences(con.sequences_.get());
  ThreadScope<const MemoryLimit> memoryLimit(&con.settings_->memoryLimit());
  ThreadScope<const codegen::ExecutionPolicy> executionPolicy(&con.settings_->executionPolicy());
  ThreadScope<const SessionValues> sessionValues(con.settings_.get());  // current_setting()
  PhaseTimes times;
  const size_t logged = con.undo_->size();
  QueryResult r;
  auto* compiled = reinterpret_cast<sql::CompiledStatement*>(request.compiled);
  auto parameters = std::make_shared<std::vector<Value>>(request.parameters);
  if (compiled && compiled->catalogVersion == db.catalog().version()) {
    // The session's code, as compiled.
    r = sql::runWithValues(*compiled, *con.undo_, std::move(parameters), &con.cancel_, times);
  } else {
    auto t = Clock::now();
    ast::StatementPtr stmt = parseStatement(request.sql, request.origin);
    times.parse = msSince(t);
    const bool prepared = stmt->kind == ast::StmtKind::Prepare;  // EXECUTE's: the statement it prepared
    if (prepared) stmt = std::move(static_cast<ast::PrepareStmt&>(*stmt).statement);
    if (!prepared && parameters->empty()) {
      r = con.dispatch(stmt, times);
    } else {  // a prepared statement's text, compiled here for its parameters' types
      std::vector<SqlType> types;
      for (const Value& v : *parameters) types.push_back(v.type().withNullable(true));
      std::shared_ptr<sql::CompiledStatement> s = sql::compileStatement(db.catalog(), *stmt, types, times);
      r = sql::runWithValues(*s, *con.undo_, std::move(parameters), &con.cancel_, times);
      r.keepAlive(s);
    }
  }
  if (con.undo_->size() != logged) throw sql::RunInlineInstead{};  // it wrote: lost here
  // A sequence function (in a view or a stored function the text did not show): nextval's step
  // would be lost here, and currval needs the session's values.
  if (con.sequences_->used) throw sql::RunInlineInstead{};
  return r;
}

}  // namespace hyrax
