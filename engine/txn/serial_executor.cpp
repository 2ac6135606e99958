#include "engine/txn/serial_executor.hpp"

#include "engine/util/error.hpp"
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
    task.done = true;
    return t;
  }
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(&task);
    submitted_.fetch_add(1, std::memory_order_release);
  }
  workReady_.notify_all();
  return t;
}

void SerialExecutor::wait(Ticket& ticket) {
  if (!ticket.task_) return;
  std::unique_ptr<Task> owned = std::move(ticket.task_);
  Task& task = *owned;
  if (spinFor([&] { return task.done.load(std::memory_order_acquire); })) {
    if (task.error) std::rethrow_exception(task.error);
    return;
  }
  std::unique_lock lock(mutex_);
  auto deadline = std::chrono::steady_clock::now() + lockTimeout_;
  while (!task.done) {
    if (task.started) {
      workDone_.wait(lock);
    } else if (workDone_.wait_until(lock, deadline) == std::cv_status::timeout && !task.started) {
      for (auto it = queue_.begin(); it != queue_.end(); ++it)
        if (*it == &task) {
          queue_.erase(it);
          break;
        }
      lock.unlock();  // the task dies with `owned`, out of the queue
      throw Error(sqlstate::LockNotAvailable, "another session's transaction is open; gave up waiting after " +
                                                  std::to_string(lockTimeout_.count()) + " ms");
    }
  }
  if (task.error) std::rethrow_exception(task.error);
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
    try {
      (*next->work)();
    } catch (...) {
      next->error = std::current_exception();
    }
    releaseDeepStack();
    lock.lock();
    next->done.store(true, std::memory_order_release);
    workDone_.notify_all();
  }
}

}  // namespace hyrax
