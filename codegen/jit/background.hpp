#pragma once
// One background thread per process for compile work that nobody waits for (adaptive
// compilation: the optimized tier of a query that already runs on cheap code). Fork-safe: before
// any fork() the thread finishes what is queued (so no LLVM or allocator lock is held and the
// child inherits every finished result), and a child starts with an empty queue and starts a
// thread of its own when it first needs one. Only codegen/ includes this header.
#include <functional>

namespace hyrax::jit {

// Runs `job` on the background thread, after the jobs queued before it. Jobs must not throw.
void runInBackground(std::function<void()> job);

// Waits until every job queued so far has finished (tests; the fork handler does the same).
void drainBackground();

}  // namespace hyrax::jit
