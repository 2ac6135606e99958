#pragma once
// Whether this process was forked from the one that started (a snapshot process or its worker):
// threads the starting process ran are gone there, and what a thread of theirs held at the fork
// (a mutex, a queue) must not be waited on. Told by the pid, taken before main().
namespace hyrax {

bool forkedProcess();

}  // namespace hyrax
