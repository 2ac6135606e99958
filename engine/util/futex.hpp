#pragma once
// Sleeping on one 32-bit word until another thread changes it (Linux futex). One waiter sleeps on
// its own word, so waking it wakes nobody else: a condition variable shared by every waiter of the
// executor woke all of them at each finished task, tens of thousands of needless context switches
// a second under TPC-C.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace hyrax {

// Sleeps while `word` holds `expected`, at most until `deadline`; returns at once when it does not,
// and may return early (a signal, a spurious wake-up): callers check the word again.
void futexWait(std::atomic<uint32_t>& word, uint32_t expected, std::chrono::steady_clock::time_point deadline);
// Wakes every thread sleeping on `word`.
void futexWakeAll(std::atomic<uint32_t>& word);

}  // namespace hyrax
