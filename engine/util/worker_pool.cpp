#include "engine/util/worker_pool.hpp"

#include <pthread.h>

#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace hyrax {

namespace {

struct Pool {
  std::mutex busy;  // held by the query whose jobs run
  std::mutex mutex;
  std::condition_variable wake, done;
  const std::function<void(uint32_t)>* job = nullptr;
  uint64_t generation = 0;  // one per runOnWorkers call
  uint32_t helpers = 0;     // pool threads asked to take part in this generation
  uint32_t running = 0;     // of them, working now
  bool closed = false;      // the caller is done: helpers that have not begun stay out
  uint32_t threads = 0;     // pool threads started
};

// Never destroyed: pool threads wait on it until the process exits. A forked child replaces its
// copy (placement new) instead of destroying it.
alignas(Pool) unsigned char storage[sizeof(Pool)];
Pool* pool() {
  static Pool* p = [] {
    auto* created = new (storage) Pool();
    pthread_atfork(nullptr, nullptr, [] { new (storage) Pool(); });
    return created;
  }();
  return p;
}

void loop(Pool* p, uint32_t index) {  // index 1, 2, ...: the job number it runs
  uint64_t seen = 0;
  std::unique_lock lock(p->mutex);
  for (;;) {
    p->wake.wait(lock, [&] { return p->generation != seen; });
    seen = p->generation;
    if (index > p->helpers || p->closed) continue;  // not needed this time, or too late
    ++p->running;
    const auto* job = p->job;
    lock.unlock();
    (*job)(index);
    lock.lock();
    if (--p->running == 0) p->done.notify_all();
  }
}

}  // namespace

void runOnWorkers(uint32_t n, const std::function<void(uint32_t)>& job) {
  Pool* p = pool();
  std::unique_lock busy(p->busy, std::try_to_lock);
  if (n <= 1 || !busy.owns_lock()) {
    job(0);
    return;
  }
  {
    std::lock_guard lock(p->mutex);
    while (p->threads < n - 1) std::thread(loop, p, ++p->threads).detach();
    p->job = &job;
    p->helpers = n - 1;
    p->running = 0;
    p->closed = false;
    ++p->generation;
  }
  p->wake.notify_all();
  job(0);
  // Wait only for the helpers that began: one that has not got a core yet (a busy machine, a
  // snapshot worker at SCHED_IDLE) would find no work left anyway.
  std::unique_lock lock(p->mutex);
  p->closed = true;
  p->done.wait(lock, [&] { return p->running == 0; });
  p->job = nullptr;
}

}  // namespace hyrax
