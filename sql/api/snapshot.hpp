#pragma once
// A query run on a fork-based snapshot (HyPer's OLAP side; issue 17): the executor thread forks
// between two statements, while no transaction block is open, so the child's copy-on-write view
// of the process is exactly the committed state. The child compiles and runs the query there,
// writes its result (or its error) into a pipe and _exit()s; the executor thread returns right
// after fork() and goes on with other sessions' work, while the session's own thread reads the
// pipe and reaps the child.
//
// Why the child compiles: compiling takes 10-70 ms (TPC-H SF 1), as long as many analytical
// queries run, and in the parent it would have to happen on the executor thread (the catalog and
// the plan's table pointers are only stable there) or on a compile thread that holds the catalog
// still; in the child it costs the executor nothing, and nothing the compile touches is shared.
// Measured: about as fast in the child as inline (hyrax-bench tpch --analytics snapshot). LLVM
// works after fork because nothing else compiles while the executor forks (all compiling is on
// that thread).
//
// The child has one thread (the executor's copy): it must not wait for anything another thread
// of the parent might have held at the fork (it runs only the query's own code; glibc makes
// malloc safe after fork). It asks to be killed when the executor thread ends (PR_SET_PDEATHSIG).
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <sys/types.h>

#include "sql/api/database.hpp"

namespace hyrax::sql {

// Thrown by the child's work when the query turned out to write (a stored function it called
// changed a table): its effects would be lost in the child, so the session runs it inline instead.
struct RunInlineInstead {};

class SnapshotQuery {
 public:
  // On the executor thread: forks. The child runs `work` on its snapshot, sends what it returned
  // or threw, and _exit()s (start never returns there); the parent gets the running query.
  // Throws 53200 / XX000 when no pipe or process could be made (nothing was started then).
  static std::unique_ptr<SnapshotQuery> start(const std::function<QueryResult()>& work);
  ~SnapshotQuery();  // kills the child (SIGKILL) and reaps it if finish() did not
  SnapshotQuery(const SnapshotQuery&) = delete;
  SnapshotQuery& operator=(const SnapshotQuery&) = delete;

  // On the session's thread: waits for the result and reaps the child. Returns the query's result
  // (the same columns, types, NULLs and values as inline; strings copied into memory the result
  // owns), or nothing when the child said to run the query inline (RunInlineInstead). Throws the
  // query's own error (SQLSTATE, message, position, detail); 57014 when `cancel` became true (the
  // child is killed); XX000 when the child ended by a signal or without an answer.
  std::optional<QueryResult> finish(const std::atomic<bool>& cancel);

  pid_t pid() const { return pid_; }
  double forkMs() const { return forkMs_; }  // how long fork() held the executor thread

 private:
  SnapshotQuery() = default;
  void reap(bool kill);
  pid_t pid_ = -1;
  int readFd_ = -1;
  int waitStatus_ = 0;
  double forkMs_ = 0;
};

// Whether this process is a snapshot child; there, `forkMs` (if given) gets how long the fork
// took as the child saw it (EXPLAIN ANALYZE reports it).
bool inSnapshotChild(double* forkMs = nullptr);

// The result and error wire format between the child and the parent (exposed for unit tests).
std::string encodeResult(const QueryResult& r);
std::string encodeError(const Error& e);
// Decodes what encodeResult / encodeError wrote (`bytes` is kept alive by the result, whose long
// strings point into it): the result, or throws the error. XX000 on a malformed message.
QueryResult decodeAnswer(std::shared_ptr<const std::string> bytes);

}  // namespace hyrax::sql
