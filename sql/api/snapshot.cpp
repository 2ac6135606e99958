// Snapshot processes and their workers (snapshot.hpp says how they talk).
#include "sql/api/snapshot.hpp"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <deque>
#include <new>
#include <thread>

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/runtime/memory_budget.hpp"
#include "engine/util/huge_page_keeper.hpp"
#include "engine/util/huge_page_slabs.hpp"
#include "engine/util/on_exit.hpp"

namespace hyrax::sql {

namespace {

using Clock = Snapshot::Clock;

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// In a snapshot process and its workers: when the executor started the fork, and how long the
// fork took as the snapshot process saw it. The clock is the system's monotonic one, the same in
// every process.
bool gInWorker = false;
Clock::time_point gForkedAt;
double gForkMs = 0;
double gAgeMs = 0;  // in a worker: the snapshot's age when its query started

// A worker's wait status that says the snapshot process could not fork the worker.
constexpr int kNoWorker = -1;

Error gone() { return Error(sqlstate::InternalError, "the snapshot process is gone"); }

// Closes every descriptor from 3 up but `keep` (a child keeps none of its parent's sockets and
// pipes open: another query's reader would otherwise never see its end).
void closeAllBut(int keep, int alsoKeep = -1) {
  int kept[2] = {std::min(keep, alsoKeep), std::max(keep, alsoKeep)};
  int from = 3;
  for (int k : kept) {
    if (k < from) continue;  // -1, or below 3
    if (k > from) syscall(SYS_close_range, static_cast<unsigned>(from), static_cast<unsigned>(k - 1), 0u);
    from = k + 1;
  }
  syscall(SYS_close_range, static_cast<unsigned>(from), ~0u, 0u);
}

// Writes all of `bytes`; false when the reader is gone. Sockets without SIGPIPE.
bool sendAll(int fd, const void* bytes, size_t size) {
  const char* p = static_cast<const char*>(bytes);
  while (size > 0) {
    ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool sendFramed(int fd, const std::string& bytes) {
  const uint64_t size = bytes.size();
  return sendAll(fd, &size, sizeof size) && sendAll(fd, bytes.data(), bytes.size());
}

// Reads exactly `size` bytes (blocking); false at an early end.
bool readExact(int fd, void* out, size_t size) {
  char* p = static_cast<char*>(out);
  while (size > 0) {
    ssize_t n = read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Sends `count` descriptors in one message (one byte of data); false when the receiver is gone.
bool sendFds(int socket, const int* fds, int count) {
  char byte = 'Q';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char space[CMSG_SPACE(2 * sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = space;
  msg.msg_controllen = CMSG_SPACE(static_cast<size_t>(count) * sizeof(int));
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(static_cast<size_t>(count) * sizeof(int));
  std::memcpy(CMSG_DATA(c), fds, static_cast<size_t>(count) * sizeof(int));
  ssize_t sent;
  do sent = sendmsg(socket, &msg, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  return sent == 1;
}

// Receives one message of `count` descriptors (at most 2); false when the socket closed. A
// message without them leaves -1s.
bool receiveFds(int socket, int* fds, int count) {
  char byte;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char space[CMSG_SPACE(2 * sizeof(int))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = space;
  msg.msg_controllen = sizeof space;
  ssize_t n;
  do n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return false;
  for (int i = 0; i < count; ++i) fds[i] = -1;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t got = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    int received[2] = {-1, -1};
    std::memcpy(received, CMSG_DATA(c), std::min<size_t>(got, 2) * sizeof(int));
    for (size_t i = 0; i < got && i < 2; ++i) {
      if (static_cast<int>(i) < count) fds[i] = received[i];
      else close(received[i]);
    }
  }
  return true;
}

// ---- a worker: forked ahead of its query (a spare), so the query does not wait for the fork.
// It waits on `channel` for a query's socket, which carries the request in, and its pid and the
// answer out; runs the query; and, when it answered with a result, tells the snapshot process it
// is idle and waits for the next query of the snapshot. A worker that served a query has
// LLVM's and malloc's pages of its own and its threads started: its next query skips the
// copy-on-write faults and lazy set-up a fresh process pays (2-5 ms a query). After an error,
// a query that wrote in its copy (RunInlineInstead) or ran out of memory it _exits: its state is
// no longer the snapshot's, or not trusted; so does one that grew past kReusableWorkerBytes.
constexpr size_t kReusableWorkerBytes = size_t{64} << 20;
size_t gArenaAtFork = 0;  // malloc's main arena in this worker as the fork left it

// Serves the query on `sock`; true when the worker may take another.
bool serveQuery(int sock, pid_t snapshotPid, int channel, const SnapshotHandler& handler) {
  const int32_t pid = getpid();
  if (!sendAll(sock, &pid, sizeof pid)) return false;
  uint64_t size = 0;
  std::string request;
  if (!readExact(sock, &size, sizeof size)) return false;
  try {
    request.resize(size);
  } catch (...) {
    return false;
  }
  if (!readExact(sock, request.data(), size)) return false;
  gInWorker = true;
  gAgeMs = msBetween(gForkedAt, Clock::now());
  std::string answer;
  bool reusable = false;
  try {
    try {
      QueryResult r = handler(decodeRequest(request));
      r.ranOn.snapshotAgeMs = gAgeMs;
      r.ranOn.forkMs = gForkMs;
      r.ranOn.snapshotPid = snapshotPid;
      r.ranOn.workerPid = pid;
      answer = encodeResult(r);
      reusable = true;
    } catch (const RunInlineInstead&) {
      answer = "IZ";
    } catch (const Error& e) {
      answer = encodeError(e);
    } catch (const std::bad_alloc&) {
      answer = encodeError(Error(sqlstate::OutOfMemory, kOutOfMemoryMessage));
    } catch (const std::exception& e) {
      answer = encodeError(Error(sqlstate::InternalError, e.what()));
    }
  } catch (...) {  // even the error did not fit: the session reports the missing answer
    _exit(2);
  }
  // A worker that grew big stays so (slabs and malloc's arenas keep their peak), and a snapshot
  // of an idle database lives on: it ends instead, so that a big query's memory goes back.
  if (reusable && (HugePageSlabs::slabBytes() > kReusableWorkerBytes ||
                   mallinfo2().arena > gArenaAtFork + kReusableWorkerBytes))
    reusable = false;
  // Idle before the answer goes out: the session sends its next query as soon as it has this
  // answer, and the snapshot process should find this worker idle by then. (Should the worker die
  // sending the answer after all, the session finds no status and fails its query as if the
  // snapshot process had ended.) A session that left meanwhile (a failed send) says nothing of
  // this worker: once said idle it stays so, since it may have been handed the next query already.
  const char idle = 'I';
  if (reusable && send(channel, &idle, 1, MSG_NOSIGNAL) != 1) reusable = false;
  sendFramed(sock, answer);
  return reusable;
}

[[noreturn]] void workerMain(int channel, pid_t snapshotPid, const SnapshotHandler& handler) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with its snapshot process
  if (getppid() != snapshotPid) _exit(1);
  closeAllBut(channel);
  gArenaAtFork = mallinfo2().arena;
  for (;;) {
    int sock = -1;
    if (!receiveFds(channel, &sock, 1) || sock < 0) _exit(0);  // no query came: the snapshot ended
    if (!serveQuery(sock, snapshotPid, channel, handler)) _exit(0);
    close(sock);
  }
}

// ---- the snapshot process: hands each query it is sent to an idle worker or a spare it forked,
// reaps workers and reports the status of one that ended under a query, kills a worker whose
// session gave up; ends when its control socket closes and no worker is left.
struct Worker {
  pid_t pid;
  int pidfd;   // readable once the worker has ended
  int status;  // the pipe's write end: the wait status goes here; POLLERR once the session left. -1 while idle
  int channel;  // queries go to it; an 'I' from it says the worker answered and waits for the next
  bool killed = false;
};

// The spare worker: forked and waiting for its query on `channel`.
struct Spare {
  pid_t pid = -1;
  int pidfd = -1;
  int channel = -1;
};

Spare forkSpare(const SnapshotHandler& handler) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) return {};
  const pid_t self = getpid();
  const pid_t pid = fork();
  if (pid == 0) workerMain(fds[1], self, handler);
  close(fds[1]);
  const int pidfd = pid > 0 ? static_cast<int>(syscall(SYS_pidfd_open, pid, 0)) : -1;
  if (pid < 0 || pidfd < 0) {
    close(fds[0]);
    if (pid > 0) {
      kill(pid, SIGKILL);
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    return {};
  }
  return {pid, pidfd, fds[0]};
}

void endSpare(Spare& spare) {
  if (spare.pid < 0) return;
  close(spare.channel);  // it sees the end and exits; killed too, in case it is not waiting yet
  kill(spare.pid, SIGKILL);
  while (waitpid(spare.pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  close(spare.pidfd);
  spare = {};
}

[[noreturn]] void snapshotMain(int control, pid_t parent, const SnapshotHandler& handler) {
  // Dies with the process that forked it, watched through a pidfd: PR_SET_PDEATHSIG would fire
  // when the forking *thread* ends, and a server session's thread forks in its turn and ends when
  // its client leaves, while other sessions still use the snapshot. (Its workers are children of
  // this process's only thread: PR_SET_PDEATHSIG is right for them.)
  const int parentFd = static_cast<int>(syscall(SYS_pidfd_open, parent, 0));
  if (parentFd < 0 || getppid() != parent) _exit(1);  // the parent died already
  closeAllBut(control, parentFd);
  signal(SIGPIPE, SIG_IGN);  // a session that left makes write() fail, not this process die
  std::vector<Worker> workers;
  std::vector<pollfd> polls;
  Spare spare = forkSpare(handler);
  int served = 0;
  bool open = true;
  // Once no query can come, an idle worker is told to end (its channel closed).
  auto dismissIdle = [&] {
    for (Worker& w : workers)
      if (w.status < 0 && w.channel >= 0) {
        close(w.channel);
        w.channel = -1;
      }
  };
  while (open || !workers.empty()) {
    polls.clear();
    for (const Worker& w : workers) {
      polls.push_back({w.pidfd, POLLIN, 0});
      // POLLERR: the session closed its end. Not asked again once the worker is killed: the
      // error stays set, and poll would return at once until the worker's end is seen.
      polls.push_back({w.killed ? -1 : w.status, 0, 0});
      polls.push_back({w.channel, POLLIN, 0});
    }
    if (open) polls.push_back({spare.pidfd, POLLIN, 0});  // -1 (none) is skipped by poll
    if (open) polls.push_back({control, POLLIN, 0});
    polls.push_back({parentFd, POLLIN, 0});
    if (poll(polls.data(), polls.size(), -1) < 0) {
      if (errno == EINTR) continue;
      _exit(3);
    }
    if (polls.back().revents) _exit(0);  // the database's process is gone: its workers die with this one
    polls.pop_back();
    for (size_t i = 0; i < workers.size();) {
      Worker& w = workers[i];
      const pollfd& ended = polls[3 * i];
      const pollfd& left = polls[3 * i + 1];
      const pollfd& said = polls[3 * i + 2];
      if (ended.revents) {
        int status = 0;
        while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (w.status >= 0) {
          ssize_t ignored = write(w.status, &status, sizeof status);  // fails when the session left
          (void)ignored;
          close(w.status);
        }
        if (w.channel >= 0) close(w.channel);
        close(w.pidfd);
        workers.erase(workers.begin() + static_cast<std::ptrdiff_t>(i));
        polls.erase(polls.begin() + static_cast<std::ptrdiff_t>(3 * i), polls.begin() + static_cast<std::ptrdiff_t>(3 * i + 3));
        continue;
      }
      // Idle before the session's leaving is looked at: the worker says it is idle just before it
      // sends the answer, and the session closes its end as soon as it has it.
      if (said.revents && w.channel >= 0) {
        char what = 0;
        ssize_t n;
        do n = recv(w.channel, &what, 1, MSG_DONTWAIT);
        while (n < 0 && errno == EINTR);
        if (n == 1 && what == 'I' && !w.killed && w.status >= 0) {
          close(w.status);  // this query is done; the session reads no status after an answer
          w.status = -1;
          if (!open) dismissIdle();
        } else if (n == 0 || (n < 0 && errno != EAGAIN)) {
          close(w.channel);  // it is ending: its pidfd says when
          w.channel = -1;
        }
      } else if (left.revents && !w.killed && w.status >= 0) {  // cancelled, timed out or abandoned
        kill(w.pid, SIGKILL);
        w.killed = true;
      }
      ++i;
    }
    if (!open) continue;
    if (polls[polls.size() - 2].revents) endSpare(spare);  // it died waiting: a new one below
    if (!polls.back().revents) continue;
    int fds[2];
    if (!receiveFds(control, fds, 2)) {
      open = false;
      close(control);
      endSpare(spare);
      dismissIdle();
      continue;
    }
    const int sock = fds[0], status = fds[1];
    if (sock < 0 || status < 0) {  // not a query message: ignore it
      if (sock >= 0) close(sock);
      if (status >= 0) close(status);
      continue;
    }
    // An idle worker of an earlier query takes it; else the spare (one is forked now if there was
    // none), and from the second query on a new spare is forked while it runs when no worker is
    // idle. Most snapshots serve one query (a stream's next one wants a fresher snapshot): a spare
    // forked ahead for them would be a whole fork's page-table copy (~10 ms for 1 GB on 4 KiB
    // pages) taken from the executor's core for nothing.
    bool reused = false;
    for (Worker& w : workers)
      if (w.status < 0 && w.channel >= 0 && !w.killed) {
        if (sendFds(w.channel, &sock, 1)) {
          w.status = status;
          reused = true;
        } else {
          kill(w.pid, SIGKILL);
          w.killed = true;
        }
        break;
      }
    if (reused) {
      close(sock);
      continue;
    }
    if (spare.pid < 0) spare = forkSpare(handler);
    const bool handed = spare.pid >= 0 && sendFds(spare.channel, &sock, 1);
    close(sock);
    if (!handed) {
      endSpare(spare);
      const int noWorker = kNoWorker;
      ssize_t ignored = write(status, &noWorker, sizeof noWorker);
      (void)ignored;
      close(status);
      continue;
    }
    workers.push_back({spare.pid, spare.pidfd, status, spare.channel});
    spare = ++served >= 2 ? forkSpare(handler) : Spare{};
  }
  endSpare(spare);
  _exit(0);
}

// Reaps the processes of retired snapshots, which end once their last worker has: a thread of the
// parent's (started with the first one; it never ends, and is never copied into a child).
class Reaper {
 public:
  static void reap(pid_t pid) {
    Reaper& r = instance();
    std::lock_guard<std::mutex> lock(r.mutex_);
    r.pids_.push_back(pid);
    r.ready_.notify_one();
  }
  // Waits until every process handed over so far is reaped (a database that goes away leaves
  // none of its snapshot processes to init).
  static void drain() {
    Reaper& r = instance();
    std::unique_lock<std::mutex> lock(r.mutex_);
    r.idle_.wait(lock, [&] { return r.pids_.empty() && !r.busy_; });
  }

 private:
  static Reaper& instance() {
    static Reaper* reaper = new Reaper;  // never destroyed: its thread may outlive static objects
    return *reaper;
  }
  Reaper() { std::thread([this] { loop(); }).detach(); }
  [[noreturn]] void loop() {
    for (;;) {
      pid_t pid;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        busy_ = false;
        idle_.notify_all();
        ready_.wait(lock, [&] { return !pids_.empty(); });
        pid = pids_.front();
        pids_.pop_front();
        busy_ = true;
      }
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
  std::mutex mutex_;
  std::condition_variable ready_, idle_;
  std::deque<pid_t> pids_;
  bool busy_ = true;  // until the thread first waits
};

std::string describeStatus(int status) {
  if (status == kNoWorker) return "the snapshot process could not start a worker for the query";
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "snapshot process ended by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "snapshot process ended without an answer (exit status " +
         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
}

}  // namespace

bool inSnapshotWorker(double* forkMs, double* ageMs) {
  if (gInWorker && forkMs) *forkMs = gForkMs;
  if (gInWorker && ageMs) *ageMs = gAgeMs;
  return gInWorker;
}

std::shared_ptr<Snapshot> Snapshot::fork(const SnapshotHandler& handler, uint64_t epoch) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
    throw Error(sqlstate::OutOfMemory, std::string("could not make a socket for a snapshot: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const auto before = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The snapshot process: one thread, a copy-on-write view of the database as of this moment.
    gForkedAt = before;
    gForkMs = msBetween(before, Clock::now());
    close(fds[0]);
    snapshotMain(fds[1], parent, handler);
  }
  const int forkErrno = errno;
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    throw Error(sqlstate::OutOfMemory, std::string("could not fork a snapshot process: ") + std::strerror(forkErrno));
  }
  noteSnapshotFork();  // writes after it split shared huge pages: the keeper merges them later
  std::shared_ptr<Snapshot> s(new Snapshot);
  s->pid_ = pid;
  s->control_ = fds[0];
  s->epoch_ = epoch;
  s->forkedAt_ = before;
  return s;
}

Snapshot::~Snapshot() {
  close(control_);  // the process ends once its workers have
  if (!waitOnEnd_) {
    Reaper::reap(pid_);
    return;
  }
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

double Snapshot::ageMs() const { return msBetween(forkedAt_, Clock::now()); }

std::unique_ptr<SnapshotQuery> Snapshot::start(const SnapshotRequest& request) {
  int sock[2], status[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock) != 0)
    throw Error(sqlstate::OutOfMemory, std::string("could not make a socket for a snapshot query: ") + std::strerror(errno));
  if (pipe2(status, O_CLOEXEC) != 0) {
    const int e = errno;
    close(sock[0]);
    close(sock[1]);
    throw Error(sqlstate::OutOfMemory, std::string("could not make a pipe for a snapshot query: ") + std::strerror(e));
  }
  std::unique_ptr<SnapshotQuery> q(new SnapshotQuery);
  q->socket_ = sock[0];
  q->status_ = status[0];
  q->keep_ = shared_from_this();
  // Hand the worker's ends over, then drop ours: only the snapshot process and its worker hold them.
  const int theirs[2] = {sock[1], status[1]};
  bool sent;
  {
    std::lock_guard<std::mutex> lock(sendMutex_);
    sent = sendFds(control_, theirs, 2);
  }
  close(sock[1]);
  close(status[1]);
  if (!sent) {
    broken_.store(true);
    throw gone();
  }
  // The worker reads the request after it has sent its pid; the socket buffers what it can.
  if (!sendFramed(q->socket_, encodeRequest(request))) throw gone();
  return q;
}

SnapshotQuery::~SnapshotQuery() { close(); }

// Closing the status pipe's read end tells the snapshot process to kill a worker still running.
void SnapshotQuery::close() {
  if (socket_ >= 0) ::close(socket_);
  if (status_ >= 0) ::close(status_);
  socket_ = status_ = -1;
}

std::optional<QueryResult> SnapshotQuery::finish(const std::atomic<bool>& cancel, std::atomic<int>* workerPid) {
  OnExit clearPid([workerPid] {
    if (workerPid) workerPid->store(0);
  });
  // Reads `size` bytes from `fd`, waking up now and then to look at `cancel` (Connection::cancel
  // may come from a signal handler, which cannot wake this thread otherwise).
  auto read = [&](int fd, void* out, size_t size) {
    char* p = static_cast<char*>(out);
    while (size > 0) {
      pollfd pfd{fd, POLLIN, 0};
      int n = poll(&pfd, 1, 20);
      if (cancel.load()) {
        close();
        throw Error(sqlstate::QueryCanceled, "canceling statement due to user request");
      }
      if (n < 0 && errno != EINTR) return false;
      if (n <= 0) continue;
      ssize_t got = ::read(fd, p, size);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) return false;
      p += got;
      size -= static_cast<size_t>(got);
    }
    return true;
  };
  int32_t pid = 0;
  uint64_t size = 0;
  auto bytes = std::make_shared<std::string>();
  bool complete = read(socket_, &pid, sizeof pid);
  if (complete && workerPid) workerPid->store(pid);
  complete = complete && read(socket_, &size, sizeof size);
  if (complete) {
    try {
      bytes->resize(size);
    } catch (const std::bad_alloc&) {
      close();
      throw Error(sqlstate::OutOfMemory, kOutOfMemoryMessage);
    }
    complete = read(socket_, bytes->data(), size);
  }
  if (complete) {
    close();  // the worker is done with it; the snapshot process reaps it
    if (*bytes == "IZ") return std::nullopt;
    return decodeAnswer(bytes);
  }
  // No whole answer: the snapshot process says how the worker ended.
  int status = 0;
  const bool told = read(status_, &status, sizeof status);
  close();
  if (!told) {  // the snapshot process itself ended
    keep_->broken_.store(true);
    throw gone();
  }
  throw Error(sqlstate::InternalError, describeStatus(status));
}

std::shared_ptr<Snapshot> SnapshotPool::acquire(double maxAgeMs, uint64_t notBefore, bool shared,
                                                Snapshot::Clock::time_point forkedAfter) {
  // Nothing ran on the executor since the fork: the newest snapshot is the current state, however
  // old it is. Else it serves while fresh enough and not older than the session's own writes.
  if (newest_ && newest_->broken()) newest_.reset();
  if (shared && newest_ &&
      ((newest_->epoch() == epoch_ && newest_->forkedAt_ > forkedAfter) ||
       (newest_->epoch() != epoch_ && newest_->epoch() >= std::max(notBefore, schemaEpoch_) &&
        newest_->ageMs() <= maxAgeMs)))
    return newest_;
  if (beforeFirstFork_) {
    auto warm = std::move(beforeFirstFork_);
    beforeFirstFork_ = nullptr;
    warm();
  }
  std::shared_ptr<Snapshot> s = Snapshot::fork(handler_, epoch_);
  if (shared) {
    newest_ = s;  // the one it replaces ends when its last query does
    newestKeepMs_ = maxAgeMs;
  }
  return s;
}

SnapshotPool::~SnapshotPool() {
  if (newest_) newest_->waitOnEnd_ = true;
  newest_.reset();
  Reaper::drain();
}

void SnapshotPool::sweep() {
  if (newest_ && newest_.use_count() == 1 && newest_->epoch() != epoch_ && newest_->ageMs() > newestKeepMs_)
    newest_.reset();
}

}  // namespace hyrax::sql
