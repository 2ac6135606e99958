#include "sql/api/snapshot.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/runtime/memory_budget.hpp"
#include "engine/types/string_ref.hpp"

namespace hyrax::sql {

namespace {

using Clock = std::chrono::steady_clock;

// Set in the child right after fork: how long the fork took as the child saw it.
bool gInChild = false;
double gChildForkMs = 0;

// ---- wire format: a kind byte ('R' result, 'E' error, 'I' run inline), the body, an end byte 'Z'.
// Result body: columns (name, type), tag, phase times, notices, then per chunk its row count and
// per column the NULL bytes and the values; a string column's long strings carry an offset into
// the bytes that follow the column instead of a pointer.
class Writer {
 public:
  std::string out;
  template <typename T>
  void pod(const T& v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void str(std::string_view s) {
    pod(static_cast<uint64_t>(s.size()));
    out.append(s.data(), s.size());
  }
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  template <typename T>
  T pod() {
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  std::string str() {
    auto n = pod<uint64_t>();
    return std::string(take(n), n);
  }
  const char* take(size_t n) {
    if (n > in_.size() - pos_) throw malformed();
    const char* p = in_.data() + pos_;
    pos_ += n;
    return p;
  }
  bool atEnd() const { return pos_ == in_.size(); }
  static Error malformed() { return Error(sqlstate::InternalError, "snapshot process sent a malformed answer"); }

 private:
  const std::string& in_;
  size_t pos_ = 0;
};

void writeType(Writer& w, const SqlType& t) {
  w.pod(static_cast<uint8_t>(t.id));
  w.pod(t.precision);
  w.pod(t.scale);
  w.pod(t.length);
  w.pod(static_cast<uint8_t>(t.nullable));
}

SqlType readType(Reader& r) {
  SqlType t;
  auto id = r.pod<uint8_t>();
  if (id > static_cast<uint8_t>(TypeId::Date)) throw Reader::malformed();
  t.id = static_cast<TypeId>(id);
  t.precision = r.pod<uint8_t>();
  t.scale = r.pod<uint8_t>();
  t.length = r.pod<uint32_t>();
  t.nullable = r.pod<uint8_t>() != 0;
  return t;
}

void writeAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the reader is gone: nobody wants the answer
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string encodeResult(const QueryResult& r) {
  Writer w;
  w.pod('R');
  const auto& cols = r.columns();
  w.pod(static_cast<uint32_t>(cols.size()));
  for (const ResultColumn& c : cols) {
    w.str(c.name);
    writeType(w, c.type);
  }
  w.str(r.tag());
  const PhaseTimes& t = r.times;
  for (double d : {t.parse, t.plan, t.codegen, t.optimize, t.machineCode, t.execute}) w.pod(d);
  w.pod(static_cast<uint32_t>(r.notices.size()));
  for (const auto& n : r.notices) {
    w.str(n.severity);
    w.str(n.message);
  }
  w.pod(static_cast<uint64_t>(r.chunks().size()));
  for (const auto& chunk : r.chunks()) {
    const uint64_t rows = chunk->rowCount();
    w.pod(rows);
    for (uint32_t c = 0; c < cols.size(); ++c) {
      const SqlType& type = chunk->type(c);
      for (uint64_t i = 0; i < rows; ++i) w.pod(static_cast<uint8_t>(chunk->isNull(i, c)));
      if (!type.isString()) {
        w.out.append(static_cast<const char*>(chunk->at(0, c)), rows * type.byteWidth());
        continue;
      }
      std::string heap;  // the long strings' characters, after the column's values
      for (uint64_t i = 0; i < rows; ++i) {
        StringRef s;
        if (!chunk->isNull(i, c)) std::memcpy(static_cast<void*>(&s), chunk->at(i, c), sizeof s);
        if (!s.isInline()) {
          uint64_t offset = heap.size();
          heap.append(s.u.ptr, s.len);
          std::memcpy(s.u.rest, &offset, sizeof offset);
        }
        w.pod(s);
      }
      w.str(heap);
    }
  }
  w.pod('Z');
  return std::move(w.out);
}

std::string encodeError(const Error& e) {
  Writer w;
  w.pod('E');
  w.str(e.sqlstate());
  w.str(e.message());
  w.pod(e.pos().line);
  w.pod(e.pos().column);
  w.str(e.detail());
  w.pod('Z');
  return std::move(w.out);
}

QueryResult decodeAnswer(std::shared_ptr<const std::string> bytes) {
  Reader in(*bytes);
  const char kind = in.pod<char>();
  if (kind == 'E') {
    std::string state = in.str(), message = in.str();
    SourcePos pos;
    pos.line = in.pod<uint32_t>();
    pos.column = in.pod<uint32_t>();
    std::string detail = in.str();
    if (in.pod<char>() != 'Z' || !in.atEnd()) throw Reader::malformed();
    Error e(state, message, pos);
    if (!detail.empty()) e.withDetail(detail);
    throw e;
  }
  if (kind != 'R') throw Reader::malformed();
  std::vector<ResultColumn> cols(in.pod<uint32_t>());
  std::vector<SqlType> types;
  for (ResultColumn& c : cols) {
    c.name = in.str();
    c.type = readType(in);
    types.push_back(c.type);
  }
  std::string tag = in.str();
  PhaseTimes times;
  for (double* d : {&times.parse, &times.plan, &times.codegen, &times.optimize, &times.machineCode, &times.execute})
    *d = in.pod<double>();
  std::vector<QueryResult::Notice> notices(in.pod<uint32_t>());
  for (auto& n : notices) {
    n.severity = in.str();
    n.message = in.str();
  }
  std::vector<std::unique_ptr<ResultChunk>> chunks(in.pod<uint64_t>());
  for (auto& chunk : chunks) {
    const auto rows = in.pod<uint64_t>();
    if (rows > bytes->size()) throw Reader::malformed();
    chunk = std::make_unique<ResultChunk>(types, std::max<uint64_t>(rows, 1));
    ResultChunkView& v = chunk->view();
    v.count = rows;
    for (uint32_t c = 0; c < types.size(); ++c) {
      std::memcpy(v.nulls[c], in.take(rows), rows);
      const size_t width = types[c].byteWidth();
      const char* values = in.take(rows * width);
      std::memcpy(v.columns[c], values, rows * width);
      if (!types[c].isString()) continue;
      const auto heapSize = in.pod<uint64_t>();
      const char* heap = in.take(heapSize);  // stays where it is: `bytes` lives as long as the result
      auto* refs = static_cast<StringRef*>(v.columns[c]);
      for (uint64_t i = 0; i < rows; ++i) {
        if (refs[i].isInline()) continue;
        uint64_t offset;
        std::memcpy(&offset, refs[i].u.rest, sizeof offset);
        if (offset > heapSize || refs[i].len > heapSize - offset) throw Reader::malformed();
        refs[i].u.ptr = heap + offset;
      }
    }
  }
  if (in.pod<char>() != 'Z' || !in.atEnd()) throw Reader::malformed();
  QueryResult r(std::move(cols), std::move(chunks), std::move(tag));
  r.times = times;
  r.notices = std::move(notices);
  r.keepAlive(std::const_pointer_cast<std::string>(std::move(bytes)));
  return r;
}

bool inSnapshotChild(double* forkMs) {
  if (gInChild && forkMs) *forkMs = gChildForkMs;
  return gInChild;
}

std::unique_ptr<SnapshotQuery> SnapshotQuery::start(const std::function<QueryResult()>& work) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw Error(sqlstate::OutOfMemory, std::string("could not make a pipe for a snapshot: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const auto before = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    // The child: one thread, a copy-on-write view of the database as of this moment.
    gChildForkMs = std::chrono::duration<double, std::milli>(Clock::now() - before).count();
    gInChild = true;
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the executor thread that forked it
    if (getppid() != parent) _exit(1);  // the parent died before the line above
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN);  // a reader that left makes write() fail, not the child die
    std::string answer;
    try {
      try {
        answer = encodeResult(work());
      } catch (const RunInlineInstead&) {
        answer = "IZ";
      } catch (const Error& e) {
        answer = encodeError(e);
      } catch (const std::bad_alloc&) {
        answer = encodeError(Error(sqlstate::OutOfMemory, kOutOfMemoryMessage));
      } catch (const std::exception& e) {
        answer = encodeError(Error(sqlstate::InternalError, e.what()));
      }
    } catch (...) {  // even the error did not fit: the parent reports the missing answer
      _exit(2);
    }
    writeAll(fds[1], answer);
    _exit(0);
  }
  const int forkErrno = errno;
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    throw Error(sqlstate::OutOfMemory, std::string("could not fork a snapshot process: ") + std::strerror(forkErrno));
  }
  std::unique_ptr<SnapshotQuery> q(new SnapshotQuery);
  q->pid_ = pid;
  q->readFd_ = fds[0];
  q->forkMs_ = std::chrono::duration<double, std::milli>(Clock::now() - before).count();
  return q;
}

SnapshotQuery::~SnapshotQuery() { reap(true); }

// Closes the pipe and waits for the child (killing it first if `kill`); returns nothing, the
// status is read by finish() through waitStatus_.
void SnapshotQuery::reap(bool kill) {
  if (readFd_ >= 0) close(readFd_);
  readFd_ = -1;
  if (pid_ <= 0) return;
  if (kill) ::kill(pid_, SIGKILL);
  while (waitpid(pid_, &waitStatus_, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

std::optional<QueryResult> SnapshotQuery::finish(const std::atomic<bool>& cancel) {
  auto bytes = std::make_shared<std::string>();
  for (;;) {
    pollfd p{readFd_, POLLIN, 0};
    // Wakes up now and then to look at `cancel` (Connection::cancel may come from a signal handler,
    // which cannot wake this thread otherwise).
    int n = poll(&p, 1, 20);
    if (cancel.load()) {
      reap(true);
      throw Error(sqlstate::QueryCanceled, "canceling statement due to user request");
    }
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    const size_t old = bytes->size();
    bytes->resize(old + 65536);
    ssize_t got = read(readFd_, bytes->data() + old, 65536);
    bytes->resize(old + static_cast<size_t>(std::max<ssize_t>(got, 0)));
    if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) break;
  }
  reap(false);
  // A complete answer counts even if the child was killed after sending it.
  const bool complete = !bytes->empty() && bytes->back() == 'Z';
  if (complete && bytes->front() == 'I' && bytes->size() == 2) return std::nullopt;
  if (complete) {
    try {
      return decodeAnswer(bytes);
    } catch (const Error& e) {
      if (e.sqlstate() != sqlstate::InternalError || e.message() != Reader::malformed().message()) throw;
    }
  }
  if (WIFSIGNALED(waitStatus_)) {
    const int sig = WTERMSIG(waitStatus_);
    throw Error(sqlstate::InternalError,
                "snapshot process ended by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")");
  }
  throw Error(sqlstate::InternalError, "snapshot process ended without an answer (exit status " +
                                           std::to_string(WIFEXITED(waitStatus_) ? WEXITSTATUS(waitStatus_) : -1) + ")");
}

}  // namespace hyrax::sql
