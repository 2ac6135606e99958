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
// `owner` (any address, or null) names the job for demote() and promote().
void runInBackground(std::function<void()> job, Lane lane = Lane::Optimized, const void* owner = nullptr);

// A compile nobody waits for any more (its query ended first; its code serves the statement's
// next run): while `owner`'s job runs, it goes on at the lowest priority (nice 19) on a thread of
// its own, and the lane's later jobs get a new thread, so that the next query's compiles and its
// threads do not wait behind it. False if that job is not running.
bool demote(Lane lane, const void* owner);
// A run wants a demoted job's code after all (the statement ran again): its usual priority back
// where the process may raise one (CAP_SYS_NICE, RLIMIT_NICE); otherwise it stays low.
void promote(Lane lane, const void* owner);

// Waits until every job queued so far has finished (tests; the fork handler does the same).
void drainBackground();

}  // namespace hyrax::jit
