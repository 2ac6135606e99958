#pragma once
// The serial OLTP executor: one thread runs every statement and transaction, one after another,
// so transactions need no locks or latches (HyPer's model). Sessions (the shell's connection, the
// bench's terminals) submit work through run() and wait for it.
//
// A session with an open transaction block (BEGIN ... COMMIT) holds the executor: until it
// releases it, only its own work runs, and other sessions' work waits in the queue, up to the lock
// timeout, after which it fails with 55P03 without having run.
//
// Handing work over costs two thread wake-ups, tens of microseconds on a busy machine, more than
// a whole TPC-C transaction. So both sides spin a little before they sleep: the executor for new
// work after it finished some, the session for its work to finish; only a longer wait sleeps. A
// session whose work has several others queued before it sleeps at once: spinning through their
// whole length would take a core from the other processes (snapshot queries) for nothing.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/util/large_stack_thread.hpp"

namespace hyrax {

class SerialExecutor {
  struct Task;

 public:
  SerialExecutor();
  ~SerialExecutor();
  SerialExecutor(const SerialExecutor&) = delete;
  SerialExecutor& operator=(const SerialExecutor&) = delete;

  // Runs `work` on the executor thread and returns when it is done; what it throws is rethrown
  // here. Called from the executor thread itself (work that runs more work), it runs inline.
  void run(const void* session, const std::function<void()>& work);

  // run() in two halves: submit() hands `work` over and returns at once, so the session can
  // prepare its next request while the executor runs this one; wait() returns when it is done
  // (rethrowing what it threw), or gives up after the lock timeout if it never started. `work`
  // must live until wait() returns; a ticket dropped without wait() waits (ignoring errors).
  class Ticket {
   public:
    Ticket();
    ~Ticket();
    Ticket(Ticket&&) noexcept;
    Ticket& operator=(Ticket&&) noexcept;
    bool pending() const { return task_ != nullptr; }

   private:
    friend class SerialExecutor;
    void drop() noexcept;
    SerialExecutor* owner_ = nullptr;
    std::unique_ptr<Task> task_;
  };
  Ticket submit(const void* session, const std::function<void()>& work);
  void wait(Ticket& ticket);

  // From inside work: `session` keeps the executor after this work (BEGIN), or gives it back.
  void hold(const void* session);
  void release(const void* session);

  void setLockTimeout(std::chrono::milliseconds t) { lockTimeout_ = t; }

 private:
  struct Task {
    const void* session;
    const std::function<void()>* work;
    std::exception_ptr error;
    uint64_t number = 0;  // submitted_ after this task was counted
    bool started = false;              // under mutex_
    std::chrono::steady_clock::time_point startedAt;
    // A futex word, the waiter's alone: kPending, kSleeping (the waiter sleeps on it, so the
    // executor must wake it), kDone.
    std::atomic<uint32_t> state{kPending};
  };
  static constexpr uint32_t kPending = 0, kSleeping = 1, kDone = 2;
  void finish(Task& t);
  void loop();
  bool runnable(const Task& t) const { return holder_ == nullptr || holder_ == t.session; }

  std::mutex mutex_;
  std::condition_variable workReady_;
  std::deque<Task*> queue_;
  std::atomic<uint64_t> submitted_{0};  // counts run() calls, so the spinning executor sees new work
  std::atomic<uint64_t> finished_{0};   // tasks done: how far back a waiter is
  std::atomic<int64_t> taskNanos_{10'000};  // the recent time per task, for a waiter's naps
  const void* holder_ = nullptr;  // written only on the executor thread
  bool stopping_ = false;
  std::chrono::milliseconds lockTimeout_{10'000};
  // Every statement is parsed, planned and compiled here, by passes that recurse as deep as the
  // statement's trees: a large stack (engine/util/stack_depth.hpp).
  LargeStackThread thread_;
};

}  // namespace hyrax
