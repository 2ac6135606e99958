#pragma once
// What travels between a session and a snapshot worker (snapshot.hpp), as bytes: the request, and
// the answer (a result or an error). Each message starts with a kind byte and ends with 'Z'.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sql/api/database.hpp"

namespace hyrax::sql {

// What a session asks a worker to run.
struct SnapshotRequest {
  std::string sql;
  SourcePos origin;
  std::vector<std::pair<std::string, std::string>> settings;  // the session's SET values
  uint64_t hookOwner = 0;  // tests: the Connection whose hook the worker runs (in its own copy)
  int64_t transactionTime = 0;  // CURRENT_TIMESTAMP: the session's transaction's start
  // The session's compiled statement for this text (a CompiledStatement*, as the parent had it
  // before the fork, so the worker's copy is at the same address), or 0: the worker compiles.
  uint64_t compiled = 0;
  // A prepared statement's parameters, of their types ($1, $2, ...; the extended query protocol).
  std::vector<Value> parameters;
};
std::string encodeRequest(const SnapshotRequest& r);
SnapshotRequest decodeRequest(const std::string& bytes);  // XX000 when malformed

// The answer: 'R' a result (columns, tag, times, notices, chunks; a string column's long strings
// as offsets into the bytes after the column), 'E' an error, "IZ" run it inline instead.
std::string encodeResult(const QueryResult& r);
std::string encodeError(const Error& e);
// Decodes what encodeResult / encodeError wrote (`bytes` is kept alive by the result, whose long
// strings point into it): the result, or throws the error. XX000 on a malformed message.
QueryResult decodeAnswer(std::shared_ptr<const std::string> bytes);

}  // namespace hyrax::sql
