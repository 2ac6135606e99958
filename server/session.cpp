#include "server/session.hpp"

#include <algorithm>
#include <cstring>
#include <istream>
#include <optional>
#include <utility>
#include <ostream>

#include "server/copy_streams.hpp"
#include "server/error_response.hpp"
#include "server/protocol.hpp"
#include "server/startup_settings.hpp"
#include "server/data_rows.hpp"
#include "engine/types/text_format.hpp"
#include "sql/parser/lexer.hpp"
#include "sql/parser/parser.hpp"

namespace hyrax::server {

namespace {

// The startup packet's parameters: name/value pairs of NUL-terminated strings, then one NUL.
StartupParameters readParameters(MessageReader& r) {
  StartupParameters p;
  for (;;) {
    std::string_view name = r.cstring();
    if (name.empty()) break;
    p.values[std::string(name)] = std::string(r.cstring());
  }
  if (r.remaining()) throw FatalError(wirestate::ProtocolViolation, "invalid startup packet layout: expected terminator as last byte");
  return p;
}

void sendParameterStatus(Wire& wire, std::string_view name, std::string_view value) {
  wire.begin(backend::ParameterStatus);
  wire.putCString(name);
  wire.putCString(value);
  wire.end();
}

// The settings PostgreSQL 15 reports (GUC_REPORT): at startup, then whenever one's value differs
// from what the client was last told, just before ReadyForQuery (as PostgreSQL 14 and later do:
// a SET rolled back before then, or a SET LOCAL that ended, sends nothing, or the old value
// again). Names as PostgreSQL spells them, beside the session setting's.
struct ReportedSetting {
  const char* wireName;
  const char* setting;
};
constexpr ReportedSetting kReported[] = {
    {"application_name", "application_name"},
    {"client_encoding", "client_encoding"},
    {"DateStyle", "datestyle"},
    {"default_transaction_read_only", "default_transaction_read_only"},
    {"in_hot_standby", "in_hot_standby"},
    {"integer_datetimes", "integer_datetimes"},
    {"IntervalStyle", "intervalstyle"},
    {"is_superuser", "is_superuser"},
    {"server_encoding", "server_encoding"},
    {"server_version", "server_version"},
    {"session_authorization", "session_authorization"},
    {"standard_conforming_strings", "standard_conforming_strings"},
    {"TimeZone", "timezone"},
};

// What a setting is reported as. server_version: libpq derives server_version_num from its
// leading number, and psql chooses its catalog queries by it; the rest says who answers.
std::string reportedValue(const Connection& c, const ReportedSetting& r) {
  std::string v = c.setting(r.setting).value_or("");
  return std::string_view(r.setting) == "server_version" ? v + " (hyrax)" : v;
}

}  // namespace

Session::Session(Database& db, Wire& wire, SessionRegistry& registry, const ServerConfig& config, bool overLimit,
                 Dispatcher* dispatcher)
    : db_(db), wire_(wire), registry_(registry), config_(config), overLimit_(overLimit), dispatcher_(dispatcher) {}

Session::~Session() {
  if (connection_) registry_.remove(key_.pid);
}

void Session::run() {
  try {
    if (startup()) serve();
  } catch (const FatalError& e) {
    try {
      sendError(wire_, e, Severity::Fatal);
      wire_.flush();
    } catch (const ClientGone&) {
    }
  } catch (const ClientGone&) {
  } catch (const std::exception& e) {
    try {
      sendError(wire_, Error(sqlstate::InternalError, e.what()), Severity::Fatal);
      wire_.flush();
    } catch (const ClientGone&) {
    }
  }
  hangupWatcher_.reset();
  if (connection_) registry_.remove(key_.pid);
  connection_.reset();  // rolls back what the client left open
}

bool Session::startup() {
  // SSLRequest and GSSENCRequest are answered 'N' (no encryption), then the client sends its
  // real startup packet on the same connection; each may come once.
  bool sslAsked = false, gssAsked = false;
  wire_.setReadDeadline(std::chrono::steady_clock::now() + std::chrono::milliseconds(config_.startupTimeoutMs));
  for (;;) {
    std::string packet = wire_.readStartupPacket();
    MessageReader r(packet);
    int32_t code = r.int32();
    if ((code == kSslRequestCode && !sslAsked) || (code == kGssEncRequestCode && !gssAsked)) {
      (code == kSslRequestCode ? sslAsked : gssAsked) = true;
      wire_.sendRaw("N");
      continue;
    }
    if (code == kCancelRequestCode) {
      BackendKey key;
      key.pid = r.int32();
      key.secret = r.int32();
      registry_.cancel(key);  // no reply either way, as PostgreSQL
      return false;
    }
    if ((code >> 16) != 3)
      throw FatalError(sqlstate::FeatureNotSupported, "unsupported frontend protocol " + std::to_string(code >> 16) + "." +
                                                          std::to_string(code & 0xFFFF) + ": server supports 3.0 to 3.0");
    StartupParameters params = readParameters(r);
    if (overLimit_) throw FatalError(wirestate::TooManyConnections, "sorry, too many clients already");
    if (params.get("user").empty())
      throw FatalError(wirestate::InvalidAuthorization, "no user name specified in startup packet");
    // A newer minor version, or protocol options (_pq_.*): say what this server speaks.
    std::vector<std::string> unknownOptions;
    for (auto& [name, value] : params.values)
      if (name.rfind("_pq_.", 0) == 0) unknownOptions.push_back(name);
    if ((code & 0xFFFF) != 0 || !unknownOptions.empty()) {
      wire_.begin(backend::NegotiateProtocolVersion);
      wire_.putInt32(kProtocolVersion3);
      wire_.putInt32(static_cast<int32_t>(unknownOptions.size()));
      for (auto& o : unknownOptions) wire_.putCString(o);
      wire_.end();
    }
    TrustAuthenticator trust;
    ScramAuthenticator scram(db_.roles());
    Authenticator& auth = wire_.isUnixSocket() || config_.trust ? static_cast<Authenticator&>(trust) : scram;
    auth.authenticate(wire_, params);
    auto connection = std::make_unique<Connection>(db_);
    connection->setSessionUser(params.get("user"));  // current_user, session_authorization
    // The settings it gives (application_name, DateStyle, TimeZone, ...) are the session's from
    // the start, and RESET's; startup_settings.hpp says which refuse the login, as PostgreSQL's.
    std::vector<Notice> warnings = applyStartupSettings(*connection, startupSettings(params));
    connection_ = std::move(connection);
    wire_.setReadDeadline({});
    key_ = registry_.add(*connection_);
    hangupWatcher_ = std::make_unique<HangupWatcher>(wire_.nativeHandle(), [c = connection_.get()] { c->cancel(); });
    if (dispatcher_)  // a dispatcher thread waiting for a snapshot's answer lets another watch the sockets
      connection_->setLongWaitHook([d = dispatcher_](bool begins) {
        if (begins) d->beginLongWait();
        else d->endLongWait();
      });
    sendStartupReply(warnings);
    return true;
  }
}

void Session::sendStartupReply(const std::vector<Notice>& warnings) {
  wire_.begin(backend::Authentication);
  wire_.putInt32(0);  // AuthenticationOk
  wire_.end();
  for (const Notice& n : warnings) sendNotice(wire_, n);  // after AuthenticationOk, as PostgreSQL's
  reportSettings();
  wire_.begin(backend::BackendKeyData);
  wire_.putInt32(key_.pid);
  wire_.putInt32(key_.secret);
  wire_.end();
  sendReadyForQuery();
}

void Session::serve() {
  std::optional<Dispatcher::Slot> slot;
  if (dispatcher_) slot.emplace(*dispatcher_, *this);
  bool park = true;  // false right after a dispatcher gave the session back: a message is read here first
  while (!terminate_) {
    wire_.pollBriefly();
    if (slot && park && parkable() && wire_.buffered() == 0) {
      if (slot->park(config_.idleSessionTimeoutMs) == Dispatcher::Slot::Outcome::TimedOut)
        throw FatalError(wirestate::IdleSessionTimeout, "terminating connection due to idle-session timeout");
      if (handedBack_) std::rethrow_exception(std::exchange(handedBack_, nullptr));
      wire_.flush();  // what the client did not take while a dispatcher served it
      park = false;
      continue;
    }
    park = true;
    const bool inBlock = connection_->transactionState() != Connection::TransactionState::Idle;
    if (!inBlock && config_.idleSessionTimeoutMs && !wire_.waitReadable(static_cast<int>(config_.idleSessionTimeoutMs)))
      throw FatalError(wirestate::IdleSessionTimeout, "terminating connection due to idle-session timeout");
    // Ending the session rolls its block back and frees the executor for the others.
    if (inBlock && config_.idleInTransactionTimeoutMs &&
        !wire_.waitReadable(static_cast<int>(config_.idleInTransactionTimeoutMs)))
      throw FatalError(wirestate::IdleInTransactionTimeout, "terminating connection due to idle-in-transaction timeout");
    Message m = wire_.readMessage();
    // After an error in an extended-protocol message everything up to the next Sync is skipped.
    if (skipTillSync_ && m.type != frontend::Sync && m.type != frontend::Terminate) continue;
    Wire::AtWork atWork;
    (this->*handlerFor(m.type))(m);
  }
}

bool Session::parkable() const {
  return connection_ && !terminate_ && !skipTillSync_ && !pipelineOpen_ && !wire_.hasUnsent() &&
         connection_->transactionState() == Connection::TransactionState::Idle;
}

namespace {
// COPY anywhere in a Query's text: it may read CopyData from the client (FROM STDIN), which must
// not be waited for on a dispatcher thread. Any mention, not only the first statement's (a Query
// may hold several): a false alarm only costs a wake-up of the session's thread. A prepared
// statement is one statement, which copyUseOf reads as the handlers do.
bool mentionsCopy(std::string_view text) {
  for (size_t i = 0; i + 4 <= text.size(); ++i)
    if ((text[i] | 0x20) == 'c' && (text[i + 1] | 0x20) == 'o' && (text[i + 2] | 0x20) == 'p' && (text[i + 3] | 0x20) == 'y')
      return true;
  return false;
}
}  // namespace

Session::BatchFit Session::arrivedBatch(size_t& count) {
  const std::vector<Wire::Peeked>& arrived = wire_.peek();
  for (size_t i = 0; i < arrived.size(); ++i) {
    const Wire::Peeked& m = arrived[i];
    switch (m.type) {
      case frontend::Sync:
      case frontend::Flush:  // the client waits for the replies so far
        count = i + 1;
        return BatchFit::Run;
      case frontend::Query:  // a Query answers with ReadyForQuery: a batch of its own
        if (mentionsCopy(m.body)) return BatchFit::Thread;
        count = i + 1;
        return BatchFit::Run;
      case frontend::Parse: {
        // name, then the statement's text
        const std::string_view text = m.body.substr(std::min(m.body.size(), m.body.find('\0') + 1));
        if (copyUseOf(std::string(text.substr(0, text.find('\0')))).in) return BatchFit::Thread;
        continue;
      }
      case frontend::Bind: {
        // portal, then the statement's name: a COPY FROM STDIN prepared before
        const size_t portalEnd = m.body.find('\0');
        if (portalEnd == std::string_view::npos) return BatchFit::Thread;  // malformed: said there
        std::string_view rest = m.body.substr(portalEnd + 1);
        try {
          if (copyUseOf(connection_->describeStatement(std::string(rest.substr(0, rest.find('\0')))).text).in)
            return BatchFit::Thread;
        } catch (const Error&) {  // no such statement: Bind says so
        }
        continue;
      }
      case frontend::Describe:
      case frontend::Execute:
      case frontend::Close: continue;
      default: return BatchFit::Thread;  // Terminate, FunctionCall, copy messages, unknown ones
    }
  }
  // No Sync yet: wait for the rest, unless it cannot fit in the buffer.
  return wire_.restMayArrive() && !wire_.bufferFull() ? BatchFit::Wait : BatchFit::Thread;
}

bool Session::serveReady() {
  try {
    Wire::AtWork atWork;
    wire_.setWritesMayBlock(false);
    struct BlockingAgain {
      Wire& wire;
      ~BlockingAgain() { wire.setWritesMayBlock(true); }
    } blockingAgain{wire_};
    // What a poll caught is served without another recv; otherwise (or for the rest of a batch)
    // one receive without blocking.
    bool received = false;
    for (;;) {
      size_t count = 0;
      switch (arrivedBatch(count)) {
        case BatchFit::Wait:
          if (received) return true;
          if (!wire_.receiveArrived()) return false;  // the client left: its thread finds out
          received = true;
          continue;
        case BatchFit::Thread: return false;
        case BatchFit::Run: break;
      }
      for (size_t i = 0; i < count; ++i) {
        Message m = wire_.readMessage();
        if (skipTillSync_ && m.type != frontend::Sync) continue;
        (this->*handlerFor(m.type))(m);
      }
      if (!parkable()) return false;
      if (wire_.buffered() == 0) return true;
    }
  } catch (...) {
    handedBack_ = std::current_exception();
    return false;
  }
}

bool Session::pollBriefly() {
  wire_.pollBriefly();
  return wire_.buffered() > 0;
}

Session::Handler Session::handlerFor(char type) {
  switch (type) {
    case frontend::Query: return &Session::onQuery;
    case frontend::Terminate: return &Session::onTerminate;
    case frontend::Parse:
    case frontend::Bind:
    case frontend::Describe:
    case frontend::Execute:
    case frontend::Close: return &Session::onExtended;
    case frontend::Flush: return &Session::onFlush;
    case frontend::FunctionCall: return &Session::onFunctionCall;
    case frontend::Sync: return &Session::onSync;
    case frontend::CopyData:
    case frontend::CopyDone:
    case frontend::CopyFail: return &Session::onCopyMessage;
    default: return &Session::onUnknown;
  }
}

void Session::onTerminate(const Message&) { terminate_ = true; }

void Session::onUnknown(const Message& m) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(m.type));
  throw FatalError(wirestate::ProtocolViolation, std::string("invalid frontend message type ") + hex);
}

void Session::onFlush(const Message&) { wire_.flush(); }

void Session::onFunctionCall(const Message&) {
  // The fast-path function call is a simple-protocol message: its answer ends with ReadyForQuery.
  sendError(wire_, Error(sqlstate::FeatureNotSupported, "the fast-path function call interface is not supported"),
            Severity::Error);
  sendReadyForQuery();
}

void Session::onSync(const Message&) {
  skipTillSync_ = false;
  sendReadyForQuery();  // (which ends the pipeline's transaction)
}

void Session::onCopyMessage(const Message&) {
  // Accepted and ignored, as PostgreSQL does: a client may still send copy data after a COPY
  // that failed (PostgreSQL fails some before the data; a driver may be mid-stream).
}

void Session::onQuery(const Message& m) {
  portals_.erase("");  // a simple Query drops the unnamed portal, as PostgreSQL does
  MessageReader r(m.body);
  std::string_view query = r.cstring();
  auto statements = splitStatements(query);
  if (statements.empty()) {
    wire_.begin(backend::EmptyQueryResponse);
    wire_.end();
  } else if (statements.size() == 1 && !pipelineOpen_) {
    runStatement(query, statements[0]);
  } else {
    runImplicitBlock(query, statements);  // (after unsynced extended messages: in their transaction, as PostgreSQL)
  }
  pipelineOpen_ = false;  // ended with the Query's
  sendReadyForQuery();
}

// Several statements are one transaction unless BEGIN, COMMIT or ROLLBACK among them say
// otherwise (Connection::beginImplicitBlock); as PostgreSQL, the whole string is parsed first, so
// a syntax error anywhere in it runs nothing, and a failure ends the Query.
void Session::runImplicitBlock(std::string_view query, const std::vector<StatementText>& statements) {
  connection_->beginImplicitBlock();  // (after a pipeline's unsynced statements: in their transaction)
  bool parsed = true;
  for (auto& st : statements) {
    try {
      Connection::checkSyntax(st.text, SourcePos{st.line, st.column});
    } catch (const Error& e) {
      sendError(wire_, e, Severity::Error, query);
      connection_->failBlock();  // (a pipeline's statements before it are undone)
      parsed = false;
      break;
    }
  }
  if (parsed)
    for (auto& st : statements)
      if (!runStatement(query, st)) break;
  connection_->endImplicitBlock();  // commits, or rolls back after a failure
}

bool Session::runStatement(std::string_view query, const StatementText& st) {
  try {
    QueryResult result = runWithCopy(copyUseOf(st.text), [&] { return connection_->execute(st.text, SourcePos{st.line, st.column}); });
    sendResult(result);
    return true;
  } catch (const FatalError&) {
    throw;
  } catch (const Error& failure) {
    for (auto& n : failure.notices()) sendNotice(wire_, n);  // raised before it failed, as PostgreSQL
    sendError(wire_, failure, Severity::Error, query);
    return false;
  }
}

QueryResult Session::runWithCopy(const CopyUse& copy, const std::function<QueryResult()>& run) {
  // COPY's data passes through spools (copy_streams.hpp says why): FROM STDIN's is received
  // before the statement runs (CopyFail, or the client leaving copy mode, is the statement's
  // error and it does not run), TO STDOUT's sent after.
  std::optional<Spool> spool;
  std::optional<std::istream> in;
  std::optional<std::ostream> out;
  if (copy.in) {
    spool.emplace();
    try {
      receiveCopyIn(wire_, copy.columns, *spool);
    } catch (const Error&) {
      connection_->failBlock();  // the statement failed, though it never ran
      throw;
    }
    in.emplace(&spool->reader());
  } else if (copy.out) {
    spool.emplace();
    out.emplace(&*spool);
    out->exceptions(std::ios::badbit);  // a full disk fails the statement instead of truncating it
  }
  QueryResult result;
  std::optional<Error> failure;
  connection_->setCopyStreams(in ? &*in : nullptr, out ? &*out : nullptr);
  hangupWatcher_->begin();
  try {
    result = run();
  } catch (const Error& e) {
    failure = e;
  } catch (const std::bad_alloc&) {
    failure = Error(sqlstate::OutOfMemory, "out of memory");
  } catch (const std::exception& e) {
    failure = Error(sqlstate::InternalError, e.what());
  }
  hangupWatcher_->end();
  connection_->setCopyStreams(nullptr, nullptr);
  if (failure) throw *failure;
  // RowDescription and DataRow count columns in 16 bits.
  if (result.columns().size() > static_cast<size_t>(INT16_MAX))
    throw Error(sqlstate::ProgramLimitExceeded, "a result of " + std::to_string(result.columns().size()) +
                                                    " columns is more than the protocol can send (32767)");
  for (auto& n : result.notices) sendNotice(wire_, n);
  if (copy.out) sendCopyOut(wire_, copy.columns, copy.rows, *spool);
  return result;
}

void Session::sendResult(const QueryResult& result) {
  if (result.hasRows()) {
    sendRowDescription(wire_, result.columns());
    sendDataRows(wire_, result, 0, result.rowCount());
  }
  wire_.begin(backend::CommandComplete);
  wire_.putCString(result.tag());
  wire_.end();
}

void Session::reportSettings() {
  if (reported_.size() == std::size(kReported) && reportedChanges_ == connection_->settingsChanges()) return;
  reportedChanges_ = connection_->settingsChanges();
  const bool startup = reported_.empty();  // every one, even an empty application_name
  reported_.resize(std::size(kReported));
  for (size_t i = 0; i < std::size(kReported); ++i) {
    std::string value = reportedValue(*connection_, kReported[i]);
    if (!startup && value == reported_[i]) continue;
    sendParameterStatus(wire_, kReported[i].wireName, value);
    reported_[i] = std::move(value);
  }
}

void Session::sendReadyForQuery() {
  endPipeline();  // at Sync, as PostgreSQL; a Query or FunctionCall before it ends it too
  // Portals live until their transaction ends: with no block open, the statement or the batch up
  // to Sync was one (PostgreSQL's implicit transaction).
  if (connection_ && connection_->transactionState() == Connection::TransactionState::Idle) portals_.clear();
  char status = 'I';
  if (connection_) {
    reportSettings();
    switch (connection_->transactionState()) {
      case Connection::TransactionState::Idle: status = 'I'; break;
      case Connection::TransactionState::InBlock: status = 'T'; break;
      case Connection::TransactionState::Failed: status = 'E'; break;
    }
  }
  wire_.begin(backend::ReadyForQuery);
  wire_.buffer().push_back(status);
  wire_.end();
  wire_.flush();
}

}  // namespace hyrax::server
