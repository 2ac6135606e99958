// The extended query protocol (Parse, Bind, Describe, Execute, Close; Sync and Flush are in
// session.cpp): statements are Connection's protocol statements (sql/api/protocol_statements.cpp),
// parameter and result values in text or binary format (pg_types), portals with row limits.
// An error answers ErrorResponse and makes the session skip messages up to the next Sync, as
// PostgreSQL does.
#include <optional>

#include "server/copy_streams.hpp"
#include "server/data_rows.hpp"
#include "server/error_response.hpp"
#include "server/pg_types.hpp"
#include "server/protocol.hpp"
#include "server/session.hpp"

namespace hyrax::server {

namespace {

std::vector<int16_t> readFormatCodes(MessageReader& r) {
  const int16_t n = r.int16();
  if (n < 0) throw Error(wirestate::ProtocolViolation, "invalid number of format codes");
  std::vector<int16_t> codes(static_cast<size_t>(n));
  for (auto& c : codes) c = r.int16();
  return codes;
}

void sendEmpty(Wire& wire, char type) {
  wire.begin(type);
  wire.end();
}

}  // namespace

void Session::onExtended(const Message& m) {
  errorQuery_.clear();  // the text an error's position counts in, once the message names one
  try {
    switch (m.type) {
      case frontend::Parse: onParse(m); break;
      case frontend::Bind: onBind(m); break;
      case frontend::Describe: onDescribe(m); break;
      case frontend::Execute: onExecute(m); break;
      case frontend::Close: onClose(m); break;
      default: break;
    }
  } catch (const FatalError&) {
    throw;
  } catch (const Error& e) {
    for (auto& n : e.notices()) sendNotice(wire_, n);  // raised before it failed, as PostgreSQL
    sendError(wire_, e, Severity::Error, errorQuery_);
    skipTillSync_ = true;
    connection_->failBlock();  // whichever message failed (a Bind's bad value too), as PostgreSQL
  } catch (const std::bad_alloc&) {
    sendError(wire_, Error(sqlstate::OutOfMemory, "out of memory"), Severity::Error);
    skipTillSync_ = true;
    connection_->failBlock();
  }
}

void Session::onParse(const Message& m) {
  MessageReader r(m.body);
  const std::string name(r.cstring());
  const std::string query(r.cstring());
  errorQuery_ = query;
  const int16_t n = r.int16();
  if (n < 0) throw Error(wirestate::ProtocolViolation, "invalid number of parameter types");
  std::vector<std::optional<SqlType>> declared;
  for (int16_t i = 0; i < n; ++i) declared.push_back(pg::typeFromOid(static_cast<uint32_t>(r.int32())));
  if (r.remaining()) throw Error(wirestate::ProtocolViolation, "invalid Parse message format");
  connection_->prepareStatement(name, query, declared);
  sendEmpty(wire_, backend::ParseComplete);
}

void Session::onBind(const Message& m) {
  MessageReader r(m.body);
  const std::string portalName(r.cstring());
  Portal portal;
  portal.statement = std::string(r.cstring());
  const std::vector<int16_t> parameterFormats = readFormatCodes(r);
  const int16_t n = r.int16();
  if (n < 0) throw Error(wirestate::ProtocolViolation, "invalid number of parameters");
  const Connection::StatementDescription& d = connection_->describeStatement(portal.statement);
  portal.copy = copyUseOf(d.text);
  if (static_cast<size_t>(n) != d.parameters.size())
    throw Error(wirestate::ProtocolViolation, "bind message supplies " + std::to_string(n) + " parameters, but prepared statement \"" +
                                                  portal.statement + "\" requires " + std::to_string(d.parameters.size()));
  if (parameterFormats.size() > 1 && parameterFormats.size() != static_cast<size_t>(n))
    throw Error(wirestate::ProtocolViolation, "bind message has " + std::to_string(parameterFormats.size()) +
                                                  " parameter formats but " + std::to_string(n) + " parameters");
  for (int16_t i = 0; i < n; ++i) {
    const int32_t length = r.int32();
    const SqlType& type = d.parameters[static_cast<size_t>(i)];
    if (length < 0) {  // NULL
      portal.arguments.push_back(Value::null(type));
      continue;
    }
    const std::string_view bytes = r.bytes(static_cast<size_t>(length));
    const int16_t format = parameterFormats.empty() ? 0 : parameterFormats.size() == 1 ? parameterFormats[0] : parameterFormats[i];
    try {
      if (format == 1) portal.arguments.push_back(pg::binaryIn(bytes, type));
      else if (format == 0) portal.arguments.push_back(pg::textIn(bytes, type));
      else throw Error(sqlstate::InvalidParameter, "unsupported format code: " + std::to_string(format));
    } catch (const Error& e) {
      throw Error(e.sqlstate(), e.message() + " (parameter $" + std::to_string(i + 1) + ")");
    }
  }
  portal.formats = readFormatCodes(r);
  if (d.columnsKnown) portal.formats = columnFormats(portal.formats, d.columns.size());
  if (r.remaining()) throw Error(wirestate::ProtocolViolation, "invalid Bind message format");
  if (!portalName.empty() && portals_.count(portalName))
    throw Error(sqlstate::DuplicateCursor, "portal \"" + portalName + "\" already exists");
  portals_[portalName] = std::move(portal);  // the unnamed portal is replaced
  sendEmpty(wire_, backend::BindComplete);
}

Portal& Session::portal(const std::string& name) {
  auto it = portals_.find(name);
  if (it == portals_.end()) throw Error(sqlstate::InvalidCursorName, "portal \"" + name + "\" does not exist");
  return it->second;
}

void Session::runPortal(const std::string& name, Portal& p) {
  if (p.result) return;
  if (!pipelineOpen_ && !lastBeforeSync(name)) {
    connection_->beginImplicitBlock(true);
    pipelineOpen_ = true;
  }
  try {
    // A COPY's CopyInResponse or CopyOutResponse and data come here, at Execute, as PostgreSQL's.
    p.result = runWithCopy(p.copy, [&] { return connection_->executeStatement(p.statement, p.arguments); });
  } catch (const FatalError&) {
    throw;
  } catch (const Error&) {
    try {  // the text the error's position counts in (a Close may have taken the statement away)
      errorQuery_ = connection_->describeStatement(p.statement).text;
    } catch (const Error&) {
    }
    throw;
  }
  if (p.result->hasRows()) p.formats = columnFormats(p.formats, p.result->columns().size());
}

// The usual Parse/Bind/(Describe)/Execute/Sync of one statement arrives at once: its statement runs
// as a transaction of its own, as before, with no block to end at Sync. Another statement that
// may run before the Sync (a Bind, Execute or Describe of another portal, a Parse, a Query), or
// a Sync that has not arrived yet, makes the statements up to Sync one transaction.
bool Session::lastBeforeSync(const std::string& portal) {
  for (const Wire::Peeked& m : wire_.peek()) {
    const std::string_view name = m.body.substr(m.type == frontend::Describe ? 1 : 0, std::string_view::npos);
    switch (m.type) {
      case frontend::Sync: return true;
      case frontend::Close:
      case frontend::Flush: continue;
      case frontend::Describe:
        if (!m.body.empty() && m.body[0] == 'S') continue;
        [[fallthrough]];
      case frontend::Execute:
        if (name.substr(0, name.find('\0')) == portal) continue;
        return false;
      default: return false;
    }
  }
  return false;
}

void Session::endPipeline() {
  if (!pipelineOpen_) return;
  pipelineOpen_ = false;
  connection_->endImplicitBlock();
}

void Session::onDescribe(const Message& m) {
  MessageReader r(m.body);
  const char what = r.bytes(1)[0];
  const std::string name(r.cstring());
  if (what == 'S') {
    const Connection::StatementDescription& d = connection_->describeStatement(name);
    wire_.begin(backend::ParameterDescription);
    wire_.putInt16(static_cast<int16_t>(d.parameters.size()));
    for (auto& t : d.parameters) wire_.putInt32(static_cast<int32_t>(pg::typeOid(t)));
    wire_.end();
    // A statement whose columns are known only once it runs (SHOW ALL's are, EXPLAIN's are; a
    // stored function called alone is not) is described as returning none: a client then learns
    // its columns from the portal's Describe, which runs it.
    if (d.columns.empty()) sendEmpty(wire_, backend::NoData);
    else sendRowDescription(wire_, d.columns);
    return;
  }
  if (what != 'P') throw Error(wirestate::ProtocolViolation, "invalid DESCRIBE message subtype " + std::string(1, what));
  Portal& p = portal(name);
  // A reference, not a copy (its text and columns, every Describe): read only while nothing ran
  // that could close the statement; once the portal ran, its result has the columns.
  const Connection::StatementDescription& d = connection_->describeStatement(p.statement);
  // Its rows come at Execute, as ever; a COPY's data too (NoData here, as PostgreSQL).
  if (!d.columnsKnown && !p.copy.in && !p.copy.out) runPortal(name, p);
  const std::vector<ResultColumn>& columns = p.result ? p.result->columns() : d.columns;
  if (columns.empty()) sendEmpty(wire_, backend::NoData);
  else sendRowDescription(wire_, columns, columnFormats(p.formats, columns.size()));
}

void Session::onExecute(const Message& m) {
  MessageReader r(m.body);
  const std::string name(r.cstring());
  const int32_t limit = r.int32();
  Portal& p = portal(name);
  runPortal(name, p);
  const QueryResult& result = *p.result;
  if (result.hasRows()) {
    const uint64_t left = result.rowCount() - p.sent;
    const uint64_t count = limit > 0 ? std::min<uint64_t>(left, static_cast<uint64_t>(limit)) : left;
    sendDataRows(wire_, result, p.sent, count, p.formats);
    p.sent += count;
    if (p.sent < result.rowCount()) {
      sendEmpty(wire_, backend::PortalSuspended);
      return;
    }
  }
  wire_.begin(backend::CommandComplete);
  wire_.putCString(result.tag());
  wire_.end();
}

void Session::onClose(const Message& m) {
  MessageReader r(m.body);
  const char what = r.bytes(1)[0];
  const std::string name(r.cstring());
  if (what == 'S') connection_->closeStatement(name);
  else if (what == 'P') portals_.erase(name);
  else throw Error(wirestate::ProtocolViolation, "invalid CLOSE message subtype " + std::string(1, what));
  sendEmpty(wire_, backend::CloseComplete);
}

}  // namespace hyrax::server
