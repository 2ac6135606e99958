// hyrax-bench ch: the CH-benCHmark (Cole et al., DBTest 2011): TPC-C's mix on one OLTP thread
// (bench/tpcc: its data, procedures, engines, mix and report) beside N analytical streams, each a
// client of its own running the 22 CH queries (bench/ch/queries) in a loop; on hyrax each stream
// is a Connection with SET analytics = 'snapshot', so its queries run on fork snapshots while the
// transactions go on.
//   hyrax-bench ch [--warehouses W] [--duration S] [--olap-streams N[,N...]] [--engines hyrax,postgresql]
//                  [--check] [--repeat R] [--json] [--test] [--write-answers DIR]
// --check runs each query on hyrax (inline and on a snapshot) and on PostgreSQL over the same
// freshly loaded data and compares the answers; without PostgreSQL, with the answers shipped in
// bench/ch/answers for the configuration (1 warehouse, seed 42).
#include <boost/program_options.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <malloc.h>
#include <map>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "bench/benchmarks.hpp"
#include "bench/ch/ch_data.hpp"
#include "bench/options.hpp"
#include "bench/pg_server.hpp"
#include "bench/read_file.hpp"
#include "bench/tpch/answer_check.hpp"
#include "bench/tpcc/tpcc_mix.hpp"
#include "engine/types/text_format.hpp"
#include "engine/util/large_stack_thread.hpp"
#include "engine/util/stack_depth.hpp"

namespace fs = std::filesystem;
namespace po = boost::program_options;

namespace hyrax::bench::ch {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kQueries = 22;
// The load's date; the transactions run on the next day (so the lines they deliver were ordered
// before, as in a run with timestamps). Both lie inside every query's date window (Q4, Q7 and Q8
// look at 2007-2012, Q20 after 2010-05-23), as the specification's load date (2011) did, so no
// query is empty for its dates alone.
constexpr const char* kDate = "2011-11-22";
// Answers written for shipping keep this many rows and a hash of the rest.
constexpr size_t kShippedRows = 100;

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Per query, the latencies of one run of the streams.
struct QueryTimes {
  std::vector<double> ms[kQueries];
  std::vector<double> snapshotAgeMs;  // of every query that ran on a snapshot
  uint64_t errors = 0;
  uint64_t total() const {
    uint64_t n = 0;
    for (auto& m : ms) n += m.size();
    return n;
  }
};

// One query of the answer check: hyrax inline and on a snapshot against the reference.
struct Checked {
  double inlineMs = 0, snapshotMs = 0, referenceMs = 0;
  uint64_t rows = 0;
  std::string problem;  // empty: both of hyrax's answers equal the reference
};

struct Run {
  std::string engine;
  int streams = 0;
  int variant = 0;  // which --stream-variant the streams ran with (0: none)
  tpcc::Stats oltp;
  QueryTimes olap;
  double seconds = 0;
};

// N clients running the 22 queries in a loop until `stop`; a query counts when it finished before
// `stop` was set. Stream k goes on where the engine's stream k of the run before stopped (the
// first time: at query k+1), so that a list of short runs (--olap-streams 0,1,0,1) cycles through
// all 22 queries rather than repeating the first few.
QueryTimes runStreams(tpcc::Engine& e, int streams, const std::vector<std::string>& queries, std::atomic<bool>& stop,
                      const std::vector<std::string>& settings) {
  static std::map<std::string, std::vector<int>> nextQuery;  // per engine, per stream
  std::vector<int>& next = nextQuery[e.name()];
  for (int k = static_cast<int>(next.size()); k < streams; ++k) next.push_back(k % kQueries);
  std::vector<QueryTimes> per(static_cast<size_t>(streams));
  std::vector<std::unique_ptr<tpcc::Engine::QueryClient>> clients;
  for (int k = 0; k < streams; ++k) {
    clients.push_back(e.openQueryClient(true));
    if (e.name() == "hyrax")
      for (const std::string& set : settings) clients.back()->run(set, nullptr);
  }
  std::vector<std::thread> threads;
  for (int k = 0; k < streams; ++k)
    threads.emplace_back([&, k] {
      QueryTimes& t = per[static_cast<size_t>(k)];
      int& q = next[static_cast<size_t>(k)];
      for (; !stop.load(); q = (q + 1) % kQueries) {
        auto start = Clock::now();
        try {
          auto& client = *clients[static_cast<size_t>(k)];
          client.run(queries[static_cast<size_t>(q)], nullptr);
          double ms = msSince(start);
          if (!stop.load()) {
            t.ms[q].push_back(ms);
            if (client.lastSnapshotAgeMs() >= 0) t.snapshotAgeMs.push_back(client.lastSnapshotAgeMs());
          }
        } catch (const std::exception& ex) {
          if (t.errors++ < 3) std::fprintf(stderr, "%s: stream %d: Q%d failed: %s\n", e.name().c_str(), k + 1, q + 1, ex.what());
        }
      }
    });
  // The caller sets `stop` when its mix ends; the streams finish their query under way.
  for (auto& th : threads) th.join();
  QueryTimes all;
  for (auto& t : per) {
    for (int q = 0; q < kQueries; ++q) all.ms[q].insert(all.ms[q].end(), t.ms[q].begin(), t.ms[q].end());
    all.snapshotAgeMs.insert(all.snapshotAgeMs.end(), t.snapshotAgeMs.begin(), t.snapshotAgeMs.end());
    all.errors += t.errors;
  }
  return all;
}

// f() on a thread with the executor's stack: hyrax's transactions then run on the driver's own
// thread (Engine::runOnDriverThread), the other core left to the analytical streams.
template <typename F>
auto onDriverStack(const F& f) {
  decltype(f()) result;
  std::exception_ptr failed;
  LargeStackThread(kExecutorStackBytes, [&] {
    try {
      result = f();
    } catch (...) {
      failed = std::current_exception();
    }
  }).join();
  if (failed) std::rethrow_exception(failed);
  return result;
}

// The mix for `duration` seconds with `streams` analytical streams beside it.
Run runMixWithStreams(tpcc::Engine& e, const tpcc::Setup& setup, double duration, int streams, const std::vector<std::string>& settings,
                      const std::vector<std::string>& queries) {
  Run run;
  run.engine = e.name();
  run.streams = streams;
  std::atomic<bool> stop{false};
  std::thread olap;
  if (streams > 0) olap = std::thread([&] { run.olap = runStreams(e, streams, queries, stop, settings); });
  auto start = Clock::now();
  run.oltp = onDriverStack([&] { return tpcc::runMix(e, setup.warehouses, duration, 0, setup.seed, setup.date + 1); });
  run.seconds = msSince(start) / 1000;
  stop.store(true);
  if (olap.joinable()) olap.join();
  return run;
}

// A percentile of the snapshots' ages for JSON: null when no query ran on a snapshot.
std::string ageJson(std::vector<double>& ages, double p) {
  if (ages.empty()) return "null";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", tpcc::percentile(ages, p));
  return buf;
}

double olapPerHour(const Run& r) { return r.seconds > 0 ? static_cast<double>(r.olap.total()) * 3600.0 / r.seconds : 0; }

void printRun(Run& r) {
  tpcc::report(r.engine + " with " + std::to_string(r.streams) + " analytical stream(s)" +
                   (r.variant ? " (stream variant " + std::to_string(r.variant) + ")" : ""),
               r.oltp);
  if (r.streams == 0) return;
  std::printf("\n%s: %llu analytical queries in %.1f s: %.0f queries/hour, %llu errors\n", r.engine.c_str(),
              static_cast<unsigned long long>(r.olap.total()), r.seconds, olapPerHour(r),
              static_cast<unsigned long long>(r.olap.errors));
  if (!r.olap.snapshotAgeMs.empty())
    std::printf("snapshot age when a query started: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%zu queries on snapshots)\n",
                tpcc::percentile(r.olap.snapshotAgeMs, 0.5), tpcc::percentile(r.olap.snapshotAgeMs, 0.99),
                *std::max_element(r.olap.snapshotAgeMs.begin(), r.olap.snapshotAgeMs.end()), r.olap.snapshotAgeMs.size());
  std::printf("| query | runs | p50 ms | p99 ms |\n|---|---:|---:|---:|\n");
  for (int q = 0; q < kQueries; ++q)
    std::printf("| Q%d | %zu | %.1f | %.1f |\n", q + 1, r.olap.ms[q].size(), tpcc::percentile(r.olap.ms[q], 0.5),
                tpcc::percentile(r.olap.ms[q], 0.99));
}

// Runs each query on hyrax inline and on a snapshot (best of `repeat`), and compares both
// answers with the reference: PostgreSQL's (`postgres` given) or the answer files in `answers`.
// Also compares PostgreSQL's answers with the files when both are there, and writes its
// answers into `writeTo` when given.
std::vector<Checked> checkAnswers(tpcc::Engine& hyrax, tpcc::Engine* postgres, const fs::path& answers,
                                  const std::vector<std::string>& queries, int repeat, const std::string& writeTo) {
  auto inlineClient = hyrax.openQueryClient(false), snapshotClient = hyrax.openQueryClient(true);
  // Inline and snapshot both compile each run (the statement cache off on both): with it, from
  // the second run on, both would run code compiled before (a snapshot worker runs the session's
  // cached code from its third run), and the times would leave out the compile a first run pays.
  inlineClient->run("SET statement_cache = off", nullptr);
  snapshotClient->run("SET statement_cache = off", nullptr);
  std::unique_ptr<tpcc::Engine::QueryClient> pg = postgres ? postgres->openQueryClient(false) : nullptr;
  if (!writeTo.empty()) fs::create_directories(writeTo);
  std::vector<Checked> out;
  for (int q = 0; q < kQueries; ++q) {
    Checked c;
    char name[16];
    std::snprintf(name, sizeof(name), "q%02d.csv", q + 1);
    const std::string& sql = queries[static_cast<size_t>(q)];
    try {
      Answer want, got, gotSnapshot;
      auto timed = [&](tpcc::Engine::QueryClient& client, Answer& a) {
        double best = 1e300;
        for (int i = 0; i < repeat; ++i) {
          auto start = Clock::now();
          client.run(sql, i == 0 ? &a : nullptr);
          best = std::min(best, msSince(start));
        }
        return best;
      };
      if (pg) {
        c.referenceMs = timed(*pg, want);
        if (!writeTo.empty()) {
          std::ofstream f(fs::path(writeTo) / name);
          f << answerText(want, kShippedRows);
        }
        if (fs::exists(answers / name))
          if (std::string d = compareAnswers(want, readAnswer((answers / name).string())); !d.empty())
            c.problem = "PostgreSQL's answer differs from the shipped " + (answers / name).string() + ": " + d;
      } else {
        want = readAnswer((answers / name).string());
      }
      c.inlineMs = timed(*inlineClient, got);
      c.snapshotMs = timed(*snapshotClient, gotSnapshot);
      c.rows = got.rows.size();
      if (std::string d = compareAnswers(got, want); !d.empty()) c.problem = "inline: " + d;
      else if (std::string s = compareAnswers(gotSnapshot, want); !s.empty()) c.problem = "snapshot: " + s;
    } catch (const std::exception& ex) {
      c.problem = ex.what();
    }
    out.push_back(c);
  }
  return out;
}

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) >= 0x20) out += ch;
  }
  return out + "\"";
}

int ch(int argc, char** argv) {
  po::options_description opts("hyrax-bench ch options");
  opts.add_options()("help,h", "show this help")("warehouses,w", po::value<int>()->default_value(1), "warehouses (W)")(
      "duration,d", po::value<double>()->default_value(10), "seconds of the mix per engine and stream count (0: none)")(
      "warmup", po::value<double>()->default_value(1), "seconds of the mix each engine runs first, not counted")(
      "olap-streams", po::value<std::string>()->default_value("1"),
      "analytical streams beside the mix; a list (0,1) runs the mix once per count on the same data")(
      "engines", po::value<std::string>()->default_value("hyrax"), "hyrax, postgresql (comma-separated)")(
      "terminals", po::value<int>()->default_value(16),
      "with --hand-over: hyrax's OLTP clients, their calls queued at the OLTP thread")(
      "hand-over", "hyrax: the driver hands each transaction to the OLTP thread (--terminals at once) instead of running it on its own thread")(
      "analytics-nice", po::value<std::string>()->default_value(""),
      "hyrax: SET analytics_nice = N for the streams (idle or 0-19; default: the setting's default)")(
      "stream-set", po::value<std::vector<std::string>>()->composing(),
      "hyrax: SET NAME = 'VALUE' for the streams (NAME=VALUE; repeatable), e.g. threads=1")(
      "stream-variant", po::value<std::vector<std::string>>()->composing(),
      "hyrax: more SETs for the streams of --olap-streams entries N@k (the k-th variant, from 1): NAME=VALUE,...; "
      "e.g. --olap-streams 0,1,1@1 --stream-variant threads=1 compares in one run")(
      "seed", po::value<uint64_t>()->default_value(42), "random seed of the data and the mix")(
      "check", "compare each query's answer on hyrax (inline and on a snapshot) with PostgreSQL's (or the shipped answers)")(
      "reference", po::value<std::string>()->default_value("auto"),
      "--check against: postgresql, answers (the shipped ones), auto (PostgreSQL when installed)")(
      "repeat", po::value<int>()->default_value(1), "--check: the best of R runs per query for the times")(
      "write-answers", po::value<std::string>()->default_value(""), "--check: write PostgreSQL's answers into DIR")(
      "explain", po::value<int>()->default_value(0), "print hyrax's EXPLAIN ANALYZE of query N after the load and after the runs")(
      "json", "machine-readable output: a list of one object per engine and stream count")(
      "test", "exit non-zero on a wrong answer, a failed query or transaction, or a consistency violation (ctest)");
  po::variables_map vm;
  if (!bench::parseOptions(opts, argc, argv, vm, "usage: hyrax-bench ch [options]\n")) return 0;
  const int warehouses = vm["warehouses"].as<int>();
  const double duration = vm["duration"].as<double>();
  const uint64_t seed = vm["seed"].as<uint64_t>();
  const bool json = vm.count("json") > 0, check = vm.count("check") > 0;
  if (warehouses < 1 || warehouses > 1000) throw std::runtime_error("--warehouses must be between 1 and 1000");
  // The streams' SETs on hyrax: --analytics-nice, then each --stream-set NAME=VALUE; variant k
  // (an --olap-streams entry N@k) adds the k-th --stream-variant's NAME=VALUE,... after them.
  auto setsOf = [](const std::string& list, std::vector<std::string>& out) {
    for (const std::string& kv : splitList(list)) {
      const size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0 || kv.find('\'') != std::string::npos)
        throw std::runtime_error("stream settings are NAME=VALUE without quotes, got " + kv);
      out.push_back("SET " + kv.substr(0, eq) + " = '" + kv.substr(eq + 1) + "'");
    }
  };
  std::vector<std::string> streamSettings;
  if (const std::string nice = vm["analytics-nice"].as<std::string>(); !nice.empty())
    streamSettings.push_back("SET analytics_nice = '" + nice + "'");
  if (vm.count("stream-set"))
    for (const std::string& kv : vm["stream-set"].as<std::vector<std::string>>()) setsOf(kv, streamSettings);
  std::vector<std::vector<std::string>> variants{streamSettings};
  if (vm.count("stream-variant"))
    for (const std::string& list : vm["stream-variant"].as<std::vector<std::string>>()) {
      variants.push_back(streamSettings);
      setsOf(list, variants.back());
    }
  std::vector<std::pair<int, int>> streamCounts;  // streams, variant
  for (auto& s : splitList(vm["olap-streams"].as<std::string>())) {
    const size_t at = s.find('@');
    const int n = std::stoi(s.substr(0, at)), variant = at == std::string::npos ? 0 : std::stoi(s.substr(at + 1));
    if (n < 0 || n > 64) throw std::runtime_error("--olap-streams must be between 0 and 64");
    if (variant < 0 || variant >= static_cast<int>(variants.size()))
      throw std::runtime_error("--olap-streams " + s + ": no --stream-variant " + std::to_string(variant));
    streamCounts.emplace_back(n, variant);
  }
  std::vector<std::string> engineNames = splitList(vm["engines"].as<std::string>());
  for (auto& n : engineNames) {
    if (n == "postgres") n = "postgresql";
    if (n != "hyrax" && n != "postgresql") throw std::runtime_error("unknown engine " + n + " (hyrax, postgresql)");
  }
  if (check && std::find(engineNames.begin(), engineNames.end(), "hyrax") == engineNames.end())
    engineNames.insert(engineNames.begin(), "hyrax");

  // With --json, standard output holds only the JSON: the progress lines the shared TPC-C code
  // prints go to standard error until then.
  int jsonOut = -1;
  if (json) {
    std::fflush(stdout);
    jsonOut = dup(1);
    dup2(2, 1);
  }
  const fs::path src = fs::path(HYRAX_SOURCE_DIR) / "bench";
  const fs::path answers = src / "ch/answers" / ("w" + std::to_string(warehouses) + "-seed" + std::to_string(seed));
  std::vector<std::string> queries;
  for (int q = 1; q <= kQueries; ++q) {
    char name[16];
    std::snprintf(name, sizeof(name), "q%02d.sql", q);
    queries.push_back(readFile(src / "ch/queries" / name));
  }
  const int date = text::parseDate(kDate);
  auto t = Clock::now();
  tpcc::InitialData data = tpcc::generate(warehouses, seed, date);
  addTables(data, seed);
  if (!json)
    std::printf("generated %d warehouse(s) and the CH tables: %llu rows in %.0f ms\n", warehouses,
                static_cast<unsigned long long>(data.rows), msSince(t));
  tpcc::Setup setup{readFile(src / "tpcc/schema.sql") + "\n" + readFile(src / "ch/schema.sql"),
                    tpcc::splitProcedures(readFile(src / "tpcc/procedures.sql")), &data, warehouses, seed, date};

  // PostgreSQL is needed for --engines postgresql, and for --check unless answers are shipped.
  const bool pgWanted = std::find(engineNames.begin(), engineNames.end(), "postgresql") != engineNames.end();
  const std::string reference = vm["reference"].as<std::string>();
  if (reference != "auto" && reference != "postgresql" && reference != "answers")
    throw std::runtime_error("--reference must be postgresql, answers or auto");
  const bool pgForCheck =
      check && (reference == "postgresql" || (reference == "auto" && (PgServer::available() || !fs::exists(answers))));
  std::map<std::string, std::unique_ptr<tpcc::Engine>> engines;
  uint64_t errors = 0;
  int violations = 0;
  for (auto& n : engineNames) {
    engines[n] = tpcc::makeEngine(n == "postgresql" ? "postgres" : n, vm["terminals"].as<int>(), "ch");
    if (!vm.count("hand-over")) engines[n]->runOnDriverThread();  // the mixes run in onDriverStack
    violations += tpcc::loadAndWarmUp(*engines[n], setup, 0, errors);
  }
  if (pgForCheck && !engines.count("postgresql")) {
    engines["postgresql"] = tpcc::makeEngine("postgres", 1, "ch");
    violations += tpcc::loadAndWarmUp(*engines["postgresql"], setup, 0, errors);
  }

  // --explain N: hyrax's plan of query N with its actual rows (EXPLAIN ANALYZE; the estimates
  // alone if running it fails), after the load and again after the mix has grown the tables.
  auto explain = [&](const char* when) {
    const int q = vm["explain"].as<int>();
    if (q < 1 || q > kQueries || !engines.count("hyrax")) return;
    const std::string& sql = queries[static_cast<size_t>(q - 1)];
    for (bool snapshot : {false, true}) {  // where it ran and its phases, inline and on a snapshot
      std::printf("\nQ%d on hyrax %s, %s:\n", q, when, snapshot ? "on a snapshot" : "inline");
      auto client = engines["hyrax"]->openQueryClient(snapshot);
      Answer plan;
      try {
        client->run("EXPLAIN ANALYZE " + sql, &plan);
      } catch (const std::exception& e) {
        std::printf("(EXPLAIN ANALYZE failed: %s; the plan with its estimates:)\n", e.what());
        client->run("EXPLAIN " + sql, &plan);
      }
      for (auto& row : plan.rows) std::printf("%s\n", row.empty() ? "" : row[0].c_str());
    }
  };
  // The generated text is not needed after the loads; kept, its hundreds of megabytes in 4 KiB
  // pages would be in every snapshot's fork and make it a benchmark of the driver's memory.
  data = tpcc::InitialData{};
  setup.data = nullptr;
  malloc_trim(0);
  explain("after the load");  // after the text is gone: a snapshot's fork would copy its pages

  std::vector<Checked> checked;
  int equal = 0;
  if (check) {
    tpcc::Engine* pg = pgForCheck ? engines["postgresql"].get() : nullptr;
    if (!json)
      std::printf("\nchecking the 22 answers against %s\n", pg ? pg->name().c_str() : answers.string().c_str());
    checked = checkAnswers(*engines["hyrax"], pg, answers, queries, std::max(1, vm["repeat"].as<int>()),
                           vm["write-answers"].as<std::string>());
    for (auto& c : checked) equal += c.problem.empty();
    if (!json) {
      std::printf("| query | rows | hyrax inline ms | hyrax snapshot ms | snapshot / inline | %s ms | answer |\n"
                  "|---|---:|---:|---:|---:|---:|---|\n",
                  pg ? "PostgreSQL" : "reference");
      for (size_t q = 0; q < checked.size(); ++q) {
        auto& c = checked[q];
        std::printf("| Q%zu | %llu | %.1f | %.1f | %.2f | %.1f | %s |\n", q + 1, static_cast<unsigned long long>(c.rows),
                    c.inlineMs, c.snapshotMs, c.inlineMs > 0 ? c.snapshotMs / c.inlineMs : 0, c.referenceMs,
                    c.problem.empty() ? "equal" : ("DIFFERENT: " + c.problem).c_str());
      }
      std::printf("%d of %d answers equal\n", equal, kQueries);
    }
  }
  if (pgForCheck && !pgWanted) engines.erase("postgresql");  // only there for the check

  std::vector<Run> runs;
  if (duration > 0)
    for (auto& n : engineNames) {
      tpcc::Engine& e = *engines[n];
      if (double warmup = vm["warmup"].as<double>(); warmup > 0) {
        tpcc::Stats w = onDriverStack([&] { return tpcc::runMix(e, warehouses, warmup, 0, seed + 1, date + 1); });
        errors += w.errors;
      }
      for (auto [streams, variant] : streamCounts) {
        runs.push_back(runMixWithStreams(e, setup, duration, streams, variants[static_cast<size_t>(variant)], queries));
        Run& r = runs.back();
        r.variant = variant;
        errors += r.oltp.errors + r.olap.errors;
        if (!json) printRun(r);
      }
      violations += tpcc::checkConsistency(e, "after the runs");
    }
  if (duration > 0) explain("after the runs");

  if (json) {
    std::fflush(stdout);
    dup2(jsonOut, 1);
    close(jsonOut);
    std::printf("[");
    bool first = true;
    auto object = [&](const std::string& engine, int streams, const Run* r) {
      std::printf("%s\n {\"engine\": %s, \"warehouses\": %d, \"olap_streams\": %d", first ? "" : ",", jsonString(engine).c_str(),
                  warehouses, streams);
      first = false;
      if (r) {
        Run& m = const_cast<Run&>(*r);
        std::printf(", \"variant\": %d, \"seconds\": %.3f, \"transactions\": %llu, \"tx_per_s\": %.1f, \"tpmc\": %.1f, \"new_order_p50_ms\": %.4f, "
                    "\"new_order_p99_ms\": %.4f, \"olap_queries\": %llu, \"olap_queries_per_hour\": %.1f, \"errors\": %llu, "
                    "\"snapshot_age_p50_ms\": %s, \"snapshot_age_p99_ms\": %s, \"olap\": [",
                    m.variant, m.seconds, static_cast<unsigned long long>(m.oltp.total()), m.oltp.txPerSecond(), m.oltp.tpmC(),
                    tpcc::percentile(m.oltp.micros[tpcc::NewOrder], 0.5) / 1000,
                    tpcc::percentile(m.oltp.micros[tpcc::NewOrder], 0.99) / 1000,
                    static_cast<unsigned long long>(m.olap.total()), olapPerHour(m),
                    static_cast<unsigned long long>(m.oltp.errors + m.olap.errors),
                    ageJson(m.olap.snapshotAgeMs, 0.5).c_str(), ageJson(m.olap.snapshotAgeMs, 0.99).c_str());
        for (int q = 0; q < kQueries; ++q)
          std::printf("%s{\"query\": %d, \"runs\": %zu, \"p50_ms\": %.3f, \"p99_ms\": %.3f}", q ? ", " : "", q + 1,
                      m.olap.ms[q].size(), tpcc::percentile(m.olap.ms[q], 0.5), tpcc::percentile(m.olap.ms[q], 0.99));
        std::printf("]");
      }
      if (check) {
        std::printf(", \"answers_checked\": %zu, \"answers_equal\": %d, \"check\": [", checked.size(), equal);
        for (size_t q = 0; q < checked.size(); ++q)
          std::printf("%s{\"query\": %zu, \"rows\": %llu, \"inline_ms\": %.3f, \"snapshot_ms\": %.3f, \"reference_ms\": %.3f, "
                      "\"equal\": %s, \"problem\": %s}",
                      q ? ", " : "", q + 1, static_cast<unsigned long long>(checked[q].rows), checked[q].inlineMs,
                      checked[q].snapshotMs, checked[q].referenceMs, checked[q].problem.empty() ? "true" : "false",
                      jsonString(checked[q].problem).c_str());
        std::printf("]");
      }
      std::printf("}");
    };
    for (auto& r : runs) object(r.engine, r.streams, &r);
    if (runs.empty()) object("hyrax", 0, nullptr);
    std::printf("\n]\n");
  }
  if (violations) std::fprintf(stderr, "FAILED: %d consistency violation(s)\n", violations);
  if (check && equal != kQueries) std::fprintf(stderr, "FAILED: %d of %d answers differ\n", kQueries - equal, kQueries);
  bool failed = violations || (check && equal != kQueries);
  return failed || (vm.count("test") && errors) ? 1 : 0;
}

}  // namespace

}  // namespace hyrax::bench::ch

int hyrax::bench::runCh(int argc, char** argv) { return ch::ch(argc, argv); }
