#include "server/hangup_watcher.hpp"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace hyrax::server {

namespace {
constexpr int kPollMs = 100;  // how soon a hang-up cancels the statement
}

HangupWatcher::HangupWatcher(int fd, std::function<void()> onHangup)
    : fd_(fd), onHangup_(std::move(onHangup)), wake_(::eventfd(0, EFD_CLOEXEC)), thread_([this] { loop(); }) {}

HangupWatcher::~HangupWatcher() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  // The session ends (its client left, often right after a statement): without this its thread
  // and socket were held up to kPollMs by a poll that only a hang-up ends.
  const uint64_t one = 1;
  if (wake_ >= 0) (void)!::write(wake_, &one, sizeof one);
  thread_.join();
  if (wake_ >= 0) ::close(wake_);
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
  ::pthread_setname_np(::pthread_self(), "hyrax hangup");
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return active_ || stop_; });
    if (stop_) return;
    lock.unlock();
    // POLLRDHUP without POLLIN: data the client sends (COPY's) does not wake this.
    pollfd p[2] = {{fd_, POLLRDHUP, 0}, {wake_, POLLIN, 0}};
    bool hungUp = ::poll(p, wake_ >= 0 ? 2 : 1, kPollMs) > 0 && (p[0].revents & (POLLRDHUP | POLLHUP | POLLERR));
    lock.lock();
    if (stop_) return;
    // Canceled again on every round while the statement runs: Connection::execute clears the
    // flag when it starts, which may come after the hang-up.
    if (hungUp && active_) {
      onHangup_();
      // Waits before canceling again; the destructor's notify ends the wait.
      changed_.wait_for(lock, std::chrono::milliseconds(kPollMs), [&] { return stop_; });
    }
  }
}

}  // namespace hyrax::server
