// SET analytics = 'snapshot' (the default): queries run in a worker of a snapshot process forked
// from the executor thread (sql/api/snapshot.hpp). Every worker these tests start is reaped by the
// time its query returns (a cancelled one shortly after), and the ones they hold are killed (a
// gate they wait on is always opened, or they are killed).
// The snapshot processes' own lifetime (dying with their parent, replaced when killed, reaped
// with the database) is in sql_snapshot_process_test.cpp.
#include <catch2/catch.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sql/api/database.hpp"
#include "sql/api/snapshot.hpp"
#include "sql/test/process_probes.hpp"
#include "sql/test/result_text.hpp"
#include "sql/test/same_answer.hpp"

using namespace hyrax;
using test::allText;
using test::reaped;
using test::zombies;
using test::ThreadPriority;
using test::threadPriorities;
using test::checkSame;

namespace {

void fillTypes(Connection& con) {
  con.execute("CREATE TABLE t (id INTEGER, big BIGINT, d DECIMAL(10,2), f DOUBLE PRECISION, s TEXT, "
              "v VARCHAR(20), c CHAR(5), day DATE, b BOOLEAN)");
  con.execute("INSERT INTO t VALUES (1, 10000000000, 12.34, 1.5, 'short', 'a longer string here', 'ab', "
              "DATE '2024-02-29', true)");
  con.execute("INSERT INTO t VALUES (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
  con.execute("INSERT INTO t VALUES (3, -5, -0.01, -2.25e10, 'exactly12chr', 'x', 'abcde', DATE '1970-01-01', false)");
  con.execute("CREATE TABLE n (x INTEGER)");
  con.execute("INSERT INTO n VALUES (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)");
  for (int i = 0; i < 9; ++i) con.execute("INSERT INTO n SELECT x + 1000 FROM n");  // 5120 rows
}


template <typename F>
std::string errorOf(F&& f, Error* out = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (out) *out = e;
    return e.sqlstate();
  }
  return "none";
}

// A named pipe the snapshot worker waits on before it runs its query (by name: a worker keeps
// none of its parent's descriptors); opened at the latest when the gate goes.
struct Gate {
  std::string path;
  bool opened = false;
  Gate() {
    path = (std::filesystem::temp_directory_path() / ("hyrax_gate_" + std::to_string(getpid()) + "_" +
                                                      std::to_string(reinterpret_cast<uintptr_t>(this))))
               .string();
    REQUIRE(mkfifo(path.c_str(), 0600) == 0);
  }
  void open() {
    if (opened) return;
    opened = true;
    int fd = ::open(path.c_str(), O_WRONLY);  // blocks until the worker opened its end
    char c = 'x';
    CHECK(write(fd, &c, 1) == 1);
    close(fd);
  }
  ~Gate() { unlink(path.c_str()); }
  std::function<void()> waiter() const {
    std::string p = path;
    return [p] {
      int fd = ::open(p.c_str(), O_RDONLY);
      char c;
      while (read(fd, &c, 1) < 0 && errno == EINTR) {
      }
      close(fd);
    };
  }
};

// The pid of the child running `con`'s query, once there is one (a minute at most).
int childOf(const Connection& con) {
  for (int i = 0; i < 60000; ++i) {
    if (int pid = con.snapshotPid()) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  FAIL("no snapshot child started");
  return 0;
}

}  // namespace

TEST_CASE("queries on a snapshot answer as inline ones do") {
  Database db;
  Connection inl(db), snap(db);
  inl.execute("SET analytics = 'inline'");
  fillTypes(inl);
  CHECK(allText(snap.execute("SHOW analytics")) == "snapshot\n");  // the default
  CHECK(allText(snap.execute("SHOW snapshot_max_age")) == "100ms\n");
  const char* queries[] = {
      "SELECT * FROM t ORDER BY id",
      "SELECT id, s || '-' || v AS joined, upper(s), d * 2, f / 2, day + 1 FROM t ORDER BY id",
      "SELECT count(*), sum(d), avg(f), min(s), max(v), min(day) FROM t",
      "SELECT b, count(*) FROM t GROUP BY b ORDER BY b",
      "SELECT * FROM t WHERE id > 100",
      "SELECT 1 AS one, 'literal text longer than twelve' AS lit, NULL AS nothing",
      "SELECT x, x * 2 AS y FROM n ORDER BY x DESC",
      "SELECT a.id, b.x FROM t a JOIN n b ON a.id = b.x ORDER BY a.id",
      "SELECT count(*) FROM n WHERE x NOT IN (SELECT id FROM t WHERE id IS NOT NULL)",
  };
  for (const char* q : queries) {
    INFO(q);
    checkSame(inl.execute(q), snap.execute(q));
  }
  // Errors come back whole: SQLSTATE, message, position.
  for (const char* q : {"SELECT id / (id - 1) FROM t ORDER BY id", "SELECT nothere FROM t", "SELECT 1 FROM nosuch"}) {
    INFO(q);
    Error a("", ""), b("", "");
    std::string sa = errorOf([&] { inl.execute(q); }, &a);
    std::string sb = errorOf([&] { snap.execute(q); }, &b);
    CHECK(sa != "none");
    CHECK(sa == sb);
    CHECK(a.message() == b.message());
    CHECK(a.pos().line == b.pos().line);
    CHECK(a.pos().column == b.pos().column);
    CHECK(a.detail() == b.detail());
  }
  // Division by zero: at run time (no position yet, inline either), and folded (with one).
  CHECK(errorOf([&] { snap.execute("SELECT 1 / (id - id) FROM t"); }) == "22012");
  Error div("", "");
  CHECK(errorOf([&] { snap.execute("SELECT 1,\n  2 / 0"); }, &div) == "22012");
  CHECK(div.pos().line == 2);
  CHECK(div.pos().column == 5);
  // EXPLAIN ANALYZE says where it ran; inside a transaction block queries run inline.
  CHECK(allText(snap.execute("EXPLAIN ANALYZE SELECT count(*) FROM n")).find("Ran on: snapshot (age ") != std::string::npos);
  QueryResult where = snap.execute("SELECT count(*) FROM n");
  CHECK(where.ranOn.snapshotAgeMs >= 0);
  CHECK(where.ranOn.forkMs > 0);
  CHECK(inl.execute("SELECT count(*) FROM n").ranOn.snapshotAgeMs < 0);
  CHECK(allText(inl.execute("EXPLAIN ANALYZE SELECT count(*) FROM n")).find("Ran on: inline") != std::string::npos);
  snap.execute("BEGIN");
  snap.execute("INSERT INTO n VALUES (-1)");
  CHECK(snap.execute("SELECT count(*) FROM n").value(0, 0).asInt() == 5121);  // its own write: inline
  CHECK(allText(snap.execute("EXPLAIN ANALYZE SELECT 1")).find("Ran on: inline") != std::string::npos);
  snap.execute("ROLLBACK");
  CHECK(snap.execute("SELECT count(*) FROM n").value(0, 0).asInt() == 5120);
  CHECK(errorOf([&] { snap.execute("SET analytics = 'sideways'"); }) == "22023");
  snap.execute("SET analytics = 'inline'");
  CHECK(allText(snap.execute("EXPLAIN ANALYZE SELECT 1")).find("Ran on: inline") != std::string::npos);
  snap.execute("RESET analytics");
  CHECK(allText(snap.execute("SHOW analytics")) == "snapshot\n");
}

TEST_CASE("COPY ... TO a file runs on a snapshot and writes what inline COPY writes") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("hyrax_snapshot_copy_" + std::to_string(getpid()));
  fs::create_directories(dir);
  Database db;
  Connection inl(db), snap(db);
  inl.execute("SET analytics = 'inline'");
  fillTypes(inl);
  fs::path marker = dir / "child_ran";
  snap.setSnapshotHookForTesting([marker] { std::ofstream(marker) << "child"; });  // runs in the child only
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  for (const char* target : {"t", "(SELECT id, s, day FROM t WHERE id > 1 ORDER BY id)"}) {
    INFO(target);
    fs::remove(marker);
    std::string viaSnapshot = (dir / "snap.csv").string(), viaInline = (dir / "inline.csv").string();
    QueryResult a = snap.execute(std::string("COPY ") + target + " TO '" + viaSnapshot + "' (FORMAT csv)");
    CHECK(fs::exists(marker));  // it ran in a snapshot child
    QueryResult b = inl.execute(std::string("COPY ") + target + " TO '" + viaInline + "' (FORMAT csv)");
    CHECK(a.tag() == b.tag());
    CHECK(slurp(viaSnapshot) == slurp(viaInline));
    CHECK(!slurp(viaInline).empty());
  }
  // An error in the child arrives as the statement's error.
  CHECK(errorOf([&] { snap.execute("COPY (SELECT 1 / (id - id) FROM t) TO '" + (dir / "x.csv").string() + "'"); }) == "22012");
  snap.setSnapshotHookForTesting(nullptr);
  fs::remove_all(dir);
}

TEST_CASE("a query that writes through a stored function runs inline instead") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE log (x INTEGER)");
  con.execute("CREATE TABLE src (x INTEGER)");
  con.execute("INSERT INTO src VALUES (1), (2)");
  con.execute("CREATE FUNCTION note(v INTEGER) RETURNS INTEGER AS $$ BEGIN INSERT INTO log VALUES (v); RETURN v * 10; "
              "END $$ LANGUAGE plpgsql");
  con.execute("SET analytics = 'snapshot'");
  CHECK(allText(con.execute("SELECT note(x) FROM src ORDER BY x")) == "10\n20\n");
  CHECK(con.execute("SELECT count(*) FROM log").value(0, 0).asInt() == 2);  // written once, in the parent
  CHECK(allText(con.execute("SELECT note(7)")) == "70\n");                  // a call: inline
  CHECK(con.execute("SELECT count(*) FROM log").value(0, 0).asInt() == 3);
}

TEST_CASE("nextval, currval and setval run inline, where their effects stay") {
  Database db;
  Connection con(db);
  con.execute("CREATE SEQUENCE s");
  con.execute("CREATE TABLE t (a INTEGER)");
  con.execute("INSERT INTO t VALUES (1)");
  con.execute("SET analytics = 'snapshot'");
  CHECK(con.execute("SELECT count(*) FROM t").ranOn.snapshotAgeMs >= 0);  // a plain query: a snapshot
  // The text shows the call: the statement never goes to a snapshot.
  QueryResult first = con.execute("SELECT nextval('s')");
  CHECK(first.value(0, 0).asInt() == 1);
  CHECK(first.ranOn.snapshotAgeMs < 0);
  CHECK(con.execute("SELECT nextval('s') FROM t").value(0, 0).asInt() == 2);
  CHECK(con.execute("SELECT currval('s')").value(0, 0).asInt() == 2);
  // A view hides it: the worker finds the call and hands the statement back.
  con.execute("CREATE VIEW v AS SELECT nextval('s') AS n");
  CHECK(con.execute("SELECT n FROM v").value(0, 0).asInt() == 3);
  CHECK(con.execute("SELECT n FROM v").value(0, 0).asInt() == 4);
}

TEST_CASE("a snapshot sees the state at its fork while the executor goes on with other sessions") {
  Database db;
  Connection writer(db), snap(db);
  writer.execute("CREATE TABLE t (a INTEGER, s TEXT)");
  writer.execute("INSERT INTO t VALUES (1, 'one')");
  snap.execute("SET analytics = 'snapshot'");
  Gate gate;
  snap.setSnapshotHookForTesting(gate.waiter());
  std::string seen;
  std::thread reader([&] { seen = allText(snap.execute("SELECT count(*) || ' ' || max(s) FROM t")); });
  const int pid = childOf(snap);
  // The child has forked and waits at the gate, its query not yet run: the executor takes this
  // session's INSERT meanwhile (were it blocked, this would never return and the gate never open).
  writer.execute("INSERT INTO t VALUES (2, 'two')");
  CHECK(writer.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 2);
  gate.open();
  reader.join();
  CHECK(seen == "1 one\n");  // the row committed after the fork is not in the snapshot
  CHECK(reaped(pid));
  snap.setSnapshotHookForTesting(nullptr);
  CHECK(allText(snap.execute("SELECT count(*) || ' ' || max(s) FROM t")) == "2 two\n");  // a new snapshot
}

TEST_CASE("a killed or cancelled snapshot child fails only its query, and is reaped") {
  Database db;
  Connection other(db), snap(db);
  other.execute("CREATE TABLE t (a INTEGER)");
  other.execute("INSERT INTO t VALUES (1), (2)");
  snap.execute("SET analytics = 'snapshot'");
  snap.setSnapshotHookForTesting([] {
    for (;;) pause();  // held until killed
  });
  SECTION("kill -9") {
    Error err("", "");
    std::string state;
    std::thread reader([&] { state = errorOf([&] { snap.execute("SELECT count(*) FROM t"); }, &err); });
    const int pid = childOf(snap);
    CHECK(kill(pid, SIGKILL) == 0);
    reader.join();
    CHECK(state == "XX000");
    CHECK(err.message().find("snapshot process ended by signal 9") != std::string::npos);
    CHECK(reaped(pid));
  }
  SECTION("cancel") {
    std::string state;
    std::thread reader([&] { state = errorOf([&] { snap.execute("SELECT count(*) FROM t"); }); });
    const int pid = childOf(snap);
    snap.cancel();
    reader.join();
    CHECK(state == "57014");
    CHECK(reaped(pid));
  }
  CHECK(snap.snapshotPid() == 0);
  // The parent, the session and the other session go on.
  other.execute("INSERT INTO t VALUES (3)");
  snap.setSnapshotHookForTesting(nullptr);
  CHECK(snap.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 3);
  CHECK(other.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 3);
}

TEST_CASE("a snapshot's queries run in turn on one worker, which an error or a kill ends") {
  Database db;
  Connection setup(db), con(db);
  setup.execute("SET analytics = 'inline'");
  setup.execute("CREATE TABLE t (a INTEGER, s VARCHAR)");
  setup.execute("INSERT INTO t SELECT g, 'string number ' || g FROM generate_series(1, 100000) AS x(g)");  // morsels for 2 threads
  con.execute("SET snapshot_max_age = '10min'");  // nothing writes: one snapshot for all below
  con.execute("SET statement_cache = off");  // a text compiled here would come with a fork of its own
  const std::vector<std::string> queries = {
      "SELECT count(*), sum(a) FROM t WHERE a % 3 = 0", "SELECT a % 7, count(*), max(s) FROM t GROUP BY a % 7 ORDER BY 1",
      "SELECT s FROM t WHERE a BETWEEN 10 AND 20 ORDER BY a", "SELECT count(DISTINCT a % 100) FROM t"};
  std::vector<QueryResult> runs;
  for (int round = 0; round < 2; ++round)
    for (const std::string& q : queries) {
      runs.push_back(con.execute(q));
      CHECK(allText(runs.back()) == allText(setup.execute(q)));  // each answer as inline, also on a used worker
    }
  for (const QueryResult& r : runs) {
    CHECK(r.ranOn.snapshotPid == runs[0].ranOn.snapshotPid);
    CHECK(r.ranOn.workerPid > 0);
  }
  // The first query's worker took all the others, one after the other.
  for (size_t i = 1; i < runs.size(); ++i) CHECK(runs[i].ranOn.workerPid == runs[0].ranOn.workerPid);
  // An error ends its worker (its state is not trusted): the next query gets another, and the
  // ended one is reaped.
  const int used = runs[0].ranOn.workerPid;
  CHECK(errorOf([&] { con.execute("SELECT 1 / (a - a) FROM t"); }) == "22012");
  CHECK(reaped(used));
  QueryResult after = con.execute(queries[0]);
  CHECK(allText(after) == allText(setup.execute(queries[0])));
  CHECK(after.ranOn.snapshotPid == runs[0].ranOn.snapshotPid);
  CHECK(after.ranOn.workerPid != used);
  CHECK(after.ranOn.workerPid > 0);
  // A worker killed between queries: the next query gets a fresh one.
  CHECK(kill(after.ranOn.workerPid, SIGKILL) == 0);
  CHECK(reaped(after.ranOn.workerPid));
  QueryResult fresh = con.execute(queries[1]);
  CHECK(allText(fresh) == allText(setup.execute(queries[1])));
  CHECK(fresh.ranOn.workerPid != after.ranOn.workerPid);
  // Inline, no worker.
  CHECK(setup.execute(queries[0]).ranOn.workerPid == 0);
  // Each query sets the priority of all the worker's threads (its pool's, started for an earlier
  // query, too): SCHED_IDLE at 'idle', then back to the normal policy at a nice value.
  con.execute("SET threads = 2");
  const std::string scan = "SELECT count(*), sum(a) FROM t WHERE s LIKE '%9%'";
  QueryResult idleRun = con.execute(scan);
  std::vector<ThreadPriority> threads = threadPriorities(idleRun.ranOn.workerPid);
  CHECK(threads.size() >= 2);
  for (const ThreadPriority& p : threads) CHECK(p.policy == SCHED_IDLE);
  if (geteuid() == 0) {  // raising a priority takes the privilege
    con.execute("SET analytics_nice = 10");
    QueryResult niceRun = con.execute(scan);
    CHECK(niceRun.ranOn.workerPid == idleRun.ranOn.workerPid);
    for (const ThreadPriority& p : threadPriorities(niceRun.ranOn.workerPid)) {
      CHECK(p.policy == SCHED_OTHER);
      CHECK(p.nice == 10);
    }
  }
}

TEST_CASE("a worker whose query took much memory ends after it, and gives the memory back") {
  Database db;
  Connection setup(db), con(db);
  setup.execute("SET analytics = 'inline'");
  setup.execute("CREATE TABLE b (k BIGINT, s VARCHAR)");
  setup.execute("INSERT INTO b SELECT g, 'a fairly long string value ' || g FROM generate_series(1, 1500000) AS x(g)");
  con.execute("SET snapshot_max_age = '10min'");
  con.execute("SET statement_cache = off");
  QueryResult small = con.execute("SELECT count(*) FROM b WHERE k < 10");
  QueryResult big = con.execute("SELECT count(*) FROM (SELECT s, count(*) FROM b GROUP BY s) q");  // ~100 MB of groups
  CHECK(big.value(0, 0).asInt() == 1500000);
  CHECK(big.ranOn.workerPid == small.ranOn.workerPid);  // a used worker took it
  CHECK(reaped(big.ranOn.workerPid));                  // and ended after it
  QueryResult next = con.execute("SELECT count(*) FROM b WHERE k < 10");
  CHECK(next.value(0, 0).asInt() == 9);
  CHECK(next.ranOn.snapshotPid == big.ranOn.snapshotPid);
  CHECK(next.ranOn.workerPid != big.ranOn.workerPid);
}

TEST_CASE("the snapshot answer's wire format carries long strings and NULLs") {
  Database db;
  Connection con(db);
  QueryResult r = con.execute("SELECT 'a string longer than twelve' AS s, NULL::TEXT AS n, 'tiny' AS t");
  auto bytes = std::make_shared<std::string>(sql::encodeResult(r));
  QueryResult back = sql::decodeAnswer(bytes);
  checkSame(r, back);
  auto err = std::make_shared<std::string>(sql::encodeError(Error("22012", "division by zero", {1, 8}).withDetail("d")));
  Error e("", "");
  CHECK(errorOf([&] { sql::decodeAnswer(err); }, &e) == "22012");
  CHECK(e.pos().column == 8);
  CHECK(e.detail() == "d");
  auto cut = std::make_shared<std::string>(bytes->substr(0, bytes->size() / 2));
  CHECK(errorOf([&] { sql::decodeAnswer(cut); }) == "XX000");
}

TEST_CASE("snapshots see whole transactions only, and killed children harm no one, while transactions run") {
  Database db;
  Connection writer(db), victim(db), checker(db);
  writer.execute("CREATE TABLE a (x INTEGER)");
  writer.execute("CREATE TABLE b (x INTEGER)");
  victim.execute("SET analytics = 'snapshot'");
  checker.execute("SET analytics = 'snapshot'");
  victim.setSnapshotHookForTesting([] {
    for (;;) pause();  // held until killed
  });
  std::atomic<bool> stop{false};
  std::atomic<int> committed{0};
  // Each transaction writes a row into both tables: a snapshot must never see one without the other.
  std::thread oltp([&] {
    for (int i = 0; !stop.load(); ++i) {
      writer.execute("BEGIN");
      writer.execute("INSERT INTO a VALUES (" + std::to_string(i) + ")");
      writer.execute("INSERT INTO b VALUES (" + std::to_string(i) + ")");
      writer.execute("COMMIT");
      committed.fetch_add(1);
    }
  });
  int killed = 0, consistent = 0;
  for (int round = 0; round < 20; ++round) {
    std::string state;
    std::thread reader([&] { state = errorOf([&] { victim.execute("SELECT count(*) FROM a"); }); });
    const int pid = childOf(victim);
    kill(pid, SIGKILL);
    reader.join();
    killed += state == "XX000" && reaped(pid);
    QueryResult r = checker.execute("SELECT (SELECT count(*) FROM a) - (SELECT count(*) FROM b), (SELECT count(*) FROM a)");
    consistent += r.value(0, 0).asInt() == 0;
  }
  stop.store(true);
  oltp.join();
  CHECK(killed == 20);
  CHECK(consistent == 20);
  CHECK(committed.load() > 0);
  CHECK(writer.execute("SELECT count(*) FROM a").value(0, 0).asInt() == committed.load());
  CHECK(writer.execute("SELECT count(*) FROM b").value(0, 0).asInt() == committed.load());
}

TEST_CASE("a snapshot query past memory_limit fails with 53200") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE d (x INTEGER)");
  con.execute("INSERT INTO d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)");
  con.execute("CREATE TABLE t (a INTEGER)");
  con.execute("INSERT INTO t SELECT a.x + 10*b.x + 100*c.x + 1000*e.x + 10000*f.x FROM d a, d b, d c, d e, d f");
  con.execute("SET analytics = 'snapshot'");
  con.execute("SET memory_limit = '2MB'");
  CHECK(errorOf([&] { con.execute("SELECT count(*) FROM (SELECT a, count(*) FROM t GROUP BY a) q"); }) == "53200");
  con.execute("RESET memory_limit");
  CHECK(con.execute("SELECT count(*) FROM (SELECT a, count(*) FROM t GROUP BY a) q").value(0, 0).asInt() == 100000);
}

TEST_CASE("queries share a snapshot while it is fresh enough, and always see their session's own writes") {
  Database db;
  Connection writer(db), reader(db);
  writer.execute("CREATE TABLE t (a INTEGER)");
  writer.execute("INSERT INTO t VALUES (1)");
  reader.execute("SET snapshot_max_age = '10min'");
  CHECK(allText(reader.execute("SHOW snapshot_max_age")) == "10min\n");
  QueryResult first = reader.execute("SELECT count(*) FROM t");
  CHECK(first.value(0, 0).asInt() == 1);
  // Another session's commit: the reader's next query may share the older snapshot (that is what
  // the freshness bound allows), and does: it is the same fork.
  writer.execute("INSERT INTO t VALUES (2)");
  QueryResult second = reader.execute("SELECT count(*) FROM t");
  CHECK(second.value(0, 0).asInt() == 1);
  CHECK(second.ranOn.forkMs == first.ranOn.forkMs);
  CHECK(second.ranOn.snapshotAgeMs > first.ranOn.snapshotAgeMs);
  // A session that shares the bound sees the same; one that asks for a fresh snapshot sees both.
  writer.execute("SET snapshot_max_age = '10min'");
  CHECK(writer.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 2);  // its own write: a newer fork
  reader.execute("SET snapshot_max_age = 0");
  CHECK(reader.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 2);
  // The reader's own write is never missed, whatever the bound.
  reader.execute("SET snapshot_max_age = '10min'");
  CHECK(reader.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 2);
  reader.execute("INSERT INTO t VALUES (3)");
  CHECK(reader.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 3);
  reader.execute("CREATE TABLE u (b INTEGER)");
  CHECK(reader.execute("SELECT count(*) FROM u").value(0, 0).asInt() == 0);
  // While nothing runs on the executor, the newest snapshot is the current state and serves
  // however old it is, even to a session that asks for a fresh one.
  reader.execute("SET snapshot_max_age = 0");
  QueryResult a = reader.execute("SELECT count(*) FROM t");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  QueryResult b = reader.execute("SELECT count(*) FROM t");
  CHECK(a.value(0, 0).asInt() == 3);
  CHECK(b.ranOn.forkMs == a.ranOn.forkMs);
  CHECK(b.ranOn.snapshotAgeMs >= a.ranOn.snapshotAgeMs + 20);
  // An inline query that wrote nothing changes nothing either.
  writer.execute("SET analytics = 'inline'");
  CHECK(writer.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 3);
  CHECK(reader.execute("SELECT count(*) FROM t").ranOn.forkMs == a.ranOn.forkMs);
  writer.execute("RESET analytics");
  writer.execute("INSERT INTO t VALUES (4)");
  QueryResult c = reader.execute("SELECT count(*) FROM t");
  CHECK(c.value(0, 0).asInt() == 4);  // something ran on the executor: a new fork
  CHECK(c.ranOn.snapshotAgeMs < b.ranOn.snapshotAgeMs);
  // Values out of range are refused.
  CHECK(errorOf([&] { reader.execute("SET snapshot_max_age = '-1'"); }) == "22023");
  CHECK(errorOf([&] { reader.execute("SET snapshot_max_age = '1 fortnight'"); }) == "22023");
}

TEST_CASE("another session's schema change is seen at once, whatever the freshness bound") {
  // A table created (or dropped) by another session must exist (or not) for the next query of
  // every session: sharing a snapshot forked before the CREATE made the reader's query fail with
  // 42P01 for up to snapshot_max_age (psql_test's COPY between two sessions found it).
  Database db;
  Connection writer(db), reader(db);
  writer.execute("CREATE TABLE t (a INTEGER)");
  writer.execute("INSERT INTO t VALUES (1)");
  reader.execute("SET snapshot_max_age = '10min'");
  QueryResult first = reader.execute("SELECT count(*) FROM t");
  REQUIRE(first.ranOn.snapshotAgeMs >= 0);
  writer.execute("CREATE TABLE fresh (b INTEGER)");
  writer.execute("INSERT INTO fresh VALUES (7)");
  QueryResult seen = reader.execute("SELECT sum(b) FROM fresh");
  CHECK(seen.value(0, 0).asInt() == 7);
  CHECK(seen.ranOn.forkMs != first.ranOn.forkMs);  // a newer fork
  // Data alone may still be as old as the bound allows: the snapshot after the CREATE is shared.
  writer.execute("INSERT INTO fresh VALUES (8)");
  CHECK(reader.execute("SELECT sum(b) FROM fresh").value(0, 0).asInt() == 7);
  writer.execute("DROP TABLE fresh");
  CHECK(errorOf([&] { reader.execute("SELECT sum(b) FROM fresh"); }) == "42P01");
}

TEST_CASE("queries of many sessions run on one snapshot at once") {
  Database db;
  Connection setup(db);
  setup.execute("SET analytics = 'inline'");
  fillTypes(setup);
  std::vector<std::unique_ptr<Connection>> sessions;
  for (int i = 0; i < 4; ++i) {
    sessions.push_back(std::make_unique<Connection>(db));
    sessions.back()->execute("SET snapshot_max_age = '10min'");
    // A text's second sighting compiles it in this process and forks once more for its code (the
    // test below): here the workers compile, and only sharing is seen.
    sessions.back()->execute("SET statement_cache = off");
  }
  std::vector<std::string> answers(sessions.size());
  std::vector<double> forks(sessions.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < sessions.size(); ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 5; ++k) {
        QueryResult r = sessions[i]->execute("SELECT count(*), sum(x) FROM n WHERE x % 7 <> " + std::to_string(i));
        answers[i] = allText(r);
        forks[i] = r.ranOn.forkMs;
      }
    });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < sessions.size(); ++i) {
    INFO(i);
    CHECK(answers[i] == allText(setup.execute("SELECT count(*), sum(x) FROM n WHERE x % 7 <> " + std::to_string(i))));
    CHECK(forks[i] == forks[0]);  // one fork served them all
  }
  sessions.clear();
  CHECK(zombies() == 0);
}

TEST_CASE("a READ ONLY transaction reads one snapshot and refuses writes") {
  Database db;
  Connection writer(db), ro(db);
  writer.execute("SET snapshot_max_age = 0");  // its queries see every commit before them
  writer.execute("CREATE TABLE t (a INTEGER)");
  writer.execute("INSERT INTO t VALUES (1)");
  CHECK(ro.execute("BEGIN READ ONLY").tag() == "BEGIN");
  CHECK(ro.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 1);
  // The block does not hold the executor: another session commits meanwhile (it would wait for
  // the lock timeout otherwise), and the block's queries go on seeing the state they started on.
  writer.execute("INSERT INTO t VALUES (2)");
  CHECK(ro.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 1);
  CHECK(ro.execute("SELECT max(a) FROM t").value(0, 0).asInt() == 1);
  for (const char* write : {"INSERT INTO t VALUES (3)", "UPDATE t SET a = 0", "DELETE FROM t", "CREATE TABLE u (x INTEGER)",
                            "DROP TABLE t", "CREATE INDEX ti ON t (a)", "ANALYZE t"}) {
    INFO(write);
    CHECK(errorOf([&] { ro.execute(write); }) == "25006");
    CHECK(errorOf([&] { ro.execute("SELECT 1"); }) == "25P02");  // the block failed
    ro.execute("ROLLBACK");
    ro.execute("START TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY");
  }
  CHECK(ro.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 2);  // a new block, a new snapshot
  ro.execute("PREPARE ins AS INSERT INTO t VALUES (7)");
  CHECK(errorOf([&] { ro.execute("EXECUTE ins"); }) == "25006");
  ro.execute("ROLLBACK");
  CHECK(writer.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 2);
  // A function that writes, called in the block, is refused too.
  writer.execute("CREATE FUNCTION put(v INTEGER) RETURNS INTEGER AS $$ BEGIN INSERT INTO t VALUES (v); RETURN v; END $$ "
                 "LANGUAGE plpgsql");
  ro.execute("BEGIN READ ONLY");
  CHECK(errorOf([&] { ro.execute("SELECT put(9)"); }) == "25006");
  ro.execute("ROLLBACK");
  CHECK(writer.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 2);
  // Inline, a READ ONLY block holds the executor as any block does, and refuses writes the same.
  ro.execute("SET analytics = 'inline'");
  ro.execute("BEGIN TRANSACTION READ ONLY");
  CHECK(ro.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 2);
  CHECK(errorOf([&] { ro.execute("INSERT INTO t VALUES (4)"); }) == "25006");
  ro.execute("ROLLBACK");
  // READ WRITE is an ordinary block.
  ro.execute("BEGIN READ WRITE");
  ro.execute("INSERT INTO t VALUES (5)");
  ro.execute("COMMIT");
  CHECK(writer.execute("SELECT count(*) FROM t").value(0, 0).asInt() == 3);
  CHECK(errorOf([&] { ro.execute("BEGIN READ SOMETIMES"); }) == "42601");
}

TEST_CASE("statement_timeout cancels a statement inline and on a snapshot") {
  Database db;
  Connection con(db);
  con.execute("CREATE TABLE n (x INTEGER)");
  con.execute("INSERT INTO n VALUES (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)");
  for (int i = 0; i < 7; ++i) con.execute("INSERT INTO n SELECT x + 1000 FROM n");  // 1280 rows
  const char* slow = "SELECT count(*) FROM n a, n b, n c WHERE a.x + b.x + c.x > 0";  // 2 * 10^9 rows
  CHECK(allText(con.execute("SHOW statement_timeout")) == "0\n");
  con.execute("SET statement_timeout = '50ms'");
  CHECK(allText(con.execute("SHOW statement_timeout")) == "50ms\n");
  for (const char* where : {"snapshot", "inline"}) {
    INFO(where);
    con.execute(std::string("SET analytics = '") + where + "'");
    Error e("", "");
    auto start = std::chrono::steady_clock::now();
    CHECK(errorOf([&] { con.execute(slow); }, &e) == "57014");
    CHECK(e.message() == "canceling statement due to statement timeout");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
    // The session goes on (with room to spare: on a loaded machine even this may pass 50 ms).
    con.execute("SET statement_timeout = '1min'");
    CHECK(con.execute("SELECT count(*) FROM n").value(0, 0).asInt() == 1280);
    con.execute("SET statement_timeout = '50ms'");
  }
  // A cancelled statement still says so; a statement within the timeout is untouched.
  con.execute("SET statement_timeout = '1min'");
  CHECK(con.execute("SELECT count(*) FROM n a, n b").value(0, 0).asInt() == 1280 * 1280);
  con.execute("SET statement_timeout = 0");
  CHECK(errorOf([&] { con.execute("SET statement_timeout = 'soon'"); }) == "22023");
}

TEST_CASE("snapshot workers run at the session's analytics_nice priority") {
  namespace fs = std::filesystem;
  fs::path seen = fs::temp_directory_path() / ("hyrax_nice_" + std::to_string(getpid()));
  Database db;
  Connection con(db);
  con.setSnapshotHookForTesting([seen] {  // in the worker: its nice value and whether it is SCHED_IDLE
    std::ofstream(seen) << getpriority(PRIO_PROCESS, 0) << ' ' << (sched_getscheduler(0) == SCHED_IDLE);
  });
  bool idle = false;
  auto niceOfWorker = [&] {
    con.execute("SELECT 1");
    std::ifstream in(seen);
    int n = -100;
    in >> n >> idle;
    return n;
  };
  // A process may lower its priority but not raise it (without privileges): a test run that is
  // itself niced sees its own value where it asked for less (root may raise it: the value asked).
  const int own = getpriority(PRIO_PROCESS, 0);
  const int mine = geteuid() == 0 ? -20 : own;
  CHECK(niceOfWorker() == 19);  // the default, 'idle': only cores that nothing else wants
  CHECK(idle);
  con.execute("SET analytics_nice = 10");
  CHECK(niceOfWorker() == std::max(10, mine));
  CHECK(!idle);
  con.execute("SET analytics_nice = 0");
  CHECK(niceOfWorker() == std::max(0, mine));
  con.execute("SET analytics_nice = 19");
  CHECK(niceOfWorker() == 19);
  CHECK(!idle);
  con.execute("SET analytics_nice = 'IDLE'");
  CHECK(con.execute("SHOW analytics_nice").text(0, 0) == "idle");
  CHECK(errorOf([&] { con.execute("SET analytics_nice = 'lazy'"); }) == "22023");
  CHECK(errorOf([&] { con.execute("SET analytics_nice = 20"); }) == "22023");
  CHECK(getpriority(PRIO_PROCESS, 0) == own);  // this process is untouched
  fs::remove(seen);
}

TEST_CASE("the executor compiles a repeated snapshot query at the session's tier, cheap code under 'auto'") {
  Database db;
  Connection setup(db), con(db);
  setup.execute("SET analytics = 'inline'");
  setup.execute("CREATE TABLE big (x INTEGER, y INTEGER)");
  setup.execute("INSERT INTO big SELECT g, g % 7 FROM generate_series(1, 60000) AS s(g)");  // a big table's plan
  auto runs = [&](const std::string& q) {
    const std::string want = allText(setup.execute(q));
    for (int i = 0; i < 3; ++i) {  // the second run compiles here, the third runs that code
      QueryResult r = con.execute(q);
      CHECK(allText(r) == want);
      CHECK(r.ranOn.snapshotPid > 0);
      if (i == 2) CHECK(r.times.codegen == 0);
    }
  };
  // 'auto': the executor makes only the cheap code (its workers compile optimized code themselves
  // when the work merits it); LLVM's full pipeline here held every session's transactions.
  runs("SELECT y, count(*), sum(x) FROM big GROUP BY y ORDER BY y");
  CHECK(con.snapshotCompileTierForTesting() == "adaptive");
  // A session that asks for optimized code gets it compiled here, and its workers run it.
  con.execute("SET compile_tier = 'optimized'");
  runs("SELECT count(*), min(x) FROM big WHERE y = 3");
  CHECK(con.snapshotCompileTierForTesting() == "optimized");
}

TEST_CASE("a repeated query on snapshots runs the code its session compiled, and sees each snapshot's data") {
  Database db;
  Connection setup(db), con(db);
  setup.execute("SET analytics = 'inline'");
  fillTypes(setup);
  con.execute("SET snapshot_max_age = 0");  // every query sees the latest commit
  const std::string q = "SELECT count(*), sum(x), min(s), max(v) FROM n, t WHERE x % 3 = id - 1";
  const std::string inlineAnswer = allText(setup.execute(q));
  // First sighting: the worker plans and compiles. Second: compiled here, on the executor, and run
  // in a snapshot forked after it (nothing wrote: the same state). From then on the workers run it
  // without parsing, planning or compiling.
  QueryResult first = con.execute(q), second = con.execute(q), third = con.execute(q);
  for (const QueryResult* r : {&first, &second, &third}) {
    CHECK(allText(*r) == inlineAnswer);
    CHECK(r->ranOn.snapshotPid > 0);
  }
  CHECK(first.times.codegen > 0);
  CHECK(second.ranOn.snapshotPid != first.ranOn.snapshotPid);
  CHECK(third.ranOn.snapshotPid == second.ranOn.snapshotPid);
  CHECK(third.times.parse == 0);
  CHECK(third.times.codegen == 0);
  // New data: a newer snapshot, the same code, the new answer.
  setup.execute("INSERT INTO n VALUES (3000000), (3000003)");
  QueryResult fourth = con.execute(q);
  CHECK(allText(fourth) == allText(setup.execute(q)));
  CHECK(allText(fourth) != inlineAnswer);
  CHECK(fourth.times.codegen == 0);
  // A catalog change ends the old code's use; the text came before, so it is compiled here again
  // at once, against the new catalog.
  setup.execute("CREATE INDEX n_x ON n (x)");
  QueryResult fifth = con.execute(q);
  CHECK(allText(fifth) == allText(fourth));
  CHECK(fifth.times.codegen == 0);
  // Without the statement cache the workers compile every time.
  con.execute("SET statement_cache = off");
  CHECK(con.execute(q).times.codegen > 0);
  CHECK(con.execute(q).times.codegen > 0);
  // A READ ONLY block's snapshot predates code compiled in the block: its worker compiles.
  con.execute("SET statement_cache = on");
  const std::string q2 = "SELECT count(*) FROM n WHERE x > 5";
  con.execute("BEGIN READ ONLY");
  CHECK(con.execute(q2).times.codegen > 0);
  CHECK(con.execute(q2).times.codegen > 0);  // compiled here now, but not in the pinned snapshot
  CHECK(con.execute(q2).times.codegen > 0);
  con.execute("COMMIT");
  CHECK(con.execute(q2).times.codegen == 0);  // a fresh snapshot has it
  // The snapshots replaced on the way end when their last query has, and are reaped by a thread.
  for (int i = 0; i < 2000 && zombies() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(zombies() == 0);
}

// The executor's first codegen happens before its first fork (Database's warm-up), so that no
// snapshot worker pays a process's first codegen: the pool runs its hook once, before forking.
TEST_CASE("the snapshot pool runs its warm-up once and before the first fork") {
  int calls = 0;
  size_t childrenAtWarmUp = 99;
  const pid_t self = getpid();
  auto children = [self] {  // this process's children now
    size_t n = 0;
    for (auto& entry : std::filesystem::directory_iterator("/proc")) {
      std::ifstream stat(entry.path() / "stat");
      std::string pid, comm, state, ppid;
      if (stat >> pid >> comm >> state >> ppid && ppid == std::to_string(self)) ++n;
    }
    return n;
  };
  const size_t before = children();
  {
    sql::SnapshotPool pool([](const sql::SnapshotRequest&) { return QueryResult(); }, [&] {
      ++calls;
      childrenAtWarmUp = children();
    });
    auto first = pool.acquire(0, 0);
    CHECK(calls == 1);
    CHECK(childrenAtWarmUp == before);  // no snapshot process forked yet
    pool.noteWrite(0);
    auto second = pool.acquire(0, pool.epoch());  // a write since: a new fork
    CHECK(second != first);
    CHECK(calls == 1);
  }
}
