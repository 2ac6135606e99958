#pragma once
// Notices a client that hangs up while its statement runs: the session's thread is blocked in
// Connection::execute then and reads nothing, so without this a statement of a client that is
// gone would run to its end (forever, for an endless loop) and hold the executor. A thread per
// session polls the socket for a hang-up only while a statement runs, and cancels it; the
// session then finds the client gone and its Connection is destroyed (rolling back).
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace hyrax::server {

class HangupWatcher {
 public:
  HangupWatcher(int fd, std::function<void()> onHangup);
  ~HangupWatcher();
  // Around each statement.
  void begin();
  void end();

 private:
  void loop();
  int fd_;
  std::function<void()> onHangup_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool active_ = false, stop_ = false;
  int wake_;  // an eventfd the destructor signals: a poll in progress ends at once, not after kPollMs
  std::thread thread_;
};

}  // namespace hyrax::server
