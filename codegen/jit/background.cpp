#include "codegen/jit/background.hpp"

#include <pthread.h>

#include <cstdlib>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <thread>

#include "engine/util/forked_process.hpp"

namespace hyrax::jit {

namespace {

struct Queue {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::function<void()>> jobs;
  bool running = false;  // a job is being run
  bool started = false;  // this process has its thread
  bool exiting = false;  // the process is exiting: no more jobs run
};

constexpr int kLanes = 2;

// Under ThreadSanitizer a forked process (a snapshot's worker) runs first-code jobs on the thread
// that asks: TSan's registry in a child of a multi-threaded fork still holds the parent's threads,
// and a new thread whose id matches one of them ends the process ("dup thread with used id":
// server_unit's snapshot queries failed so now and then). Elsewhere the child starts its thread.
#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif
#else
constexpr bool kThreadSanitizer = false;
#endif

// Never destroyed: the thread may still wait on it while the process exits, and after a fork the
// child's copy is replaced (placement new), not destructed (its thread is the parent's).
alignas(Queue) unsigned char storage[kLanes][sizeof(Queue)];
Queue* queue(Lane lane) {
  static bool registered = [] {
    for (auto& s : storage) new (s) Queue();
    // Before fork(): let the threads finish what is queued. After it, in the child: fresh queues
    // (the copied mutex and condition variable may describe the parent's waiting thread).
    pthread_atfork([] { drainBackground(); }, nullptr, [] {
      for (auto& s : storage) new (s) Queue();
    });
    // At exit: no job may still use LLVM while its globals are destroyed. Jobs not begun are
    // dropped (nobody waits for an optimized tier then); the one running is waited for. Not
    // enough alone: exit handlers run newest first, and objects LLVM made on first use in a
    // compile after this registration (SelectionDAG's extended value types) are destroyed before
    // it, under a running job; so Database's destructor waits for the queue first
    // (codegen::waitForBackgroundCompiles).
    std::atexit([] {
      for (auto& s : storage) {
        Queue* q = reinterpret_cast<Queue*>(s);
        std::unique_lock lock(q->mutex);
        std::deque<std::function<void()>> dropped;
        dropped.swap(q->jobs);
        q->changed.wait(lock, [&] { return !q->running; });
        q->exiting = true;  // a job queued from now on is dropped too
      }
    });
    return true;
  }();
  (void)registered;
  return reinterpret_cast<Queue*>(storage[static_cast<int>(lane)]);
}

void loop(Queue* q) {
  std::unique_lock lock(q->mutex);
  for (;;) {
    q->changed.wait(lock, [&] { return !q->jobs.empty(); });
    std::function<void()> job = std::move(q->jobs.front());
    q->jobs.pop_front();
    q->running = true;
    lock.unlock();
    job();
    job = nullptr;  // what it captured dies outside the lock
    lock.lock();
    q->running = false;
    q->changed.notify_all();
  }
}

}  // namespace

void runInBackground(std::function<void()> job, Lane lane) {
  Queue* q = queue(lane);
  if (kThreadSanitizer && lane == Lane::FirstCode && forkedProcess()) {
    job();
    return;
  }
  std::lock_guard lock(q->mutex);
  if (q->exiting) return;
  q->jobs.push_back(std::move(job));
  if (!q->started) {
    q->started = true;
    std::thread(loop, q).detach();
  }
  q->changed.notify_all();
}

void drainBackground() {
  for (Lane lane : {Lane::FirstCode, Lane::Optimized}) {
    Queue* q = queue(lane);
    std::unique_lock lock(q->mutex);
    q->changed.wait(lock, [&] { return q->jobs.empty() && !q->running; });
  }
}

}  // namespace hyrax::jit
