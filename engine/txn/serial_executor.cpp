#include "engine/txn/serial_executor.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <ctime>

#include "engine/util/error.hpp"
#include "engine/util/futex.hpp"
#include "engine/util/on_exit.hpp"
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

// The executor whose turn this thread holds, while it runs work: work that runs more work (a
// procedure's statements, a snapshot's fork) runs it at once. A forked snapshot child keeps it,
// as it keeps the rest of the forking thread.
thread_local const SerialExecutor* tInTurn = nullptr;

// `blocked`: another session's transaction block holds the executor; else the wait was for work
// queued before (a very long queue, or a process that stood still: the timeout counts wall time).
Error lockTimeoutError(std::chrono::milliseconds timeout, bool blocked) {
  return Error(sqlstate::LockNotAvailable, std::string(blocked ? "another session's transaction is open" : "the executor was busy") +
                                               "; gave up waiting after " + std::to_string(timeout.count()) + " ms");
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
  std::lock_guard lock(mutex_);
  if (holder_ == session) holder_ = nullptr;
  if (!busy_) giveNextTurn();  // (from inside work, the turn's end gives it)
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
  if (tInTurn == this) {
    work();
    return;
  }
  if (hasExecutorStack()) return runOnCaller(session, work);
  Ticket t = submit(session, work);
  wait(t);
}

// Runs `work` on this thread, as the executor's thread would: the turn marked, the deep stack
// given back after.
void SerialExecutor::execute(const std::function<void()>& work) {
  const SerialExecutor* was = tInTurn;
  tInTurn = this;
  OnExit restore([&] {
    tInTurn = was;
    releaseDeepStack();
  });
  work();
}

SerialExecutor::Task* SerialExecutor::firstRunnable() {
  for (Task* t : queue_)
    if (runnable(*t)) return t;
  return nullptr;
}

void SerialExecutor::wakeWaiter(Task& t, uint32_t state) {
  // After the exchange the waiter may free the task: only its address is used below (a wake-up
  // of a reused address is a spurious one, which every waiter tolerates).
  if (t.state.exchange(state) == kSleeping) futexWakeAll(t.state);
}

// The turn is free: the first runnable task takes it. A task whose session runs it itself is
// told so; the executor's thread takes its own tasks (woken if it sleeps).
void SerialExecutor::giveNextTurn() {
  Task* next = firstRunnable();
  if (!next) return;
  if (!next->onCaller) {
    workReady_.notify_one();
    return;
  }
  queue_.erase(std::find(queue_.begin(), queue_.end(), next));
  busy_ = true;
  next->started = true;
  wakeWaiter(*next, kTurn);
}

// Runs `t` (taken from the queue by the turn's holder) on this thread and tells its waiter.
void SerialExecutor::runQueued(Task& t) {
  t.startedAt = std::chrono::steady_clock::now();
  try {
    execute(*t.work);
  } catch (...) {
    t.error = std::current_exception();
  }
  finish(t);  // `t` may be gone once this returns (its waiter owns it)
}

// The holder of the turn, its own work done, runs the work queued behind it before it lets the
// turn go (flat combining): handing the turn to a waiting session means waking its thread, and
// on a busy machine that thread waits for a core while the turn stays unused (YCSB, 16 clients
// on 2 cores: a waiter waited 65 us on average for a turn held 4 us). A few at most, so the
// holder's own reply is not held up long (at most 8, and none started after 200 us of them);
// then the turn goes to the next in line. A long statement among them (a big write, COPY, DDL)
// still delays the holder's reply by its length: its own next statement would have waited as long.
void SerialExecutor::endTurn() {
  std::unique_lock lock(mutex_);
  const auto stopAfter = std::chrono::steady_clock::now() + std::chrono::microseconds(kCombineMicros);
  for (int combined = 0; combined < kCombineAtMost; ++combined) {
    Task* next = firstRunnable();
    if (!next || (combined > 0 && std::chrono::steady_clock::now() >= stopAfter)) break;
    queue_.erase(std::find(queue_.begin(), queue_.end(), next));
    next->started = true;
    lock.unlock();
    runQueued(*next);
    lock.lock();
  }
  busy_ = false;
  giveNextTurn();
}

void SerialExecutor::runOnCaller(const void* session, const std::function<void()>& work) {
  Task task;
  task.session = session;
  task.work = &work;
  task.onCaller = true;
  {
    std::unique_lock lock(mutex_);
    // The turn is free and no runnable work asked before: take it. Else queue up behind.
    if (busy_ || !runnable(task) || firstRunnable()) {
      queue_.push_back(&task);
      task.number = submitted_.fetch_add(1, std::memory_order_release) + 1;
      lock.unlock();
      // Throws 55P03 after the lock timeout, out of the queue.
      if (!awaitTurn(task)) {  // the turn's holder ran it
        if (task.error) std::rethrow_exception(task.error);
        return;
      }
    } else {
      busy_ = true;
    }
  }
  OnExit ended([&] {
    if (task.number) finished_.fetch_add(1, std::memory_order_relaxed);
    endTurn();
  });
  execute(work);
}

// Waits until `task` (queued, onCaller) gets the turn (true) or the turn's holder ran it (false):
// spinning when it is next, else asleep on the task's word until the lock timeout.
bool SerialExecutor::awaitTurn(Task& task) {
  auto given = [&] {
    const uint32_t s = task.state.load(std::memory_order_acquire);
    return s == kTurn || s == kDone;
  };
  if (task.number <= finished_.load(std::memory_order_relaxed) + 1 && spinFor(given))
    return task.state.load(std::memory_order_acquire) == kTurn;
  const auto deadline = std::chrono::steady_clock::now() + lockTimeout_.load(std::memory_order_relaxed);
  while (!given()) {
    if (std::chrono::steady_clock::now() < deadline) {
      uint32_t expected = kPending;
      if (task.state.compare_exchange_strong(expected, kSleeping) || expected == kSleeping)
        futexWait(task.state, kSleeping, deadline);
      continue;
    }
    std::unique_lock lock(mutex_);
    if (task.started) {  // taken just now: the word says how in a moment
      lock.unlock();
      while (!given()) futexWait(task.state, kSleeping, std::chrono::steady_clock::now() + std::chrono::hours(1));
      break;
    }
    queue_.erase(std::find(queue_.begin(), queue_.end(), &task));
    finished_.fetch_add(1, std::memory_order_relaxed);  // out of the queue for good
    throw lockTimeoutError(lockTimeout_.load(std::memory_order_relaxed), holder_ && holder_ != task.session);
  }
  return task.state.load(std::memory_order_acquire) == kTurn;
}

SerialExecutor::Ticket SerialExecutor::submit(const void* session, const std::function<void()>& work) {
  Ticket t;
  t.owner_ = this;
  t.task_ = std::make_unique<Task>();
  Task& task = *t.task_;
  task.session = session;
  task.work = &work;
  if (tInTurn == this) {  // work that submits more work: at once
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
  const auto deadline = std::chrono::steady_clock::now() + lockTimeout_.load(std::memory_order_relaxed);
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
    const bool blocked = holder_ && holder_ != task.session;
    lock.unlock();  // the task dies with `owned`, out of the queue
    throw lockTimeoutError(lockTimeout_.load(std::memory_order_relaxed), blocked);
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
  wakeWaiter(t, kDone);
}

void SerialExecutor::loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    if (!busy_) {
      if (Task* next = firstRunnable()) {  // (a session's own task too, when it is first)
        queue_.erase(std::find(queue_.begin(), queue_.end(), next));
        busy_ = true;
        next->started = true;
        lock.unlock();
        runQueued(*next);
        lock.lock();
        busy_ = false;
        continue;
      }
      if (stopping_) return;
      // A session that just got its result often sends the next statement right away.
      uint64_t seen = submitted_.load(std::memory_order_acquire);
      lock.unlock();
      bool more = spinFor([&] { return submitted_.load(std::memory_order_acquire) != seen; });
      lock.lock();
      if (more || submitted_.load(std::memory_order_relaxed) != seen) continue;
    }
    // Sleep: the turn is a session's, or the queue holds only tasks that wait for another
    // session's transaction block. Whoever queues work for this thread, or ends a turn with such
    // work next, does so under the mutex and then wakes it, so no wake-up is lost.
    if (stopping_ && !busy_) return;
    workReady_.wait(lock);
  }
}

}  // namespace hyrax
