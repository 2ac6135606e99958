#pragma once
// A thread with a stack of a chosen size: std::thread always takes the process default (8 MiB,
// from RLIMIT_STACK), too little for the executor thread (engine/util/stack_depth.hpp says why).
#include <pthread.h>

#include <cstddef>
#include <functional>

namespace hyrax {

class LargeStackThread {
 public:
  // Starts `body` at once; throws std::system_error when the thread cannot be made.
  LargeStackThread(size_t stackBytes, std::function<void()> body);
  ~LargeStackThread();  // joins, if join() was not called
  LargeStackThread(const LargeStackThread&) = delete;
  LargeStackThread& operator=(const LargeStackThread&) = delete;

  void join();
  bool isCurrent() const { return pthread_equal(pthread_self(), id_) != 0; }

 private:
  static void* start(void* self);
  std::function<void()> body_;
  pthread_t id_{};
  bool joined_ = false;
};

}  // namespace hyrax
