// hyrax-bench groupby: GROUP BY over one big table, from 10 to 10M groups, on hyrax at each
// thread count beside PostgreSQL running the same SQL as one backend, in the same run.
//   hyrax-bench groupby [--rows 30000000] [--threads 1,2] [--engines hyrax,postgresql] [--repeat R] [--json]
// The table g(k10, k1k, k100k, k10m INTEGER, v BIGINT, d DOUBLE PRECISION) holds `rows` rows of
// pseudo-random values (a fixed seed): each key column a uniform number below its name's count.
// Both engines load the same CSV file with COPY; PostgreSQL is then analyzed and gets work_mem
// enough to aggregate in memory (4GB). Queries over 100k groups and more aggregate in a subquery
// and return two numbers, so that neither engine's time is its client's reading of millions of
// rows. Each query's count and integer sum are compared between the engines.
#include <pqxx/pqxx>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "bench/benchmarks.hpp"
#include "bench/options.hpp"
#include "bench/pg_server.hpp"
#include "sql/api/database.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace hyrax::bench {

namespace {

struct GroupQuery {
  const char* name;
  const char* groups;  // as the report prints it
  const char* sql;
};

const GroupQuery kQueries[] = {
    {"10 groups", "10", "SELECT k10, count(*), sum(v), avg(d) FROM g GROUP BY k10 ORDER BY k10"},
    {"1k groups", "1,000", "SELECT k1k, count(*), sum(v), avg(d) FROM g GROUP BY k1k ORDER BY k1k"},
    {"two keys, 10k groups", "10,000", "SELECT k10, k1k, count(*), sum(v) FROM g GROUP BY k10, k1k ORDER BY k10, k1k"},
    {"100k groups", "100,000",
     "SELECT count(*), sum(s) FROM (SELECT k100k, sum(v) AS s, min(d) AS lo, max(d) AS hi FROM g GROUP BY k100k) x"},
    {"10M groups", "~10,000,000", "SELECT count(*), sum(s) FROM (SELECT k10m, sum(v) AS s, count(*) AS c FROM g GROUP BY k10m) x"},
};

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// The table as CSV, written to `path` a block at a time.
void writeData(const fs::path& path, uint64_t rows) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  std::string block;
  char buf[32];
  uint64_t seed = 42;
  auto put = [&](uint64_t x, char end) {
    auto r = std::to_chars(buf, buf + sizeof buf, x);
    block.append(buf, r.ptr);
    block.push_back(end);
  };
  for (uint64_t i = 0; i < rows; ++i) {
    put(splitmix(seed) % 10, ',');
    put(splitmix(seed) % 1000, ',');
    put(splitmix(seed) % 100000, ',');
    put(splitmix(seed) % 10000000, ',');
    put(splitmix(seed) % 1000000, ',');
    uint64_t cents = splitmix(seed) % 100000;
    put(cents / 100, '.');
    put(cents % 100, '\n');
    if (block.size() > (8u << 20)) {
      out.write(block.data(), static_cast<std::streamsize>(block.size()));
      block.clear();
    }
  }
  out.write(block.data(), static_cast<std::streamsize>(block.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

const char* kSchema = "CREATE TABLE g (k10 INTEGER, k1k INTEGER, k100k INTEGER, k10m INTEGER, v BIGINT, d DOUBLE PRECISION)";

struct Result {
  std::string engine;
  uint32_t threads = 1;
  double loadMs = 0;
  std::vector<double> ms;           // per query, best of the repeats
  std::vector<std::string> checks;  // per query: "count|sum" of its first row's integer columns
};

// The count and integer sum a query's result shows, to compare engines (its last row for the
// ordered ones: the same row on both).
std::string checkOf(const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return "";
  const auto& r = rows.back();
  std::string s;
  for (const auto& f : r)
    if (f.find('.') == std::string::npos) s += f + "|";  // integers; averages differ in their digits
  return s;
}

}  // namespace

int runGroupBy(int argc, char** argv) {
  po::options_description desc("hyrax-bench groupby options");
  desc.add_options()("help", "this text")("rows", po::value<uint64_t>()->default_value(30'000'000), "rows in the table")(
      "threads", po::value<std::string>()->default_value("1,2"), "hyrax's thread counts, comma-separated")(
      "engines", po::value<std::string>()->default_value("hyrax,postgresql"), "hyrax and/or postgresql")(
      "repeat", po::value<int>()->default_value(3), "report the best of R runs")("json", "machine-readable output");
  po::variables_map vm;
  if (!parseOptions(desc, argc, argv, vm, "usage: hyrax-bench groupby [options]\n")) return 0;
  const uint64_t rows = vm["rows"].as<uint64_t>();
  const int repeat = std::max(1, vm["repeat"].as<int>());
  const bool json = vm.count("json") > 0;
  const std::string engines = vm["engines"].as<std::string>();
  std::vector<uint32_t> threads;
  {
    std::stringstream ss(vm["threads"].as<std::string>());
    for (std::string t; std::getline(ss, t, ',');) threads.push_back(static_cast<uint32_t>(std::stoul(t)));
  }
  const bool withPostgres = engines.find("postgresql") != std::string::npos;
  if (withPostgres && !PgServer::available()) {
    std::cerr << "hyrax-bench groupby: PostgreSQL's server programs are not installed\n";
    return 1;
  }

  const fs::path work = fs::temp_directory_path() / ("hyrax-groupby-" + std::to_string(getpid()));
  fs::create_directories(work);
  std::unique_ptr<PgServer> pg;
  if (withPostgres) pg = std::make_unique<PgServer>(work / "pg");
  const fs::path data = withPostgres ? pg->writeFile("g.csv", "") : work / "g.csv";
  auto t = Clock::now();
  writeData(data, rows);
  if (!json) std::printf("generated %llu rows in %.0f ms (%s)\n", static_cast<unsigned long long>(rows), msSince(t), data.c_str());

  std::vector<Result> results;
  if (engines.find("hyrax") != std::string::npos) {
    Database db;
    Connection con(db);
    con.execute(kSchema);
    t = Clock::now();
    con.execute("COPY g FROM '" + data.string() + "' (FORMAT csv)");
    const double loadMs = msSince(t);
    con.execute("SET analytics = 'inline'");  // the query itself, not a snapshot's fork
    for (uint32_t n : threads) {
      Result r;
      r.engine = "hyrax";
      r.threads = n;
      r.loadMs = loadMs;
      con.execute("SET threads = " + std::to_string(n));
      for (const GroupQuery& q : kQueries) {
        double best = 1e300;
        std::vector<std::vector<std::string>> out;
        for (int i = 0; i < repeat; ++i) {
          auto s = Clock::now();
          QueryResult qr = con.execute(q.sql);
          best = std::min(best, msSince(s));
          out.clear();
          for (uint64_t row = 0; row < qr.rowCount(); ++row) {
            out.emplace_back();
            for (size_t c = 0; c < qr.columns().size(); ++c) out.back().push_back(qr.text(row, c));
          }
        }
        r.ms.push_back(best);
        r.checks.push_back(checkOf(out));
      }
      results.push_back(std::move(r));
    }
  }
  if (withPostgres) {
    pqxx::connection con(pg->connectionString());
    pqxx::nontransaction tx(con);
    tx.exec(kSchema);
    Result r;
    r.engine = "PostgreSQL " + tx.exec1("SHOW server_version")[0].as<std::string>();
    r.engine = r.engine.substr(0, r.engine.find(' ', 11));
    t = Clock::now();
    tx.exec("COPY g FROM '" + data.string() + "' (FORMAT csv)");
    r.loadMs = msSince(t);
    tx.exec("VACUUM ANALYZE g");
    tx.exec("SET work_mem = '4GB'");  // aggregate in memory, as hyrax does
    for (const GroupQuery& q : kQueries) {
      double best = 1e300;
      std::vector<std::vector<std::string>> out;
      for (int i = 0; i < repeat; ++i) {
        auto s = Clock::now();
        pqxx::result pr = tx.exec(q.sql);
        best = std::min(best, msSince(s));
        out.clear();
        for (const auto& row : pr) {
          out.emplace_back();
          for (const auto& f : row) out.back().push_back(f.is_null() ? "NULL" : f.c_str());
        }
      }
      r.ms.push_back(best);
      r.checks.push_back(checkOf(out));
    }
    results.push_back(std::move(r));
  }
  fs::remove_all(work);

  const Result* reference = withPostgres ? &results.back() : nullptr;
  if (json) {
    std::printf("[");
    for (size_t e = 0; e < results.size(); ++e) {
      const Result& r = results[e];
      std::printf("%s\n {\"engine\": \"%s\", \"threads\": %u, \"rows\": %llu, \"load_ms\": %.1f, \"queries\": [", e ? "," : "",
                  r.engine.c_str(), r.threads, static_cast<unsigned long long>(rows), r.loadMs);
      for (size_t q = 0; q < r.ms.size(); ++q)
        std::printf("%s{\"query\": \"%s\", \"ms\": %.2f%s}", q ? ", " : "", kQueries[q].name, r.ms[q],
                    reference && reference != &r
                        ? (", \"speedup_vs_postgresql\": " + std::to_string(reference->ms[q] / r.ms[q]) +
                           ", \"answer_equal\": " + (reference->checks[q] == r.checks[q] ? "true" : "false"))
                              .c_str()
                        : "");
      std::printf("]}");
    }
    std::printf("\n]\n");
    return 0;
  }
  std::printf("\n| query | groups |");
  for (const Result& r : results) std::printf(" %s%s ms |", r.engine.c_str(), r.engine == "hyrax" ? (", " + std::to_string(r.threads) + " thr").c_str() : "");
  if (reference) std::printf(" PostgreSQL / hyrax |");
  std::printf("\n|---|---:|");
  for (size_t e = 0; e < results.size(); ++e) std::printf("---:|");
  if (reference) std::printf("---|");
  std::printf("\n");
  bool allEqual = true;
  for (size_t q = 0; q < std::size(kQueries); ++q) {
    std::printf("| %s | %s |", kQueries[q].name, kQueries[q].groups);
    for (const Result& r : results) std::printf(" %.1f |", r.ms[q]);
    if (reference) {
      std::printf(" ");
      for (const Result& r : results)
        if (&r != reference) {
          std::printf("%.1fx ", reference->ms[q] / r.ms[q]);
          allEqual = allEqual && r.checks[q] == reference->checks[q];
        }
      std::printf("|");
    }
    std::printf("\n");
  }
  for (size_t e = 0; e < results.size(); ++e)  // one line per engine (hyrax's thread counts share a load)
    if (e == 0 || results[e].engine != results[e - 1].engine)
      std::printf("%s load (COPY of the CSV): %.0f ms\n", results[e].engine.c_str(), results[e].loadMs);
  if (reference) std::printf("answers (counts and integer sums): %s\n", allEqual ? "equal" : "DIFFERENT");
  return reference && !allEqual ? 1 : 0;
}

}  // namespace hyrax::bench
