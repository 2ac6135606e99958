#include "server/hangup_watcher.hpp"

#include <poll.h>

namespace hyrax::server {

namespace {
constexpr int kPollMs = 100;  // how soon a hang-up cancels the statement
}

HangupWatcher::HangupWatcher(int fd, std::function<void()> onHangup)
    : fd_(fd), onHangup_(std::move(onHangup)), thread_([this] { loop(); }) {}

HangupWatcher::~HangupWatcher() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void HangupWatcher::begin() {
  {
    std::lock_guard lock(mutex_);
    active_ = true;
  }
  changed_.notify_all();
}

void HangupWatcher::end() {
  std::lock_guard lock(mutex_);
  active_ = false;
}

void HangupWatcher::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return active_ || stop_; });
    if (stop_) return;
    lock.unlock();
    // POLLRDHUP without POLLIN: data the client sends (COPY's) does not wake this.
    pollfd p{fd_, POLLRDHUP, 0};
    bool hungUp = ::poll(&p, 1, kPollMs) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
    lock.lock();
    // Canceled again on every round while the statement runs: Connection::execute clears the
    // flag when it starts, which may come after the hang-up.
    if (hungUp && active_) {
      onHangup_();
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
      lock.lock();
    }
  }
}

}  // namespace hyrax::server
