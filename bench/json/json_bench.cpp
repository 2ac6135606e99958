// hyrax-bench json: sparse newline-delimited JSON into columns (issue 18), beside DuckDB's
// read_json on the same file.
//   hyrax-bench json [--rows 1000000] [--threads 1,2] [--repeat 5] [--file F] [--no-duckdb] [--json]
// Generates (once per row count, deterministic) objects with up to 30 keys, each present with its
// own probability, four of them nested ("user.id", "user.country", "user.geo.lat",
// "user.geo.lon"); loads them with COPY (FORMAT json) into a declared table and with read_json
// (SELECT count(*) FROM read_json(...): infer + load), then runs three queries on the COPY-loaded
// table at each thread count (SET threads): a filter and count, a GROUP BY on a sparse nested key,
// a sum over a nested key. Each query's figure is the median of --repeat runs after one warm-up:
// the whole statement (parse, plan, compile, run: hyrax compiles each time) and, for hyrax, the
// run alone ("execute ms"; -1 in --json for DuckDB). DuckDB (pip's, installed into .tools/duckdb on first use) loads the same file
// with read_json into a table and runs the same queries (nested keys as struct fields), through
// bench/json/duckdb_json.py.
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/benchmarks.hpp"
#include "bench/options.hpp"
#include "sql/api/database.hpp"

namespace po = boost::program_options;

namespace hyrax::bench {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

enum class Kind { Int, Double, String, Bool };
struct Key {
  const char* name;  // "a.b": nested
  Kind kind;
  double present;  // probability
  int distinct;    // strings and ints: how many different values
};

// 30 key paths; the nested ones written as one "user" object.
const std::vector<Key> kKeys = {
    {"id", Kind::Int, 1.0, 0},         {"cat", Kind::String, 0.6, 10},   {"score", Kind::Double, 0.5, 0},
    {"flag", Kind::Bool, 0.4, 0},      {"n1", Kind::Int, 0.1, 1000},     {"n2", Kind::Int, 0.2, 1000},
    {"n3", Kind::Int, 0.3, 1000},      {"n4", Kind::Int, 0.4, 1000},     {"n5", Kind::Int, 0.5, 1000},
    {"n6", Kind::Int, 0.6, 1000},      {"n7", Kind::Int, 0.7, 1000},     {"n8", Kind::Int, 0.8, 1000},
    {"s1", Kind::String, 0.2, 100},    {"s2", Kind::String, 0.3, 1000},  {"s3", Kind::String, 0.4, 50},
    {"s4", Kind::String, 0.5, 5},      {"s5", Kind::String, 0.6, 10000}, {"s6", Kind::String, 0.7, 20},
    {"d1", Kind::Double, 0.3, 0},      {"d2", Kind::Double, 0.3, 0},     {"d3", Kind::Double, 0.3, 0},
    {"d4", Kind::Double, 0.3, 0},      {"b2", Kind::Bool, 0.2, 0},       {"tag", Kind::String, 0.1, 3},
    {"v", Kind::Int, 0.9, 1000000},    {"w", Kind::Double, 0.05, 0},     {"user.id", Kind::Int, 0.7, 100000},
    {"user.country", Kind::String, 0.5, 20}, {"user.geo.lat", Kind::Double, 0.3, 0}, {"user.geo.lon", Kind::Double, 0.3, 0},
};

const char* sqlType(Kind k) {
  switch (k) {
    case Kind::Int: return "BIGINT";
    case Kind::Double: return "DOUBLE PRECISION";
    case Kind::String: return "VARCHAR";
    case Kind::Bool: return "BOOLEAN";
  }
  return "";
}

void writeValue(std::string& out, const Key& k, std::mt19937_64& rng, uint64_t row) {
  switch (k.kind) {
    case Kind::Int: out += std::to_string(k.distinct ? rng() % k.distinct : row); break;
    case Kind::Double: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.4f", std::uniform_real_distribution<double>(-90, 90)(rng));
      out += buf;
      break;
    }
    case Kind::String: out += "\"" + std::string(k.name).substr(0, 2) + "_" + std::to_string(rng() % k.distinct) + "\""; break;
    case Kind::Bool: out += rng() % 2 ? "true" : "false"; break;
  }
}

void generate(const std::string& path, uint64_t rows) {
  std::mt19937_64 rng(18);
  std::uniform_real_distribution<double> coin(0, 1);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  std::string line;
  for (uint64_t r = 0; r < rows; ++r) {
    line = "{";
    bool first = true;
    std::string user, geo;
    for (const Key& k : kKeys) {
      if (coin(rng) >= k.present) continue;
      std::string name = k.name;
      std::string* into = &line;
      bool* firstOf = &first;
      if (name.rfind("user.geo.", 0) == 0) into = &geo, name = name.substr(9);
      else if (name.rfind("user.", 0) == 0) into = &user, name = name.substr(5);
      if (into != &line) {
        if (!into->empty()) *into += ", ";
      } else if (!*firstOf) {
        *into += ", ";
      }
      *into += "\"" + name + "\": ";
      writeValue(*into, k, rng, r);
      *firstOf = false;
    }
    if (!geo.empty()) user += std::string(user.empty() ? "" : ", ") + "\"geo\": {" + geo + "}";
    if (!user.empty()) line += std::string(first ? "" : ", ") + "\"user\": {" + user + "}";
    line += "}\n";
    f << line;
  }
  if (!f) throw std::runtime_error("could not write " + path);
}

struct Query {
  const char* name;
  std::string hyrax, duckdb;
};

const std::vector<Query> kQueries = {
    {"filter_count", "SELECT count(*) FROM j WHERE score > 10 AND flag AND n5 < 500",
     "SELECT count(*) FROM j WHERE score > 10 AND flag AND n5 < 500"},
    {"group_sparse", "SELECT \"user.country\", count(*), avg(score) FROM j GROUP BY \"user.country\"",
     "SELECT \"user\".country, count(*), avg(score) FROM j GROUP BY \"user\".country"},
    {"sum_nested", "SELECT sum(\"user.geo.lat\") FROM j WHERE \"user.id\" > 1000",
     "SELECT sum(\"user\".geo.lat) FROM j WHERE \"user\".id > 1000"},
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string fixed(double v, int digits = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

int runJson(int argc, char** argv) {
  po::options_description desc("hyrax-bench json options");
  desc.add_options()("help", "this help")(
      "rows", po::value<uint64_t>()->default_value(1000000), "objects in the generated file")(
      "threads", po::value<std::string>()->default_value("1,2"), "thread counts the queries run at")(
      "repeat", po::value<int>()->default_value(5), "runs per query (the median is reported)")(
      "file", po::value<std::string>(), "the .ndjson file (default: generated under the build directory)")(
      "no-duckdb", "skip DuckDB")("json", "machine-readable output");
  po::variables_map vm;
  if (!parseOptions(desc, argc, argv, vm)) return 0;
  const uint64_t rows = vm["rows"].as<uint64_t>();
  const int repeat = std::max(1, vm["repeat"].as<int>());
  std::vector<int> threads;
  {
    std::stringstream ss(vm["threads"].as<std::string>());
    for (std::string t; std::getline(ss, t, ',');) threads.push_back(std::stoi(t));
  }
  std::string file = vm.count("file") ? vm["file"].as<std::string>()
                                      : std::string(HYRAX_BINARY_DIR) + "/bench-data/json_" + std::to_string(rows) + ".ndjson";
  if (!vm.count("file") && !std::filesystem::exists(file)) {
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    auto t = Clock::now();
    generate(file, rows);
    std::cerr << "generated " << file << " (" << std::filesystem::file_size(file) / (1 << 20) << " MB) in "
              << fixed(msSince(t) / 1000, 2) << " s\n";
  }
  const double mb = static_cast<double>(std::filesystem::file_size(file)) / (1 << 20);

  Database db;
  Connection con(db);
  con.execute("SET analytics = 'inline'");
  std::string create = "CREATE TABLE j (";
  for (size_t i = 0; i < kKeys.size(); ++i)
    create += std::string(i ? ", " : "") + "\"" + kKeys[i].name + "\" " + sqlType(kKeys[i].kind);
  con.execute(create + ")");
  auto t = Clock::now();
  QueryResult copied = con.execute("COPY j FROM '" + file + "' (FORMAT json)");
  const double copyMs = msSince(t);
  t = Clock::now();
  QueryResult counted = con.execute("SELECT count(*) FROM read_json('" + file + "')");
  const double readJsonMs = msSince(t);
  if (counted.text(0, 0) != std::to_string(rows) && !vm.count("file"))
    throw std::runtime_error("read_json counted " + counted.text(0, 0) + " rows");

  struct Timing {
    std::string system, query;
    int threads;
    double ms;
    std::string answer;
    double executeMs = -1;  // hyrax: the run alone, without parse, plan and compile
  };
  std::vector<Timing> timings;
  for (int n : threads) {
    con.execute("SET threads = " + std::to_string(n));
    for (const Query& q : kQueries) {
      QueryResult r = con.execute(q.hyrax);  // warm-up
      std::vector<double> ms, exec;
      for (int i = 0; i < repeat; ++i) {
        auto s = Clock::now();
        r = con.execute(q.hyrax);
        ms.push_back(msSince(s));
        exec.push_back(r.times.execute);
      }
      timings.push_back({"hyrax", q.name, n, median(ms), r.rowCount() == 1 ? r.text(0, 0) : std::to_string(r.rowCount()) + " rows",
                         median(exec)});
    }
  }

  // DuckDB through its Python package, installed on demand into .tools/duckdb.
  std::string duckdbJson;
  double duckLoadMs = -1;
  std::string duckVersion;
  if (!vm.count("no-duckdb")) {
    const std::string src = HYRAX_SOURCE_DIR;
    const std::string target = src + "/.tools/duckdb";
    if (!std::filesystem::exists(target + "/duckdb")) {
      std::cerr << "installing DuckDB into " << target << "\n";
      if (std::system(("python3 -m pip install -q --target '" + target + "' duckdb 1>&2").c_str()) != 0)
        throw std::runtime_error("pip install duckdb failed (run with --no-duckdb to skip it)");
    }
    std::string cmd = "PYTHONPATH='" + target + "' python3 '" + src + "/bench/json/duckdb_json.py' '" + file + "' " +
                      vm["threads"].as<std::string>() + " " + std::to_string(repeat);
    for (const Query& q : kQueries) cmd += " '" + std::string(q.name) + "=" + q.duckdb + "'";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("could not run " + cmd);
    char buf[4096];
    std::string out;
    while (size_t k = std::fread(buf, 1, sizeof buf, p)) out.append(buf, k);
    if (pclose(p) != 0) throw std::runtime_error("DuckDB's runner failed: " + out);
    // Lines: "version V", "load MS", "query NAME THREADS MS ANSWER".
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream w(line);
      std::string what;
      w >> what;
      if (what == "version") w >> duckVersion;
      else if (what == "load") w >> duckLoadMs;
      else if (what == "query") {
        Timing tm{"duckdb", "", 0, 0, ""};
        w >> tm.query >> tm.threads >> tm.ms;
        std::getline(w, tm.answer);
        if (!tm.answer.empty() && tm.answer[0] == ' ') tm.answer.erase(0, 1);
        timings.push_back(tm);
      }
    }
  }

  auto rate = [&](double ms) { return ms > 0 ? static_cast<double>(rows) / (ms / 1000) : 0; };
  if (vm.count("json")) {
    std::printf("{\"rows\": %llu, \"file_mb\": %.1f, \"hyrax\": {\"copy_ms\": %.1f, \"copy_rows_per_s\": %.0f, "
                "\"read_json_ms\": %.1f, \"read_json_rows_per_s\": %.0f}",
                static_cast<unsigned long long>(rows), mb, copyMs, rate(copyMs), readJsonMs, rate(readJsonMs));
    if (duckLoadMs >= 0)
      std::printf(", \"duckdb\": {\"version\": \"%s\", \"read_json_ms\": %.1f, \"read_json_rows_per_s\": %.0f}",
                  duckVersion.c_str(), duckLoadMs, rate(duckLoadMs));
    std::printf(", \"queries\": [");
    for (size_t i = 0; i < timings.size(); ++i)
      std::printf("%s\n {\"system\": \"%s\", \"query\": \"%s\", \"threads\": %d, \"ms\": %.2f, \"execute_ms\": %.2f}",
                  i ? "," : "", timings[i].system.c_str(), timings[i].query.c_str(), timings[i].threads, timings[i].ms,
                  timings[i].executeMs);
    std::printf("\n]}\n");
    return 0;
  }
  std::printf("%llu sparse JSON objects (%.1f MB, 30 key paths, 4 nested): %s\n\n",
              static_cast<unsigned long long>(rows), mb, file.c_str());
  std::printf("%-34s %12s %14s\n", "load", "ms", "rows/s");
  std::printf("%-34s %12.1f %14.0f   (%s)\n", "hyrax COPY (FORMAT json)", copyMs, rate(copyMs), copied.tag().c_str());
  std::printf("%-34s %12.1f %14.0f\n", "hyrax read_json (count(*))", readJsonMs, rate(readJsonMs));
  if (duckLoadMs >= 0)
    std::printf("%-34s %12.1f %14.0f\n", ("duckdb " + duckVersion + " read_json (CREATE TABLE)").c_str(), duckLoadMs,
                rate(duckLoadMs));
  std::printf("\n%-8s %-14s %8s %12s %12s   %s\n", "system", "query", "threads", "median ms", "execute ms", "answer");
  for (auto& tm : timings)
    std::printf("%-8s %-14s %8d %12.2f %12s   %s\n", tm.system.c_str(), tm.query.c_str(), tm.threads, tm.ms,
                tm.executeMs < 0 ? "" : fixed(tm.executeMs, 2).c_str(), tm.answer.c_str());
  return 0;
}

}  // namespace hyrax::bench
