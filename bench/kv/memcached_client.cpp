#include "bench/kv/memcached_client.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

namespace hyrax::bench {

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("memcached: " + what); }

uint64_t parseNumber(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) fail("bad number in answer: " + std::string(s));
  return v;
}

}  // namespace

MemcachedClient::MemcachedClient(const std::filesystem::path& socket) {
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) fail(std::strerror(errno));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    fail("cannot connect to " + socket.string() + ": " + why);
  }
}

MemcachedClient::~MemcachedClient() { ::close(fd_); }

bool MemcachedClient::get(std::string_view key, std::string& value, uint32_t& flags) {
  out_.append("get ").append(key).append("\r\n");
  sendAll();
  // "VALUE <key> <flags> <bytes>\r\n<data>\r\nEND\r\n", or "END\r\n" on a miss.
  std::string_view line = readLine();
  if (line == "END") return false;
  if (line.substr(0, 6) != "VALUE ") fail("unexpected answer to get: " + std::string(line));
  line.remove_prefix(6);
  const size_t afterKey = line.find(' ');
  if (afterKey == std::string_view::npos || line.substr(0, afterKey) != key) fail("get answered another key");
  line.remove_prefix(afterKey + 1);
  const size_t afterFlags = line.find(' ');
  if (afterFlags == std::string_view::npos) fail("malformed VALUE line");
  flags = static_cast<uint32_t>(parseNumber(line.substr(0, afterFlags)));
  const size_t bytes = parseNumber(line.substr(afterFlags + 1));
  readExact(bytes, value);
  if (!readLine().empty()) fail("value not followed by its line end");
  if (readLine() != "END") fail("get's answer not ended by END");
  return true;
}

void MemcachedClient::appendSet(std::string_view key, std::string_view value, uint32_t flags) {
  out_.append("set ").append(key).append(" ").append(std::to_string(flags)).append(" 0 ");
  out_.append(std::to_string(value.size())).append("\r\n").append(value).append("\r\n");
}

void MemcachedClient::set(std::string_view key, std::string_view value, uint32_t flags) {
  appendSet(key, value, flags);
  ++queued_;
  flush();
}

void MemcachedClient::queueSet(std::string_view key, std::string_view value, uint32_t flags) {
  appendSet(key, value, flags);
  ++queued_;
  if (out_.size() > (1 << 16)) flush();
}

void MemcachedClient::flush() {
  sendAll();
  for (; queued_ > 0; --queued_) {
    const std::string_view line = readLine();
    if (line != "STORED") fail("set answered " + std::string(line));
  }
}

void MemcachedClient::sendAll() {
  size_t sent = 0;
  while (sent < out_.size()) {
    const ssize_t n = ::send(fd_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(std::string("send: ") + std::strerror(errno));
    sent += static_cast<size_t>(n);
  }
  out_.clear();
}

void MemcachedClient::fill() {
  if (inPos_ > 0 && inPos_ == in_.size()) {
    in_.clear();
    inPos_ = 0;
  } else if (inPos_ > (1 << 16)) {
    in_.erase(0, inPos_);
    inPos_ = 0;
  }
  char buffer[1 << 16];
  ssize_t n;
  do n = ::recv(fd_, buffer, sizeof buffer, 0);
  while (n < 0 && errno == EINTR);
  if (n == 0) fail("connection closed");
  if (n < 0) fail(std::string("recv: ") + std::strerror(errno));
  in_.append(buffer, static_cast<size_t>(n));
}

std::string_view MemcachedClient::readLine() {
  size_t end;
  while ((end = in_.find("\r\n", inPos_)) == std::string::npos) {
    if (in_.size() - inPos_ > (1 << 20)) fail("answer line too long");
    fill();
  }
  const std::string_view line(in_.data() + inPos_, end - inPos_);
  inPos_ = end + 2;
  return line;
}

void MemcachedClient::readExact(size_t n, std::string& into) {
  while (in_.size() - inPos_ < n) fill();
  into.assign(in_, inPos_, n);
  inPos_ += n;
}

}  // namespace hyrax::bench
