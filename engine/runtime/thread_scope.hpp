#pragma once
// The object generated code reaches through a runtime function for the current thread's work,
// installed for a scope (nested scopes install theirs in turn): the session's RoutineCaller, a
// compiled procedure body's ProgramHost. All statements run on the executor thread, one at a time.
namespace hyrax {

template <typename T>
class ThreadScope {
 public:
  explicit ThreadScope(T* object) : saved_(current_) { current_ = object; }
  ~ThreadScope() { current_ = saved_; }
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;
  static T* current() { return current_; }  // or nullptr

 private:
  T* saved_;
  static inline thread_local T* current_ = nullptr;
};

}  // namespace hyrax
