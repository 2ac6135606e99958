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
class SnapshotQuery;  // sql/api/snapshot.hpp
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
  // How long a statement waits for another connection's open transaction block before it fails
  // with 55P03 (default 10 s).
  void setLockTimeout(std::chrono::milliseconds timeout);

 private:
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<sql::Routines> routines_;
  std::unique_ptr<SerialExecutor> executor_;  // destroyed first: its thread may still use the catalog
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

  // Messages the statement raised without failing: WARNING "there is no transaction in
  // progress", a procedure's RAISE NOTICE ...
  struct Notice {
    std::string severity;  // WARNING, NOTICE, INFO, LOG, DEBUG
    std::string message;
  };
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
  std::vector<QueryResult> executeScript(std::string_view sql);

  // Cancels the statement running on this connection (safe from a signal handler / other thread).
  void cancel() { cancel_.store(true); }

  // Where COPY ... FROM STDIN reads and COPY ... TO STDOUT writes (the client's data streams;
  // unset, those statements fail with an error).
  void setCopyStreams(std::istream* in, std::ostream* out) {
    copyIn_ = in;
    copyOut_ = out;
  }
  // Receives progress notices of long statements (COPY reports rows and bytes loaded).
  void setProgressHandler(std::function<void(const std::string&)> handler) { progress_ = std::move(handler); }

  // SET analytics = 'snapshot': the process id of the snapshot child running this connection's
  // query, 0 when there is none (for tests, which kill it), and a function the child runs before
  // it plans the query (tests hold the child there).
  int snapshotPid() const { return snapshotPid_.load(); }
  void setSnapshotHookForTesting(std::function<void()> hook) { snapshotHook_ = std::move(hook); }

  enum class TransactionState : uint8_t { Idle, InBlock, Failed };
  TransactionState transactionState() const { return txn_; }

 private:
  // On the executor thread. With `snapshot` given, a query that may run on a snapshot is forked
  // off into *snapshot (the result is then read from it, not returned).
  QueryResult run(std::string_view sql, SourcePos origin, std::unique_ptr<sql::SnapshotQuery>* snapshot = nullptr);
  bool runsOnSnapshot(const ast::Statement& stmt) const;
  QueryResult atomically(const std::function<QueryResult()>& statement);
  QueryResult callOnExecutor(const std::string& name, const std::vector<Value>& args);
  QueryResult dispatch(std::unique_ptr<ast::Statement>& stmt, PhaseTimes& times);
  QueryResult prepare(ast::PrepareStmt& stmt);
  QueryResult executePrepared(const ast::ExecuteStmt& stmt, PhaseTimes& times);
  QueryResult transactionControl(const ast::TransactionStmt& stmt);
  std::unique_ptr<ast::CallStmt> functionCall(const ast::Statement& stmt);
  bool isFunctionCall(const ast::Statement& stmt) const;
  void endTransaction(bool commit);

  Database& db_;
  std::unique_ptr<UndoLog> undo_;
  std::unique_ptr<RoutineCaller> routineCaller_;  // stored functions called from this session's plans
  TransactionState txn_ = TransactionState::Idle;
  struct Prepared;  // connection.cpp
  std::map<std::string, std::unique_ptr<Prepared>> prepared_;
  std::atomic<bool> cancel_{false};
  std::istream* copyIn_ = nullptr;
  std::ostream* copyOut_ = nullptr;
  std::function<void(const std::string&)> progress_;
  struct PendingCall;  // connection.cpp
  std::unique_ptr<PendingCall> pending_;
  std::unique_ptr<SessionSettings> settings_;  // SET, SHOW, RESET
  std::atomic<int> snapshotPid_{0};
  std::function<void()> snapshotHook_;
};

}  // namespace hyrax
