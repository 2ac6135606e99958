#pragma once
// For the server's tests: a server on a fresh database, in this process, on a Unix socket in a
// temporary directory and a free loopback TCP port; stopped and cleaned up by the destructor.
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "server/server.hpp"

namespace hyrax::server::test {

class TestServer {
 public:
  explicit TestServer(ServerConfig config = {}) {
    // HYRAX_TEST_DISPATCH_THREADS=n: a test that leaves dispatchThreads at its default gets n
    // (0: none), so the whole suite runs at each setting (server/README.md, ThreadSanitizer).
    if (const char* n = std::getenv("HYRAX_TEST_DISPATCH_THREADS"); n && *n && config.dispatchThreads == ServerConfig{}.dispatchThreads)
      config.dispatchThreads = std::atoi(n);
    char dir[] = "/tmp/hyrax_server_test_XXXXXX";
    if (!::mkdtemp(dir)) throw std::runtime_error("mkdtemp failed");
    dir_ = dir;
    config.port = 0;
    config.socketDir = dir_;
    server_.emplace(db_, config);
    runner_ = std::thread([this] { server_->run(); });
  }
  ~TestServer() {
    server_->stop();
    runner_.join();
    server_.reset();
    std::filesystem::remove_all(dir_);
  }
  Database& db() { return db_; }
  std::string dir() const { return dir_; }
  uint16_t port() const { return server_->port(); }
  std::string socketPath() const { return server_->socketPath(); }
  // libpq's connection string for the Unix socket.
  std::string conninfo() const { return "host=" + dir_ + " port=" + std::to_string(port()) + " user=tester dbname=hyrax"; }

 private:
  Database db_;
  std::string dir_;
  std::optional<Server> server_;
  std::thread runner_;
};

// A backend message as the raw client received it.
struct Reply {
  char type = 0;
  std::string body;
  // ErrorResponse/NoticeResponse: the field with this code ('C' SQLSTATE, 'M', 'P', 'S').
  std::string field(char code) const {
    for (size_t i = 0; i < body.size() && body[i] != '\0';) {
      char c = body[i++];
      size_t end = body.find('\0', i);
      if (c == code) return body.substr(i, end - i);
      i = end + 1;
    }
    return {};
  }
};

// The value of DataRow `row`'s column `col` (nullopt for NULL).
inline std::optional<std::string> cell(const Reply& row, int col) {
  size_t at = 2;
  for (int c = 0;; ++c) {
    auto b = reinterpret_cast<const unsigned char*>(row.body.data() + at);
    int32_t n = static_cast<int32_t>((uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3]);
    at += 4;
    if (c == col) return n < 0 ? std::nullopt : std::optional<std::string>(row.body.substr(at, static_cast<size_t>(n)));
    if (n > 0) at += static_cast<size_t>(n);
  }
}

// A client that writes bytes as given, to test framing and malformed input.
class RawClient {
 public:
  explicit RawClient(const std::string& socketPath) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, socketPath.c_str(), sizeof a.sun_path - 1);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("connect failed");
    timeval tv{10, 0};  // a test that waits for an answer that never comes fails instead of hanging
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  explicit RawClient(uint16_t tcpPort) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(tcpPort);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("connect failed");
    timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~RawClient() { close(); }
  int fd() const { return fd_; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  static std::string int32(uint32_t v) {
    return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
  }
  static std::string int16(uint16_t v) { return {static_cast<char>(v >> 8), static_cast<char>(v)}; }
  // A startup packet with protocol `code` and the given parameters.
  static std::string startupPacket(uint32_t code, const std::vector<std::pair<std::string, std::string>>& params) {
    std::string body = int32(code);
    for (auto& [k, v] : params) body += k + '\0' + v + '\0';
    body += '\0';
    return int32(static_cast<uint32_t>(body.size() + 4)) + body;
  }
  static std::string message(char type, const std::string& body) {
    return type + int32(static_cast<uint32_t>(body.size() + 4)) + body;
  }
  static std::string query(const std::string& sql) { return message('Q', sql + '\0'); }

  void send(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("send failed");
      done += static_cast<size_t>(n);
    }
  }
  // Exactly n bytes, or fewer when the server closed the connection.
  std::string receive(size_t n) {
    std::string s(n, '\0');
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::recv(fd_, s.data() + done, n - done, 0);
      if (r <= 0) break;
      done += static_cast<size_t>(r);
    }
    s.resize(done);
    return s;
  }
  // The next message; type 0 when the connection closed.
  Reply next() {
    std::string header = receive(5);
    if (header.size() < 5) return {};
    uint32_t n = (uint32_t{static_cast<unsigned char>(header[1])} << 24) | (uint32_t{static_cast<unsigned char>(header[2])} << 16) |
                 (uint32_t{static_cast<unsigned char>(header[3])} << 8) | static_cast<unsigned char>(header[4]);
    return {header[0], receive(n - 4)};
  }
  // Messages up to and including ReadyForQuery (or until the connection closes).
  std::vector<Reply> untilReady() {
    std::vector<Reply> all;
    for (;;) {
      Reply r = next();
      if (r.type == 0) break;
      all.push_back(r);
      if (r.type == 'Z') break;
    }
    return all;
  }
  // The startup of a session over this client: startup packet, all replies up to ReadyForQuery.
  std::vector<Reply> start() {
    send(startupPacket(3 << 16, {{"user", "tester"}, {"database", "hyrax"}, {"application_name", "raw"}}));
    return untilReady();
  }
  // The types of the messages, as a string: "TDCZ".
  static std::string types(const std::vector<Reply>& replies) {
    std::string s;
    for (auto& r : replies) s += r.type;
    return s;
  }
  // Whether the server closed the connection (reads end of stream).
  bool closedByServer() { return receive(1).empty(); }
  // Whether the next message is a FATAL ErrorResponse with `sqlstate` and the server then closed
  // the connection (a session the server ended).
  bool endedWith(const std::string& sqlstate) {
    Reply r = next();
    return r.type == 'E' && r.field('S') == "FATAL" && r.field('C') == sqlstate && closedByServer();
  }

 private:
  int fd_ = -1;
};

// Extended-protocol messages.
inline std::string parse(const std::string& name, const std::string& sql, const std::vector<uint32_t>& types) {
  std::string body = name + '\0' + sql + '\0' + RawClient::int16(static_cast<uint16_t>(types.size()));
  for (uint32_t t : types) body += RawClient::int32(t);
  return RawClient::message('P', body);
}

// Bind with text parameters (nullopt: NULL) and one result format code for every column.
inline std::string bind(const std::string& portal, const std::string& statement, const std::vector<std::optional<std::string>>& args,
                        int16_t resultFormat) {
  std::string body = portal + '\0' + statement + '\0' + RawClient::int16(0) + RawClient::int16(static_cast<uint16_t>(args.size()));
  for (auto& a : args) body += a ? RawClient::int32(static_cast<uint32_t>(a->size())) + *a : RawClient::int32(0xFFFFFFFF);
  return RawClient::message('B', body + RawClient::int16(1) + RawClient::int16(static_cast<uint16_t>(resultFormat)));
}

inline std::string execute(const std::string& portal, uint32_t limit) {
  return RawClient::message('E', portal + '\0' + RawClient::int32(limit));
}

inline std::string describe(char what, const std::string& name) { return RawClient::message('D', std::string(1, what) + name + '\0'); }
inline std::string syncMessage() { return RawClient::message('S', ""); }

// The ParameterStatus messages among replies: name -> value.
inline std::map<std::string, std::string> parameterStatus(const std::vector<Reply>& replies) {
  std::map<std::string, std::string> params;
  for (auto& r : replies)
    if (r.type == 'S') {
      size_t nul = r.body.find('\0');
      params[r.body.substr(0, nul)] = r.body.substr(nul + 1, r.body.size() - nul - 2);
    }
  return params;
}

}  // namespace hyrax::server::test
