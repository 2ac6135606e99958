#pragma once
// PostgreSQL's frontend/backend protocol 3.0: the codes and message types hyrax's server speaks
// (doc/src/sgml/protocol.sgml, "Message Formats"). Names follow that chapter.
#include <cstdint>

#include "engine/util/error.hpp"

namespace hyrax::server {

// The first word after a startup packet's length.
inline constexpr int32_t kProtocolVersion3 = 3 << 16;  // 3.0
inline constexpr int32_t kCancelRequestCode = 80877102;
inline constexpr int32_t kSslRequestCode = 80877103;
inline constexpr int32_t kGssEncRequestCode = 80877104;

// A startup packet longer than this is refused before it is read (PostgreSQL's MAX_STARTUP_PACKET_LENGTH).
inline constexpr uint32_t kMaxStartupPacket = 10000;
// Other messages: the default of ServerConfig::maxMessageBytes.
inline constexpr uint32_t kDefaultMaxMessage = 64u << 20;
// Messages of an unauthenticated client (SASL's): PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH. With the
// general limit, each connection of a client without a password could have the server allocate
// 64 MiB for a 5-byte header.
inline constexpr uint32_t kMaxAuthMessage = 65535;

// What the backend sends (the first byte of each message).
namespace backend {
inline constexpr char Authentication = 'R';
inline constexpr char BackendKeyData = 'K';
inline constexpr char ParameterStatus = 'S';
inline constexpr char NegotiateProtocolVersion = 'v';
inline constexpr char ReadyForQuery = 'Z';
inline constexpr char RowDescription = 'T';
inline constexpr char DataRow = 'D';
inline constexpr char CommandComplete = 'C';
inline constexpr char EmptyQueryResponse = 'I';
inline constexpr char ErrorResponse = 'E';
inline constexpr char NoticeResponse = 'N';
inline constexpr char CopyInResponse = 'G';
inline constexpr char CopyOutResponse = 'H';
inline constexpr char CopyData = 'd';
inline constexpr char CopyDone = 'c';
inline constexpr char ParseComplete = '1';
inline constexpr char BindComplete = '2';
inline constexpr char CloseComplete = '3';
inline constexpr char ParameterDescription = 't';
inline constexpr char NoData = 'n';
inline constexpr char PortalSuspended = 's';
}  // namespace backend

// What the frontend sends after the startup packet.
namespace frontend {
inline constexpr char Query = 'Q';
inline constexpr char Terminate = 'X';
inline constexpr char Parse = 'P';
inline constexpr char Bind = 'B';
inline constexpr char Describe = 'D';
inline constexpr char Execute = 'E';
inline constexpr char Close = 'C';
inline constexpr char Sync = 'S';
inline constexpr char Flush = 'H';
inline constexpr char FunctionCall = 'F';
inline constexpr char CopyData = 'd';
inline constexpr char CopyDone = 'c';
inline constexpr char CopyFail = 'f';
inline constexpr char Password = 'p';  // also SASLInitialResponse and SASLResponse
}  // namespace frontend

// SQLSTATEs of the protocol layer (engine/util/error.hpp has the SQL ones, and those both use).
namespace wirestate {
inline constexpr const char* ProtocolViolation = sqlstate::ProtocolViolation;
inline constexpr const char* ConnectionFailure = "08006";
inline constexpr const char* InvalidAuthorization = sqlstate::InvalidAuthorization;
inline constexpr const char* TooManyConnections = "53300";
inline constexpr const char* IdleSessionTimeout = "57P05";
inline constexpr const char* IdleInTransactionTimeout = "25P03";
inline constexpr const char* AdminShutdown = "57P01";
}  // namespace wirestate

}  // namespace hyrax::server
