#include "server/session_registry.hpp"

#include <random>

#include "sql/api/database.hpp"

namespace hyrax::server {

namespace {

bool equalInConstantTime(int32_t a, int32_t b) {
  volatile uint32_t diff = static_cast<uint32_t>(a) ^ static_cast<uint32_t>(b);
  return diff == 0;
}

}  // namespace

BackendKey SessionRegistry::add(Connection& connection) {
  std::random_device random;  // the kernel's generator (getrandom)
  std::lock_guard lock(mutex_);
  BackendKey key{nextPid_++, static_cast<int32_t>(random())};
  if (nextPid_ == INT32_MAX) nextPid_ = 1000;
  sessions_[key.pid] = {key.secret, &connection};
  return key;
}

void SessionRegistry::remove(int32_t pid) {
  std::lock_guard lock(mutex_);
  sessions_.erase(pid);
}

bool SessionRegistry::cancel(BackendKey key) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(key.pid);
  if (it == sessions_.end() || !equalInConstantTime(it->second.secret, key.secret)) return false;
  it->second.connection->cancel();
  return true;
}

void SessionRegistry::cancelAll() {
  std::lock_guard lock(mutex_);
  for (auto& [pid, e] : sessions_) e.connection->cancel();
}

}  // namespace hyrax::server
