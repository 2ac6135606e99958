#include "server/dispatcher.hpp"

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace hyrax::server {

namespace {
thread_local bool dispatcherThread = false;
// The sessions one epoll_wait handed this thread, served in order; `next` is the one after the
// session being served. A long wait gives the rest back to the epoll set (armed again), else
// they would wait behind it though a stand-in watches the sockets.
struct Batch {
  std::vector<uint64_t> ids;
  size_t next = 0;
};
thread_local Batch batch;
// Ready sessions taken per epoll_wait: under load several, served one after another by the
// thread that woke once for all of them.
constexpr int kEventsPerWait = 16;
// Events for a parked session: readable, or the client hung up. One-shot: the socket is disarmed
// once a dispatcher takes it, so no second thread serves the same session meanwhile.
constexpr uint32_t kParkedEvents = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
}  // namespace

Dispatcher::Dispatcher(size_t threads, size_t stackBytes) : target_(threads ? threads : 1), stackBytes_(stackBytes) {
  epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_ < 0 || wake_ < 0) throw std::system_error(errno, std::generic_category(), "epoll");
  epoll_event ev{};
  ev.events = EPOLLIN;  // level-triggered and never read: once written, it ends every wait
  ev.data.u64 = 0;      // (slot ids start at 1)
  if (::epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &ev) != 0) throw std::system_error(errno, std::generic_category(), "epoll_ctl");
}

Dispatcher::~Dispatcher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  const uint64_t one = 1;
  (void)!::write(wake_, &one, sizeof one);
  spareCalled_.notify_all();
  for (auto& t : threads_) t->join();
  ::close(wake_);
  ::close(epoll_);
}

void Dispatcher::startThread() {
  ++active_;
  try {
    threads_.push_back(std::make_unique<LargeStackThread>(stackBytes_, [this] { loop(); }));
  } catch (const std::system_error&) {
    --active_;  // no thread to be had: the ones there are go on
  }
}

Dispatcher::Slot::Slot(Dispatcher& dispatcher, Parkable& session) : dispatcher_(dispatcher) {
  std::lock_guard lock(dispatcher_.mutex_);
  id_ = dispatcher_.nextId_++;
  dispatcher_.entries_.try_emplace(id_, &session);
}

Dispatcher::Slot::~Slot() {
  std::lock_guard lock(dispatcher_.mutex_);
  auto it = dispatcher_.entries_.find(id_);
  // Closing the socket would not take it out of the epoll set while a snapshot process forked
  // meanwhile holds a copy of the descriptor; a late event finds no entry and is dropped.
  if (it->second.registered) ::epoll_ctl(dispatcher_.epoll_, EPOLL_CTL_DEL, it->second.session->socket(), nullptr);
  dispatcher_.entries_.erase(it);
}

void Dispatcher::arm(uint64_t id, Entry& e) {
  epoll_event ev{};
  ev.events = kParkedEvents;
  ev.data.u64 = id;
  const int fd = e.session->socket();
  if (::epoll_ctl(epoll_, e.registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev) == 0) {
    e.registered = true;
    return;
  }
  // Not armed (out of memory in the kernel, a closed socket): the session's thread takes it back.
  e.state = State::Returned;
  e.returned.notify_one();
}

Dispatcher::Slot::Outcome Dispatcher::Slot::park(uint32_t idleMs) {
  Dispatcher& d = dispatcher_;
  std::unique_lock lock(d.mutex_);
  if (d.threads_.empty())
    while (d.active_ < d.target_ && d.threads_.size() < d.target_) d.startThread();
  if (d.active_ == 0) return Outcome::Returned;  // no thread could be started: the session's own serves
  Entry& e = d.entries_.at(id_);
  e.state = State::Parked;
  e.lastServed = std::chrono::steady_clock::now();
  d.arm(id_, e);
  for (;;) {
    if (e.state == State::Returned) break;
    if (idleMs == 0) {
      e.returned.wait(lock);
      continue;
    }
    const auto deadline = e.lastServed + std::chrono::milliseconds(idleMs);
    if (e.returned.wait_until(lock, deadline) != std::cv_status::timeout) continue;
    if (e.state == State::Parked && std::chrono::steady_clock::now() >= e.lastServed + std::chrono::milliseconds(idleMs)) {
      // Idle all along: taken back here. A dispatcher that has an event for it in hand finds it
      // Active and leaves it.
      e.state = State::Active;
      ::epoll_ctl(d.epoll_, EPOLL_CTL_DEL, e.session->socket(), nullptr);
      e.registered = false;
      return Outcome::TimedOut;
    }
  }
  e.state = State::Active;
  return Outcome::Returned;
}

void Dispatcher::beginLongWait() {
  if (!dispatcherThread) return;
  std::lock_guard lock(mutex_);
  ++waiting_;
  for (; batch.next < batch.ids.size(); ++batch.next) {
    auto it = entries_.find(batch.ids[batch.next]);
    if (it != entries_.end() && it->second.state == State::Parked) arm(it->first, it->second);
  }
  if (stopping_ || active_ - waiting_ >= target_) return;
  if (spare_ > 0) {
    --spare_;
    ++active_;
    ++spareCalls_;
    spareCalled_.notify_one();
  } else {
    startThread();
  }
}

void Dispatcher::endLongWait() {
  if (!dispatcherThread) return;
  std::lock_guard lock(mutex_);
  --waiting_;  // a stand-in now too many becomes spare at its next round
}

void Dispatcher::loop() {
  ::pthread_setname_np(::pthread_self(), "hyrax dispatch");
  dispatcherThread = true;
  epoll_event events[kEventsPerWait];
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (stopping_) return;
      if (active_ - waiting_ > target_) {  // a stand-in no longer needed: kept for the next long wait
        --active_;
        ++spare_;
        spareCalled_.wait(lock, [&] { return spareCalls_ > 0 || stopping_; });
        if (stopping_) return;
        --spareCalls_;  // (whoever called it counted it active again)
      }
    }
    const int n = ::epoll_wait(epoll_, events, kEventsPerWait, -1);
    if (n < 0 && errno != EINTR) return;
    batch.ids.clear();
    for (int i = 0; i < n; ++i)
      if (events[i].data.u64 != 0) batch.ids.push_back(events[i].data.u64);
    for (batch.next = 0; batch.next < batch.ids.size();) serve(batch.ids[batch.next++]);
  }
}

void Dispatcher::serve(uint64_t id) {
  Entry* e;
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end() || it->second.state != State::Parked) return;  // taken back, or gone
    e = &it->second;
    e->state = State::Serving;
  }
  // The entry stays: its session's thread waits for it to come back (it destroys its slot only
  // after that, or after taking back a session that was Parked).
  // While a core is spare, the session's next request is polled for a moment before it is parked
  // again (Parkable::pollBriefly): with few clients it often comes within microseconds, and
  // serving it here saves this thread's sleep and wake-up and an epoll round.
  bool stays;
  do stays = e->session->serveReady();
  while (stays && e->session->pollBriefly());
  std::lock_guard lock(mutex_);
  e->lastServed = std::chrono::steady_clock::now();
  if (stays && !stopping_) {
    e->state = State::Parked;
    arm(id, *e);
  } else {
    e->state = State::Returned;
    e->returned.notify_one();
  }
}

}  // namespace hyrax::server
