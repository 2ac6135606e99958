#pragma once
// The serial OLTP executor: statements and transactions run one after another, never two at once,
// so transactions need no locks or latches (HyPer's model). Sessions (the shell's connection, the
// server's clients, the bench's terminals) hand their work to run() and wait for it.
//
// The executor is a turn that one piece of work holds at a time, not only a thread. A session on
// a thread with the executor's large stack (the server's session threads) runs its own work on its
// own thread when its turn comes; other sessions' work (the shell, the bench's terminals, submit())
// is handed to the executor's own thread. Why: a hand-over costs two thread wake-ups, tens of
// microseconds on a busy machine, more than a whole TPC-C transaction or a point read; over the
// wire every statement paid them, and with 16 clients on 2 cores most of the time went to context
// switches (bench/README.md, YCSB). Turns are given in the order asked for; a session that waits
// for its turn sleeps on a word of its own, and whoever ends a turn gives the next one.
//
// A session with an open transaction block (BEGIN ... COMMIT) holds the executor: until it
// releases it, only its own work runs, and other sessions' work waits in the queue, up to the lock
// timeout, after which it fails with 55P03 without having run.
//
// Both sides of a hand-over spin a little before they sleep: the executor's thread for new work
// after it finished some, a session for its work to finish or its turn to come when it is next;
// only a longer wait sleeps. A session whose work has several others queued before it sleeps at
// once: spinning through their whole length would take a core from the other processes (snapshot
// queries) for nothing.
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

  // Runs `work` in its turn and returns when it is done; what it throws is rethrown here. On a
  // thread with the executor's stack (hasExecutorStack()) the work runs on the calling thread,
  // else on the executor's. Called from inside work (work that runs more work), it runs at once.
  void run(const void* session, const std::function<void()>& work);

  // run() in two halves, always on the executor's thread: submit() hands `work` over and returns at once, so the session can
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

  void setLockTimeout(std::chrono::milliseconds t) { lockTimeout_.store(t, std::memory_order_relaxed); }

 private:
  struct Task {
    const void* session;
    const std::function<void()>* work;
    std::exception_ptr error;
    uint64_t number = 0;  // submitted_ after this task was counted
    bool started = false;              // under mutex_
    bool onCaller = false;             // the waiter runs it itself when given its turn
    std::chrono::steady_clock::time_point startedAt;
    // A futex word, the waiter's alone: kPending, kSleeping (the waiter sleeps on it, so the
    // executor must wake it), kDone (another thread ran the work), kTurn (an onCaller task's turn
    // has come: its waiter runs it).
    std::atomic<uint32_t> state{kPending};
  };
  static constexpr uint32_t kPending = 0, kSleeping = 1, kDone = 2, kTurn = 3;
  void execute(const std::function<void()>& work);
  void runOnCaller(const void* session, const std::function<void()>& work);
  bool awaitTurn(Task& task);
  void endTurn();
  void runQueued(Task& t);
  static constexpr int kCombineAtMost = 8;
  static constexpr int kCombineMicros = 200;
  void giveNextTurn();  // under mutex_, no turn taken
  Task* firstRunnable();
  void finish(Task& t);
  void wakeWaiter(Task& t, uint32_t state);
  void loop();
  bool runnable(const Task& t) const { return holder_ == nullptr || holder_ == t.session; }

  std::mutex mutex_;
  std::condition_variable workReady_;
  std::deque<Task*> queue_;
  std::atomic<uint64_t> submitted_{0};  // counts run() calls, so the spinning executor sees new work
  std::atomic<uint64_t> finished_{0};   // tasks done: how far back a waiter is
  std::atomic<int64_t> taskNanos_{10'000};  // the recent time per task, for a waiter's naps
  const void* holder_ = nullptr;  // under mutex_; written only by work that holds the turn
  bool busy_ = false;              // under mutex_: some work holds the turn (on any thread)
  bool stopping_ = false;
  std::atomic<std::chrono::milliseconds> lockTimeout_{std::chrono::milliseconds(10'000)};  // read by every waiter
  // Statements are parsed, planned and compiled by passes that recurse as deep as the statement's
  // trees: the executor's thread has a large stack (engine/util/stack_depth.hpp), and work runs on
  // a session's own thread only when its stack is as large.
  LargeStackThread thread_;
};

}  // namespace hyrax
