#include "sql/api/statement_timer.hpp"

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace hyrax::sql {

namespace {

class Timers {
 public:
  static Timers& instance() {
    static Timers* timers = new Timers;  // never destroyed: its thread may outlive static objects
    return *timers;
  }
  uint64_t arm(StatementTimer::Clock::time_point deadline, std::atomic<bool>* cancel, std::atomic<bool>* timedOut) {
    std::lock_guard<std::mutex> lock(mutex_);
    const uint64_t token = ++last_;
    armed_[{deadline, token}] = {cancel, timedOut};
    if (!started_) {
      started_ = true;
      std::thread([this] { loop(); }).detach();
    }
    changed_.notify_one();
    return token;
  }
  void disarm(uint64_t token) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = armed_.begin(); it != armed_.end(); ++it)
      if (it->first.second == token) {
        armed_.erase(it);
        return;
      }
  }

 private:
  [[noreturn]] void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (armed_.empty()) {
        changed_.wait(lock);
        continue;
      }
      auto first = armed_.begin();
      // A copy: wait_until reads the deadline again after it wakes, and while it waited (without
      // the lock) disarm() may have erased the entry that held it.
      const StatementTimer::Clock::time_point deadline = first->first.first;
      if (StatementTimer::Clock::now() < deadline) {
        changed_.wait_until(lock, deadline);
        continue;
      }
      first->second.timedOut->store(true);
      first->second.cancel->store(true);
      armed_.erase(first);
    }
  }
  struct Flags {
    std::atomic<bool>* cancel;
    std::atomic<bool>* timedOut;
  };
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::pair<StatementTimer::Clock::time_point, uint64_t>, Flags> armed_;  // by deadline
  uint64_t last_ = 0;
  bool started_ = false;
};

}  // namespace

StatementTimer::StatementTimer(Clock::time_point deadline, std::atomic<bool>* cancel, std::atomic<bool>* timedOut)
    : token_(Timers::instance().arm(deadline, cancel, timedOut)) {}

StatementTimer::~StatementTimer() { Timers::instance().disarm(token_); }

}  // namespace hyrax::sql
