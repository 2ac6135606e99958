// The fuzzer's driver (wire_fuzz.hpp): a server in this process, each input sent on a connection
// of its own, and the checks that make an input a failure.
#include "server/fuzz/wire_fuzz.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>

#include "server/protocol.hpp"
#include "server/test/test_server.hpp"

namespace hyrax::server::fuzz {

namespace {

using test::RawClient;
using Clock = std::chrono::steady_clock;

const char* const kSetup[] = {
    "CREATE TABLE t (a INT, b TEXT, c DECIMAL(10,2), d DATE, e TIMESTAMP, f DOUBLE PRECISION)",
    "INSERT INTO t VALUES (1, 'one', 1.50, DATE '2024-01-01', TIMESTAMP '2024-01-01 10:00:00', 0.5), "
    "(2, 'two', -2.25, DATE '1999-12-31', TIMESTAMP '1999-12-31 23:59:59', 2.5), (3, NULL, NULL, NULL, NULL, NULL)",
    "CREATE TABLE t2 (a INT, b TEXT)",
    "CREATE ROLE alice LOGIN PASSWORD 'correct horse'",  // SCRAM with a real verifier (the proofs are wrong)
};
constexpr const char* kProbe = "wirefuzz-probe";
constexpr const char* kFresh = "wirefuzz-fresh";

// For the fatal-signal handler: the input being run.
std::atomic<uint64_t> gCurrent{UINT64_MAX};
uint64_t gSeed = 0;
struct sigaction gPrevious[65];

void onFatalSignal(int sig) {
  char buf[160];
  int n = std::snprintf(buf, sizeof buf, "\nwirefuzz: signal %d while running input %llu of seed %llu (replay: --seed %llu --first %llu --inputs 1)\n",
                        sig, static_cast<unsigned long long>(gCurrent.load()), static_cast<unsigned long long>(gSeed),
                        static_cast<unsigned long long>(gSeed), static_cast<unsigned long long>(gCurrent.load()));
  if (n > 0) (void)!::write(2, buf, static_cast<size_t>(n));
  // The previous handler (the default, or a sanitizer's report) takes the signal when it recurs.
  ::sigaction(sig, &gPrevious[sig], nullptr);
  if (sig == SIGABRT) ::raise(sig);
}

void installSignalHandlers() {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    struct sigaction a {};
    a.sa_handler = onFatalSignal;
    ::sigemptyset(&a.sa_mask);
    ::sigaction(sig, &a, &gPrevious[sig]);
  }
}

size_t rssKb() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE)) / 1024;
}

int connectTcp(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 && errno != EINPROGRESS) {
    ::close(fd);
    throw std::runtime_error(std::string("wirefuzz: connect failed: ") + std::strerror(errno));
  }
  return fd;  // sends wait for the connection in exchange()'s poll
}

int connectUnix(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    // A full accept backlog answers EAGAIN on a non-blocking Unix socket: wait for room.
    for (int tries = 0; errno == EAGAIN && tries < 1000; ++tries) {
      ::usleep(1000);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
    }
    ::close(fd);
    throw std::runtime_error(std::string("wirefuzz: connect failed: ") + std::strerror(errno));
  }
  return fd;
}

// The server's messages as received, checked as they are parsed.
struct Replies {
  std::string bytes;
  bool eof = false;
  size_t parsed = 0;         // bytes of whole messages checked so far
  bool authenticated = false;  // an Authentication message came: 'N' is NoticeResponse from now on
  bool probeRow = false, probeAnswered = false, freshRow = false, freshAnswered = false;
  bool fatal = false;       // an ErrorResponse FATAL came (nothing may follow it)
  std::string fatalState;
  std::string problem;      // the first thing wrong with the replies
  std::map<std::string, uint64_t>* counts = nullptr;  // replies by type, when counted

  void parse() {
    while (problem.empty() && parsed < bytes.size()) {
      const char type = bytes[parsed];
      if (!authenticated && type == 'N') {  // the one-byte answer to SSLRequest/GSSENCRequest
        ++parsed;
        continue;
      }
      if (bytes.size() - parsed < 5) return;
      const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + parsed + 1);
      const uint32_t n = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
      if (n < 4 || n > (1u << 30)) {
        problem = "a backend message of length " + std::to_string(n);
        return;
      }
      if (bytes.size() - parsed - 1 < n) return;
      check(test::Reply{type, bytes.substr(parsed + 5, n - 4)});
      parsed += 1 + n;
    }
  }
  void check(const test::Reply& m) {
    if (fatal) problem = std::string("message '") + m.type + "' after FATAL " + fatalState;
    else if (!std::strchr("RKSvZTDCIENGHdc123tns", m.type) || m.type == '\0')
      problem = std::string("unknown backend message type ") + std::to_string(static_cast<unsigned char>(m.type));
    if (counts) ++(*counts)[m.type == 'E' ? "E " + m.field('C') : std::string(1, m.type)];
    if (m.type == 'R') authenticated = true;
    // The probes' answer is an error that names them (no statement is compiled for it).
    if (m.type == 'E' && m.body.find(kProbe) != std::string::npos) probeRow = true;
    if (m.type == 'E' && m.body.find(kFresh) != std::string::npos) freshRow = true;
    if (m.type == 'Z') probeAnswered = probeRow, freshAnswered = freshRow;
    if (m.type == 'E' || (authenticated && m.type == 'N')) {
      const std::string state = m.field('C'), severity = m.field('S');
      if (state.size() != 5 || m.field('M').empty()) problem = "an ErrorResponse without SQLSTATE or message";
      // Internal errors and exhausted memory mean an exception the server did not expect.
      if (state == sqlstate::InternalError || state == sqlstate::OutOfMemory)
        problem = "internal error reached the client: " + severity + " " + state + " " + m.field('M');
      if (m.type == 'E' && severity == "FATAL") fatal = true, fatalState = state;
    }
  }
};

// Sends `out` while receiving replies, until `done(replies)` holds, the server closed the
// connection, or the deadline passed (false then).
template <typename Done>
bool exchange(int fd, std::string_view out, Replies& in, Clock::time_point deadline, Done done) {
  size_t sent = 0;
  bool writeClosed = false;
  char buf[64 * 1024];
  for (;;) {
    in.parse();
    if (in.eof || ((sent == out.size() || writeClosed) && done(in))) return true;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, static_cast<short>(POLLIN | (sent < out.size() && !writeClosed ? POLLOUT : 0)), 0};
    if (::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 100))) < 0 && errno != EINTR) return false;
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0) in.bytes.append(buf, static_cast<size_t>(n));
      else if (n == 0 || (errno != EAGAIN && errno != EINTR)) in.eof = true;
    }
    if ((p.revents & POLLOUT) && sent < out.size()) {
      ssize_t n = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) sent += static_cast<size_t>(n);
      else if (errno != EAGAIN && errno != EINTR) writeClosed = true;  // the server closed: it reads no more
    }
  }
}

// A request whose answer names `marker`: Describe of a statement that does not exist, then Sync
// (ErrorResponse 26000 naming it, ReadyForQuery). It costs the executor no compile, so the
// fuzzer's time goes to the inputs.
std::string describeMissing(const char* marker) {
  return RawClient::message(frontend::Describe, std::string("S") + marker + '\0') + RawClient::message(frontend::Sync, "");
}

// After each framed input: CopyDone leaves a COPY FROM STDIN (and is ignored elsewhere), Sync
// ends a batch that failed, then the request to answer.
const std::string& probe() {
  static const std::string p =
      RawClient::message(frontend::CopyDone, "") + RawClient::message(frontend::Sync, "") + describeMissing(kProbe);
  return p;
}

std::string hex(std::string_view s, size_t max = 256) {
  std::string out;
  char b[4];
  for (size_t i = 0; i < s.size() && i < max; ++i) {
    std::snprintf(b, sizeof b, "%02x", static_cast<unsigned char>(s[i]));
    out += b;
  }
  if (s.size() > max) out += "...";
  return out;
}

class Runner {
 public:
  explicit Runner(const RunConfig& c) : config_(c), server_(serverConfig(c)) {
    Connection setup(server_.db());
    for (const char* sql : kSetup) setup.execute(sql);
  }

  // "" when the input left the server well, else what went wrong.
  std::string runInput(const Input& input, std::map<std::string, uint64_t>& counts) {
    const int fd = input.tcp ? connectTcp(server_.port()) : connectUnix(server_.socketPath());
    Replies in;
    in.counts = &counts;
    std::string problem;
    const auto bound = std::chrono::milliseconds(config_.timeoutMs);
    if (input.framed) {
      // Whole messages: the session answers the probe after them, or has ended.
      if (!exchange(fd, input.bytes + probe(), in, Clock::now() + bound, [](const Replies& r) { return r.probeAnswered; }))
        problem = "no answer to the probe within " + std::to_string(config_.timeoutMs) + " ms";
    } else if (!exchange(fd, input.bytes, in, Clock::now() + bound, [](const Replies&) { return true; })) {
      problem = "the input was not taken within " + std::to_string(config_.timeoutMs) + " ms";
    }
    // Then the client leaves: whatever the session waited for, it ends.
    ::shutdown(fd, SHUT_WR);
    if (!exchange(fd, "", in, Clock::now() + bound, [](const Replies&) { return false; }) && problem.empty())
      problem = "the session did not end within " + std::to_string(config_.timeoutMs) + " ms of the client's leaving";
    ::close(fd);
    in.parse();
    if (problem.empty() && !in.problem.empty()) problem = in.problem;
    if (problem.empty() && in.parsed != in.bytes.size()) problem = "the replies end inside a message";
    if (problem.empty() && input.oversized && !(in.fatal && in.fatalState == wirestate::ProtocolViolation))
      problem = "a length outside the limits was not refused with FATAL 08P01";
    return problem;
  }

  // A new client is served: its query answered within the bound. Every so often it also empties
  // t2, which the inputs' INSERTs and COPYs fill.
  std::string freshClient(bool cleanUp) {
    const int fd = connectUnix(server_.socketPath());
    Replies in;
    std::string out = RawClient::startupPacket(kProtocolVersion3, {{"user", "fresh"}});
    if (cleanUp) out += RawClient::query("DELETE FROM t2");
    out += describeMissing(kFresh) + RawClient::message(frontend::Terminate, "");
    const bool answered =
        exchange(fd, out, in, Clock::now() + std::chrono::milliseconds(config_.timeoutMs), [](const Replies& r) { return r.freshAnswered; });
    ::close(fd);
    if (!answered || !in.freshAnswered) return "a fresh client was not served within " + std::to_string(config_.timeoutMs) + " ms";
    return in.problem;
  }

 private:
  static ServerConfig serverConfig(const RunConfig& c) {
    ServerConfig s;
    s.maxMessageBytes = c.maxMessageBytes;
    s.maxConnections = 1000;
    s.startupTimeoutMs = static_cast<uint32_t>(c.timeoutMs);
    return s;
  }

  const RunConfig& config_;
  test::TestServer server_;
};

}  // namespace

RunResult run(const RunConfig& config) {
  auto log = [&](const std::string& s) {
    if (config.log) config.log(s);
  };
  gSeed = config.seed;
  installSignalHandlers();
  ::signal(SIGPIPE, SIG_IGN);
  Runner runner(config);
  GeneratorConfig generator;
  generator.maxMessageBytes = config.maxMessageBytes;
  RunResult result;
  const auto start = Clock::now();
  auto lastReport = start;
  const uint64_t tenth = std::max<uint64_t>(config.inputs / 10, 1);
  for (uint64_t k = 0; k < config.inputs; ++k) {
    const uint64_t index = config.first + k;
    gCurrent = index;
    const Input input = generate(config.seed, index, generator);
    const auto inputStart = Clock::now();
    std::string problem = runner.runInput(input, result.replies);
    if (config.slowMs && Clock::now() - inputStart > std::chrono::milliseconds(config.slowMs))
      log("slow: input " + std::to_string(index) + " (" + input.kind + ") took " +
          std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - inputStart).count()) + " ms: " + hex(input.bytes, 64));
    if (problem.empty() && (k + 1) % config.freshEvery == 0) problem = runner.freshClient((k + 1) % 4096 == 0);
    ++result.inputs;
    if (k + 1 == tenth) result.rssStartKb = rssKb();
    if (!problem.empty()) {
      ++result.failures;
      std::string report = "input " + std::to_string(index) + " (" + input.kind + ", " + std::to_string(input.bytes.size()) +
                           " bytes): " + problem + "\n  bytes: " + hex(input.bytes);
      if (!config.artifactDir.empty()) {
        const std::string path = config.artifactDir + "/wirefuzz-" + std::to_string(config.seed) + "-" + std::to_string(index);
        std::ofstream(path, std::ios::binary) << input.bytes;
        report += "\n  written to " + path;
      }
      log(report);
      result.failureReports.push_back(report);
      if (!config.keepGoing) break;
    }
    if (Clock::now() - lastReport > std::chrono::seconds(10)) {
      lastReport = Clock::now();
      const double s = std::chrono::duration<double>(lastReport - start).count();
      log(std::to_string(k + 1) + " inputs, " + std::to_string(static_cast<uint64_t>((k + 1) / s)) + " inputs/s, RSS " +
          std::to_string(rssKb() / 1024) + " MiB");
    }
  }
  gCurrent = UINT64_MAX;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.rssEndKb = rssKb();
  if (!result.rssStartKb) result.rssStartKb = result.rssEndKb;
  return result;
}

}  // namespace hyrax::server::fuzz
