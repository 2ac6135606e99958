#pragma once
// The public API of hyrax: a Database (the in-memory state) and Connections (sessions) that run
// SQL on it. The shell, the sqllogictest runner and the bench all go through this.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/runtime/result_chunk.hpp"
#include "engine/types/sql_type.hpp"
#include "engine/types/value.hpp"
#include "engine/util/error.hpp"
#include "sql/parser/statement_splitter.hpp"  // splitStatements, part of the API

namespace hyrax {

class RoutineCaller;  // engine/runtime/routine_caller.hpp
struct SequenceSession;  // engine/runtime/sequence_calls.hpp

namespace ast {
struct Statement;
struct TransactionStmt;
struct PrepareStmt;
struct ExecuteStmt;
struct CallStmt;
}  // namespace ast

class Catalog;
class SerialExecutor;
namespace sql {
class Routines;
class Snapshot;      // sql/api/snapshot.hpp
class SnapshotPool;  // sql/api/snapshot.hpp
struct SnapshotRequest;
class StatementCache;  // sql/api/statement_cache.hpp
class Roles;           // sql/api/roles.hpp
struct CompiledStatement;  // sql/api/compiled_statement.hpp
}
class UndoLog;

// The database: its catalog, and the serial executor (engine/txn) on whose one thread every
// statement of every connection runs.
class Database {
 public:
  Database();
  ~Database();
  Catalog& catalog();
  SerialExecutor& executor();
  sql::Routines& routines();  // stored procedures and functions
  sql::SnapshotPool& snapshots();  // the fork snapshots queries run on (executor thread only)
  // Roles (CREATE ROLE ...): whom the server lets in, with their SCRAM verifiers (any thread).
  sql::Roles& roles();
  // How long a statement waits for another connection's open transaction block before it fails
  // with 55P03 (default 10 s).
  void setLockTimeout(std::chrono::milliseconds timeout);

 private:
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<sql::Routines> routines_;
  std::unique_ptr<sql::Roles> roles_;
  std::unique_ptr<SerialExecutor> executor_;  // destroyed after the snapshots: its thread may still use the catalog
  // Destroyed first, while the executor thread lives: the snapshot processes it forked die with
  // that thread (PR_SET_PDEATHSIG), so they are told to end and reaped before it goes.
  std::unique_ptr<sql::SnapshotPool> snapshots_;
};

struct ResultColumn {
  std::string name;
  SqlType type;
};

// Time spent in each phase of one statement, in milliseconds.
struct PhaseTimes {
  double parse = 0, plan = 0, codegen = 0, optimize = 0, machineCode = 0, execute = 0;
  double total() const { return parse + plan + codegen + optimize + machineCode + execute; }
};

class QueryResult {
 public:
  QueryResult() = default;
  QueryResult(std::vector<ResultColumn> columns, std::vector<std::unique_ptr<ResultChunk>> chunks, std::string tag);

  // Command tag as PostgreSQL prints it: "SELECT 3", "INSERT 0 5", "CREATE TABLE", "DROP TABLE".
  const std::string& tag() const { return tag_; }
  const std::vector<ResultColumn>& columns() const { return columns_; }
  bool hasRows() const { return !columns_.empty(); }  // a statement that returns a table
  uint64_t rowCount() const { return rowCount_; }

  // Random access (for tests, formatting). Rows live in chunks; iterate chunks() on hot paths.
  bool isNull(uint64_t row, uint32_t col) const;
  Value value(uint64_t row, uint32_t col) const;
  std::string text(uint64_t row, uint32_t col) const;  // PostgreSQL's text form; "NULL" for NULL
  const std::vector<std::unique_ptr<ResultChunk>>& chunks() const { return chunks_; }

  PhaseTimes times;

  // Where a query ran: on a snapshot (sql/api/snapshot.hpp), how old it was when the query
  // started, how long its fork held the executor, its process and the worker process that ran
  // the query (one worker serves a snapshot's queries in turn); inline, snapshotAgeMs < 0.
  struct Origin {
    double snapshotAgeMs = -1, forkMs = 0;
    int snapshotPid = 0, workerPid = 0;
  } ranOn;

  // Messages the statement raised without failing (engine/util/error.hpp).
  using Notice = hyrax::Notice;
  std::vector<Notice> notices;

  // Result strings may point into memory the query owned (its arena); the result keeps it alive.
  void keepAlive(std::shared_ptr<void> owner) { owners_.push_back(std::move(owner)); }

 private:
  std::vector<std::shared_ptr<void>> owners_;
  std::pair<const ResultChunk*, uint64_t> locate(uint64_t row) const;
  std::vector<ResultColumn> columns_;
  std::vector<std::unique_ptr<ResultChunk>> chunks_;
  std::vector<uint64_t> chunkStarts_;
  uint64_t rowCount_ = 0;
  std::string tag_;
};

// A session. Statements run on the database's executor thread; without BEGIN each one is a
// transaction of its own (autocommit). Inside BEGIN ... COMMIT/ROLLBACK the connection has the
// executor to itself; a failed statement leaves nothing behind and, as in PostgreSQL, the block
// then refuses further statements (25P02) until ROLLBACK.
class SessionSettings;

class Connection {
 public:
  explicit Connection(Database& db);
  ~Connection();  // rolls back an open transaction

  // Runs one statement (a trailing ';' is allowed). Throws hyrax::Error on failure; a failed
  // statement leaves the database as it was.
  QueryResult execute(std::string_view sql);
  // The same for a statement that starts at `origin` in a larger script (error positions refer to
  // the script).
  QueryResult execute(std::string_view sql, SourcePos origin);
  // Calls a stored procedure or function with argument values of its parameters' types (what
  // CALL p(...) / SELECT f(...) do, without parsing): the embedding API's and the bench's way.
  QueryResult call(const std::string& name, const std::vector<Value>& args);
  // call() in two halves: startCall() hands the call to the executor thread and returns at once,
  // so the caller can prepare its next one meanwhile (a driver standing in for many clients keeps
  // the OLTP thread busy that way); finishCall() waits for it and returns its result or throws its
  // error. One call at a time may be started on a connection (55000 otherwise).
  void startCall(const std::string& name, std::vector<Value> args);
  QueryResult finishCall();
  // Runs every statement of a script in order, stopping at the first error (which is thrown).
  // Each statement outside a BEGIN block is a transaction of its own (as psql -f runs a file).
  std::vector<QueryResult> executeScript(std::string_view sql);

  // A PostgreSQL simple Query of several statements (protocol.sgml, "Multiple Statements in a
  // Simple Query"): between beginImplicitBlock() and endImplicitBlock() the statements that run
  // outside a BEGIN block are one transaction, the implicit block, which endImplicitBlock()
  // commits, or rolls back after a failed statement. In it COMMIT and ROLLBACK end what came
  // before (WARNING 25P01), BEGIN makes it a block of its own that outlives the Query, SET LOCAL
  // lasts until it ends, and every transaction begun in it has the Query's now(). It opens with
  // the first statement that changed something; from the first that changed a table (or the
  // schema, roles, ...) it holds the executor until it ends, as BEGIN does, and its queries run
  // inline, where they see those changes (on a snapshot they would not). Before that, with only
  // SET's changes (the session's own), its queries may run on snapshots. `pipeline`: the extended
  // protocol's statements up to Sync, which PostgreSQL runs as one transaction too, but not as a
  // block (SET LOCAL there warns as outside one). Begun again before it ended (a Query after a
  // pipeline's messages before their Sync), it goes on: the Query continues that transaction.
  void beginImplicitBlock(bool pipeline = false);
  void endImplicitBlock();
  // A statement that failed before it could run here (a COPY FROM STDIN whose client sent
  // CopyFail): an open block fails as if it had run (a Query's implicit block is rolled back).
  void failBlock() {
    if (txn_ == TransactionState::InBlock) txn_ = TransactionState::Failed;
  }
  // Throws the statement's syntax error, if it has one: PostgreSQL parses a whole Query string
  // before any of it runs, so a typo anywhere runs nothing. (Savepoint commands pass: hyrax's
  // parser does not know them; run, they fail as PostgreSQL's would outside a block.)
  static void checkSyntax(std::string_view sql, SourcePos origin);

  // The extended query protocol's statements (a PostgreSQL server's Parse, Describe, Bind/Execute
  // and Close; sql/api/protocol_statements.cpp). Any statement can be prepared: a SELECT, INSERT,
  // UPDATE or DELETE is planned and compiled now (its $n typed as declared or inferred from where
  // they are used; TEXT when neither, as PostgreSQL types SELECT $1), the others (BEGIN, CREATE TABLE, SET, ...) are kept as text
  // and run when executed. "" is the unnamed statement, which the next prepare replaces; a named
  // one must be closed first (42P05). These names are not those of SQL's PREPARE.
  struct StatementDescription {
    std::vector<SqlType> parameters;    // the type of each $n
    std::vector<ResultColumn> columns;  // the rows it returns; empty: none
    // False for a statement whose rows are known only once it ran (SHOW, EXPLAIN, a stored
    // function called alone): `columns` is then empty even though it may return rows.
    bool columnsKnown = true;
    PhaseTimes times;  // of preparing it: no codegen when the code came from the statement cache
    std::string text;  // as prepared (error positions count in it)
  };
  StatementDescription prepareStatement(const std::string& name, std::string_view sql,
                                        const std::vector<std::optional<SqlType>>& declaredTypes = {});
  // 26000 if there is none; valid until the statement is prepared again or closed.
  const StatementDescription& describeStatement(const std::string& name) const;
  // Runs it with a value per parameter (a NULL Value for NULL; a value of another type is CAST
  // to the parameter's, 42846 where there is no cast); 08P01 when the count differs. Errors and
  // transaction blocks behave as in execute().
  QueryResult executeStatement(const std::string& name, const std::vector<Value>& args);
  void closeStatement(const std::string& name);  // no error if there is none (as Close in PostgreSQL)

  // The server's login (sql/api/session_settings.cpp): the role the client logged in as
  // (current_user, session_user, session_authorization; "hyrax" unless set), and a setting the
  // startup packet gave (application_name, DateStyle, ...), which RESET then returns to, as in
  // PostgreSQL: false when no setting has that name, 22023 for a value SET would refuse.
  void setSessionUser(const std::string& role);
  bool setStartupSetting(const std::string& name, const std::string& value);
  // A setting's value as SHOW gives it; nullopt for a name that is none (lower case).
  std::optional<std::string> setting(const std::string& name) const;
  // Moves whenever a setting may have changed (SET, RESET, a rollback, a SET LOCAL's end).
  uint64_t settingsChanges() const;

  // Cancels the statement running on this connection (safe from a signal handler / other thread).
  void cancel() { cancel_.store(true); }

  // Where COPY ... FROM STDIN reads and COPY ... TO STDOUT writes (the client's data streams;
  // unset, those statements fail with an error).
  void setCopyStreams(std::istream* in, std::ostream* out) {
    copyIn_ = in;
    copyOut_ = out;
  }
  // Called with true before and false after a wait that does not hold the executor and may be
  // long (a snapshot's answer): the server's dispatcher lets another thread serve its other
  // clients meanwhile (server/dispatcher.hpp).
  void setLongWaitHook(std::function<void(bool waiting)> hook) { longWaitHook_ = std::move(hook); }
  // Receives progress notices of long statements (COPY reports rows and bytes loaded).
  void setProgressHandler(std::function<void(const std::string&)> handler) { progress_ = std::move(handler); }

  // SET analytics = 'snapshot': the process id of the snapshot worker running this connection's
  // query, 0 when there is none (for tests, which kill it), and a function the worker runs before
  // it plans the query (tests hold the worker there; the session's queries then get a snapshot
  // of their own each, forked while the hook is set).
  int snapshotPid() const { return snapshotPid_.load(); }
  void setSnapshotHookForTesting(std::function<void()> hook) { snapshotHook_ = std::move(hook); }
  // The tier of the code this session last compiled on the executor for its snapshots' workers
  // ("adaptive", "optimized", "cheap"; empty before any): tests of what the executor pays.
  const std::string& snapshotCompileTierForTesting() const { return snapshotCompileTier_; }

  // In a snapshot worker (sql/api/snapshot.hpp): runs a session's query on a connection of its own
  // with the session's settings.
  static QueryResult serveSnapshotRequest(Database& db, const sql::SnapshotRequest& request);

  enum class TransactionState : uint8_t { Idle, InBlock, Failed };
  TransactionState transactionState() const { return txn_; }

 private:
  // On the executor thread. With `snapshot` given, a query that may run on a snapshot gets one in
  // *snapshot (the session's thread then runs it there; nothing is returned).
  QueryResult run(std::string_view sql, SourcePos origin, std::shared_ptr<sql::Snapshot>* snapshot = nullptr);
  QueryResult onSnapshot(std::string_view sql, SourcePos origin, std::shared_ptr<sql::Snapshot> snapshot);
  bool runsOnSnapshot(const ast::Statement& stmt, std::string_view sql) const;
  // The statement cache's code for a query going to a snapshot (compiled here if `mayCompile`
  // and the text came before), or null: the worker compiles.
  std::shared_ptr<sql::CompiledStatement> compiledForSnapshots(const ast::Statement& stmt, bool mayCompile);
  std::string cacheSettings() const;  // the statement cache key's settings part
  void refuseWriteIfReadOnly(const ast::Statement& stmt) const;
  void noteInline();  // after a statement that ran on the executor thread (it may have written)
  // `sessionOnly`: the statement changes nothing but this session's settings (SET).
  QueryResult atomically(const std::function<QueryResult()>& statement, bool sessionOnly = false);
  // No change of this session's is there for others or snapshots to miss: no block open, or an
  // implicit block with only SET's changes. Queries may then run on snapshots.
  bool changesOwnOnly() const;
  QueryResult callOnExecutor(const std::string& name, const std::vector<Value>& args);
  QueryResult dispatch(std::unique_ptr<ast::Statement>& stmt, PhaseTimes& times);
  QueryResult prepare(ast::PrepareStmt& stmt);
  QueryResult executePrepared(const ast::ExecuteStmt& stmt, PhaseTimes& times);
  struct ProtocolStatement;  // protocol_statements.cpp
  // On the executor: runs it, or (given `snapshot`) picks a snapshot for it instead.
  QueryResult runProtocolStatement(ProtocolStatement& s, const std::vector<Value>& args, std::shared_ptr<sql::Snapshot>* snapshot);
  // Runs `onExecutor` in the executor's turn; where it picked a snapshot instead, asks the snapshot
  // for `sql` (or for snapshotText_ with snapshotParameters_, where the executor's side set them).
  QueryResult runOrAskSnapshot(const std::function<QueryResult(std::shared_ptr<sql::Snapshot>*)>& onExecutor,
                               std::string_view sql, SourcePos origin);
  std::shared_ptr<sql::Snapshot> pickSnapshot(std::shared_ptr<sql::CompiledStatement> code);
  bool preparedQueryOnSnapshot(const ast::Statement& stmt, const sql::CompiledStatement& code, std::string_view text) const;
  std::shared_ptr<sql::Snapshot> executeOnSnapshot(const ast::ExecuteStmt& e);
  void prepareCall(ProtocolStatement& entry, std::unique_ptr<ast::CallStmt> call);
  // Runs `statement` under the session's statement_timeout (57014 "due to statement timeout").
  QueryResult withStatementTimeout(const std::function<QueryResult()>& statement);
  QueryResult transactionControl(const ast::TransactionStmt& stmt);
  std::unique_ptr<ast::CallStmt> functionCall(const ast::Statement& stmt);
  bool isFunctionCall(const ast::Statement& stmt) const;
  void endTransaction(bool commit);
  int64_t transactionStart() const;  // now() of a transaction beginning: the Query's in an implicit block

  Database& db_;
  std::unique_ptr<UndoLog> undo_;
  std::unique_ptr<RoutineCaller> routineCaller_;  // stored functions called from this session's plans
  std::unique_ptr<SequenceSession> sequences_;    // currval's values (nextval's in this session)
  TransactionState txn_ = TransactionState::Idle;
  struct Prepared;  // connection.cpp
  std::map<std::string, std::unique_ptr<Prepared>> prepared_;
  std::map<std::string, std::shared_ptr<ProtocolStatement>> protocolStatements_;
  std::unique_ptr<sql::StatementCache> statementCache_;  // statements compiled before, by text
  std::string_view statementText_;                       // the statement run() runs, and where
  SourcePos statementOrigin_;
  std::atomic<bool> cancel_{false};
  std::function<void(bool)> longWaitHook_;
  std::istream* copyIn_ = nullptr;
  std::ostream* copyOut_ = nullptr;
  std::function<void(const std::string&)> progress_;
  struct PendingCall;  // connection.cpp
  std::unique_ptr<PendingCall> pending_;
  std::unique_ptr<SessionSettings> settings_;  // SET, SHOW, RESET
  std::atomic<int> snapshotPid_{0};
  std::function<void()> snapshotHook_;
  std::string snapshotCompileTier_;
  std::atomic<bool> timedOut_{false};  // the statement_timeout fired (cancel_ is set too)
  // The executor's write count after this session's last statement that ran on it: a snapshot
  // forked before that would not show the session its own writes.
  uint64_t lastInline_ = 0;
  uint64_t snapshotCompiled_ = 0;  // run()'s CompiledStatement* for the worker (SnapshotRequest::compiled)
  // What the worker runs when it is not the text the session sent (EXECUTE's PREPARE), and the
  // prepared statement's parameter values: set on the executor when it picks a snapshot.
  std::optional<std::string> snapshotText_;
  SourcePos snapshotOrigin_;
  std::vector<Value> snapshotParameters_;
  // BEGIN READ ONLY: no writes; on snapshots (analytics = 'snapshot'), every query of the block runs
  // on the one snapshot its first query took, and the block does not hold the executor.
  bool readOnly_ = false;
  bool blockOnSnapshot_ = false;
  std::shared_ptr<sql::Snapshot> pinned_;
  // Between beginImplicitBlock() and endImplicitBlock(); implicitOpen_: the open block (txn_
  // InBlock or Failed) is the implicit one, begun at queryTime_; implicitWrites_: it changed more
  // than settings, and holds the executor.
  bool inImplicit_ = false;
  bool pipeline_ = false;  // beginImplicitBlock's
  bool implicitOpen_ = false;
  bool implicitWrites_ = false;
  int64_t queryTime_ = 0;
  // SAVEPOINT's in the open block, oldest first: a name, and the undo log's length when it was
  // set (ROLLBACK TO undoes what came after). Names may repeat; the newest of a name counts.
  struct Savepoint {
    std::string name;
    size_t undoLength;
  };
  std::vector<Savepoint> savepoints_;
  std::vector<Savepoint>::iterator findSavepoint(const ast::TransactionStmt& t);
};

}  // namespace hyrax
