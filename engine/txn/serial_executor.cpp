#include "engine/txn/serial_executor.hpp"

#include "engine/util/error.hpp"

namespace hyrax {

SerialExecutor::SerialExecutor() : thread_([this] { loop(); }) {}

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

void SerialExecutor::run(const void* session, const std::function<void()>& work) {
  if (std::this_thread::get_id() == thread_.get_id()) {
    work();
    return;
  }
  Task task{session, &work, nullptr};
  std::unique_lock lock(mutex_);
  queue_.push_back(&task);
  workReady_.notify_all();
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
      workReady_.wait(lock);
      continue;
    }
    next->started = true;
    lock.unlock();
    try {
      (*next->work)();
    } catch (...) {
      next->error = std::current_exception();
    }
    lock.lock();
    next->done = true;
    workDone_.notify_all();
  }
}

}  // namespace hyrax
