#pragma once
// Idle sessions without a thread awake: a session's own thread parks it here between requests and
// sleeps; a few dispatcher threads wait in one epoll set for any parked session's socket to become
// readable and serve what arrived in place (the usual Parse/Bind/Describe/Execute/Sync batch of a
// prepared statement), then park it again. Under load one epoll_wait hands a dispatcher several
// ready sessions, so a request costs no wake-up of a thread of the server's (one thread per
// session cannot go below one per request: bench/README.md, ycsb). What may block on the client
// (COPY FROM STDIN, a partial message too large to buffer, a transaction block left open, an
// error that ends the session) goes back to the session's thread, which serves as before until
// the session is idle again.
//
// A dispatcher thread that waits long for something other than the client (a snapshot's answer:
// Connection::setLongWaitHook) lends its place: another thread takes its turn at epoll meanwhile,
// so parked sessions are served while some of them wait.
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "engine/util/large_stack_thread.hpp"

namespace hyrax::server {

// What a Dispatcher needs of a session.
class Parkable {
 public:
  virtual ~Parkable() = default;
  virtual int socket() const = 0;
  // On a dispatcher thread, when the socket is readable: serves what arrived; true if the session
  // stays parked (it is idle again), false if its own thread must take it back. Never throws.
  virtual bool serveReady() = 0;
  // After serveReady() kept it: waits a moment for the client's next request, where that pays;
  // true if some of it came.
  virtual bool pollBriefly() = 0;
};

class Dispatcher {
 public:
  // `threads` dispatcher threads (with `stackBytes` stacks: they run statements), started lazily
  // at the first park().
  Dispatcher(size_t threads, size_t stackBytes);
  ~Dispatcher();  // no session may be parked any more
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // A session's place in the dispatcher: created by its own thread, destroyed by it when the
  // session ends (then no dispatcher thread touches the session any more).
  class Slot {
   public:
    Slot(Dispatcher& dispatcher, Parkable& session);
    ~Slot();
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    enum class Outcome { Returned, TimedOut };
    // The session's thread parks the session and sleeps until a dispatcher gives it back
    // (Returned), or until it was idle for `idleMs` (0: no limit; TimedOut, and no dispatcher
    // serves it any more).
    Outcome park(uint32_t idleMs);

   private:
    Dispatcher& dispatcher_;
    uint64_t id_;
  };

  // Around a long wait of a session that a dispatcher thread serves (nothing on any other
  // thread, e.g. the session's own): another thread watches the sockets meanwhile.
  void beginLongWait();
  void endLongWait();

 private:
  enum class State : uint8_t { Active, Parked, Serving, Returned };
  struct Entry {
    explicit Entry(Parkable* s) : session(s) {}
    Parkable* session;
    State state = State::Active;
    bool registered = false;  // in the epoll set (armed again with EPOLL_CTL_MOD)
    std::chrono::steady_clock::time_point lastServed;  // when a dispatcher last served it: idle since
    std::condition_variable returned;
  };
  void startThread();  // under mutex_
  void loop();
  void serve(uint64_t id);
  void arm(uint64_t id, Entry& e);  // under mutex_

  const size_t target_;
  const size_t stackBytes_;
  int epoll_ = -1;
  int wake_ = -1;  // an eventfd that ends every epoll_wait at stop
  std::mutex mutex_;
  std::unordered_map<uint64_t, Entry> entries_;  // by slot id, under mutex_
  uint64_t nextId_ = 1;
  std::vector<std::unique_ptr<LargeStackThread>> threads_;
  // Under mutex_: threads at work (watching the sockets, serving, or in a long wait), of them those
  // in a long wait, and threads kept spare (a long wait's stand-ins, not needed now) with the
  // wake-ups owed to them.
  size_t active_ = 0, waiting_ = 0, spare_ = 0, spareCalls_ = 0;
  std::condition_variable spareCalled_;
  bool stopping_ = false;
};

}  // namespace hyrax::server
