#pragma once
// Runs a function when the scope ends, however it ends (return or exception).
#include <utility>

namespace hyrax {

template <typename F>
class OnExit {
 public:
  explicit OnExit(F f) : f_(std::move(f)) {}
  ~OnExit() { f_(); }
  OnExit(const OnExit&) = delete;
  OnExit& operator=(const OnExit&) = delete;

 private:
  F f_;
};

}  // namespace hyrax
