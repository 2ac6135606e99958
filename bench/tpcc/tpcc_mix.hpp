#pragma once
// The TPC-C driver's reusable pieces, shared by `hyrax-bench tpcc` and `hyrax-bench ch` (the
// CH-benCHmark runs the same mix beside analytical streams): procedures.sql split into its
// CREATE PROCEDUREs, consistency conditions 1-4, an engine made by name, its load and warm-up,
// the mix (clause 5.2.3 without wait times) and its latency report.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench/tpcc/tpcc_engine.hpp"

namespace hyrax::bench::tpcc {

// procedures.sql holds one CREATE PROCEDURE per piece between "--;;" lines.
std::vector<std::string> splitProcedures(const std::string& text);

// Consistency conditions 1-4 of clause 3.3.2.1, each a query counting the districts or
// warehouses that violate it.
struct Check {
  const char* what;
  const char* sql;
};
const std::vector<Check>& consistencyChecks();
// Returns the number of conditions violated, printing each.
int checkConsistency(Engine& e, const char* when);

// "hyrax" (served by `terminals` connections), "sqlite", "postgres" or "postgresql" (a throwaway
// server in a temporary directory named after `tag` and this process).
std::unique_ptr<Engine> makeEngine(const std::string& name, int terminals, const std::string& tag);

// Loads the data and creates the procedures, checks the conditions, and runs `warmup` seconds of
// the mix not counted (other inputs than seed's). Returns the violations; adds the warm-up's
// errors to `errors`.
struct Setup {
  std::string schema;
  std::vector<std::string> procedures;
  const InitialData* data = nullptr;
  int warehouses = 1;
  uint64_t seed = 42;
  int date = 0;  // days since 1970: the load's and the transactions' date
};
int loadAndWarmUp(Engine& e, const Setup& setup, double warmup, uint64_t& errors);

extern const char* const kTypeNames[kTypes];

struct Stats {
  std::vector<double> micros[kTypes];
  uint64_t rolledBack = 0, errors = 0;
  double seconds = 0;
  uint64_t total() const {
    uint64_t n = 0;
    for (auto& m : micros) n += m.size();
    return n;
  }
  double txPerSecond() const { return seconds > 0 ? static_cast<double>(total()) / seconds : 0; }
  double tpmC() const;  // New-Orders committed per minute
};

// The p-th percentile (0..1) of v (reorders v); 0 for none.
double percentile(std::vector<double>& v, double p);

// The mix of clause 5.2.3 without wait times: 45% New-Order (1% of them with an unknown item),
// 43% Payment, 4% each of the others; inputs by clause 2. Stops at the duration or after `limit`
// transactions (0: no limit), whichever comes first; with one seed the inputs are always the same
// sequence, so a limit gives a fixed piece of work.
Stats runMix(Engine& e, int warehouses, double duration, uint64_t limit, uint64_t seed, int date);

// `hyrax-bench tpcc --server` (tpcc_server.cpp): the mix over the wire on hyrax's server and on
// PostgreSQL, through the same libpqxx client code, at each client count of `clients` ("1,8,16");
// `engines` says which of "hyrax,postgresql" run.
int runOverTheWire(const Setup& setup, const std::string& clients, double duration, double warmup, bool test,
                   const std::string& engines);

// Prints tx/s, tpmC and the latency table per transaction type.
void report(const std::string& name, Stats& s);

}  // namespace hyrax::bench::tpcc
