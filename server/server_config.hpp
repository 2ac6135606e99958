#pragma once
// What `hyrax serve` was told: where to listen and the limits it enforces.
#include <cstdint>
#include <string>

#include "server/protocol.hpp"

namespace hyrax::server {

struct ServerConfig {
  std::string listen = "127.0.0.1";  // TCP address; loopback only until password authentication exists
  uint16_t port = 5433;              // 0: any free port (tests); the Unix socket is named after the one bound
  bool tcp = true;
  std::string socketDir = "/tmp";  // the Unix socket DIR/.s.PGSQL.<port>; empty: none
  uint32_t maxConnections = 100;   // sessions beyond it are refused with 53300
  bool trust = false;              // TCP clients get in without a password
  uint32_t maxMessageBytes = kDefaultMaxMessage;
  uint32_t idleSessionTimeoutMs = 0;  // outside a transaction block; 0: no limit
  // Idle in a transaction block (or a failed one, or a pipeline before its Sync); 0: no limit. A
  // block holds the executor, so every other session's statements wait (and fail with 55P03 after
  // lock_timeout) while its client thinks: unlike PostgreSQL's default, limited.
  uint32_t idleInTransactionTimeoutMs = 60000;
  uint32_t startupTimeoutMs = 60000;  // from connect to a started session (PostgreSQL's authentication_timeout)
  // Threads that serve idle sessions' next requests (server/dispatcher.hpp); -1: one per core;
  // 0: none, each session's own thread waits on its socket.
  int dispatchThreads = -1;
};

}  // namespace hyrax::server
