#pragma once
// Background threads for compile work that nobody waits for (adaptive compilation: the code of a
// query that already runs in the interpreter or on cheap code). Fork-safe: before
// any fork() the thread finishes what is queued (so no LLVM or allocator lock is held and the
// child inherits every finished result), and a child starts with an empty queue and starts a
// thread of its own when it first needs one. Only codegen/ includes this header.
#include <functional>

namespace hyrax::jit {

// Two threads, each with a queue of its own: the optimized tier's compiles (tens of milliseconds,
// started when worth it), and the first machine code of queries that started in the interpreter
// (a few milliseconds, wanted at once), which must never wait behind an optimized compile.
enum class Lane { Optimized = 0, FirstCode = 1 };

// Runs `job` on the lane's background thread, after the jobs queued there before it (under
// ThreadSanitizer, a first-code job in a forked process runs at once on the calling thread:
// background.cpp says why). Jobs must not throw.
void runInBackground(std::function<void()> job, Lane lane = Lane::Optimized);

// Waits until every job queued so far has finished (tests; the fork handler does the same).
void drainBackground();

}  // namespace hyrax::jit
