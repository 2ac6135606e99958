#include "server/wire.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/util/machine_cores.hpp"
#include "server/protocol.hpp"

namespace hyrax::server {

namespace {

uint32_t readBigEndian32(const char* p) {
  auto b = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

void appendBigEndian32(std::string& out, uint32_t v) {
  char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
  out.append(b, 4);
}

// Flush the output once this much is buffered, so a large result streams instead of piling up.
constexpr size_t kFlushThreshold = 64 * 1024;

}  // namespace

int32_t MessageReader::int32() { return static_cast<int32_t>(readBigEndian32(bytes(4).data())); }

int16_t MessageReader::int16() {
  auto b = reinterpret_cast<const unsigned char*>(bytes(2).data());
  return static_cast<int16_t>((b[0] << 8) | b[1]);
}

std::string_view MessageReader::cstring() {
  size_t end = body_.find('\0', pos_);
  if (end == std::string_view::npos) throw FatalError(wirestate::ProtocolViolation, "invalid string in message");
  std::string_view s = body_.substr(pos_, end - pos_);
  pos_ = end + 1;
  return s;
}

std::string_view MessageReader::bytes(size_t n) {
  if (n > remaining()) throw FatalError(wirestate::ProtocolViolation, "insufficient data left in message");
  std::string_view s = body_.substr(pos_, n);
  pos_ += n;
  return s;
}

Wire::Wire(int fd, uint32_t maxMessageBytes) : fd_(fd), maxMessage_(maxMessageBytes) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  unix_ = ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0 && address.ss_family == AF_UNIX;
}

Wire::~Wire() { close(); }

namespace {
// What one read asks for: a batch of small messages. A larger body is read into its own buffer.
constexpr size_t kReadChunk = 16 * 1024;
// How long a session polls for the next request; the most credit its caught requests earn it;
// how often it polls to probe once its misses used its credit up.
constexpr auto kPollBriefly = std::chrono::microseconds(50);
constexpr int kPollCredit = 8;
constexpr uint32_t kPollProbe = 64;
// Sessions polling now, and sessions handling a request (running, or waiting for their turn).
std::atomic<uint32_t> pollingSessions{0};
std::atomic<uint32_t> sessionsAtWork{0};
}  // namespace

Wire::AtWork::AtWork() { sessionsAtWork.fetch_add(1, std::memory_order_relaxed); }
Wire::AtWork::~AtWork() { sessionsAtWork.fetch_sub(1, std::memory_order_relaxed); }

void Wire::readExact(char* p, size_t n) {
  for (;;) {
    const size_t take = std::min(n, buffered());
    // Before the first read in_ is empty and its data() null, which memcpy must not get even
    // for 0 bytes (undefined behaviour; UBSan stops every session at its startup packet).
    if (take) std::memcpy(p, in_.data() + inBegin_, take);
    inBegin_ += take;
    p += take;
    n -= take;
    if (n == 0) return;
    if (deadline_ != std::chrono::steady_clock::time_point{}) {
      // Before the session is set up: a client that sends its startup packet slowly, or never,
      // is dropped at the deadline instead of holding a thread forever.
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !waitReadable(static_cast<int>(left.count())))
        throw FatalError(wirestate::ProtocolViolation, "timeout while waiting for the startup packet");
    }
    if (n >= kReadChunk) {  // a large body: straight into place
      const size_t got = receive(p, n);
      p += got;
      n -= got;
      if (n == 0) return;
      continue;
    }
    in_.resize(kReadChunk);
    inBegin_ = inEnd_ = 0;
    inEnd_ = receive(in_.data(), in_.size());
  }
}

size_t Wire::receive(char* p, size_t n) {
  for (;;) {
    const ssize_t got = ::recv(fd_, p, n, 0);
    if (got > 0) return static_cast<size_t>(got);
    if (got == 0) throw ClientGone("the client closed the connection");
    if (errno != EINTR) throw ClientGone(std::strerror(errno));
  }
}

Wire::Arrival Wire::receiveWithoutBlocking() {
  in_.resize(kReadChunk);
  if (inBegin_ > 0) {  // what is buffered (a partial message) to the front, so the rest fits behind
    std::memmove(in_.data(), in_.data() + inBegin_, buffered());
    inEnd_ -= inBegin_;
    inBegin_ = 0;
  }
  if (inEnd_ == in_.size()) return Arrival::Some;  // full: there is something to read
  for (;;) {
    const ssize_t got = ::recv(fd_, in_.data() + inEnd_, in_.size() - inEnd_, MSG_DONTWAIT);
    if (got > 0) {
      inEnd_ += static_cast<size_t>(got);
      return Arrival::Some;
    }
    if (got < 0 && errno == EINTR) continue;
    // The end of the stream or an error: the read that follows tells which.
    return got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? Arrival::None : Arrival::Ended;
  }
}

bool Wire::receiveArrived() { return receiveWithoutBlocking() != Arrival::Ended; }

void Wire::pollBriefly() {
  if (buffered()) return;
  // Only while a core is left over: with many clients, a polling session took the core that a
  // client or the session at work needed (YCSB at 16 clients: 30-40k ops/s polling, 48-57k not).
  const uint32_t spare = std::max<uint32_t>(1, machineCores() - 1);
  if (pollingSessions.fetch_add(1, std::memory_order_relaxed) + sessionsAtWork.load(std::memory_order_relaxed) >= spare) {
    pollingSessions.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
  if (pollCredit_ <= 0 && ++pollSkipped_ % kPollProbe != 0) {
    pollingSessions.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
  const auto until = std::chrono::steady_clock::now() + kPollBriefly;
  bool caught = false;
  while (!(caught = receiveNow()) && std::chrono::steady_clock::now() < until) {
  }
  pollingSessions.fetch_sub(1, std::memory_order_relaxed);
  pollCredit_ = caught ? std::min(pollCredit_ + 1, kPollCredit) : std::max(pollCredit_ - 2, 0);
}

void Wire::writeAll(const char* p, size_t n) {
  while (n > 0) {
    // MSG_NOSIGNAL: a client that hung up is ClientGone (EPIPE), not SIGPIPE for the process.
    const ssize_t sent = ::send(fd_, p, n, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      throw ClientGone(std::strerror(errno));
    }
    p += sent;
    n -= static_cast<size_t>(sent);
  }
}

std::string Wire::readStartupPacket() {
  char len[4];
  readExact(len, 4);
  uint32_t n = readBigEndian32(len);
  if (n < 8 || n > kMaxStartupPacket) throw FatalError(wirestate::ProtocolViolation, "invalid length of startup packet");
  std::string body(n - 4, '\0');
  readExact(body.data(), body.size());
  return body;
}

Message Wire::readMessage(uint32_t maxBytes) {
  const uint32_t limit = std::min(maxBytes, maxMessage_);
  char header[5];
  readExact(header, 5);
  uint32_t n = readBigEndian32(header + 1);
  // The length counts itself; checked before anything is allocated for the body.
  if (n < 4 || n - 4 > limit)
    throw FatalError(wirestate::ProtocolViolation, "invalid message length " + std::to_string(n) + " (the limit is " +
                                                       std::to_string(limit) + " bytes)");
  Message m;
  m.type = header[0];
  m.body.resize(n - 4);
  readExact(m.body.data(), m.body.size());
  return m;
}

const std::vector<Wire::Peeked>& Wire::peek() {
  if (buffered() == 0) receiveNow();
  std::vector<Peeked>& messages = peeked_;
  messages.clear();
  size_t at = inBegin_;
  while (inEnd_ - at >= 5) {
    const uint32_t n = readBigEndian32(in_.data() + at + 1);
    if (n < 4 || inEnd_ - at - 1 < n) break;  // malformed (readMessage says so) or not all here
    messages.push_back({in_[at], std::string_view(in_.data() + at + 5, n - 4)});
    at += 1 + n;
  }
  peekedEnd_ = at;
  return messages;
}

bool Wire::restMayArrive() const {
  if (inEnd_ - peekedEnd_ < 5) return true;
  const uint32_t n = readBigEndian32(in_.data() + peekedEnd_ + 1);
  return n >= 4 && size_t{n} + 1 <= kReadChunk;
}

bool Wire::waitReadable(int ms) {
  if (buffered()) return true;
  pollfd p{fd_, POLLIN, 0};
  int r;
  do r = ::poll(&p, 1, ms);
  while (r < 0 && errno == EINTR);
  return r != 0;  // readable, hung up or failed: the read that follows tells which
}

void Wire::begin(char type) {
  messageStart_ = out_.size();
  out_.push_back(type);
  out_.append(4, '\0');  // the length, set by end()
}

void Wire::putInt16(int16_t v) {
  out_.push_back(static_cast<char>(static_cast<uint16_t>(v) >> 8));
  out_.push_back(static_cast<char>(v));
}

void Wire::putInt32(int32_t v) { appendBigEndian32(out_, static_cast<uint32_t>(v)); }

void Wire::putCString(std::string_view s) {
  out_.append(s);
  out_.push_back('\0');
}

void Wire::putBytes(std::string_view s) { out_.append(s); }

void Wire::end() {
  auto n = static_cast<uint32_t>(out_.size() - messageStart_ - 1);
  std::string len;
  appendBigEndian32(len, n);
  out_.replace(messageStart_ + 1, 4, len);
  messageStart_ = std::string::npos;
  if (out_.size() >= kFlushThreshold) flush();
}

void Wire::send(char type, std::string_view body) {
  begin(type);
  putBytes(body);
  end();
}

void Wire::flush() {
  if (out_.empty()) return;
  if (!writesMayBlock_) {
    if (!stalled_) sendWithoutBlocking();
    return;
  }
  try {
    writeAll(out_.data(), out_.size());
  } catch (...) {
    out_.clear();  // nothing half-sent is left behind for a later flush
    throw;
  }
  out_.clear();  // keeps its capacity for the next reply
}

void Wire::sendWithoutBlocking() {
  size_t sent = 0;
  while (sent < out_.size()) {
    const ssize_t n = ::send(fd_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      stalled_ = true;  // the client reads slowly: the rest is the session thread's to send
      break;
    }
    out_.clear();
    throw ClientGone(std::strerror(errno));
  }
  out_.erase(0, sent);
}

void Wire::sendRaw(std::string_view bytes) {
  flush();
  writeAll(bytes.data(), bytes.size());
}

void Wire::shutdown() {
  // From another thread than the session's (server stop), under the lock close() is called in.
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

void Wire::close() {
  if (fd_ < 0) return;
  // shutdown first: a snapshot process forked meanwhile holds a copy of the descriptor, and
  // close alone would not end the connection for the client while that copy lives.
  ::shutdown(fd_, SHUT_RDWR);
  ::close(fd_);
  fd_ = -1;
}

}  // namespace hyrax::server
