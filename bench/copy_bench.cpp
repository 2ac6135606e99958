// hyrax-bench copy: COPY FROM of TPC-H's lineitem file (dbgen's text: '|'-separated) at each
// thread count, in the text and the csv format, beside PostgreSQL loading the same file into the
// same table (its primary key included) in the same run.
//   hyrax-bench copy [--sf 1] [--threads 1,2] [--formats text,csv] [--engines hyrax,postgresql] [--repeat 2] [--json]
// Each load goes into a fresh table of a fresh database; the figure is the best of the repeats,
// with rows/s and MB/s of the file. Rows loaded are compared between all runs.
#include <pqxx/pqxx>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "bench/benchmarks.hpp"
#include "bench/options.hpp"
#include "bench/pg_server.hpp"
#include "bench/read_file.hpp"
#include "bench/tpch/tpch_data.hpp"
#include "sql/api/database.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace hyrax::bench {

namespace {

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// The CREATE TABLE lineitem of the TPC-H bench's schema.
std::string lineitemSchema() {
  std::string schema = readFile(fs::path(HYRAX_SOURCE_DIR) / "bench/tpch/schema.sql");
  size_t start = schema.find("CREATE TABLE lineitem");
  if (start == std::string::npos) throw std::runtime_error("bench/tpch/schema.sql has no lineitem");
  return schema.substr(start, schema.find(';', start) - start);
}

std::string copyOptions(const std::string& format) {
  return format == "csv" ? "(FORMAT csv, DELIMITER '|')" : "(DELIMITER '|')";
}

struct Run {
  std::string engine, format;
  uint32_t threads = 1;
  double bestMs = 1e300;
  uint64_t rows = 0;
};

}  // namespace

int runCopy(int argc, char** argv) {
  double sf = 1;
  int repeat = 2;
  std::string threadList = "1,2", formatList = "text,csv", engines = "hyrax,postgresql";
  std::string dataRoot = std::string(HYRAX_BINARY_DIR) + "/tpch-data";
  po::options_description desc("usage: hyrax-bench copy [options]\nOptions");
  desc.add_options()("help,h", "show this help")("sf", po::value(&sf), "TPC-H scale factor of the lineitem file (default 1)")(
      "threads", po::value(&threadList), "hyrax's thread counts (SET threads), comma-separated (default 1,2)")(
      "formats", po::value(&formatList), "COPY formats: text,csv (both read the '|'-separated file)")(
      "engines", po::value(&engines), "hyrax,postgresql (PostgreSQL: one backend, the same file and table)")(
      "repeat", po::value(&repeat), "loads per configuration; the best is reported (default 2)")(
      "data", po::value(&dataRoot), "where generated data is kept")("json", "machine-readable output");
  po::variables_map vm;
  if (!parseOptions(desc, argc, argv, vm)) return 0;
  const bool json = vm.count("json") > 0;
  const fs::path dir = fs::path(dataRoot) / ("sf" + sfName(sf));
  makeTpchData(dir, sf);
  fs::path file = dir / "lineitem.tbl";
  const std::string schema = lineitemSchema();
  std::vector<Run> runs;

  // Both engines read one file, without dbgen's '|' at each line's end (PostgreSQL takes it for an
  // extra column), where PostgreSQL's server may read it.
  const fs::path work = fs::temp_directory_path() / ("hyrax-copy-" + std::to_string(getpid()));
  fs::create_directories(work);
  std::unique_ptr<PgServer> pg;
  if (engines.find("postgresql") != std::string::npos) {
    if (!PgServer::available()) throw std::runtime_error("PostgreSQL is not installed (scripts/setup.sh installs it)");
    pg = std::make_unique<PgServer>(work / "pg");
  }
  const fs::path trimmed = pg ? pg->writeFile("lineitem.tbl", "") : work / "lineitem.tbl";
  {
    std::ifstream in(file, std::ios::binary);
    std::ofstream out(trimmed, std::ios::binary | std::ios::trunc);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.back() == '|') line.pop_back();
      out << line << '\n';
    }
    if (!out) throw std::runtime_error("cannot write " + trimmed.string());
  }
  file = trimmed;
  const double mb = static_cast<double>(fs::file_size(file)) / (1 << 20);
  for (const std::string& format : splitList(formatList)) {
    const std::string copy = "COPY lineitem FROM '" + file.string() + "' " + copyOptions(format);
    if (engines.find("hyrax") != std::string::npos)
      for (const std::string& t : splitList(threadList)) {
        Run r{"hyrax", format, static_cast<uint32_t>(std::stoul(t))};
        for (int i = 0; i < repeat; ++i) {
          Database db;
          Connection con(db);
          con.execute("SET threads = " + t);
          con.execute(schema);
          auto start = Clock::now();
          QueryResult q = con.execute(copy);
          r.bestMs = std::min(r.bestMs, msSince(start));
          r.rows = std::stoull(q.tag().substr(5));
        }
        runs.push_back(r);
        if (!json) std::fprintf(stderr, "hyrax %s, %u threads: %.0f ms\n", format.c_str(), r.threads, r.bestMs);
      }
    if (pg) {
      Run r{"postgresql", format, 1};
      pqxx::connection con(pg->connectionString());
      for (int i = 0; i < repeat; ++i) {
        pqxx::nontransaction tx(con);
        tx.exec("DROP TABLE IF EXISTS lineitem");
        tx.exec(schema);
        auto start = Clock::now();
        pqxx::result res = tx.exec(copy);
        r.bestMs = std::min(r.bestMs, msSince(start));
        r.rows = res.affected_rows();
      }
      runs.push_back(r);
      if (!json) std::fprintf(stderr, "PostgreSQL %s: %.0f ms\n", format.c_str(), r.bestMs);
    }
  }
  bool same = std::all_of(runs.begin(), runs.end(), [&](const Run& r) { return r.rows == runs.front().rows; });
  if (json) {
    std::printf("[");
    for (size_t i = 0; i < runs.size(); ++i)
      std::printf("%s\n {\"engine\": \"%s\", \"format\": \"%s\", \"threads\": %u, \"rows\": %llu, \"mb\": %.1f, \"load_ms\": %.1f}",
                  i ? "," : "", runs[i].engine.c_str(), runs[i].format.c_str(), runs[i].threads,
                  static_cast<unsigned long long>(runs[i].rows), mb, runs[i].bestMs);
    std::printf("\n]\n");
  } else {
    std::printf("COPY lineitem FROM lineitem.tbl (SF %s, %.0f MB), best of %d, fresh table with its primary key each time\n",
                sfName(sf).c_str(), mb, repeat);
    std::printf("%-11s %-5s %8s %10s %10s %8s %s\n", "engine", "form", "threads", "ms", "rows/s", "MB/s", "vs PostgreSQL");
    for (const Run& r : runs) {
      double pgMs = 0;
      for (const Run& p : runs)
        if (p.engine == "postgresql" && p.format == r.format) pgMs = p.bestMs;
      std::printf("%-11s %-5s %8u %10.0f %10.0f %8.1f", r.engine.c_str(), r.format.c_str(), r.threads, r.bestMs,
                  static_cast<double>(r.rows) / r.bestMs * 1000, mb / r.bestMs * 1000);
      if (pgMs > 0 && r.engine != "postgresql") std::printf(" %10.2fx", pgMs / r.bestMs);
      std::printf("\n");
    }
    if (!same) std::printf("ROWS DIFFER between runs\n");
  }
  pg.reset();
  fs::remove_all(work);
  return same ? 0 : 1;
}

}  // namespace hyrax::bench
