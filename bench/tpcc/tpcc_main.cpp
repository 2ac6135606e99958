// hyrax-bench tpcc: the TPC-C transaction mix on hyrax's stored procedures, with no wait times on
// one OLTP thread, beside SQLite and PostgreSQL running the same mix in the same run.
//   hyrax-bench tpcc [--warehouses W] [--duration S] [--transactions N] [--peers sqlite,postgres] [--seed N] [--test]
//   hyrax-bench tpcc --server [--clients 1,8,16]: over the wire, hyrax's server beside PostgreSQL (tpcc_server.cpp)
// Loads the initial database of clause 4.3 (NURand, the spec's populations), checks consistency
// conditions 1-4 (clause 3.3.2) before and after the run and fails loudly on a violation, and
// prints transactions/s, New-Orders per minute (tpmC) and latency percentiles per transaction type.
// --test (ctest): exits non-zero on a violation or an unexpected error.
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "bench/benchmarks.hpp"
#include "bench/options.hpp"
#include "bench/read_file.hpp"
#include "bench/tpcc/tpcc_mix.hpp"
#include "engine/types/text_format.hpp"
#include "engine/util/error.hpp"

namespace fs = std::filesystem;
namespace po = boost::program_options;

namespace hyrax::bench::tpcc {

using Clock = std::chrono::steady_clock;

int tpcc(int argc, char** argv) {
  po::options_description opts("hyrax-bench tpcc options");
  opts.add_options()("help,h", "show this help")("warehouses,w", po::value<int>()->default_value(1), "warehouses (W)")(
      "duration,d", po::value<double>()->default_value(10), "seconds of the mix per engine")(
      "transactions", po::value<uint64_t>()->default_value(0),
      "stop each engine after this many transactions if the duration has not passed (0: no limit)")(
      "peers", po::value<std::string>()->default_value(""), "also run it on: sqlite, postgres (comma-separated)")(
      "seed", po::value<uint64_t>()->default_value(42), "random seed (the same inputs for every engine)")(
      "warmup", po::value<double>()->default_value(1),
      "seconds of the mix each engine runs first, not counted (TPC-C's ramp-up: first calls compile and plan)")(
      "terminals", po::value<int>()->default_value(2),
      "hyrax's clients, each a connection with one transaction under way; their calls queue at the one OLTP thread")(
      "kill-snapshots", po::value<int>()->default_value(0),
      "while hyrax's mix runs, start this many analytical queries on fork snapshots and kill each child; every "
      "tenth time check the consistency conditions on a snapshot")(
      "server", "over the wire: hyrax's PostgreSQL server (in this process, Unix socket) beside PostgreSQL, both driven by "
                "the same libpqxx client code, the transactions as CALLs of prepared statements, at each --clients count")(
      "clients", po::value<std::string>()->default_value("1,8,16"), "with --server: client connections, each a thread")(
      "engines", po::value<std::string>()->default_value("hyrax,postgresql"),
      "with --server: which servers (hyrax's alone for A/B runs of its own builds)")(
      "test", "exit non-zero on a consistency violation or an unexpected error (ctest)");
  po::variables_map vm;
  if (!bench::parseOptions(opts, argc, argv, vm, "usage: hyrax-bench tpcc [options]\n")) return 0;
  int warehouses = vm["warehouses"].as<int>();
  double duration = vm["duration"].as<double>();
  uint64_t seed = vm["seed"].as<uint64_t>();
  if (warehouses < 1 || warehouses > 1000) throw std::runtime_error("--warehouses must be between 1 and 1000");
  int terminals = vm["terminals"].as<int>();
  if (terminals < 1 || terminals > 64) throw std::runtime_error("--terminals must be between 1 and 64");
  fs::path src = fs::path(HYRAX_SOURCE_DIR) / "bench/tpcc";
  std::string schema = readFile(src / "schema.sql");
  std::vector<std::string> procedures = splitProcedures(readFile(src / "procedures.sql"));
  int date = text::parseDate("2026-11-23");

  auto t = Clock::now();
  InitialData data = generate(warehouses, seed, date);
  std::printf("generated %d warehouse(s): %llu rows in %.0f ms\n", warehouses, static_cast<unsigned long long>(data.rows),
              std::chrono::duration<double, std::milli>(Clock::now() - t).count());

  if (vm.count("server"))
    return runOverTheWire(Setup{schema, procedures, &data, warehouses, seed, date}, vm["clients"].as<std::string>(), duration,
                          vm["warmup"].as<double>(), vm.count("test") > 0, vm["engines"].as<std::string>());
  std::vector<std::unique_ptr<Engine>> engines;
  engines.push_back(makeEngine("hyrax", terminals, "tpcc"));
  std::stringstream ps(vm["peers"].as<std::string>());
  for (std::string p; std::getline(ps, p, ',');)
    if (!p.empty()) engines.push_back(makeEngine(p, terminals, "tpcc"));
  Setup setup{schema, procedures, &data, warehouses, seed, date};
  int violations = 0;
  uint64_t errors = 0;
  std::vector<double> rates;
  for (auto& e : engines) {
    violations += loadAndWarmUp(*e, setup, vm["warmup"].as<double>(), errors);
    const int kills = e->hasSnapshots() ? vm["kill-snapshots"].as<int>() : 0;
    Engine::SnapshotKills killed;
    std::thread killer;
    if (kills > 0) {
      e->prepareSnapshotKills();
      std::vector<std::string> checks;
      for (auto& c : consistencyChecks()) checks.push_back(c.sql);
      killer = std::thread([&, checks] { killed = e->killSnapshots(kills, checks); });
    }
    Stats s = runMix(*e, warehouses, duration, vm["transactions"].as<uint64_t>(), seed, date);
    if (killer.joinable()) {
      killer.join();
      std::printf("%s: %d of %d snapshot children killed, each failing only its query and reaped; consistency "
                  "conditions checked on %d snapshots: %d violation(s)\n",
                  e->name().c_str(), killed.killed, kills, killed.checked, killed.violations);
      violations += killed.violations + (kills - killed.killed);
    }
    report(e->name(), s);
    violations += checkConsistency(*e, "after the run");
    errors += s.errors;
    rates.push_back(s.txPerSecond());
    if (vm.count("test"))
      for (int k = 0; k < kTypes; ++k)
        if (s.micros[k].empty()) throw std::runtime_error(std::string("no ") + kTypeNames[k] + " transaction ran");
  }
  if (engines.size() > 1) {
    std::printf("\n| engine | tx/s | hyrax / engine |\n|---|---:|---:|\n");
    for (size_t i = 0; i < engines.size(); ++i)
      std::printf("| %s | %.0f | %.2f |\n", engines[i]->name().c_str(), rates[i], rates[0] / rates[i]);
  }
  if (violations) std::fprintf(stderr, "FAILED: %d consistency violation(s)\n", violations);
  return violations || (vm.count("test") && errors) ? 1 : 0;
}

}  // namespace hyrax::bench::tpcc

int hyrax::bench::runTpcc(int argc, char** argv) { return tpcc::tpcc(argc, argv); }
