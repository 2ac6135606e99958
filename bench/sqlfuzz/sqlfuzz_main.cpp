// hyrax-bench sqlfuzz: random queries over a random schema, each run on hyrax in several ways
// (threads 1 and 2 inline, on a snapshot, cheap and optimized code) and on PostgreSQL, whose
// answers must agree (bench/sqlfuzz/README.md).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "bench/benchmarks.hpp"
#include "bench/options.hpp"
#include "bench/pg_server.hpp"
#include "bench/sqlfuzz/engines.hpp"
#include "bench/sqlfuzz/query_generator.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace hyrax::bench {

namespace {

using namespace sqlfuzz;

// The statement running, for the crash handler: a crash in generated code kills the process,
// and the query is what reproduces it.
char gRunning[65536];

void onCrash(int sig) {
  static const char kHead[] = "\nhyrax-bench sqlfuzz: crashed (signal) while running:\n";
  (void)!write(2, kHead, sizeof kHead - 1);
  (void)!write(2, gRunning, strnlen(gRunning, sizeof gRunning));
  (void)!write(2, "\n", 1);
  signal(sig, SIG_DFL);
  raise(sig);
}

void noteRunning(uint64_t seed, uint64_t index, const std::string& sql) {
  std::snprintf(gRunning, sizeof gRunning, "--seed %llu --start %llu --queries 1: %s", static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(index), sql.c_str());
}

struct Outcome {
  enum class What { Agree, Unsupported, PostgresUnsupported, Timeout, TooLarge, BothFailed, Mismatch } what = What::Agree;
  std::vector<std::string> kinds;  // "way:kind" per way that differs from the reference
  std::vector<std::string> details;
  std::vector<Answer> answers;
};

// Runs `sql` on the reference (way 0) and `ways`, and judges the answers.
Outcome check(Engines& engines, const std::string& sql, bool ordered, const std::vector<size_t>& ways) {
  Outcome o;
  Answer ref = engines.runOne(0, sql);
  if (ref.failed && ref.sqlstate == "0A000") {
    o.what = Outcome::What::Unsupported;
    return o;
  }
  if (ref.tooLarge) {
    o.what = Outcome::What::TooLarge;
    return o;
  }
  o.answers.push_back(ref);
  bool anyFailed = ref.failed;
  for (size_t w : ways) {
    Answer a = engines.runOne(w, sql);
    anyFailed = anyFailed || a.failed;
    if (ref.sqlstate == "57014" || a.sqlstate == "57014") {
      o.what = Outcome::What::Timeout;
      return o;
    }
    if (a.tooLarge) {
      o.what = Outcome::What::TooLarge;
      return o;
    }
    if (engines.names()[w] == "postgresql" && a.failed && a.sqlstate == "0A000" && !ref.failed) {
      o.what = Outcome::What::PostgresUnsupported;
      continue;
    }
    if (auto d = compareAnswers(ref, a, ordered)) {
      o.kinds.push_back(engines.names()[w] + ":" + d->kind);
      o.details.push_back(engines.names()[w] + " differs from " + engines.names()[0] + ": " + d->detail);
    }
    o.answers.push_back(std::move(a));
  }
  if (!o.kinds.empty())
    o.what = Outcome::What::Mismatch;
  else if (o.what == Outcome::What::Agree && anyFailed)
    o.what = Outcome::What::BothFailed;
  return o;
}

// Simpler versions of a mismatching query, kept while the reference and the way that differed
// still differ the same way (`kind`); at most `budget` tries.
Node shrink(Engines& engines, Node root, size_t way, const std::string& kind, int budget, int& tries) {
  for (bool progress = true; progress && tries < budget;) {
    progress = false;
    for (Node& candidate : simplifications(root)) {
      if (++tries > budget) break;
      Query q{candidate};
      Outcome o = check(engines, candidate.render(), q.ordered(), {way});
      if (o.what == Outcome::What::Mismatch && o.kinds.front() == kind) {
        root = std::move(candidate);
        progress = true;
        break;
      }
    }
  }
  return root;
}

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

int runSqlFuzz(int argc, char** argv) {
  po::options_description desc("hyrax-bench sqlfuzz options");
  desc.add_options()("help", "this text")("seed", po::value<uint64_t>()->default_value(1), "decides schema, data and queries")(
      "queries", po::value<uint64_t>()->default_value(200), "how many queries")(
      "start", po::value<uint64_t>()->default_value(0), "number of the first query (query i of a seed is the same in any run)")(
      "rows", po::value<uint64_t>()->default_value(100000), "rows of the big table t0 (scans hand out 16,384-row morsels)")(
      "engines", po::value<std::string>()->default_value("hyrax,postgresql"), "hyrax and/or postgresql")(
      "sql", po::value<std::string>(), "run this query (on the seed's schema) instead of generated ones")(
      "shrink-budget", po::value<int>()->default_value(300), "at most this many tries to shrink a mismatch (0: none)")(
      "verbose", "print every query and its outcome")("print", "print the queries only, running none")("json", "machine-readable summary")(
      "test", "exit status 1 on any mismatch; without PostgreSQL installed, hyrax's ways alone");
  po::variables_map vm;
  if (!parseOptions(desc, argc, argv, vm, "usage: hyrax-bench sqlfuzz [options]\n")) return 0;
  const uint64_t seed = vm["seed"].as<uint64_t>(), start = vm["start"].as<uint64_t>(), count = vm["queries"].as<uint64_t>();
  const bool json = vm.count("json") > 0, verbose = vm.count("verbose") > 0, test = vm.count("test") > 0;
  const int budget = vm["shrink-budget"].as<int>();
  if (vm.count("print")) {  // the generator alone: to read its queries, or compare two builds' (no engine loaded)
    const Schema schema = makeSchema(seed, vm["rows"].as<uint64_t>());
    for (uint64_t i = start; i < start + count; ++i)
      std::printf("query %llu: %s\n", static_cast<unsigned long long>(i), generateQuery(schema, seed, i).root.render().c_str());
    return 0;
  }
  const std::vector<std::string> engineList = splitList(vm["engines"].as<std::string>());
  bool withPostgres = std::find(engineList.begin(), engineList.end(), "postgresql") != engineList.end();
  if (std::find(engineList.begin(), engineList.end(), "hyrax") == engineList.end()) {
    std::cerr << "hyrax-bench sqlfuzz: hyrax is the reference: --engines must name it\n";
    return 2;
  }
  if (withPostgres && !PgServer::available()) {
    if (!test) {
      std::cerr << "hyrax-bench sqlfuzz: PostgreSQL's server programs are not installed (--engines hyrax runs without)\n";
      return 1;
    }
    std::cerr << "hyrax-bench sqlfuzz: PostgreSQL is not installed: comparing hyrax's ways only\n";
    withPostgres = false;
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(sig, onCrash);

  const auto begin = Clock::now();
  const Schema schema = makeSchema(seed, vm["rows"].as<uint64_t>());
  const fs::path work = fs::temp_directory_path() / ("hyrax-sqlfuzz-" + std::to_string(getpid()));
  auto owned = std::make_unique<Engines>(schema, seed, work.string(), true, withPostgres);
  Engines& engines = *owned;
  if (!json) {
    std::printf("seed %llu; schema:\n", static_cast<unsigned long long>(seed));
    for (const std::string& s : schema.createStatements()) std::printf("  %s;\n", s.c_str());
    std::printf("ways:");
    for (const std::string& n : engines.names()) std::printf(" %s", n.c_str());
    if (engines.hasPostgres()) std::printf(" (PostgreSQL %s)", engines.postgresVersion().c_str());
    std::printf("\nloaded in %.1f s\n", std::chrono::duration<double>(Clock::now() - begin).count());
  }
  std::vector<size_t> others;
  for (size_t w = 1; w < engines.names().size(); ++w) others.push_back(w);

  std::map<std::string, int> kinds;
  uint64_t ran = 0, unsupported = 0, pgUnsupported = 0, timeouts = 0, tooLarge = 0, bothFailed = 0, mismatches = 0;
  std::string findings;
  const auto loopStart = Clock::now();
  for (uint64_t i = start; i < start + (vm.count("sql") ? 1 : count); ++i) {
    Query q = vm.count("sql") ? Query{Node::of("$$$", {Node::leaf(""), Node::leaf(vm["sql"].as<std::string>()), Node::leaf("")})}
                              : generateQuery(schema, seed, i);
    const std::string sql = q.root.render();
    noteRunning(seed, i, sql);
    const bool ordered = vm.count("sql") ? ordersRows(vm["sql"].as<std::string>()) : q.ordered();
    if (verbose) {
      std::printf("query %llu: %s\n", static_cast<unsigned long long>(i), sql.c_str());
      std::fflush(stdout);
    }
    Outcome o;
    try {
      o = check(engines, sql, ordered, others);
    } catch (const std::exception& e) {  // not an SQL error: the fuzzer's or the API's own failure
      std::fprintf(stderr, "hyrax-bench sqlfuzz (pid %d): %s while running %s\n", getpid(), e.what(), gRunning);
      throw;
    }
    ++ran;
    switch (o.what) {
      case Outcome::What::Unsupported: ++unsupported; break;
      case Outcome::What::PostgresUnsupported: ++pgUnsupported; break;
      case Outcome::What::Timeout: ++timeouts; break;
      case Outcome::What::TooLarge: ++tooLarge; break;
      case Outcome::What::BothFailed: ++bothFailed; break;
      case Outcome::What::Agree: break;
      case Outcome::What::Mismatch: {
        ++mismatches;
        for (const std::string& k : o.kinds) ++kinds[k];
        size_t way = 0;
        for (size_t w : others)
          if (o.kinds.front().rfind(engines.names()[w] + ":", 0) == 0) way = w;
        int tries = 0;
        Node small = q.root;
        try {
          if (budget > 0) small = shrink(engines, q.root, way, o.kinds.front(), budget, tries);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "hyrax-bench sqlfuzz (pid %d): %s while shrinking %s\n", getpid(), e.what(), gRunning);
          throw;
        }
        const std::string shrunk = small.render();
        Outcome s = check(engines, shrunk, Query{small}.ordered(), {way});
        FILE* out = json ? stderr : stdout;
        std::fprintf(out, "\nMISMATCH seed %llu query %llu (", static_cast<unsigned long long>(seed), static_cast<unsigned long long>(i));
        for (size_t k = 0; k < o.kinds.size(); ++k) std::fprintf(out, "%s%s", k ? ", " : "", o.kinds[k].c_str());
        std::fprintf(out, ")\n  query:  %s\n  shrunk (%d tries): %s\n", sql.c_str(), tries, shrunk.c_str());
        for (const std::string& d : s.what == Outcome::What::Mismatch ? s.details : o.details) std::fprintf(out, "  %s\n", d.c_str());
        if (s.answers.size() == 2) {
          std::fprintf(out, "  %s: %s\n", engines.names()[0].c_str(), describe(s.answers[0]).c_str());
          std::fprintf(out, "  %s: %s\n", engines.names()[way].c_str(), describe(s.answers[1]).c_str());
        }
        std::fprintf(out, "  reproduce: hyrax-bench sqlfuzz --seed %llu --rows %llu --start %llu --queries 1\n",
                     static_cast<unsigned long long>(seed), static_cast<unsigned long long>(vm["rows"].as<uint64_t>()),
                     static_cast<unsigned long long>(i));
        std::fflush(out);
        findings += std::string(findings.empty() ? "" : ", ") + "{\"query\": " + std::to_string(i) +
                    ", \"kind\": " + jsonString(o.kinds.front()) + ", \"sql\": " + jsonString(sql) +
                    ", \"shrunk\": " + jsonString(shrunk) + "}";
        break;
      }
    }
    if (!json && !verbose && ran % 100 == 0) {
      std::printf("%llu queries, %llu unsupported, %llu mismatches, %.1f s\n", static_cast<unsigned long long>(ran),
                  static_cast<unsigned long long>(unsupported), static_cast<unsigned long long>(mismatches),
                  std::chrono::duration<double>(Clock::now() - loopStart).count());
      std::fflush(stdout);
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - loopStart).count();
  const std::vector<std::string> names = engines.names();
  const std::vector<double> waySeconds = engines.seconds();
  owned.reset();  // stops PostgreSQL (its data directory is under `work`) before `work` goes
  std::error_code ec;
  fs::remove_all(work, ec);
  if (json) {
    std::printf("{\"seed\": %llu, \"rows\": %llu, \"ways\": [", static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(vm["rows"].as<uint64_t>()));
    for (size_t w = 0; w < names.size(); ++w) std::printf("%s\"%s\"", w ? ", " : "", names[w].c_str());
    std::printf("], \"queries\": %llu, \"unsupported\": %llu, \"postgresql_unsupported\": %llu, \"timeouts\": %llu, "
                "\"too_large\": %llu, \"both_failed\": %llu, \"mismatches\": %llu, \"mismatch_kinds\": {",
                static_cast<unsigned long long>(ran), static_cast<unsigned long long>(unsupported),
                static_cast<unsigned long long>(pgUnsupported), static_cast<unsigned long long>(timeouts),
                static_cast<unsigned long long>(tooLarge), static_cast<unsigned long long>(bothFailed),
                static_cast<unsigned long long>(mismatches));
    bool first = true;
    for (const auto& [k, n] : kinds) {
      std::printf("%s%s: %d", first ? "" : ", ", jsonString(k).c_str(), n);
      first = false;
    }
    std::printf("}, \"seconds\": %.1f, \"findings\": [%s]}\n", seconds, findings.c_str());
  } else {
    std::printf("\n%llu queries in %.1f s: %llu agree, %llu unsupported by hyrax (0A000), %llu by PostgreSQL, %llu timeouts, "
                "%llu answers too large to compare, %llu failed everywhere, %llu mismatches\n",
                static_cast<unsigned long long>(ran), seconds,
                static_cast<unsigned long long>(ran - unsupported - pgUnsupported - timeouts - tooLarge - bothFailed - mismatches),
                static_cast<unsigned long long>(unsupported), static_cast<unsigned long long>(pgUnsupported),
                static_cast<unsigned long long>(timeouts), static_cast<unsigned long long>(tooLarge),
                static_cast<unsigned long long>(bothFailed), static_cast<unsigned long long>(mismatches));
    for (const auto& [k, n] : kinds) std::printf("  %s: %d\n", k.c_str(), n);
    std::printf("seconds per way:");
    for (size_t w = 0; w < waySeconds.size(); ++w) std::printf(" %s %.1f", names[w].c_str(), waySeconds[w]);
    std::printf("\n");
  }
  return test && mismatches ? 1 : 0;
}

}  // namespace hyrax::bench
