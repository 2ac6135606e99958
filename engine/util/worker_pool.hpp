#pragma once
// The threads a query's pipelines run on besides the session's own (morsel-driven parallelism:
// each thread takes the next morsel of a pipeline's input until none is left). One pool per
// process, its threads started when first needed; a forked child (a snapshot process) gets an
// empty pool of its own (pthread_atfork), since the parent's threads do not exist there.
#include <cstdint>
#include <functional>

namespace hyrax {

// Runs job(0) on the calling thread and job(1) ... job(n-1) on pool threads, and returns when
// all have returned. Jobs must not throw, and each must be able to do all the work alone: when
// another query holds the pool (two databases in one process), only job(0) runs.
void runOnWorkers(uint32_t n, const std::function<void(uint32_t)>& job);

}  // namespace hyrax
