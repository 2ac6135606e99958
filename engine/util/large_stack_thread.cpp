#include "engine/util/large_stack_thread.hpp"

#include <cerrno>
#include <system_error>

namespace hyrax {

LargeStackThread::LargeStackThread(size_t stackBytes, std::function<void()> body) : body_(std::move(body)) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  int rc = pthread_attr_setstacksize(&attr, stackBytes);
  if (rc == 0) rc = pthread_create(&id_, &attr, &LargeStackThread::start, this);
  pthread_attr_destroy(&attr);
  if (rc != 0) throw std::system_error(rc, std::generic_category(), "cannot start a thread");
}

LargeStackThread::~LargeStackThread() { join(); }

void LargeStackThread::join() {
  if (joined_) return;
  joined_ = true;
  pthread_join(id_, nullptr);
}

void* LargeStackThread::start(void* self) {
  static_cast<LargeStackThread*>(self)->body_();
  return nullptr;
}

}  // namespace hyrax
