// hyrax-fuzz-sql: the differential query generator (see README.md beside this file).
//   hyrax-fuzz-sql [--seed S] [--queries N] [--start K] [--sqlite] [--verbose] [--no-reduce]
//                  [--max-mismatches M]
// Runs queries K .. K+N-1 of seed S; query i runs on the schema of batch i / 50, so any one query
// is reproduced alone with --start i --queries 1. Exits 1 when an oracle found a mismatch.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "test/differential/generator.hpp"
#include "test/differential/oracles.hpp"

using namespace hyrax::differential;

namespace {
constexpr uint64_t kQueriesPerSchema = 50;
}

int main(int argc, char** argv) {
  uint64_t seed = 1, queries = 1000, start = 0, maxMismatches = 20;
  bool sqlite = false, verbose = false, reduce = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> uint64_t {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a number\n";
        std::exit(2);
      }
      return std::stoull(argv[++i]);
    };
    if (a == "--seed") seed = next();
    else if (a == "--queries") queries = next();
    else if (a == "--start") start = next();
    else if (a == "--max-mismatches") maxMismatches = next();
    else if (a == "--sqlite") sqlite = true;
    else if (a == "--verbose") verbose = true;
    else if (a == "--no-reduce") reduce = false;
    else {
      std::cout << "usage: hyrax-fuzz-sql [--seed S] [--queries N] [--start K] [--sqlite] [--verbose] [--no-reduce] "
                   "[--max-mismatches M]\n";
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  installCrashHandler();
  auto began = std::chrono::steady_clock::now();
  Checker checker(sqlite, std::cout);
  uint64_t batch = ~uint64_t{0};
  for (uint64_t n = start; n < start + queries; ++n) {
    if (n / kQueriesPerSchema != batch) {
      batch = n / kQueriesPerSchema;
      Rng rng(seed, ~batch);
      Schema schema = generateSchema(rng);
      if (verbose) std::cout << "-- schema of batch " << batch << ":\n" << schema.script() << std::flush;
      checker.load(schema);
    }
    Rng rng(seed, n);
    QueryGenerator gen(checker.schema(), rng);
    Query q = gen.generate();
    if (verbose) {
      std::cout << "-- query " << n << ":\n" << q.sql.h << ";\n";
      if (q.norec) std::cout << "-- its NoREC statement:\n" << q.norecSql.h << ";\n";
      std::cout << std::flush;
    }
    else std::cout << std::flush;
    checker.check(q, "seed " + std::to_string(seed) + ", query " + std::to_string(n), reduce);
    if (checker.stats().mismatches() >= maxMismatches) {
      std::cout << "stopping after " << maxMismatches << " mismatches\n";
      break;
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  const Stats& s = checker.stats();
  std::printf("seed %llu, queries %llu (from %llu), %.1f s, %.1f queries/s\n", static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(s.queries), static_cast<unsigned long long>(start), seconds,
              static_cast<double>(s.queries) / seconds);
  std::printf("%-7s %10s %12s %10s %11s\n", "oracle", "checks", "unsupported", "skipped", "mismatches");
  for (int i = 0; i < kOracles; ++i) {
    const OracleStats& o = s.oracle[i];
    std::printf("%-7s %10llu %12llu %10llu %11llu\n", oracleName(static_cast<Oracle>(i)), static_cast<unsigned long long>(o.checks),
                static_cast<unsigned long long>(o.unsupported), static_cast<unsigned long long>(o.skipped),
                static_cast<unsigned long long>(o.mismatches));
  }
  std::printf("mismatches: %llu\n", static_cast<unsigned long long>(s.mismatches()));
  return s.mismatches() == 0 ? 0 : 1;
}
