// "A claimed message length over the limit is refused, never allocated" (issue 19), proved in a
// child process whose address space is capped a few MiB above what it uses: a Wire that allocated
// for the claimed length would fail there with bad_alloc instead of answering 08P01.
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <new>

#include "server/protocol.hpp"
#include "server/test/test_server.hpp"
#include "server/wire.hpp"

using namespace hyrax::server;
using hyrax::server::test::RawClient;

namespace {

// What the child saw.
enum Outcome { Refused08P01 = 0, BadAlloc = 3, OtherError = 4, NoError = 5, SetupFailed = 6 };

// In a child with RLIMIT_AS = its size + 32 MiB: a Wire (limit `maxMessage`) reads `bytes`.
int readInCappedChild(uint32_t maxMessage, const std::string& bytes, bool startup) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) ::_exit(SetupFailed);
    if (::write(fds[1], bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) ::_exit(SetupFailed);
    ::shutdown(fds[1], SHUT_WR);
    Wire wire(fds[0], maxMessage);
    size_t pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t size = pages * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
    rlimit cap{size + (32u << 20), size + (32u << 20)};
    if (::setrlimit(RLIMIT_AS, &cap) != 0) ::_exit(SetupFailed);
    try {
      if (startup) wire.readStartupPacket();
      else wire.readMessage();
    } catch (const FatalError& e) {
      ::_exit(e.sqlstate() == std::string(wirestate::ProtocolViolation) ? Refused08P01 : OtherError);
    } catch (const std::bad_alloc&) {
      ::_exit(BadAlloc);
    } catch (...) {
      ::_exit(OtherError);
    }
    ::_exit(NoError);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("a claimed length over the limit is refused with 08P01 before anything is allocated", "[server][wirefuzz]") {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // (ThreadSanitizer's own allocator dies at the cap: "internal allocator is out of memory".)
  WARN("skipped: the sanitizer reserves terabytes of address space, RLIMIT_AS cannot cap it");
  return;
#endif
  // The control: under the limit, the claimed length is allocated, and the cap catches that.
  CHECK(readInCappedChild(1u << 30, std::string("Q") + RawClient::int32((512u << 20) + 4), false) == BadAlloc);
  // Over the limit: refused without an allocation the cap would have caught.
  CHECK(readInCappedChild(1u << 30, std::string("Q") + RawClient::int32((1u << 30) + 5), false) == Refused08P01);
  CHECK(readInCappedChild(kDefaultMaxMessage, std::string("Q") + RawClient::int32(0x7FFFFFFF), false) == Refused08P01);
  CHECK(readInCappedChild(kDefaultMaxMessage, std::string("d") + RawClient::int32(0xFFFFFFFF), false) == Refused08P01);
  CHECK(readInCappedChild(kDefaultMaxMessage, RawClient::int32(0x7FFFFFFF) + RawClient::int32(kProtocolVersion3), true) == Refused08P01);
}

TEST_CASE("before authentication a message is limited to 65535 bytes, as PostgreSQL's", "[server][wirefuzz]") {
  // The protocol fuzzer's SASL inputs: a client without a password could claim 64 MiB (the
  // general limit) in a 5-byte header and have the server allocate it and wait for the body.
  hyrax::server::test::TestServer server;
  RawClient c(server.port());  // TCP: SCRAM-SHA-256
  c.send(RawClient::startupPacket(kProtocolVersion3, {{"user", "tester"}}));
  auto r = c.next();
  REQUIRE(r.type == 'R');
  c.send(std::string("p") + RawClient::int32(kMaxAuthMessage + 5));  // one byte over: no body follows
  r = c.next();
  CHECK(r.type == 'E');
  CHECK(r.field('S') == "FATAL");
  CHECK(r.field('C') == "08P01");
  CHECK(c.closedByServer());
}
