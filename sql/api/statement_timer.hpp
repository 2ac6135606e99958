#pragma once
// SET statement_timeout: cancels a statement that runs past its deadline the way Ctrl-C does
// (through the session's cancel flag, which generated code, COPY and procedures look at), after
// marking it as timed out so that the session reports "due to statement timeout". One thread per
// process, started with the first timed statement, sleeps until the nearest deadline.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace hyrax::sql {

class StatementTimer {
 public:
  using Clock = std::chrono::steady_clock;
  // While it lives: at `deadline`, sets *timedOut and then *cancel.
  StatementTimer(Clock::time_point deadline, std::atomic<bool>* cancel, std::atomic<bool>* timedOut);
  ~StatementTimer();
  StatementTimer(const StatementTimer&) = delete;
  StatementTimer& operator=(const StatementTimer&) = delete;

 private:
  uint64_t token_;
};

}  // namespace hyrax::sql
