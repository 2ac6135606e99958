// hyrax-bench tpch: makes TPC-H data with tpchgen-cli when missing, loads it with COPY, runs the
// 22 queries, checks each answer, and prints compile and execute times per query.
//   hyrax-bench tpch --sf 0.01 [--query N] [--repeat R] [--json] [--data DIR] [--test]
//                    [--peers postgres,sqlite] [--peer-limit S] [--analytics inline|snapshot] [--explain]
// --peers runs the same queries on PostgreSQL and/or SQLite in the same run and prints each
// one's time and its ratio to hyrax's (compile + execute, what a user waits for).
// --test (what ctest runs): exit non-zero when a query gives a wrong answer or fails with anything
// but "not supported yet" (0A000); queries that need unimplemented SQL are reported, not hidden.
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
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
#include "engine/catalog/catalog.hpp"
#include "engine/storage/table.hpp"
#include "sql/api/database.hpp"

namespace fs = std::filesystem;
namespace po = boost::program_options;
using namespace hyrax;
using hyrax::bench::readFile;
using Clock = std::chrono::steady_clock;

namespace {

std::string sfName(double sf) {
  std::ostringstream os;
  os << sf;
  return os.str();
}

void makeData(const fs::path& dir, double sf) {
  if (fs::exists(dir / "lineitem.tbl")) return;
  fs::create_directories(dir);
  fs::path tool = fs::path(HYRAX_SOURCE_DIR) / ".tools/bin/tpchgen-cli";
  std::string exe = fs::exists(tool) ? tool.string() : "tpchgen-cli";
  std::string cmd = exe + " -s " + sfName(sf) + " --output-dir '" + dir.string() + "' >/dev/null";
  std::fprintf(stderr, "generating TPC-H SF %s into %s\n", sfName(sf).c_str(), dir.c_str());
  if (std::system(cmd.c_str()) != 0 || !fs::exists(dir / "lineitem.tbl"))
    throw std::runtime_error("tpchgen-cli failed (run scripts/setup.sh to install it): " + cmd);
}

struct PeerRun {
  double ms = 0;        // best of the repeats; 0 when it failed
  std::string problem;  // why it failed (or ran past the limit)
};

struct QueryRun {
  int number = 0;
  std::string sql;
  std::string status;  // ok, FAIL (wrong answer), unsupported, error
  std::string detail;
  uint64_t rows = 0;
  double compileMs = 0, executeMs = 0;
  std::vector<PeerRun> peers;
};

std::string queryText(const fs::path& src, int q) {
  char name[16];
  std::snprintf(name, sizeof(name), "q%02d", q);
  return readFile(src / "queries" / (std::string(name) + ".sql"));
}

// Runs the queries on each peer; fills QueryRun::peers in the order of `peers`.
void runPeers(const std::vector<std::string>& peers, double limit, double sf, const fs::path& src, const fs::path& data,
              int repeat, std::vector<QueryRun>& runs, std::vector<std::string>& names, bool quiet) {
  for (auto& p : peers) {
    std::unique_ptr<bench::Peer> peer;
    if (p == "sqlite")
      peer = bench::makeSqlitePeer(limit);
    else if (p == "postgres")
      peer = bench::makePostgresPeer(fs::temp_directory_path() / ("hyrax-bench-pg-" + std::to_string(getpid())), limit);
    else
      throw std::runtime_error("unknown peer " + p + " (postgres, sqlite)");
    names.push_back(peer->name());
    if (!quiet) std::fprintf(stderr, "%s: loading SF %s ...\n", names.back().c_str(), sfName(sf).c_str());
    double loadMs = peer->load(readFile(src / "schema.sql"), data);
    if (!quiet) std::fprintf(stderr, "%s: loaded in %.0f ms\n", names.back().c_str(), loadMs);
    for (auto& run : runs) {
      PeerRun pr;
      pr.ms = 1e300;
      for (int i = 0; i < repeat && pr.problem.empty(); ++i) {
        try {
          uint64_t rows = 0;
          pr.ms = std::min(pr.ms, peer->run(run.number, run.sql, rows));
          if (rows != run.rows && run.status == "ok") pr.problem = std::to_string(rows) + " rows";
        } catch (const std::exception& e) {
          pr.problem = e.what();
        }
      }
      if (!pr.problem.empty()) pr.ms = 0;
      if (!quiet) std::fprintf(stderr, "%s: Q%d %s\n", names.back().c_str(), run.number, pr.problem.empty() ? "done" : pr.problem.c_str());
      run.peers.push_back(pr);
    }
  }
}

int tpch(int argc, char** argv) {
  double sf = 1;
  int only = 0, repeat = 1;
  std::string dataRoot = std::string(HYRAX_BINARY_DIR) + "/tpch-data";
  po::options_description desc("usage: hyrax-bench tpch [options]\nOptions");
  desc.add_options()("help,h", "show this help")("sf", po::value(&sf), "scale factor (default 1)")(
      "query", po::value(&only), "run only query N")("repeat", po::value(&repeat), "report the best of R runs")(
      "json", "machine-readable output")("data", po::value(&dataRoot), "where generated data is kept")(
      "test", "exit non-zero on a wrong answer or an unexpected error")(
      "peers", po::value<std::string>(), "also run on these engines: postgres,sqlite")(
      "peer-limit", po::value<double>()->default_value(60), "seconds a peer may take per query")(
      "analytics", po::value<std::string>()->default_value("inline"),
      "where the queries run: inline, or snapshot (each in a child forked after the load; times are the child's)")(
      "explain", "print each query's EXPLAIN after the load and run nothing (to compare plans between builds)");
  po::variables_map vm;
  if (!bench::parseOptions(desc, argc, argv, vm)) return 0;
  const bool json = vm.count("json") > 0;
  const fs::path src = fs::path(HYRAX_SOURCE_DIR) / "bench/tpch";
  const fs::path data = fs::path(dataRoot) / ("sf" + sfName(sf));
  const fs::path answers = src / "answers" / ("sf" + sfName(sf));
  makeData(data, sf);

  Database db;
  Connection con(db);
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
    run.compileMs = run.executeMs = 1e300;
    try {
      for (int i = 0; i < repeat; ++i) {
        QueryResult r = con.execute(sql);
        run.rows = r.rowCount();
        run.compileMs = std::min(run.compileMs, r.times.codegen + r.times.optimize + r.times.machineCode);
        run.executeMs = std::min(run.executeMs, r.times.execute);
        if (i == 0) run.detail = bench::checkAnswer(r, (answers / (std::string(name) + ".csv")).string());
      }
      run.status = run.detail.empty() ? "ok" : "FAIL";
    } catch (const Error& e) {
      run.status = e.sqlstate() == "0A000" ? "unsupported" : "error";
      run.detail = e.sqlstate() + ": " + e.message();
      run.compileMs = run.executeMs = 0;
    }
    runs.push_back(run);
  }

  std::vector<std::string> peerNames;
  if (vm.count("peers")) {
    std::vector<std::string> peers;
    std::stringstream list(vm["peers"].as<std::string>());
    for (std::string p; std::getline(list, p, ',');) peers.push_back(p);
    runPeers(peers, vm["peer-limit"].as<double>(), sf, src, data, repeat, runs, peerNames, json);
  }
  // Per peer: the geometric mean of its time over hyrax's (compile + execute), where both ran.
  std::vector<double> peerGeo(peerNames.size(), 0);
  for (size_t p = 0; p < peerNames.size(); ++p) {
    double log = 0;
    int n = 0;
    for (auto& r : runs)
      if (r.status == "ok" && r.peers[p].problem.empty()) {
        log += std::log(std::max(r.peers[p].ms, 1e-3) / std::max(r.compileMs + r.executeMs, 1e-3));
        ++n;
      }
    peerGeo[p] = n ? std::exp(log / n) : 0;
  }

  int ok = 0, wrong = 0, unsupported = 0;
  double logCompile = 0, logExecute = 0;
  for (auto& r : runs) {
    ok += r.status == "ok";
    unsupported += r.status == "unsupported";
    wrong += r.status == "FAIL" || r.status == "error";
    if (r.status == "ok") {
      logCompile += std::log(std::max(r.compileMs, 1e-3));
      logExecute += std::log(std::max(r.executeMs, 1e-3));
    }
  }
  double geoCompile = ok ? std::exp(logCompile / ok) : 0, geoExecute = ok ? std::exp(logExecute / ok) : 0;
  if (json) {
    std::printf("{\"sf\": %s, \"load_ms\": %.1f, \"queries\": [", sfName(sf).c_str(), loadMs);
    for (size_t i = 0; i < runs.size(); ++i) {
      auto& r = runs[i];
      std::string detail;
      for (char c : r.detail) detail += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
      std::printf("%s\n {\"query\": %d, \"status\": \"%s\", \"rows\": %llu, \"compile_ms\": %.3f, \"execute_ms\": %.3f, \"detail\": \"%s\"",
                  i ? "," : "", r.number, r.status.c_str(), static_cast<unsigned long long>(r.rows), r.compileMs, r.executeMs,
                  detail.c_str());
      for (size_t p = 0; p < peerNames.size(); ++p)
        std::printf(", \"peer%zu_ms\": %.3f", p, r.peers[p].problem.empty() ? r.peers[p].ms : -1.0);
      std::printf("}");
    }
    std::printf("\n], \"ok\": %d, \"geomean_compile_ms\": %.3f, \"geomean_execute_ms\": %.3f", ok, geoCompile, geoExecute);
    for (size_t p = 0; p < peerNames.size(); ++p)
      std::printf(", \"peer%zu\": \"%s\", \"peer%zu_geomean_ratio\": %.3f", p, peerNames[p].c_str(), p, peerGeo[p]);
    std::printf("}\n");
  } else {
    std::printf("%-6s %12s %12s %8s", "query", "compile ms", "execute ms", "rows");
    for (size_t p = 0; p < peerNames.size(); ++p) std::printf(" %12s %7s", ("peer" + std::to_string(p + 1) + " ms").c_str(), "ratio");
    std::printf("  result\n");
    for (auto& r : runs) {
      std::printf("Q%-5d %12.2f %12.2f %8llu", r.number, r.compileMs, r.executeMs, static_cast<unsigned long long>(r.rows));
      for (auto& pr : r.peers) {
        if (pr.problem.empty())
          std::printf(" %12.2f %7.2f", pr.ms, pr.ms / std::max(r.compileMs + r.executeMs, 1e-3));
        else
          std::printf(" %12s %7s", "-", "-");
      }
      std::printf("  %s%s%s", r.status.c_str(), r.detail.empty() ? "" : ": ", r.detail.c_str());
      for (size_t p = 0; p < r.peers.size(); ++p)
        if (!r.peers[p].problem.empty()) std::printf(" [peer%zu: %s]", p + 1, r.peers[p].problem.c_str());
      std::printf("\n");
    }
    std::printf("\n%d ok, %d unsupported, %d wrong or failed; geometric mean over the ok queries: compile %.2f ms, "
                "execute %.2f ms\n",
                ok, unsupported, wrong, geoCompile, geoExecute);
    for (size_t p = 0; p < peerNames.size(); ++p)
      std::printf("peer%zu = %s: geometric mean of its time over hyrax's (compile + execute): %.2f\n", p + 1,
                  peerNames[p].c_str(), peerGeo[p]);
  }
  if (vm.count("test")) return wrong == 0 ? 0 : 1;
  return wrong == 0 && unsupported == 0 ? 0 : 1;
}

}  // namespace

int hyrax::bench::runTpch(int argc, char** argv) { return tpch(argc, argv); }
