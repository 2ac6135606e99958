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

class CopyOutBuffer : public std::streambuf {
 public:
  CopyOutBuffer(Wire& wire, int16_t columns);
  // After the statement: CopyOutResponse if nothing was sent yet, the rest of the data, CopyDone.
  void finish();
  bool clientGone() const { return gone_; }

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  void sendBuffered();
  Wire& wire_;
  int16_t columns_;
  bool started_ = false, gone_ = false;
  std::string buffer_;
};

}  // namespace hyrax::server
