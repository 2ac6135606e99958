#pragma once
// COPY's data between the client and Connection::setCopyStreams' streams, as the protocol's
// copy sub-protocol: COPY FROM STDIN reads CopyData messages through CopyInBuffer one message at
// a time (the input is never held whole), COPY TO STDOUT writes CopyData through CopyOutBuffer.
// Both run on the executor thread while the session's thread waits in Connection::execute, so
// the wire has one user at a time.
//
// Each announces itself lazily: CopyInResponse is sent when the statement first reads (a COPY
// that fails before, on a missing table, sends only its ErrorResponse, as PostgreSQL does), and
// CopyOutResponse before the first data or at finish().
#include <optional>
#include <streambuf>
#include <string>

#include "server/wire.hpp"

namespace hyrax::server {

class CopyInBuffer : public std::streambuf {
 public:
  CopyInBuffer(Wire& wire, int16_t columns) : wire_(wire), columns_(columns) {}
  // Whether the client is still in copy mode: the statement ended (or failed) before its
  // CopyDone or CopyFail; the session then ignores the rest of its copy messages.
  bool clientStillSending() const { return started_ && !ended_; }
  bool clientGone() const { return gone_; }
  // A protocol violation inside the copy (an oversized message) that must end the session.
  const std::optional<FatalError>& fatal() const { return fatal_; }

 protected:
  int_type underflow() override;

 private:
  Wire& wire_;
  int16_t columns_;
  bool started_ = false, ended_ = false, gone_ = false;
  std::optional<FatalError> fatal_;
  std::string data_;  // the current CopyData message's body
};

// How COPY TO's output divides into rows: clients read one CopyData message as one row (libpqxx's
// stream_from does), so rows are found in the byte stream. Text format ends a row at each
// newline (one inside a value is written \n); csv only outside a quoted value.
struct CopyRowFormat {
  bool csv = false;
  char quote = '"', escape = '"';
};

class CopyOutBuffer : public std::streambuf {
 public:
  CopyOutBuffer(Wire& wire, int16_t columns, CopyRowFormat format);
  // After the statement: CopyOutResponse if nothing was sent yet, the rest of the data, CopyDone.
  void finish();
  bool clientGone() const { return gone_; }

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  // Sends every complete row buffered as a CopyData message each; `all`: the rest too.
  void sendRows(bool all);
  Wire& wire_;
  int16_t columns_;
  CopyRowFormat format_;
  bool started_ = false, gone_ = false;
  bool inQuotes_ = false, escaped_ = false;  // csv: where the scan stopped
  size_t scanned_ = 0;                       // bytes of the buffer scanned for row ends
  std::string buffer_;
};

}  // namespace hyrax::server
