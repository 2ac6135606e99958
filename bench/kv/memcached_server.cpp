#include "bench/kv/memcached_server.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace hyrax::bench {

namespace {

bool canConnect(const fs::path& socket) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket.c_str(), sizeof addr.sun_path - 1);
  const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

std::string fileText(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

bool MemcachedServer::available() { return std::system("command -v memcached >/dev/null 2>&1") == 0; }

MemcachedServer::MemcachedServer(const fs::path& dir, int threads, size_t memoryMb) : socket_(dir / "memcached.sock") {
  fs::create_directories(dir);
  if (socket_.string().size() >= sizeof(sockaddr_un{}.sun_path))
    throw std::runtime_error("memcached: socket path too long: " + socket_.string());
  const fs::path log = dir / "memcached.log";
  std::vector<std::string> args = {"memcached", "-s", socket_.string(), "-a", "0700", "-t", std::to_string(threads),
                                   "-m", std::to_string(memoryMb), "-c", "1024"};
  if (geteuid() == 0) args.insert(args.end(), {"-u", "root"});  // it refuses root without being told
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("memcached: fork failed");
  if (pid_ == 0) {
    // Only async-signal-safe calls here (the bench may have threads).
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);
    const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out >= 0) {
      dup2(out, 1);
      dup2(out, 2);
    }
    execvp(argv[0], argv.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!canConnect(socket_)) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("memcached did not start: " + fileText(log));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
      throw std::runtime_error("memcached did not open " + socket_.string() + " within 10 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

MemcachedServer::~MemcachedServer() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
  std::error_code ec;
  fs::remove(socket_, ec);
}

}  // namespace hyrax::bench
