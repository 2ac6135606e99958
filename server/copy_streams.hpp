#pragma once
// COPY's data between the client and Connection::setCopyStreams' streams, as the protocol's
// copy sub-protocol. Both directions go through a Spool on the session's thread, never the
// socket on the executor thread: a statement runs there with every other session waiting, and
// a client that sends or reads slowly (or, piping `COPY a TO STDOUT` of one session into
// `COPY b FROM STDIN` of another, waits for the executor itself) would hold it.
//
// COPY FROM STDIN: receiveCopyIn() sends CopyInResponse and reads CopyData up to CopyDone before
// the statement runs; the statement reads the spool. COPY TO STDOUT: the statement writes the
// spool, sendCopyOut() sends it after, as one CopyData message per row (libpq clients such as
// libpqxx's stream_from read a message as a row).
#include <cstdint>
#include <string>

#include "server/spool.hpp"
#include "server/wire.hpp"

namespace hyrax::server {

// Throws Error 57014 on the client's CopyFail and 08P01 on another message than the copy
// sub-protocol's (the client has left copy mode either way); FatalError and ClientGone pass.
void receiveCopyIn(Wire& wire, int16_t columns, Spool& spool);

// How COPY TO's output divides into rows: text format ends a row at each newline (one inside a
// value is written \n); csv only outside a quoted value.
struct CopyRowFormat {
  bool csv = false;
  char quote = '"', escape = '"';
  char delimiter = '\t';  // csv's default is ','
};

// What a statement does with the client's copy streams: COPY FROM STDIN reads them, COPY TO
// STDOUT writes them (and must announce itself even when it writes no row).
struct CopyUse {
  bool in = false, out = false;
  int16_t columns = 0;  // the column list's length; 0 when the statement lists none
  CopyRowFormat rows;
};
// Nothing for another statement, or one that does not parse (running it reports why).
CopyUse copyUseOf(const std::string& text);

// CopyOutResponse, a CopyData message per row, CopyDone. CopyOutResponse's column count is the
// first row's field count (drivers such as psycopg parse rows by it; COPY (query) TO's columns
// are known only once it ran); `columns` when there is no row.
void sendCopyOut(Wire& wire, int16_t columns, const CopyRowFormat& format, Spool& spool);

}  // namespace hyrax::server
