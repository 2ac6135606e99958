#include "server/copy_streams.hpp"

#include <cstdio>
#include <cstring>

#include "server/protocol.hpp"

namespace hyrax::server {

namespace {

// CopyInResponse and CopyOutResponse: text format overall and for each column.
void sendCopyResponse(Wire& wire, char type, int16_t columns) {
  wire.begin(type);
  wire.buffer().push_back('\0');
  wire.putInt16(columns);
  for (int16_t i = 0; i < columns; ++i) wire.putInt16(0);
  wire.end();
}

constexpr size_t kCopyOutChunk = 64 * 1024;

}  // namespace

// Errors here reach the COPY statement as exceptions (its istream rethrows them), so a CopyFail
// or a lost client fails the load and it leaves nothing behind.
CopyInBuffer::int_type CopyInBuffer::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  if (ended_) return traits_type::eof();
  try {
    if (!started_) {
      sendCopyResponse(wire_, backend::CopyInResponse, columns_);
      wire_.flush();
      started_ = true;
    }
    for (;;) {
      Message m = wire_.readMessage();
      switch (m.type) {
        case frontend::CopyData:
          if (m.body.empty()) continue;
          data_ = std::move(m.body);
          setg(data_.data(), data_.data(), data_.data() + data_.size());
          return traits_type::to_int_type(*gptr());
        case frontend::CopyDone: ended_ = true; return traits_type::eof();
        case frontend::CopyFail: {
          ended_ = true;
          MessageReader r(m.body);
          throw Error(sqlstate::QueryCanceled, "COPY from stdin failed: " + std::string(r.cstring()));
        }
        case frontend::Flush:
        case frontend::Sync: continue;  // PostgreSQL ignores them here (a driver may send them)
        default: {
          char hex[8];
          std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(m.type));
          ended_ = true;  // the client left copy mode
          throw Error(wirestate::ProtocolViolation, std::string("unexpected message type ") + hex + " during COPY from stdin");
        }
      }
    }
  } catch (const FatalError& e) {
    fatal_ = e;
    ended_ = true;
    throw Error(e.sqlstate(), e.message());
  } catch (const ClientGone&) {
    gone_ = ended_ = true;
    throw Error(wirestate::ConnectionFailure, "the client connection was lost during COPY from stdin");
  }
}

CopyOutBuffer::CopyOutBuffer(Wire& wire, int16_t columns, CopyRowFormat format)
    : wire_(wire), columns_(columns), format_(format) {
  buffer_.resize(kCopyOutChunk);
  setp(buffer_.data(), buffer_.data() + buffer_.size());
}

void CopyOutBuffer::sendRows(bool all) {
  try {
    if (!started_) {
      sendCopyResponse(wire_, backend::CopyOutResponse, columns_);
      started_ = true;
    }
    const size_t filled = static_cast<size_t>(pptr() - pbase());
    size_t rowStart = 0;
    for (size_t i = scanned_; i < filled; ++i) {
      char c = buffer_[i];
      bool rowEnds = false;
      if (!format_.csv) {
        rowEnds = c == '\n';
      } else if (inQuotes_) {
        if (escaped_) escaped_ = false;
        else if (c == format_.escape && format_.escape != format_.quote) escaped_ = true;
        else if (c == format_.quote) inQuotes_ = false;
      } else if (c == format_.quote) {
        inQuotes_ = true;
      } else {
        rowEnds = c == '\n';
      }
      if (rowEnds) {
        wire_.send(backend::CopyData, std::string_view(buffer_.data() + rowStart, i + 1 - rowStart));
        rowStart = i + 1;
      }
    }
    if (all && rowStart < filled) {
      wire_.send(backend::CopyData, std::string_view(buffer_.data() + rowStart, filled - rowStart));
      rowStart = filled;
    }
    // The unfinished row moves to the front; a row longer than the buffer makes it grow.
    size_t rest = filled - rowStart;
    std::memmove(buffer_.data(), buffer_.data() + rowStart, rest);
    if (rest == buffer_.size()) buffer_.resize(buffer_.size() * 2);
    scanned_ = rest;
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    pbump(static_cast<int>(rest));
  } catch (const ClientGone&) {
    gone_ = true;
    throw Error(wirestate::ConnectionFailure, "the client connection was lost during COPY to stdout");
  }
}

CopyOutBuffer::int_type CopyOutBuffer::overflow(int_type c) {
  sendRows(false);
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int CopyOutBuffer::sync() {
  sendRows(false);
  return 0;
}

void CopyOutBuffer::finish() {
  sendRows(true);
  wire_.begin(backend::CopyDone);
  wire_.end();
}

}  // namespace hyrax::server
