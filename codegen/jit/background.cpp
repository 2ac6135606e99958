#include "codegen/jit/background.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "engine/util/forked_process.hpp"

namespace hyrax::jit {

namespace {

struct Job {
  std::function<void()> run;
  const void* owner;
};

// A job demoted while it ran, on the thread that finishes it alone.
struct Demoted {
  const void* owner;
  pid_t thread;
};

struct Queue {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Job> jobs;
  int running = 0;       // jobs being run (the lane's thread's and demoted ones)
  bool started = false;  // this process has the lane's thread
  bool exiting = false;  // the process is exiting: no more jobs run
  pid_t thread = 0;      // the lane's thread (0 until it runs)
  const void* owner = nullptr;  // the owner of the job it runs
  std::vector<Demoted> demoted;
};

constexpr int kDemotedNice = 19;

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
        std::deque<Job> dropped;
        dropped.swap(q->jobs);
        q->changed.wait(lock, [&] { return q->running == 0; });
        q->exiting = true;  // a job queued from now on is dropped too
      }
    });
    return true;
  }();
  (void)registered;
  return reinterpret_cast<Queue*>(storage[static_cast<int>(lane)]);
}

// The lane's thread: runs the queue's jobs in turn. Demoted under a job (demote), it ends after
// that job; the lane has another thread by then.
void loop(Queue* q) {
  const pid_t self = gettid();
  std::unique_lock lock(q->mutex);
  q->thread = self;
  for (;;) {
    q->changed.wait(lock, [&] { return !q->jobs.empty(); });
    Job job = std::move(q->jobs.front());
    q->jobs.pop_front();
    q->running++;
    q->owner = job.owner;
    lock.unlock();
    job.run();
    job.run = nullptr;  // what it captured dies outside the lock
    lock.lock();
    q->running--;
    q->changed.notify_all();
    if (q->thread != self) {  // demoted: the lane's jobs are another thread's now
      std::erase_if(q->demoted, [&](const Demoted& d) { return d.thread == self; });
      return;
    }
    q->owner = nullptr;
  }
}

void startThread(Queue* q) {
  q->started = true;
  std::thread(loop, q).detach();
}

}  // namespace

void runInBackground(std::function<void()> job, Lane lane, const void* owner) {
  Queue* q = queue(lane);
  if (kThreadSanitizer && lane == Lane::FirstCode && forkedProcess()) {
    job();
    return;
  }
  std::lock_guard lock(q->mutex);
  if (q->exiting) return;
  q->jobs.push_back({std::move(job), owner});
  if (!q->started) startThread(q);
  q->changed.notify_all();
}

bool demote(Lane lane, const void* owner) {
  Queue* q = queue(lane);
  std::lock_guard lock(q->mutex);
  if (!owner || q->owner != owner || q->thread == 0) return false;
  // Under the lock the thread cannot have moved on to the next job: it takes the lock first.
  const pid_t thread = q->thread;
  setpriority(PRIO_PROCESS, static_cast<id_t>(thread), kDemotedNice);  // lowering needs no privilege
  q->demoted.push_back({owner, thread});
  q->thread = 0;
  q->owner = nullptr;
  q->started = false;
  if (!q->jobs.empty()) startThread(q);
  return true;
}

void promote(Lane lane, const void* owner) {
  Queue* q = queue(lane);
  std::lock_guard lock(q->mutex);
  for (const Demoted& d : q->demoted)
    if (d.owner == owner) setpriority(PRIO_PROCESS, static_cast<id_t>(d.thread), 0);  // EACCES without the right: stays
}

void drainBackground() {
  for (Lane lane : {Lane::FirstCode, Lane::Optimized}) {
    Queue* q = queue(lane);
    std::unique_lock lock(q->mutex);
    q->changed.wait(lock, [&] { return q->jobs.empty() && q->running == 0; });
  }
}

}  // namespace hyrax::jit
