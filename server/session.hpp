#pragma once
// One client's session on its own thread: the startup (SSL/GSS negotiation refused, protocol
// 3.0, authentication, the parameters a driver expects), then a message loop that hands each
// message to the function for its type. Statements run through the session's Connection, on
// the database's executor thread; this thread blocks meanwhile. While the session is idle its
// thread parks it in the server's Dispatcher and sleeps: a dispatcher thread serves the next
// requests in place (serveReady) and gives the session back to its thread only for what may
// block (server/dispatcher.hpp). Between requests a Session keeps nothing on a thread's stack,
// so either thread can run its handlers.
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "server/authenticator.hpp"
#include "server/dispatcher.hpp"
#include "server/hangup_watcher.hpp"
#include "server/portal.hpp"
#include "server/server_config.hpp"
#include "server/session_registry.hpp"
#include "server/wire.hpp"
#include "sql/api/database.hpp"

namespace hyrax::server {

class Session : public Parkable {
 public:
  // `overLimit`: the server has --max-connections sessions already; this one is refused (53300)
  // unless it is only a CancelRequest. `dispatcher`: where the session parks while idle (null:
  // its thread waits on the socket itself).
  Session(Database& db, Wire& wire, SessionRegistry& registry, const ServerConfig& config, bool overLimit,
          Dispatcher* dispatcher = nullptr);
  ~Session() override;
  // Serves the client until it leaves or the connection fails; never throws. The Connection is
  // destroyed on the way out, which rolls back an open transaction block.
  void run();

  int socket() const override { return wire_.nativeHandle(); }
  bool serveReady() override;
  bool pollBriefly() override;

 private:
  bool startup();  // false: the connection ends (a CancelRequest, or nothing more to do)
  void sendStartupReply(const std::vector<Notice>& warnings);
  // ParameterStatus for each reported setting whose value the client has not been told.
  void reportSettings();
  void serve();
  // Nothing to finish before the next request and nothing that holds the executor: a dispatcher
  // may serve it.
  bool parkable() const;
  // The arrived messages a dispatcher runs in place: `count` up to and including a Sync (Run);
  // none yet, a batch still arriving (Wait); or something that may block, which the session's
  // thread serves (Thread).
  enum class BatchFit { Run, Wait, Thread };
  BatchFit arrivedBatch(size_t& count);
  using Handler = void (Session::*)(const Message&);
  static Handler handlerFor(char type);

  // One function per frontend message type.
  void onQuery(const Message& m);
  void onTerminate(const Message& m);
  void onExtended(const Message& m);  // Parse, Bind, Describe, Execute, Close (session_extended.cpp)
  void onParse(const Message& m);
  void onBind(const Message& m);
  void onDescribe(const Message& m);
  void onExecute(const Message& m);
  void onClose(const Message& m);
  Portal& portal(const std::string& name);  // 34000 if there is none
  void runPortal(const std::string& name, Portal& p);  // its statement, unless it ran
  void onFlush(const Message& m);
  void onFunctionCall(const Message& m);
  void onSync(const Message& m);
  void onCopyMessage(const Message& m);  // CopyData/Done/Fail outside a COPY: ignored, as PostgreSQL does
  void onUnknown(const Message& m);

  // One statement of a Query; false when it failed (the rest of the Query is skipped).
  bool runStatement(std::string_view query, const StatementText& statement);
  // A Query's several statements, as PostgreSQL's implicit transaction block.
  void runImplicitBlock(std::string_view query, const std::vector<StatementText>& statements);
  // Before an extended-protocol statement runs: whether it is the last before Sync (then it is a
  // transaction alone), by the messages that have arrived after it; else the statements up to
  // Sync become one transaction (pipelineOpen_), as PostgreSQL's.
  bool lastBeforeSync(const std::string& portal);
  void endPipeline();  // at Sync: commits the pipeline's statements, or rolls them back
  // Runs a statement with the client's copy streams as `copy` says (receiving COPY FROM STDIN's
  // data first, sending COPY TO STDOUT's after), then sends its notices; throws its Error.
  QueryResult runWithCopy(const CopyUse& copy, const std::function<QueryResult()>& run);
  void sendResult(const QueryResult& result);
  void sendReadyForQuery();

  Database& db_;
  Wire& wire_;
  SessionRegistry& registry_;
  const ServerConfig& config_;
  bool overLimit_;
  Dispatcher* dispatcher_;
  std::exception_ptr handedBack_;  // what ended the session on a dispatcher thread, rethrown on its own
  std::unique_ptr<Connection> connection_;
  std::unique_ptr<HangupWatcher> hangupWatcher_;  // destroyed before the Connection it cancels
  BackendKey key_;
  bool terminate_ = false;
  bool skipTillSync_ = false;  // after an error in an extended-protocol message, as PostgreSQL
  bool pipelineOpen_ = false;  // the statements up to Sync are one transaction (Connection's implicit block)
  std::map<std::string, Portal> portals_;  // "" the unnamed one
  std::string errorQuery_;  // the statement text an extended message's error refers to
  std::vector<std::string> reported_;  // the values of the reported settings the client was told
  uint64_t reportedChanges_ = 0;       // Connection::settingsChanges() when they were
};

}  // namespace hyrax::server
