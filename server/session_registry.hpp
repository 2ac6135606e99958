#pragma once
// The server's open sessions by backend key: a CancelRequest (which arrives on a new connection
// and names a session by process id and secret key) finds the Connection to cancel here, and
// shutdown cancels and disconnects them all.
#include <cstdint>
#include <map>
#include <mutex>

namespace hyrax {
class Connection;
}

namespace hyrax::server {

struct BackendKey {
  int32_t pid = 0;
  int32_t secret = 0;
};

class SessionRegistry {
 public:
  // A new session's key: a process id of its own (sessions are threads, so this is a counter)
  // and a random secret.
  BackendKey add(Connection& connection);
  void remove(int32_t pid);
  // Cancels the session's running statement if the secret matches (compared in constant time,
  // so that timing tells nothing about the key). Returns whether it did.
  bool cancel(BackendKey key);
  // Server shutdown: cancels every running statement.
  void cancelAll();

 private:
  struct Entry {
    int32_t secret;
    Connection* connection;
  };
  std::mutex mutex_;
  std::map<int32_t, Entry> sessions_;
  int32_t nextPid_ = 1000;
};

}  // namespace hyrax::server
