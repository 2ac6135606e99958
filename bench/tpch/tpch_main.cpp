// hyrax-bench tpch: makes TPC-H data with tpchgen-cli when missing, loads it with COPY, runs the
// 22 queries, checks each answer, and prints per query what a user waits for (the text's first
// run in the process, end to end: parse, plan, compile, execute) and the best of R runs' compile
// and execute times.
//   hyrax-bench tpch --sf 0.01 [--query N] [--repeat R] [--threads N] [--peer-threads N] [--json] [--data DIR] [--test]
//                    [--peers postgres,sqlite,duckdb,hyper] [--peer-limit S] [--analytics inline|snapshot]
//                    [--explain] [--compile-tier auto|adaptive|optimized|cheap|interpreted] [--compile-parts one|two]
//                    [--first-tier interpreter|cheap]
// --threads N sends SET threads = N before the load and the queries (without it hyrax runs on
// its default, the cores; a build without the setting runs one thread, and then anything but 1 is
// refused); the peers get as many threads as hyrax runs, where they have a setting (--peer-threads:
// another number for the peers).
// --peers runs the same queries on other engines in the same run and prints each one's times and
// the ratio of its first run to hyrax's end to end.
// --test (what ctest runs): exit non-zero when a query gives a wrong answer or fails with anything
// but "not supported yet" (0A000); queries that need unimplemented SQL are reported, not hidden.
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "bench/benchmarks.hpp"
#include "bench/options.hpp"
#include "bench/read_file.hpp"
#include "bench/tpch/answer_check.hpp"
#include "bench/tpch/peers.hpp"
#include "bench/tpch/tpch_data.hpp"
#include "engine/catalog/catalog.hpp"
#include "engine/storage/table.hpp"
#include "sql/api/database.hpp"

namespace fs = std::filesystem;
namespace po = boost::program_options;
using namespace hyrax;
using hyrax::bench::readFile;
using Clock = std::chrono::steady_clock;
using hyrax::bench::sfName;

namespace {

struct PeerRun {
  double firstMs = 0, bestMs = 0;  // wall time at the client: the text's first run, the best of the repeats
  std::string problem;             // why it failed (or ran past the limit)
};

struct PeerInfo {
  std::string name;
  double loadMs = 0;
};

struct QueryRun {
  int number = 0;
  std::string sql;
  std::string status;  // ok, FAIL (wrong answer), unsupported, error
  std::string detail;
  uint64_t rows = 0;
  double compileMs = 0, executeMs = 0;  // the best of the repeats
  // The text's first run in the process: its phases, and the wall time of the whole call (parse,
  // plan, compile, execute, the rows in the result) — what a user waits for.
  double firstCompileMs = 0, firstExecuteMs = 0, endToEndMs = 0;
  // The first run's time to its first morsel: parse, plan and compile (the cheap code's, when
  // the query is compiled adaptively), before anything runs.
  double firstMorselMs = 0;
  std::vector<PeerRun> peers;
};

std::string queryText(const fs::path& src, int q) {
  char name[16];
  std::snprintf(name, sizeof(name), "q%02d", q);
  return readFile(src / "queries" / (std::string(name) + ".sql"));
}

// A peer's answer has as many rows as hyrax's right one.
void checkRows(PeerRun& pr, uint64_t rows, const QueryRun& run) {
  if (pr.problem.empty() && run.status == "ok" && rows != run.rows) pr.problem = std::to_string(rows) + " rows";
}

// Runs the queries on each peer; fills QueryRun::peers in the order of `peers`.
void runPeers(const std::vector<std::string>& peers, double limit, int threads, double sf, const fs::path& src,
              const fs::path& data, int repeat, std::vector<QueryRun>& runs, std::vector<PeerInfo>& infos, bool quiet) {
  for (auto& p : peers) {
    if (p == "duckdb" || p == "hyper") {  // the whole run in a child process
      std::vector<int> numbers;
      for (auto& run : runs) numbers.push_back(run.number);
      if (!quiet) std::fprintf(stderr, "%s: loading SF %s ...\n", p.c_str(), sfName(sf).c_str());
      bench::ScriptPeerRun sr = bench::runPythonPeer(p, data, numbers, repeat, threads, limit, quiet);
      infos.push_back({sr.name, sr.loadMs});
      for (auto& run : runs) {
        PeerRun pr;
        auto t = std::find_if(sr.queries.begin(), sr.queries.end(), [&](auto& q) { return q.query == run.number; });
        if (t == sr.queries.end()) {
          pr.problem = "no result";
        } else {
          pr = {t->firstMs, t->bestMs, t->problem};
          checkRows(pr, t->rows, run);
        }
        run.peers.push_back(pr);
      }
      continue;
    }
    std::unique_ptr<bench::Peer> peer;
    if (p == "sqlite")
      peer = bench::makeSqlitePeer(limit);
    else if (p == "postgres")
      peer = bench::makePostgresPeer(fs::temp_directory_path() / ("hyrax-bench-pg-" + std::to_string(getpid())), limit,
                                     threads);
    else
      throw std::runtime_error("unknown peer " + p + " (postgres, sqlite, duckdb, hyper)");
    PeerInfo info{peer->name(), 0};
    if (!quiet) std::fprintf(stderr, "%s: loading SF %s ...\n", info.name.c_str(), sfName(sf).c_str());
    info.loadMs = peer->load(readFile(src / "schema.sql"), data);
    if (!quiet) std::fprintf(stderr, "%s: loaded in %.0f ms\n", info.name.c_str(), info.loadMs);
    infos.push_back(info);
    for (auto& run : runs) {
      PeerRun pr;
      for (int i = 0; i < repeat && pr.problem.empty(); ++i) {
        try {
          uint64_t rows = 0;
          double ms = peer->run(run.number, run.sql, rows);
          pr.bestMs = i ? std::min(pr.bestMs, ms) : ms;
          if (i == 0) pr.firstMs = ms;
          checkRows(pr, rows, run);
        } catch (const std::exception& e) {
          pr.problem = e.what();
        }
      }
      if (!quiet) std::fprintf(stderr, "%s: Q%d %s\n", info.name.c_str(), run.number, pr.problem.empty() ? "done" : pr.problem.c_str());
      run.peers.push_back(pr);
    }
  }
}

// --threads N: hyrax's `threads` setting. A build without the setting runs each query on one
// thread: --threads 1 is then what it does anyway, and anything else is refused, never ignored.
void setThreads(Connection& con, int threads) {
  try {
    con.execute("SET threads = " + std::to_string(threads));
  } catch (const Error& e) {
    if (e.sqlstate() == "42704" && threads == 1) return;
    throw std::runtime_error("--threads " + std::to_string(threads) + ": SET threads failed (" + e.sqlstate() + ": " +
                             e.message() + ")" +
                             (e.sqlstate() == "42704" ? "; this build of hyrax runs every query on one thread, so only "
                                                        "--threads 1 can be measured"
                                                      : ""));
  }
}

// The threads hyrax runs a query on: its `threads` setting (default: the cores), 1 without one.
int hyraxThreads(Connection& con) {
  try {
    QueryResult r = con.execute("SHOW threads");
    return std::max(1, std::atoi(r.text(0, 0).c_str()));
  } catch (const Error&) {
    return 1;
  }
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double geomean(const std::vector<double>& values) {
  double log = 0;
  for (double v : values) log += std::log(std::max(v, 1e-3));
  return values.empty() ? 0 : std::exp(log / values.size());
}

std::string jsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof(esc), "\\u%04x", c);
      out += esc;
    } else {
      out += c;
    }
  }
  return out;
}

int tpch(int argc, char** argv) {
  double sf = 1;
  int only = 0, repeat = 1, threads = 1, peerThreads = 0;
  std::string dataRoot = std::string(HYRAX_BINARY_DIR) + "/tpch-data";
  po::options_description desc("usage: hyrax-bench tpch [options]\nOptions");
  desc.add_options()("help,h", "show this help")("sf", po::value(&sf), "scale factor (default 1)")(
      "query", po::value(&only), "run only query N")("repeat", po::value(&repeat), "report the best of R runs")(
      "threads", po::value(&threads),
      "threads per query: SET threads = N on hyrax (default: the cores); the peers get as many: DuckDB's threads, "
      "Hyper confined to N cores, PostgreSQL N-1 parallel workers (SQLite runs one)")(
      "peer-threads", po::value(&peerThreads), "the peers' threads when other than hyrax's (--threads, or its default: the cores)")(
      "json", "machine-readable output")("data", po::value(&dataRoot), "where generated data is kept")(
      "test", "exit non-zero on a wrong answer or an unexpected error")(
      "peers", po::value<std::string>(),
      "also run on these engines: postgres,sqlite,duckdb,hyper (DuckDB and Hyper are installed from PyPI into "
      ".tools/ of the checkout the first time)")(
      "peer-limit", po::value<double>()->default_value(60), "seconds a peer may take per query")(
      "analytics", po::value<std::string>()->default_value("inline"),
      "where the queries run: inline, or snapshot (each in a child forked after the load; times are the child's)")(
      "explain", "print each query's EXPLAIN after the load and run nothing (to compare plans between builds)")(
      "compile-tier", po::value<std::string>(),
      "hyrax: SET compile_tier = T (auto, adaptive, optimized, cheap): compare the adaptive compile's end to end "
      "with cheap code alone and optimized code alone (issue 18: within 1.1x of the better)")(
      "compile-parts", po::value<std::string>(), "hyrax: SET compile_parts = P (one, two)")(
      "first-tier", po::value<std::string>(),
      "hyrax: SET first_tier = T (interpreter, cheap): what an adaptive query runs before its cheap code");
  po::variables_map vm;
  if (!bench::parseOptions(desc, argc, argv, vm)) return 0;
  const bool json = vm.count("json") > 0;
  const fs::path src = fs::path(HYRAX_SOURCE_DIR) / "bench/tpch";
  const fs::path data = fs::path(dataRoot) / ("sf" + sfName(sf));
  const fs::path answers = src / "answers" / ("sf" + sfName(sf));
  if (threads < 1 || (vm.count("peer-threads") && peerThreads < 1)) throw std::runtime_error("--threads and --peer-threads must be at least 1");
  repeat = std::max(repeat, 1);
  bench::makeTpchData(data, sf);
  // The answer test (ctest) also checks every generated module with LLVM's verifier, which
  // release builds skip for cheap code (codegen/jit/jit.hpp); timed runs keep release's way.
  if (vm.count("test")) setenv("HYRAX_VERIFY_IR", "1", 1);

  Database db;
  Connection con(db);
  if (vm.count("threads")) setThreads(con, threads);  // before the load: a refusal costs no waiting
  threads = hyraxThreads(con);
  // Each of the R runs compiles: the statement cache would serve runs 2..R the first run's machine
  // code (compile 0). The first run, end to end, is the same either way. Older builds have no cache.
  try {
    con.execute("SET statement_cache = off");
  } catch (const Error& e) {
    if (e.sqlstate() != "42704") throw;
  }
  if (vm.count("compile-parts")) con.execute("SET compile_parts = '" + vm["compile-parts"].as<std::string>() + "'");
  if (vm.count("compile-tier")) con.execute("SET compile_tier = '" + vm["compile-tier"].as<std::string>() + "'");
  if (vm.count("first-tier")) con.execute("SET first_tier = '" + vm["first-tier"].as<std::string>() + "'");
  if (!vm.count("peer-threads")) peerThreads = threads;
  con.executeScript(readFile(src / "schema.sql"));
  auto loadStart = Clock::now();
  uint64_t loadedRows = 0;
  uint64_t loadedBytes = 0;
  for (const char* t : bench::kTpchTables) {
    fs::path file = data / (std::string(t) + ".tbl");
    loadedBytes += fs::file_size(file);
    QueryResult r = con.execute("COPY " + std::string(t) + " FROM '" + file.string() + "' (DELIMITER '|')");
    loadedRows += db.catalog().findTable(t)->rowCount();
  }
  double loadMs = std::chrono::duration<double, std::milli>(Clock::now() - loadStart).count();
  if (!json)
    std::printf("TPC-H SF %s: %llu rows (%.0f MB) loaded in %.0f ms, %.0f rows/s\n\n", sfName(sf).c_str(),
                static_cast<unsigned long long>(loadedRows), loadedBytes / 1048576.0, loadMs, loadedRows / (loadMs / 1000));

  con.execute("SET analytics = '" + vm["analytics"].as<std::string>() + "'");
  if (vm.count("explain")) {  // plans only: diff two builds' output to see what an optimizer change did
    for (int q = 1; q <= 22; ++q) {
      if (only && q != only) continue;
      QueryResult r = con.execute("EXPLAIN " + queryText(src, q));
      std::printf("-- Q%d\n", q);
      for (size_t i = 0; i < r.rowCount(); ++i) std::printf("%s\n", r.text(i, 0).c_str());
    }
    return 0;
  }
  std::vector<QueryRun> runs;
  for (int q = 1; q <= 22; ++q) {
    if (only && q != only) continue;
    char name[16];
    std::snprintf(name, sizeof(name), "q%02d", q);
    QueryRun run;
    run.number = q;
    run.sql = queryText(src, q);
    const std::string& sql = run.sql;
    try {
      for (int i = 0; i < repeat; ++i) {
        auto start = Clock::now();
        QueryResult r = con.execute(sql);
        double wallMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        double compileMs = r.times.codegen + r.times.optimize + r.times.machineCode;
        run.rows = r.rowCount();
        run.compileMs = i ? std::min(run.compileMs, compileMs) : compileMs;
        run.executeMs = i ? std::min(run.executeMs, r.times.execute) : r.times.execute;
        if (i == 0) {
          run.firstCompileMs = compileMs;
          run.firstExecuteMs = r.times.execute;
          run.firstMorselMs = r.times.parse + r.times.plan + compileMs;
          run.endToEndMs = wallMs;
          run.detail = bench::checkAnswer(r, (answers / (std::string(name) + ".csv")).string());
        }
      }
      run.status = run.detail.empty() ? "ok" : "FAIL";
    } catch (const Error& e) {
      run.status = e.sqlstate() == "0A000" ? "unsupported" : "error";
      run.detail = e.sqlstate() + ": " + e.message();
      run.compileMs = run.executeMs = run.firstCompileMs = run.firstExecuteMs = run.endToEndMs = run.firstMorselMs = 0;
    }
    runs.push_back(run);
  }

  std::vector<PeerInfo> peers;
  if (vm.count("peers")) {
    std::vector<std::string> names;
    std::stringstream list(vm["peers"].as<std::string>());
    for (std::string p; std::getline(list, p, ',');) names.push_back(p);
    runPeers(names, vm["peer-limit"].as<double>(), peerThreads, sf, src, data, repeat, runs, peers, json);
  }

  // Geometric means over the queries hyrax answered right; a peer's over those it also ran.
  int ok = 0, wrong = 0, unsupported = 0;
  std::vector<double> compile, execute, firstCompile, firstExecute, endToEnd, firstMorsel;
  for (auto& r : runs) {
    ok += r.status == "ok";
    unsupported += r.status == "unsupported";
    wrong += r.status == "FAIL" || r.status == "error";
    if (r.status != "ok") continue;
    compile.push_back(r.compileMs);
    execute.push_back(r.executeMs);
    firstCompile.push_back(r.firstCompileMs);
    firstExecute.push_back(r.firstExecuteMs);
    endToEnd.push_back(r.endToEndMs);
    firstMorsel.push_back(r.firstMorselMs);
  }
  const double medianFirstMorsel = median(firstMorsel);
  const int exitCode = wrong == 0 && (unsupported == 0 || vm.count("test")) ? 0 : 1;
  // Per peer: its first runs, its best runs, the first runs over hyrax's end to end, and the best
  // runs over hyrax's best compile + execute.
  struct PeerSummary {
    double first = 0, best = 0, endToEndRatio = 0, bestRatio = 0;
    int n = 0;
  };
  std::vector<PeerSummary> peerSum(peers.size());
  for (size_t p = 0; p < peers.size(); ++p) {
    std::vector<double> first, best, e2eRatio, bestRatio;
    for (auto& r : runs)
      if (r.status == "ok" && r.peers[p].problem.empty()) {
        first.push_back(r.peers[p].firstMs);
        best.push_back(r.peers[p].bestMs);
        e2eRatio.push_back(std::max(r.peers[p].firstMs, 1e-3) / std::max(r.endToEndMs, 1e-3));
        bestRatio.push_back(std::max(r.peers[p].bestMs, 1e-3) / std::max(r.compileMs + r.executeMs, 1e-3));
      }
    peerSum[p] = {geomean(first), geomean(best), geomean(e2eRatio), geomean(bestRatio), static_cast<int>(first.size())};
  }

  if (json) {
    std::printf("{\"sf\": %s, \"threads\": %d, \"peer_threads\": %d, \"repeat\": %d, \"load_ms\": %.1f, \"queries\": [",
                sfName(sf).c_str(), threads, peerThreads, repeat, loadMs);
    for (size_t i = 0; i < runs.size(); ++i) {
      auto& r = runs[i];
      std::printf("%s\n {\"query\": %d, \"status\": \"%s\", \"rows\": %llu, \"compile_ms\": %.3f, \"execute_ms\": %.3f, "
                  "\"first_compile_ms\": %.3f, \"first_execute_ms\": %.3f, \"end_to_end_ms\": %.3f, \"first_morsel_ms\": %.3f, "
                  "\"detail\": \"%s\"",
                  i ? "," : "", r.number, r.status.c_str(), static_cast<unsigned long long>(r.rows), r.compileMs,
                  r.executeMs, r.firstCompileMs, r.firstExecuteMs, r.endToEndMs, r.firstMorselMs, jsonEscape(r.detail).c_str());
      for (size_t p = 0; p < peers.size(); ++p) {
        const PeerRun& pr = r.peers[p];
        std::printf(", \"peer%zu_ms\": %.3f, \"peer%zu_first_ms\": %.3f", p, pr.problem.empty() ? pr.bestMs : -1.0, p,
                    pr.problem.empty() ? pr.firstMs : -1.0);
        if (!pr.problem.empty()) std::printf(", \"peer%zu_problem\": \"%s\"", p, jsonEscape(pr.problem).c_str());
      }
      std::printf("}");
    }
    std::printf("\n], \"ok\": %d, \"geomean_compile_ms\": %.3f, \"geomean_execute_ms\": %.3f, "
                "\"geomean_first_compile_ms\": %.3f, \"geomean_first_execute_ms\": %.3f, \"geomean_end_to_end_ms\": %.3f, "
                "\"median_first_morsel_ms\": %.3f",
                ok, geomean(compile), geomean(execute), geomean(firstCompile), geomean(firstExecute), geomean(endToEnd),
                medianFirstMorsel);
    for (size_t p = 0; p < peers.size(); ++p)
      std::printf(", \"peer%zu\": \"%s\", \"peer%zu_load_ms\": %.1f, \"peer%zu_queries\": %d, \"peer%zu_geomean_first_ms\": %.3f, "
                  "\"peer%zu_geomean_ms\": %.3f, \"peer%zu_geomean_end_to_end_ratio\": %.3f, \"peer%zu_geomean_ratio\": %.3f",
                  p, jsonEscape(peers[p].name).c_str(), p, peers[p].loadMs, p, peerSum[p].n, p, peerSum[p].first, p,
                  peerSum[p].best, p, peerSum[p].endToEndRatio, p, peerSum[p].bestRatio);
    std::printf("}\n");
    return exitCode;
  }

  std::printf("%-8s %11s %11s %11s %11s %11s %8s", "", "end to end", "first run", "first run", "best of", "best of", "");
  for (size_t p = 0; p < peers.size(); ++p) std::printf(" %11s %11s %7s", ("peer" + std::to_string(p + 1)).c_str(), "", "");
  std::printf("\n%-8s %11s %11s %11s %11s %11s %8s", "query", "ms", "compile ms", "execute ms", "compile ms", "execute ms",
              "rows");
  for (size_t p = 0; p < peers.size(); ++p) std::printf(" %11s %11s %7s", "first ms", "best ms", "ratio");
  std::printf("  result\n");
  for (auto& r : runs) {
    std::printf("Q%-7d %11.2f %11.2f %11.2f %11.2f %11.2f %8llu", r.number, r.endToEndMs, r.firstCompileMs,
                r.firstExecuteMs, r.compileMs, r.executeMs, static_cast<unsigned long long>(r.rows));
    for (auto& pr : r.peers) {
      if (pr.problem.empty())
        std::printf(" %11.2f %11.2f %7.2f", pr.firstMs, pr.bestMs, pr.firstMs / std::max(r.endToEndMs, 1e-3));
      else
        std::printf(" %11s %11s %7s", "-", "-", "-");
    }
    std::printf("  %s%s%s", r.status.c_str(), r.detail.empty() ? "" : ": ", r.detail.c_str());
    for (size_t p = 0; p < r.peers.size(); ++p)
      if (!r.peers[p].problem.empty()) std::printf(" [peer%zu: %s]", p + 1, r.peers[p].problem.c_str());
    std::printf("\n");
  }
  std::printf("%-8s %11.2f %11.2f %11.2f %11.2f %11.2f %8s", "geomean", geomean(endToEnd), geomean(firstCompile),
              geomean(firstExecute), geomean(compile), geomean(execute), "");
  for (auto& s : peerSum) std::printf(" %11.2f %11.2f %7.2f", s.first, s.best, s.endToEndRatio);
  std::printf("\n\n%d ok, %d unsupported, %d wrong or failed; geometric means over the ok queries. End to end: the "
              "query text's first run in this process, wall time from the text to the last row (parse, plan, compile, "
              "execute); first run: that run's compile and execute; best of %d: the best of the runs. hyrax threads: %d.\n",
              ok, unsupported, wrong, repeat, threads);
  std::printf("Time to the first morsel (the first run's parse, plan and compile; the cheap code's when compiled "
              "adaptively): median %.2f ms, geometric mean %.2f ms.\n",
              medianFirstMorsel, geomean(firstMorsel));
  for (size_t p = 0; p < peers.size(); ++p)
    std::printf("peer%zu = %s (loaded in %.0f ms), over %d queries: its first runs over hyrax's end to end %.2f; "
                "its best over hyrax's best compile + execute %.2f\n",
                p + 1, peers[p].name.c_str(), peers[p].loadMs, peerSum[p].n, peerSum[p].endToEndRatio,
                peerSum[p].bestRatio);
  if (!peers.empty())
    std::printf("Peer times: wall time at the client from the text to the last row; ratio: the peer's first run over "
                "hyrax's end to end (above 1: hyrax is faster). Peer threads: %d.\n",
                peerThreads);
  return exitCode;
}

}  // namespace

int hyrax::bench::runTpch(int argc, char** argv) { return tpch(argc, argv); }
