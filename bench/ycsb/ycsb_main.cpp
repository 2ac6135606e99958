// hyrax-bench ycsb: the Yahoo! Cloud Serving Benchmark's core workloads A (50% reads, 50%
// updates), B (95/5) and C (reads only) over the wire, against hyrax's server and PostgreSQL
// through the same client code (libpqxx prepared statements, one connection per client thread),
// at 1, 2, 4 ... 64 client threads, in one run.
//   hyrax-bench ycsb [--records 1000000] [--fields 10] [--field-length 100] [--workloads a,b,c]
//                    [--threads 1,2,4,8,16,32,64] [--duration 5] [--warmup 1] [--engines hyrax,postgresql]
//                    [--dispatch-threads N] [--plot ycsb.svg] [--json] [--test]
// As YCSB: usertable(ycsb_key VARCHAR PRIMARY KEY, field0..field9), keys "user" + a scrambled
// number, requests Zipfian over the records (constant 0.99, YCSB's scrambled Zipfian: hot keys
// spread over the key space), a read fetches the whole row, an update writes one random field.
// Both engines serve on a Unix socket in a temporary directory; PostgreSQL as the TPC-C bench
// starts it (bench/pg_server.hpp). --test (ctest): a small run whose reads must find every row
// they ask for, with the value last written.
#include <pqxx/pqxx>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "bench/benchmarks.hpp"
#include "bench/client_threads.hpp"
#include "bench/copy_lines.hpp"
#include "bench/options.hpp"
#include "bench/pg_server.hpp"
#include "bench/ycsb/svg_plot.hpp"
#include "bench/ycsb/zipfian.hpp"
#include "bench/hyrax_server.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace hyrax::bench {

namespace {

struct Workload {
  char name;
  double readFraction;
};
constexpr Workload kWorkloads[] = {{'a', 0.5}, {'b', 0.95}, {'c', 1.0}};

struct Options {
  uint64_t records = 1'000'000;
  int fields = 10, fieldLength = 100;
  double duration = 5, warmup = 1;
  int dispatchThreads = -1;  // hyrax serve's --dispatch-threads (0: a thread per session waits on its socket)
};

std::string keyOf(uint64_t n) { return "user" + std::to_string(fnv64(n)); }

std::string schema(const Options& o) {
  std::string s = "CREATE TABLE usertable (ycsb_key VARCHAR(64) PRIMARY KEY";
  for (int f = 0; f < o.fields; ++f) s += ", field" + std::to_string(f) + " VARCHAR(" + std::to_string(o.fieldLength) + ")";
  return s + ")";
}

// A field's value: printable, deterministic for (record, field, version).
std::string fieldValue(uint64_t record, int field, uint64_t version, int length) {
  std::string v(static_cast<size_t>(length), ' ');
  uint64_t x = fnv64(record * 131 + static_cast<uint64_t>(field) * 7 + version * 1000003);
  for (auto& c : v) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    c = static_cast<char>('a' + (x >> 59) % 26);
  }
  return v;
}

// Loads the records with COPY FROM STDIN through the client library, as a user would.
void load(const std::string& conninfo, const Options& o) {
  pqxx::connection con(conninfo);
  {
    pqxx::nontransaction tx(con);
    tx.exec("DROP TABLE IF EXISTS usertable");
    tx.exec(schema(o));
  }
  copyLines(con, "usertable", o.records, [&](uint64_t r, std::string& line) {
    line = keyOf(r);
    for (int f = 0; f < o.fields; ++f) {
      line += '\t';
      line += fieldValue(r, f, 0, o.fieldLength);
    }
    return true;
  });
  pqxx::nontransaction(con).exec("ANALYZE usertable");
}

struct Point {
  std::string engine;
  char workload;
  int threads;
  double opsPerSecond = 0, p99Ms = 0, p50Ms = 0;
  double clientUsPerOp = 0, machineUsPerOp = 0;  // CPU per operation (ClientWindow)
  uint64_t ops = 0, errors = 0, wrongReads = 0;
};

// One client thread's connection, key generator and counts of wrong reads.
struct Client {
  std::unique_ptr<pqxx::connection> con;
  std::unique_ptr<pqxx::nontransaction> tx;  // each statement its own transaction (autocommit)
  std::unique_ptr<ScrambledZipfian> keys;
  std::mt19937_64 rng;
  uint64_t wrongReads = 0;
};

// Prepared read and update, Zipfian keys, for the measured window.
Point runPoint(const std::string& engine, const std::string& conninfo, const Options& o, const Workload& w, int threads,
               bool check, std::atomic<uint64_t>& version) {
  std::vector<Client> clients(static_cast<size_t>(threads));
  for (size_t t = 0; t < clients.size(); ++t) {
    Client& c = clients[t];
    c.con = std::make_unique<pqxx::connection>(conninfo);
    c.con->prepare("read", "SELECT * FROM usertable WHERE ycsb_key = $1");
    for (int f = 0; f < o.fields; ++f)
      c.con->prepare("update" + std::to_string(f),
                     "UPDATE usertable SET field" + std::to_string(f) + " = $1 WHERE ycsb_key = $2");
    c.tx = std::make_unique<pqxx::nontransaction>(*c.con);
    c.keys = std::make_unique<ScrambledZipfian>(o.records, 0.99, t * 7919 + 17);
    c.rng.seed(t + 99);
  }
  const ClientWindow window = runClientThreads(threads, o.warmup, o.duration, [&](int t) {
    Client& c = clients[static_cast<size_t>(t)];
    const uint64_t record = c.keys->next();
    const std::string key = keyOf(record);
    if (std::uniform_real_distribution<double>(0, 1)(c.rng) < w.readFraction) {
      pqxx::result r = c.tx->exec_prepared("read", key);
      if (r.size() != 1 || r[0][0].as<std::string>() != key) ++c.wrongReads;
    } else {
      int field = static_cast<int>(c.rng() % static_cast<uint64_t>(o.fields));
      c.tx->exec_prepared("update" + std::to_string(field),
                          fieldValue(record, field, version.fetch_add(1) + 1, o.fieldLength), key);
    }
  });
  Point p{engine, w.name, threads};
  p.ops = window.ops;
  p.errors = window.errors;
  for (auto& c : clients) p.wrongReads += c.wrongReads;
  p.opsPerSecond = window.opsPerSecond();
  p.p50Ms = window.quantileMs(0.5);
  p.p99Ms = window.quantileMs(0.99);
  p.clientUsPerOp = window.clientMicrosPerOp();
  p.machineUsPerOp = window.machineMicrosPerOp();
  if (check) {  // every record still there, each field as long as written
    pqxx::connection con(conninfo);
    pqxx::nontransaction tx(con);
    pqxx::result r = tx.exec("SELECT count(*), min(length(field0)), max(length(field0)) FROM usertable");
    if (r[0][0].as<uint64_t>() != o.records || r[0][1].as<int>() != o.fieldLength || r[0][2].as<int>() != o.fieldLength)
      ++p.wrongReads;
  }
  return p;
}

}  // namespace

int runYcsb(int argc, char** argv) {
  Options o;
  std::string workloads = "a,b,c", threadList = "1,2,4,8,16,32,64", engines = "hyrax,postgresql", plot;
  po::options_description desc("usage: hyrax-bench ycsb [options]\nOptions");
  desc.add_options()("help,h", "show this help")("records", po::value(&o.records), "records loaded (default 1000000)")(
      "fields", po::value(&o.fields), "fields per record (default 10)")("field-length", po::value(&o.fieldLength),
                                                                          "characters per field (default 100)")(
      "workloads", po::value(&workloads), "a (50% updates), b (5%), c (reads only); default a,b,c")(
      "threads", po::value(&threadList), "client thread counts (default 1,2,4,8,16,32,64)")(
      "duration", po::value(&o.duration), "measured seconds per point (default 5)")("warmup", po::value(&o.warmup),
                                                                                    "seconds before each (default 1)")(
      "engines", po::value(&engines), "hyrax,postgresql")(
      "dispatch-threads", po::value(&o.dispatchThreads),
      "hyrax's threads serving idle sessions (hyrax serve --dispatch-threads; -1 one per core, 0 none)")("plot", po::value(&plot), "write an SVG chart here")(
      "json", "machine-readable output")("test", "a small run; exit non-zero on a wrong read or an error");
  po::variables_map vm;
  if (!parseOptions(desc, argc, argv, vm)) return 0;
  const bool json = vm.count("json") > 0, test = vm.count("test") > 0;
  const std::vector<int> threads = splitCounts(threadList);
  std::vector<Point> points;
  const fs::path work = fs::temp_directory_path() / ("hyrax-ycsb-" + std::to_string(getpid()));
  fs::create_directories(work);
  auto runEngine = [&](const std::string& engine, const std::string& conninfo) {
    auto t = Clock::now();
    load(conninfo, o);
    if (!json)
      std::fprintf(stderr, "%s: %llu records loaded in %.1f s\n", engine.c_str(), static_cast<unsigned long long>(o.records),
                   std::chrono::duration<double>(Clock::now() - t).count());
    std::atomic<uint64_t> version{0};
    for (const Workload& w : kWorkloads) {
      if (workloads.find(w.name) == std::string::npos) continue;
      for (int n : threads) {
        points.push_back(runPoint(engine, conninfo, o, w, n, test, version));
        const Point& p = points.back();
        if (!json)
          std::fprintf(stderr, "%s workload %c, %2d threads: %9.0f ops/s, p99 %.3f ms, CPU per op: clients %.1f us, machine %.1f us%s\n",
                       engine.c_str(), w.name, n, p.opsPerSecond, p.p99Ms, p.clientUsPerOp, p.machineUsPerOp, p.errors || p.wrongReads ? " (ERRORS)" : "");
      }
    }
  };
  if (engines.find("hyrax") != std::string::npos) {
    HyraxServer hyrax(work / "hyrax", o.dispatchThreads);
    runEngine("hyrax", hyrax.connectionString("ycsb"));
  }
  if (engines.find("postgresql") != std::string::npos) {
    if (!PgServer::available()) throw std::runtime_error("PostgreSQL is not installed (scripts/setup.sh installs it)");
    PgServer pg(work / "pg");
    runEngine("postgresql", pg.connectionString());
  }
  fs::remove_all(work);

  bool bad = false;
  for (const Point& p : points) bad = bad || p.errors || p.wrongReads || p.ops == 0;
  if (json) {
    std::printf("[");
    for (size_t i = 0; i < points.size(); ++i) {
      const Point& p = points[i];
      std::printf("%s\n {\"engine\": \"%s\", \"workload\": \"%c\", \"threads\": %d, \"ops_per_s\": %.0f, \"p50_ms\": %.3f, "
                  "\"p99_ms\": %.3f, \"errors\": %llu, \"client_cpu_us_per_op\": %.2f, \"machine_cpu_us_per_op\": %.2f}",
                  i ? "," : "", p.engine.c_str(), p.workload, p.threads, p.opsPerSecond, p.p50Ms, p.p99Ms,
                  static_cast<unsigned long long>(p.errors + p.wrongReads), p.clientUsPerOp, p.machineUsPerOp);
    }
    std::printf("\n]\n");
  } else {
    std::printf("YCSB, %llu records of %d x %d characters, %.0f s per point after %.0f s warm-up, Unix socket\n",
                static_cast<unsigned long long>(o.records), o.fields, o.fieldLength, o.duration, o.warmup);
    std::printf("%-8s %7s %12s %9s %12s %9s %8s\n", "workload", "threads", "hyrax ops/s", "p99 ms", "PG ops/s", "p99 ms",
                "hyrax/PG");
    for (const Point& p : points) {
      if (p.engine != "hyrax" && engines.find("hyrax") != std::string::npos) continue;
      const Point* pg = nullptr;
      for (const Point& q : points)
        if (q.engine == "postgresql" && q.workload == p.workload && q.threads == p.threads) pg = &q;
      const bool isPg = p.engine == "postgresql";
      std::printf("%-8c %7d %12.0f %9.3f", p.workload, p.threads, isPg ? 0.0 : p.opsPerSecond, isPg ? 0.0 : p.p99Ms);
      if (pg) std::printf(" %12.0f %9.3f %7.2fx", pg->opsPerSecond, pg->p99Ms, isPg ? 1.0 : p.opsPerSecond / pg->opsPerSecond);
      std::printf("\n");
    }
    if (bad) std::printf("ERRORS or wrong reads: see the lines marked above\n");
  }
  if (!plot.empty()) {
    std::vector<SvgPlot::Series> series;
    for (const Workload& w : kWorkloads)
      for (const char* engine : {"hyrax", "postgresql"}) {
        SvgPlot::Series s{std::string(engine) + " " + static_cast<char>(w.name - 32), {}};
        for (const Point& p : points)
          if (p.engine == engine && p.workload == w.name) s.points.push_back({static_cast<double>(p.threads), p.opsPerSecond});
        if (!s.points.empty()) series.push_back(std::move(s));
      }
    std::ofstream(plot) << SvgPlot{"YCSB over the wire: throughput by client threads", "client threads", "operations/s",
                                   std::move(series)}
                               .render();
    if (!json) std::printf("chart: %s\n", plot.c_str());
  }
  return test && bad ? 1 : 0;
}

}  // namespace hyrax::bench
