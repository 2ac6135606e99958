#pragma once
// memcached as the key-value peer of `hyrax-bench kv`: our own instance (Debian's memcached, which
// scripts/setup.sh installs; never the system's service), on a Unix socket in `dir` like hyrax's
// and PostgreSQL's servers in the bench, with 2 worker threads (-t 2: the machine's cores), enough
// memory that nothing loaded is evicted, stopped by the destructor (and by the kernel if the bench
// dies first: the child asks for SIGTERM when its parent exits).
#include <sys/types.h>

#include <filesystem>
#include <string>

namespace hyrax::bench {

class MemcachedServer {
 public:
  MemcachedServer(const std::filesystem::path& dir, int threads, size_t memoryMb);
  ~MemcachedServer();
  MemcachedServer(const MemcachedServer&) = delete;
  MemcachedServer& operator=(const MemcachedServer&) = delete;

  // Whether the memcached program is on PATH.
  static bool available();
  const std::filesystem::path& socketPath() const { return socket_; }

 private:
  std::filesystem::path socket_;
  pid_t pid_ = -1;
};

}  // namespace hyrax::bench
