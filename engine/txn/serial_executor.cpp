#include "engine/txn/serial_executor.hpp"

#include <sys/prctl.h>

#include <ctime>

#include "engine/util/error.hpp"
#include "engine/util/futex.hpp"
#include "engine/util/stack_depth.hpp"

namespace hyrax {

namespace {

// Waits until `ready()`, spinning for kSpinMicros; false when still not ready, and the caller
// sleeps (a wake-up costs tens of microseconds in a VM, longer than most transactions, so a short
// spin pays). It does not sched_yield() between checks: that hands the core to any other runnable
// process for a whole time slice, and the other side's hand-over then waits for it. Measured
// 2026-11-25 (2 cores, hyrax-bench ch --warehouses 5, no streams): with a yield phase up to 2 ms,
// 111k tx/s alone and 34k beside a `nice -n 19` busy loop; without, 135k and 64k
// (hyrax-bench tpcc --warehouses 5: 124-127k against 131-137k).
constexpr int kSpinMicros = 50;
// A waiter spins when its task is running or next: task numbers up to finished + this.
constexpr uint64_t kSpinQueueDepth = 2;
// A waiter further back naps for at most this long in all before it sleeps until woken.
constexpr int kNapMicros = 2000;

// Sleeps about `d` on this thread's timer. The first nap of a thread sets its timer slack to 1 us
// (the default 50 us would make every nap of a few tens of microseconds last three times longer).
void napFor(std::chrono::nanoseconds d) {
  thread_local bool slackSet = false;
  if (!slackSet) {
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    slackSet = true;
  }
  if (d < std::chrono::microseconds(5)) d = std::chrono::microseconds(5);
  timespec t{0, static_cast<long>(d.count())};
  nanosleep(&t, nullptr);
}

template <typename F>
bool spinFor(F ready) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicros);
  for (uint32_t i = 0;; ++i) {
    if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    asm volatile("yield");
#endif
    if ((i & 63) == 63 && std::chrono::steady_clock::now() >= until) return ready();
  }
}

}  // namespace

SerialExecutor::SerialExecutor() : thread_(kExecutorStackBytes, [this] { loop(); }) {}

SerialExecutor::~SerialExecutor() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  workReady_.notify_all();
  thread_.join();
}

void SerialExecutor::hold(const void* session) {
  std::lock_guard lock(mutex_);
  holder_ = session;
}

void SerialExecutor::release(const void* session) {
  {
    std::lock_guard lock(mutex_);
    if (holder_ == session) holder_ = nullptr;
  }
  workReady_.notify_all();
}

SerialExecutor::Ticket::Ticket() = default;
SerialExecutor::Ticket::~Ticket() { drop(); }
SerialExecutor::Ticket::Ticket(Ticket&& o) noexcept : owner_(o.owner_), task_(std::move(o.task_)) {}
SerialExecutor::Ticket& SerialExecutor::Ticket::operator=(Ticket&& o) noexcept {
  if (this != &o) {
    drop();
    owner_ = o.owner_;
    task_ = std::move(o.task_);
  }
  return *this;
}
// The queue may still point at the task: it must be done (or out of the queue) before it dies.
void SerialExecutor::Ticket::drop() noexcept {
  if (!task_) return;
  try {
    owner_->wait(*this);
  } catch (...) {
  }
}

void SerialExecutor::run(const void* session, const std::function<void()>& work) {
  if (thread_.isCurrent()) {
    work();
    return;
  }
  Ticket t = submit(session, work);
  wait(t);
}

SerialExecutor::Ticket SerialExecutor::submit(const void* session, const std::function<void()>& work) {
  Ticket t;
  t.owner_ = this;
  t.task_ = std::make_unique<Task>();
  Task& task = *t.task_;
  task.session = session;
  task.work = &work;
  if (thread_.isCurrent()) {  // work that submits more work: inline
    try {
      work();
    } catch (...) {
      task.error = std::current_exception();
    }
    task.state.store(kDone);
    return t;
  }
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(&task);
    task.number = submitted_.fetch_add(1, std::memory_order_release) + 1;
  }
  workReady_.notify_all();
  return t;
}

void SerialExecutor::wait(Ticket& ticket) {
  if (!ticket.task_) return;
  std::unique_ptr<Task> owned = std::move(ticket.task_);
  Task& task = *owned;
  auto finished = [&] {
    if (task.error) std::rethrow_exception(task.error);
  };
  // Work with others queued before it: nap for about their length (the executor's recent time per
  // task), on this thread's own timer, until it is next; so the waiter neither spins through their
  // length nor needs the executor to wake it (a cross-core wake-up costs the executor microseconds
  // in a VM, a tenth of a TPC-C transaction). Then spin for it, and sleep if that is not enough.
  // The position is an estimate: a held executor may run later work first.
  const auto napsEnd = std::chrono::steady_clock::now() + std::chrono::microseconds(kNapMicros);
  for (;;) {
    const uint64_t done = finished_.load(std::memory_order_relaxed);
    if (task.number <= done + kSpinQueueDepth) {
      if (spinFor([&] { return task.state.load(std::memory_order_acquire) == kDone; })) return finished();
      break;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= napsEnd) break;
    const auto perTask = std::chrono::nanoseconds(taskNanos_.load(std::memory_order_relaxed));
    const auto nap = std::min<std::chrono::nanoseconds>(perTask * (task.number - done - kSpinQueueDepth), napsEnd - now);
    napFor(nap);
  }
  // Sleep on the task's own word, marked so that finish() wakes it (finish() exchanges the mark
  // for kDone, so one of the two sees the other: the wake-up is never lost).
  const auto deadline = std::chrono::steady_clock::now() + lockTimeout_;
  auto sleepUntil = [&](std::chrono::steady_clock::time_point until) {
    uint32_t expected = kPending;
    if (task.state.compare_exchange_strong(expected, kSleeping) || expected == kSleeping)
      futexWait(task.state, kSleeping, until);
  };
  while (task.state.load() != kDone) {
    if (std::chrono::steady_clock::now() < deadline) {
      sleepUntil(deadline);
      continue;
    }
    // The lock timeout: a task that never started leaves the queue and fails; one that runs is
    // waited for as long as it takes.
    std::unique_lock lock(mutex_);
    if (task.started || task.state.load() == kDone) {
      lock.unlock();
      while (task.state.load() != kDone) sleepUntil(std::chrono::steady_clock::now() + std::chrono::hours(1));
      break;
    }
    for (auto it = queue_.begin(); it != queue_.end(); ++it)
      if (*it == &task) {
        queue_.erase(it);
        finished_.fetch_add(1, std::memory_order_relaxed);  // out of the queue for good
        break;
      }
    lock.unlock();  // the task dies with `owned`, out of the queue
    throw Error(sqlstate::LockNotAvailable, "another session's transaction is open; gave up waiting after " +
                                                std::to_string(lockTimeout_.count()) + " ms");
  }
  finished();
}

void SerialExecutor::finish(Task& t) {
  finished_.fetch_add(1, std::memory_order_relaxed);
  if (t.startedAt.time_since_epoch().count()) {  // the time per task, averaged over the last few
    auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t.startedAt).count();
    const int64_t was = taskNanos_.load(std::memory_order_relaxed);
    taskNanos_.store(was + (std::min<int64_t>(took, 1'000'000) - was) / 8, std::memory_order_relaxed);
  }
  // After the exchange the waiter may free the task: only its address is used below (a wake-up
  // of a reused address is a spurious one, which every waiter tolerates).
  if (t.state.exchange(kDone) == kSleeping) futexWakeAll(t.state);
}

void SerialExecutor::loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    Task* next = nullptr;
    for (auto it = queue_.begin(); it != queue_.end(); ++it)
      if (runnable(**it)) {
        next = *it;
        queue_.erase(it);
        break;
      }
    if (!next) {
      if (stopping_) return;
      // A session that just got its result often sends the next statement right away.
      uint64_t seen = submitted_.load(std::memory_order_acquire);
      lock.unlock();
      bool more = spinFor([&] { return submitted_.load(std::memory_order_acquire) != seen; });
      lock.lock();
      // Sleep unless new work came: a queue of tasks that wait for another session's transaction
      // block is no reason to stay awake. submit() counts under the mutex and then wakes the
      // executor, so a count unchanged here means its wake-up is still to come.
      if (!more && submitted_.load(std::memory_order_relaxed) == seen && !stopping_) workReady_.wait(lock);
      continue;
    }
    next->started = true;
    lock.unlock();
    next->startedAt = std::chrono::steady_clock::now();
    try {
      (*next->work)();
    } catch (...) {
      next->error = std::current_exception();
    }
    releaseDeepStack();
    finish(*next);  // `next` may be gone once this returns (its waiter owns it)
    lock.lock();
  }
}

}  // namespace hyrax
