#pragma once
// One client's socket, framed as the protocol's messages: a buffered blocking reader that checks
// each message's claimed length before it allocates (one read takes a client's whole batch, as
// Parse/Bind/Describe/Execute/Sync, instead of two system calls per message), and a buffered
// writer that builds backend messages in place (no string per field) and sends them when a reply
// is complete.
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/util/error.hpp"

namespace hyrax::server {

// The client closed the connection or the socket failed: the session ends without a reply.
struct ClientGone : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An error that ends the session: sent as ErrorResponse with severity FATAL, then the socket is
// closed (malformed or oversized messages, refused authentication, too many connections).
struct FatalError : Error {
  using Error::Error;
};

// A frontend message: its type byte and its body (the bytes after the length word).
struct Message {
  char type = 0;
  std::string body;
};

// Reads the fields of a message body; a field that runs past the end is a protocol violation.
class MessageReader {
 public:
  explicit MessageReader(std::string_view body) : body_(body) {}
  int32_t int32();
  int16_t int16();
  std::string_view cstring();  // up to its NUL terminator (not included)
  std::string_view bytes(size_t n);
  size_t remaining() const { return body_.size() - pos_; }

 private:
  std::string_view body_;
  size_t pos_ = 0;
};

// The socket is a plain descriptor with blocking system calls, outside the server's asio
// reactor: a socket asio accepted stays registered in the reactor's epoll set (edge-triggered
// EPOLLIN), so every request a client sent also woke the accepting thread, which found nothing to
// do (YCSB-C at 16 clients: a third wake-up per request beside the session's and the client's).
class Wire {
 public:
  // Takes `fd`, a connected stream socket in blocking mode, and closes it.
  Wire(int fd, uint32_t maxMessageBytes);
  ~Wire();
  Wire(const Wire&) = delete;
  Wire& operator=(const Wire&) = delete;

  // The startup packet (its body after the length word); refuses lengths outside 8..10,000.
  std::string readStartupPacket();
  // The next message. Over the size limit: FatalError 08P01, and nothing is allocated for it.
  Message readMessage() { return readMessage(maxMessage_); }
  // The same with a smaller limit (`maxBytes` below the configured one): authentication's messages.
  Message readMessage(uint32_t maxBytes);
  // Reads after `deadline` fail with FatalError 08P01 (the startup's time limit); a default
  // time_point: no limit.
  void setReadDeadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }
  // Waits until a message can be read or `ms` milliseconds passed (false then).
  bool waitReadable(int ms);
  // The messages after the one just read that have arrived in full (received without blocking),
  // in order, valid until the next read: what a session may look ahead at.
  struct Peeked {
    char type;
    std::string_view body;
  };
  const std::vector<Peeked>& peek();  // (kept: no allocation per Execute)
  // Between requests: a client that got its reply often sends the next one within microseconds;
  // catching it by polling for a moment saves the sleep and wake-up of this thread (and keeps the
  // core from idling, whose wake-up in a VM costs more). Polls only while few sessions do, and
  // only while its polls catch requests: when the client is slower (it waits for a core, or
  // thinks), a poll is a core taken from whoever needs it (YCSB-C at 16 clients on 2 cores: 78k
  // ops/s polling, 93-104k not).
  void pollBriefly();
  // Held while a session handles a request: pollBriefly() polls only while few sessions work.
  struct AtWork {
    AtWork();
    ~AtWork();
    AtWork(const AtWork&) = delete;
    AtWork& operator=(const AtWork&) = delete;
  };

  // For a dispatcher thread serving a parked session (server/dispatcher.hpp), which must never
  // block on one client: receives what has arrived without blocking (false: the client closed
  // the connection or it failed, the next read says which), ...
  bool receiveArrived();
  size_t buffered() const { return inEnd_ - inBegin_; }  // received, not yet read
  // ... whether the bytes buffered fill the buffer (a message that long is read on the session's
  // thread), and writes that never block: what the socket does not take stays buffered
  // (hasUnsent()) until a flush() on the session's thread, which blocks again.
  bool bufferFull() const { return inBegin_ == 0 && inEnd_ != 0 && inEnd_ == in_.size(); }
  // After peek(): whether the bytes after the whole messages may still become one here: false
  // for a malformed length, or one too long for the buffer (the session's thread reads those).
  bool restMayArrive() const;
  void setWritesMayBlock(bool mayBlock) {
    writesMayBlock_ = mayBlock;
    stalled_ = false;
  }
  bool hasUnsent() const { return !out_.empty(); }

  // Builds one backend message in the output buffer: begin(type), put...(), end().
  void begin(char type);
  void putInt16(int16_t v);
  void putInt32(int32_t v);
  void putCString(std::string_view s);  // s must hold no NUL byte (it would end the field)
  void putBytes(std::string_view s);
  std::string& buffer() { return out_; }  // to append a field's bytes directly
  void end();
  // A whole message of one type and body.
  void send(char type, std::string_view body);
  // Sends what is buffered (a reply is complete, or the client must answer before we go on).
  void flush();
  // Raw bytes (the one-byte answer to SSLRequest), sent at once.
  void sendRaw(std::string_view bytes);

  // Ends the connection from another thread (server shutdown): blocked reads and writes fail.
  void shutdown();
  void close();
  bool isUnixSocket() const { return unix_; }
  int nativeHandle() const { return fd_; }

 private:
  void readExact(char* p, size_t n);
  size_t receive(char* p, size_t n);  // blocks for at least one byte; ClientGone at the end or an error
  // What has arrived, into in_ behind what is buffered, without blocking (one recv).
  enum class Arrival { Some, None, Ended };  // Ended: the end of the stream, or an error
  Arrival receiveWithoutBlocking();
  bool receiveNow() { return receiveWithoutBlocking() != Arrival::None; }  // false if nothing
  void writeAll(const char* p, size_t n);
  void sendWithoutBlocking();  // flush() while writes may not block

  int fd_;
  uint32_t maxMessage_;
  bool unix_ = false;
  std::vector<char> in_;  // received, not yet read: in_[inBegin_, inEnd_)
  size_t inBegin_ = 0, inEnd_ = 0;
  std::string out_;
  std::vector<Peeked> peeked_;
  size_t peekedEnd_ = 0;  // where the whole messages peek() found end in in_
  size_t messageStart_ = std::string::npos;  // where the message being built begins in out_
  std::chrono::steady_clock::time_point deadline_{};
  bool writesMayBlock_ = true;
  bool stalled_ = false;  // the socket took no more without blocking: no send is tried till flush() may block
  // pollBriefly's record: polls while positive; a caught request adds one, a miss takes two. At
  // zero it polls again only every kPollProbe-th time, to notice that its client got faster.
  int pollCredit_ = 4;
  uint32_t pollSkipped_ = 0;
};

}  // namespace hyrax::server
