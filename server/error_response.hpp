#pragma once
// ErrorResponse and NoticeResponse: hyrax::Error's SQLSTATE, message, detail and position as
// PostgreSQL's fields (S, V, C, M, D, P), so psql's VERBOSITY verbose, libpq's PQresultErrorField
// and JDBC's getSQLState read what they would from PostgreSQL.
#include <string_view>

#include "engine/util/error.hpp"
#include "server/wire.hpp"

namespace hyrax::server {

enum class Severity { Error, Fatal };

// `query` is the Query message's text the error's line:column refers to (empty: no position).
void sendError(Wire& wire, const Error& error, Severity severity, std::string_view query = {});
void sendNotice(Wire& wire, const Notice& notice);

// The 1-based character (not byte) position of line:column in `text`, as the P field counts;
// 0 when the position is unknown or outside the text.
uint32_t characterPosition(std::string_view text, SourcePos pos);

}  // namespace hyrax::server
