#pragma once
// Queries on fork-based snapshots (HyPer's OLAP side; issue 17; docs/architecture.md "Snapshots").
//
// A Snapshot is a process the executor thread forks between two statements, while no transaction
// block is open, so its copy-on-write view of the process is exactly the committed state. It runs
// no query itself: it waits for requests on a control socket and hands each to a worker process,
// and the worker compiles and runs the query on the snapshot and sends the answer straight to the
// session's thread. The snapshot process forks a spare worker ahead of the next query, so a query
// does not wait for a fork, and a worker that answered with a result takes the snapshot's next
// query (one at a time): a used worker has its own pages of LLVM's and malloc's memory and its
// threads started, which a fresh one pays for with 2-5 ms of copy-on-write faults and set-up. Several queries (of any sessions, at once) share one snapshot while it
// is fresh enough for them (SET snapshot_max_age), and for as long as nothing ran on the executor
// since its fork; the snapshot process ends when the last query using it has ended and a newer
// snapshot exists (or it aged out unused).
//
// Why a process per query at a time: a query that crashes, is killed, runs out of memory or is
// cancelled takes down only its worker; the snapshot and its other queries go on. A worker whose
// query failed (or wrote in its copy, RunInlineInstead) ends rather than serve another. Forking the worker costs
// the snapshot process, not the executor thread: the executor pays one fork per snapshot, however
// many queries use it.
//
// Why the worker compiles (a text's first time; from its second, the session's process compiles
// it once and the workers of later snapshots run that code: Connection::compiledForSnapshots):
// compiling takes 10-70 ms (TPC-H SF 1), as long as many analytical
// queries run, and in the parent it would have to happen on the executor thread (the catalog and
// the plan's table pointers are only stable there) or on a compile thread that holds the catalog
// still; in the worker it costs the executor nothing, and nothing the compile touches is shared.
// Measured: about as fast in the child as inline (hyrax-bench tpch --analytics snapshot). LLVM
// works after fork because nothing else compiles while the executor forks (all compiling is on
// that thread), and the snapshot process never uses LLVM itself.
//
// Per query there is a socket pair and a pipe. The session writes the request into its end of the
// socket and reads from it the worker's pid and then the answer, each framed with its length. The
// snapshot process keeps the pipe's write end: once it has reaped the worker it writes the wait
// status there, so a session whose worker died without an answer learns how; a session that
// closes the pipe's read end (cancel, statement timeout, an abandoned query) makes the snapshot
// process kill the worker. The snapshot process and each worker ask to be killed when their parent
// ends (PR_SET_PDEATHSIG), close every descriptor they do not need, and reap their children.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

#include "sql/api/database.hpp"
#include "sql/api/snapshot_wire.hpp"

namespace hyrax::sql {

// Thrown by a worker's query when it turned out to write (a stored function it called changed a
// table): its effects would be lost in the worker, so the session runs it inline instead.
struct RunInlineInstead {};

// Runs a request in a worker: its result, or throws its error (or RunInlineInstead).
using SnapshotHandler = std::function<QueryResult(const SnapshotRequest&)>;

class SnapshotQuery;

class Snapshot : public std::enable_shared_from_this<Snapshot> {
 public:
  using Clock = std::chrono::steady_clock;
  // On the executor thread: forks the snapshot process. `epoch` is the executor's write count at
  // the fork (SnapshotPool). Throws 53200 / XX000 when no socket or process could be made.
  static std::shared_ptr<Snapshot> fork(const SnapshotHandler& handler, uint64_t epoch);
  ~Snapshot();  // closes the control socket: the process ends once its workers have
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  // On a session's thread: hands `request` to a new worker. Throws XX000 when the snapshot
  // process is gone.
  std::unique_ptr<SnapshotQuery> start(const SnapshotRequest& request);

  uint64_t epoch() const { return epoch_; }
  double ageMs() const;
  Clock::time_point forkedAt() const { return forkedAt_; }
  // The process was found gone (killed from outside, say): no query is given to it again.
  bool broken() const { return broken_.load(); }

 private:
  Snapshot() = default;
  pid_t pid_ = -1;
  int control_ = -1;  // SOCK_SEQPACKET: one message per query, carrying its descriptors
  std::mutex sendMutex_;
  std::atomic<bool> broken_{false};
  bool waitOnEnd_ = false;  // the destructor waits for the process (SnapshotPool's destructor)
  uint64_t epoch_ = 0;
  Clock::time_point forkedAt_;
  friend class SnapshotQuery;
  friend class SnapshotPool;
};

// One query running in a worker.
class SnapshotQuery {
 public:
  ~SnapshotQuery();  // an unfinished query is cancelled (the snapshot process kills its worker)
  SnapshotQuery(const SnapshotQuery&) = delete;
  SnapshotQuery& operator=(const SnapshotQuery&) = delete;

  // Waits for the answer. Returns the query's result (the same columns, types, NULLs and values as
  // inline; strings in memory the result owns), or nothing when the worker said to run the query
  // inline (RunInlineInstead). Throws the query's own error (SQLSTATE, message, position,
  // detail); 57014 when `cancel` became true (the worker is killed); XX000 when the worker ended
  // by a signal or without an answer. `workerPid` gets the worker's pid while it runs (0 before
  // and after).
  std::optional<QueryResult> finish(const std::atomic<bool>& cancel, std::atomic<int>* workerPid);

 private:
  friend class Snapshot;
  SnapshotQuery() = default;
  void close();
  int socket_ = -1;  // the session's end: request out, pid and answer in
  int status_ = -1;  // the pipe's read end: the worker's wait status from the snapshot process
  std::shared_ptr<Snapshot> keep_;  // the snapshot lives while its queries do
};

// The database's snapshots: the newest one, which queries share while it is fresh enough for them.
// A retired snapshot's process is reaped by a thread of the parent's (started with the first one).
class SnapshotPool {
 public:
  // `beforeFirstFork` runs on the executor thread once, before the process's first fork
  // (Database: a statement's codegen, so that workers inherit what a process's first codegen sets up).
  explicit SnapshotPool(SnapshotHandler handler, std::function<void()> beforeFirstFork = nullptr)
      : handler_(std::move(handler)), beforeFirstFork_(std::move(beforeFirstFork)) {}
  // Ends the newest snapshot's process and waits for it (not the reaper thread: a process that
  // exits right after would leave it to init).
  ~SnapshotPool();

  // On the executor thread. The newest snapshot if nothing ran on the executor since its fork, or
  // if it is at most `maxAgeMs` old and was forked after the executor's write count reached
  // `notBefore` (a session reads its own writes); else a newer one forked now (and kept for the
  // next queries). `shared` false: a snapshot for this query alone. `forkedAfter`: code compiled
  // then would run in a snapshot forked after it (Connection's reuse of the statement cache): a
  // newest snapshot that is the current state but older is replaced by a fork of the same state;
  // one that serves by its age is shared as it is (the code waits for the next fork).
  std::shared_ptr<Snapshot> acquire(double maxAgeMs, uint64_t notBefore, bool shared = true,
                                    Snapshot::Clock::time_point forkedAfter = {});
  // On the executor thread, after each statement that may have written: the new write count.
  // `catalogVersion`: the catalog's version now. A schema change (CREATE, DROP, ALTER) is seen by
  // every query after it, from any session: no snapshot forked before it is shared again, where
  // other sessions' data may be up to snapshot_max_age old (a table another session just created
  // would otherwise not exist for a query that shares an older snapshot).
  uint64_t noteWrite(uint64_t catalogVersion) {
    ++epoch_;
    if (catalogVersion != catalogVersion_) {
      catalogVersion_ = catalogVersion;
      schemaEpoch_ = epoch_;
    }
    return epoch_;
  }
  uint64_t epoch() const { return epoch_; }
  // On the executor thread: retires the newest snapshot if no query uses it, something ran on the
  // executor since its fork and it is too old for anyone to share (so that it does not hold
  // copies of pages the executor has since changed).
  void sweep();

 private:
  SnapshotHandler handler_;
  std::function<void()> beforeFirstFork_;
  uint64_t epoch_ = 0;
  uint64_t catalogVersion_ = 0, schemaEpoch_ = 0;  // the write count at the last schema change
  std::shared_ptr<Snapshot> newest_;
  double newestKeepMs_ = 0;
};

// Whether this process is a snapshot worker; there, `forkMs` and `ageMs` (if given) get how long
// the executor's fork took and how old the snapshot was when the query started (EXPLAIN ANALYZE).
bool inSnapshotWorker(double* forkMs = nullptr, double* ageMs = nullptr);

}  // namespace hyrax::sql
