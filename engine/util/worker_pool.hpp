#pragma once
// The threads a query's pipelines run on besides the session's own (morsel-driven parallelism:
// each thread takes the next morsel of a pipeline's input until none is left). One pool per
// process, its threads started when first needed; a forked child (a snapshot process) gets an
// empty pool of its own (pthread_atfork), since the parent's threads do not exist there.
#include <cstdint>
#include <functional>

namespace hyrax {

// Runs job(0) on the calling thread and job(1) ... job(n-1) on pool threads, and returns when
// job(0) and every helper job that began have returned. A helper job that has not begun when
// job(0) returns never runs: jobs take their work from a shared counter (morsels), so job(0)
// alone can do all of it, and the caller never waits for a thread that has no core. The same
// when another query holds the pool (two databases in one process): only job(0) runs.
// Jobs must not throw.
void runOnWorkers(uint32_t n, const std::function<void(uint32_t)>& job);

}  // namespace hyrax
