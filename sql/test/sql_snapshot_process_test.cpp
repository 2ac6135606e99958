// Snapshot processes and their workers as processes: they die with the process that forked them
// (not with its thread), a killed one is replaced, and a database that goes away reaps them.
#include <catch2/catch.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "engine/util/large_stack_thread.hpp"
#include "engine/util/stack_depth.hpp"
#include "sql/api/database.hpp"
#include "sql/test/process_probes.hpp"

using namespace hyrax;
using test::childrenOf;
using test::procStat;
using test::reaped;

TEST_CASE("snapshot processes and their workers die with the process that forked them") {
  // A child of this test plays the database's process: it starts a query held in its worker and
  // reports the worker's pid; then it is killed, and the worker and its snapshot process must go.
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t db = fork();
  REQUIRE(db >= 0);
  if (db == 0) {
    close(fds[0]);
    Database database;
    Connection con(database);
    con.setSnapshotHookForTesting([] {
      for (;;) pause();  // held until killed
    });
    std::thread query([&] {
      try {
        con.execute("SELECT 1");
      } catch (...) {
      }
    });
    int pid = 0;
    for (int i = 0; i < 60000 && !(pid = con.snapshotPid()); ++i) usleep(1000);
    ssize_t ignored = write(fds[1], &pid, sizeof pid);
    (void)ignored;
    for (;;) pause();  // until killed
  }
  close(fds[1]);
  int worker = 0;
  REQUIRE(read(fds[0], &worker, sizeof worker) == sizeof worker);
  close(fds[0]);
  REQUIRE(worker > 0);
  const int snapshot = procStat(worker).ppid;  // the worker's parent is the snapshot process
  REQUIRE(snapshot > 0);
  CHECK(kill(worker, 0) == 0);
  CHECK(kill(snapshot, 0) == 0);
  kill(db, SIGKILL);
  REQUIRE(waitpid(db, nullptr, 0) == db);
  // Orphans are reaped by init (or the nearest subreaper) once they die.
  auto gone = [](int pid) {
    for (int i = 0; i < 5000; ++i) {
      if (kill(pid, 0) == -1 && errno == ESRCH) return true;
      if (procStat(pid).state == 'Z') return true;  // dead, awaiting its reaper
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  };
  CHECK(gone(snapshot));
  CHECK(gone(worker));
}

TEST_CASE("a snapshot outlives the session thread that forked it") {
  // A server session's thread (one with the executor's stack) forks snapshots in its own turn and
  // ends when its client leaves; other sessions go on using the snapshot.
  Database db;
  Connection setup(db);
  setup.execute("SET analytics = 'inline'");
  setup.execute("CREATE TABLE t (a INTEGER)");
  setup.execute("INSERT INTO t VALUES (1), (2), (3)");
  auto session = [&](int& pid, std::string& answer) {
    LargeStackThread(kExecutorStackBytes, [&] {
      Connection con(db);
      con.execute("SET snapshot_max_age = '10min'");
      QueryResult r = con.execute("SELECT sum(a) FROM t");
      pid = r.ranOn.snapshotPid;
      answer = r.text(0, 0);
    }).join();
  };
  int first = 0, second = 0;
  std::string a, b;
  session(first, a);
  REQUIRE(first > 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(kill(first, 0) == 0);  // still there after the thread that forked it ended
  session(second, b);
  CHECK(second == first);  // shared, not forked again
  CHECK(a == "6");
  CHECK(b == "6");
}

TEST_CASE("a snapshot process killed from outside is replaced, and the next queries answer") {
  Database db;
  Connection con(db);
  con.execute("SET statement_cache = off");  // no fork for the session's code (the test below)
  con.execute("CREATE TABLE t (a INTEGER)");
  con.execute("INSERT INTO t VALUES (1), (2)");
  QueryResult first = con.execute("SELECT sum(a) FROM t");
  const int snapshot = first.ranOn.snapshotPid;
  REQUIRE(snapshot > 0);
  CHECK(con.execute("SELECT sum(a) FROM t").ranOn.snapshotPid == snapshot);  // shared: nothing wrote
  REQUIRE(kill(snapshot, SIGKILL) == 0);
  for (int i = 0; i < 3; ++i) {
    QueryResult r = con.execute("SELECT sum(a) FROM t");
    CHECK(r.value(0, 0).asInt() == 3);
    CHECK(r.ranOn.snapshotPid != snapshot);
  }
  CHECK(reaped(snapshot));
}

TEST_CASE("a database that goes away ends and reaps its snapshot processes and their workers") {
  int snapshot = 0;
  std::vector<int> children;  // the snapshot process's: its spare worker
  {
    Database db;
    Connection con(db);
    con.execute("SET statement_cache = off");  // both on one snapshot (no fork for cached code)
    // A snapshot forks a spare worker ahead once it has served a second query.
    con.execute("SELECT 1");
    snapshot = con.execute("SELECT 1").ranOn.snapshotPid;
    REQUIRE(snapshot > 0);
    for (int i = 0; i < 10'000 && (children = childrenOf(snapshot)).empty(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(!children.empty());
  }
  // Gone at once, not left to init: no process, not even a zombie.
  CHECK((kill(snapshot, 0) == -1 && errno == ESRCH));
  for (int pid : children) CHECK((kill(pid, 0) == -1 && errno == ESRCH));
}
