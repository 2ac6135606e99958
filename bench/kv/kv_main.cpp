// hyrax-bench kv: a web cache's key-value workload (values with typed numeric tags; issue 19) over
// the wire, hyrax's server beside PostgreSQL (the same libpqxx client code) and memcached (our
// own text-protocol client), at 1..16 client threads, in one run.
//   hyrax-bench kv [--records 1000000] [--value-length 300] [--mixes 90/10,50/50,range]
//                  [--threads 1,2,4,8,16] [--duration 5] [--warmup 1]
//                  [--engines hyrax,postgresql,memcached] [--json] [--test]
// Operations: get(key), put(key, value, tags) (an upsert: a stored procedure on the SQL engines,
// `set` on memcached), and a range select by tag1 through its index (LIMIT 10, SQL engines only).
// Keys Zipfian (0.99, scrambled as YCSB draws them: a cache's hot keys). Every engine serves on a
// Unix socket in a temporary directory and runs on the same two cores as the client threads.
// Every answer is checked (bench/kv/kv_workload.hpp); --test (ctest) exits non-zero on a wrong
// answer, an error, or a table that fails the checks after the run.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "bench/benchmarks.hpp"
#include "bench/client_threads.hpp"
#include "bench/hyrax_server.hpp"
#include "bench/kv/kv_workload.hpp"
#include "bench/kv/memcached_kv.hpp"
#include "bench/kv/memcached_server.hpp"
#include "bench/kv/sql_kv.hpp"
#include "bench/options.hpp"
#include "bench/pg_server.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace hyrax::bench {

namespace {

using kv::Mix;
using kv::Options;
using kv::Row;
using kv::Session;

struct Point {
  std::string engine, mix;
  int clients = 0;
  double opsPerSecond = 0, p50Ms = 0, p99Ms = 0, stalledSeconds = 0;
  double clientUsPerOp = 0, machineUsPerOp = 0;  // CPU per operation (ClientWindow)
  uint64_t ops = 0, errors = 0, wrong = 0;
};

// One client thread's session, key generator, and what it found wrong (the first one described).
struct Client {
  std::unique_ptr<Session> session;
  std::unique_ptr<ScrambledZipfian> keys;
  std::mt19937_64 rng;
  uint64_t version = 0, wrong = 0;
  Row row;
  std::vector<Row> rows;
  std::string firstProblem;
  void problem(const std::string& what) {
    if (wrong++ == 0) firstProblem = what;
  }
};

void get(Client& c, uint64_t key, const Options& o, bool checkTag2) {
  if (!c.session->get(key, c.row)) {
    if (kv::loadedKey(key)) c.problem("get(" + std::to_string(key) + ") found nothing, but the key was loaded");
  } else if (!kv::wholeRow(c.row, o, checkTag2)) {
    c.problem("get(" + std::to_string(key) + ") returned value '" + c.row.value.substr(0, 40) + "...' tag1 " +
              std::to_string(c.row.tag1) + " tag2 " + std::to_string(c.row.tag2));
  }
}

void range(Client& c, const Options& o) {
  const auto lo = static_cast<int32_t>(c.rng() % (o.records - static_cast<uint64_t>(o.rangeWidth) + 1));
  const int32_t hi = lo + o.rangeWidth - 1;
  c.session->range(lo, hi, c.rows);
  const std::string what = "range(" + std::to_string(lo) + ", " + std::to_string(hi) + ")";
  if (c.rows.size() > static_cast<size_t>(o.rangeLimit)) c.problem(what + " returned " + std::to_string(c.rows.size()) + " rows");
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const Row& r = c.rows[i];
    if (r.tag1 < lo || r.tag1 > hi) c.problem(what + " returned key " + std::to_string(r.key) + " with tag1 " + std::to_string(r.tag1));
    else if (i > 0 && r.tag1 < c.rows[i - 1].tag1) c.problem(what + " not in ascending tag1");
    else if (!kv::wholeRow(r, o, true)) c.problem(what + " returned key " + std::to_string(r.key) + " with value '" + r.value.substr(0, 40) + "...'");
  }
}

using Connect = std::function<std::unique_ptr<Session>()>;

Point runPoint(const std::string& engine, const Connect& connect, const Options& o, const Mix& mix, int threads) {
  std::vector<Client> clients(static_cast<size_t>(threads));
  for (size_t t = 0; t < clients.size(); ++t) {
    clients[t].session = connect();
    clients[t].keys = std::make_unique<ScrambledZipfian>(o.records, 0.99, t * 7919 + 17);
    clients[t].rng.seed(t + 99);
    clients[t].version = (t + 1) << 40;  // puts of different threads write different values
  }
  const bool checkTag2 = engine != "memcached";
  std::mutex errorLock;
  std::string firstError;
  const ClientWindow window = runClientThreads(threads, o.warmup, o.duration, [&](int t) {
    Client& c = clients[static_cast<size_t>(t)];
    const double u = std::uniform_real_distribution<double>(0, 1)(c.rng);
    try {
      if (u < mix.get) get(c, c.keys->next(), o, checkTag2);
      else if (u < mix.get + mix.put) c.session->put(kv::makeRow(c.keys->next(), ++c.version, o));
      else range(c, o);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(errorLock);
      if (firstError.empty()) firstError = e.what();
      throw;
    }
  });
  Point p{engine, mix.name, threads};
  p.ops = window.ops;
  p.errors = window.errors;
  p.opsPerSecond = window.opsPerSecond();
  p.p50Ms = window.quantileMs(0.5);
  p.p99Ms = window.quantileMs(0.99);
  p.stalledSeconds = window.stalledSeconds;
  p.clientUsPerOp = window.clientMicrosPerOp();
  p.machineUsPerOp = window.machineMicrosPerOp();
  for (const Client& c : clients) {
    if (c.wrong && !p.wrong) std::fprintf(stderr, "%s %s: WRONG ANSWER: %s\n", engine.c_str(), mix.name, c.firstProblem.c_str());
    p.wrong += c.wrong;
  }
  if (!firstError.empty()) std::fprintf(stderr, "%s %s: ERROR: %s\n", engine.c_str(), mix.name, firstError.c_str());
  return p;
}

void printJson(const std::vector<Point>& points) {
  std::printf("[");
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    std::printf("%s\n {\"engine\": \"%s\", \"mix\": \"%s\", \"clients\": %d, \"ops_per_s\": %.0f, \"p50_ms\": %.3f, "
                "\"p99_ms\": %.3f, \"errors\": %llu, \"wrong\": %llu, \"stalled_s\": %.2f, \"client_cpu_us_per_op\": %.2f, "
                "\"machine_cpu_us_per_op\": %.2f}",
                i ? "," : "", p.engine.c_str(), p.mix.c_str(), p.clients, p.opsPerSecond, p.p50Ms, p.p99Ms,
                static_cast<unsigned long long>(p.errors), static_cast<unsigned long long>(p.wrong), p.stalledSeconds,
                p.clientUsPerOp, p.machineUsPerOp);
  }
  std::printf("\n]\n");
}

// Per mix and client count, the engines' ops/s and p99 beside each other, and hyrax's ratios.
void printTable(const std::vector<Point>& points, const std::vector<int>& threads, const Options& o) {
  const char* engines[] = {"hyrax", "postgresql", "memcached"};
  auto find = [&](const char* engine, const std::string& mix, int n) -> const Point* {
    for (const Point& p : points)
      if (p.engine == engine && p.mix == mix && p.clients == n) return &p;
    return nullptr;
  };
  std::printf("kv, %llu keys (9 in 10 loaded), values of %d characters, Zipfian keys, %g s per point after %g s "
              "warm-up, Unix socket\n",
              static_cast<unsigned long long>(o.records), o.valueLength, o.duration, o.warmup);
  std::printf("%-6s %7s %12s %8s %12s %8s %12s %8s %9s %9s\n", "mix", "clients", "hyrax ops/s", "p99 ms", "PG ops/s",
              "p99 ms", "mc ops/s", "p99 ms", "hyrax/PG", "hyrax/mc");
  for (const Mix& mix : kv::kMixes)
    for (int n : threads) {
      const Point* at[3];
      bool any = false;
      for (int e = 0; e < 3; ++e) any = (at[e] = find(engines[e], mix.name, n)) || any;
      if (!any) continue;
      std::printf("%-6s %7d", mix.name, n);
      for (const Point* p : at)
        if (p) std::printf(" %12.0f %8.3f", p->opsPerSecond, p->p99Ms);
        else std::printf(" %12s %8s", "-", "-");
      for (int e = 1; e < 3; ++e)
        if (at[0] && at[e] && at[e]->opsPerSecond > 0) std::printf(" %8.2fx", at[0]->opsPerSecond / at[e]->opsPerSecond);
        else std::printf(" %9s", "-");
      std::printf("\n");
    }
}

}  // namespace

int runKv(int argc, char** argv) {
  Options o;
  std::string mixes = "90/10,50/50,range", threadList = "1,2,4,8,16", engines = "hyrax,postgresql,memcached";
  po::options_description desc("usage: hyrax-bench kv [options]\nOptions");
  desc.add_options()("help,h", "show this help")("records", po::value(&o.records), "key space (default 1000000; 9 in 10 loaded)")(
      "value-length", po::value(&o.valueLength), "characters per value (default 300)")(
      "mixes", po::value(&mixes), "90/10 and 50/50 (get/put), range (90% range selects by tag, 10% puts); default all")(
      "threads", po::value(&threadList), "client thread counts (default 1,2,4,8,16)")(
      "duration", po::value(&o.duration), "measured seconds per point (default 5)")(
      "warmup", po::value(&o.warmup), "seconds before each (default 1)")(
      "engines", po::value(&engines), "hyrax,postgresql,memcached (memcached runs only the get/put mixes)")(
      "json", "one JSON object per engine, mix and client count")(
      "test", "exit non-zero on a wrong answer, an error, or a table failing its checks after the run");
  po::variables_map vm;
  if (!parseOptions(desc, argc, argv, vm)) return 0;
  const bool json = vm.count("json") > 0, test = vm.count("test") > 0;
  if (o.records < 100 || o.records > (1ULL << 31)) throw std::runtime_error("--records must be between 100 and 2^31");
  if (o.valueLength < 32 || o.valueLength > 4000) throw std::runtime_error("--value-length must be between 32 and 4000");
  const std::vector<int> threads = splitCounts(threadList);
  const std::vector<std::string> mixList = splitList(mixes), engineList = splitList(engines);
  for (const std::string& m : mixList)
    if (std::none_of(std::begin(kv::kMixes), std::end(kv::kMixes), [&](const Mix& k) { return m == k.name; }))
      throw std::runtime_error("unknown mix " + m + " (90/10, 50/50, range)");
  auto wanted = [&](const std::string& engine) { return std::find(engineList.begin(), engineList.end(), engine) != engineList.end(); };

  std::vector<Point> points;
  std::string problems;
  const fs::path work = fs::temp_directory_path() / ("hyrax-kv-" + std::to_string(getpid()));
  fs::create_directories(work);
  auto runEngine = [&](const std::string& engine, const std::function<void()>& load, const Connect& connect) {
    const auto t = Clock::now();
    load();
    if (!json)
      std::fprintf(stderr, "%s: %llu keys loaded in %.1f s\n", engine.c_str(),
                   static_cast<unsigned long long>(o.records - (o.records + 9) / 10),
                   std::chrono::duration<double>(Clock::now() - t).count());
    for (const Mix& mix : kv::kMixes) {
      if (std::find(mixList.begin(), mixList.end(), mix.name) == mixList.end()) continue;
      if (engine == "memcached" && !mix.keyValueOnly()) continue;
      for (int n : threads) {
        // A point during which the process stood still (a neighbour's quiet run stops it with
        // SIGSTOP) measured the stop: it is measured again, twice at most.
        Point p;
        for (int attempt = 1;; ++attempt) {
          p = runPoint(engine, connect, o, mix, n);
          if (p.stalledSeconds <= 0.05 * o.duration || attempt == 3) break;
          std::fprintf(stderr, "%s %s, %2d clients: the process stood still for %.1f s; measuring again\n", engine.c_str(),
                       mix.name, n, p.stalledSeconds);
        }
        if (!json)
          std::fprintf(stderr, "%s %s, %2d clients: %9.0f ops/s, p99 %.3f ms, CPU per op: clients %.1f us, machine %.1f us%s%s\n",
                       engine.c_str(), mix.name, n, p.opsPerSecond, p.p99Ms, p.clientUsPerOp, p.machineUsPerOp, p.errors || p.wrong ? " (ERRORS or WRONG ANSWERS)" : "",
                       p.stalledSeconds > 0.05 * o.duration ? " (STALLED: not valid)" : "");
        points.push_back(std::move(p));
      }
    }
  };
  auto checkAfter = [&](const std::string& engine, const std::string& conninfo) {
    if (!test) return;
    const std::string found = kv::checkSql(conninfo, o);
    if (!found.empty()) problems += engine + ": " + found + "\n";
  };
  if (wanted("hyrax")) {
    HyraxServer hyrax(work / "hyrax");
    const std::string conninfo = hyrax.connectionString("kv");
    runEngine("hyrax", [&] { kv::loadSql(conninfo, o); }, [&] { return kv::connectSql(conninfo, o); });
    checkAfter("hyrax", conninfo);
  }
  if (wanted("postgresql")) {
    if (!PgServer::available()) throw std::runtime_error("PostgreSQL is not installed (scripts/setup.sh installs it)");
    PgServer pg(work / "pg");
    const std::string conninfo = pg.connectionString();
    runEngine("postgresql", [&] { kv::loadSql(conninfo, o); }, [&] { return kv::connectSql(conninfo, o); });
    checkAfter("postgresql", conninfo);
  }
  if (wanted("memcached")) {
    if (!MemcachedServer::available()) throw std::runtime_error("memcached is not installed (scripts/setup.sh installs it)");
    // Room for every key at its value's size and memcached's ~50-byte item header and slab
    // rounding, twice over: a get of a loaded key must never miss for want of memory.
    const size_t memoryMb = 64 + o.records * (static_cast<size_t>(o.valueLength) + 100) * 2 / (1 << 20);
    MemcachedServer mc(work / "memcached", 2, memoryMb);
    runEngine("memcached", [&] { kv::loadMemcached(mc.socketPath(), o); }, [&] { return kv::connectMemcached(mc.socketPath()); });
  }
  fs::remove_all(work);

  bool bad = !problems.empty();
  for (const Point& p : points) bad = bad || p.errors || p.wrong || p.ops == 0;
  if (json) printJson(points);
  else printTable(points, threads, o);
  if (!problems.empty()) std::fprintf(stderr, "checks after the run failed:\n%s", problems.c_str());
  if (bad && !json) std::printf("ERRORS or WRONG ANSWERS: see the lines marked above\n");
  return test && bad ? 1 : 0;
}

}  // namespace hyrax::bench
