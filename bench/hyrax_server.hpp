#pragma once
// hyrax's PostgreSQL server in the benchmark's own process, for the workloads over the wire: a
// fresh in-memory database served on a Unix socket in `dir` (TCP on a free loopback port, with
// --trust, only to name the socket), stopped by the destructor.
#include <filesystem>
#include <string>
#include <thread>

#include <pthread.h>

#include "server/server.hpp"
#include "sql/api/database.hpp"

namespace hyrax::bench {

class HyraxServer {
 public:
  // `dispatchThreads`: ServerConfig's (hyrax serve --dispatch-threads).
  explicit HyraxServer(const std::filesystem::path& dir, int dispatchThreads = -1)
      : dir_(dir), server_(db_, config(dir, dispatchThreads)) {
    serving_ = std::thread([this] {
      ::pthread_setname_np(::pthread_self(), "hyrax accept");
      server_.run();
    });
  }
  ~HyraxServer() {
    server_.stop();
    serving_.join();
  }
  HyraxServer(const HyraxServer&) = delete;
  HyraxServer& operator=(const HyraxServer&) = delete;

  // For libpq (pqxx::connection): the socket's directory and port; any user gets in there.
  std::string connectionString(const std::string& user = "bench") const {
    const std::string path = server_.socketPath();
    return "host=" + dir_.string() + " port=" + path.substr(path.rfind('.') + 1) + " user=" + user + " dbname=hyrax";
  }

 private:
  static server::ServerConfig config(const std::filesystem::path& dir, int dispatchThreads) {
    std::filesystem::create_directories(dir);
    server::ServerConfig c;
    c.port = 0;      // a free one: it also names the Unix socket the clients use
    c.trust = true;  // TCP on loopback only; the clients come through the socket
    c.socketDir = dir.string();
    c.maxConnections = 200;
    c.dispatchThreads = dispatchThreads;
    return c;
  }

  std::filesystem::path dir_;
  Database db_;
  server::Server server_;
  std::thread serving_;
};

}  // namespace hyrax::bench
