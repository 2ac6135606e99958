#pragma once
// The oracles of the differential generator, run over one schema at a time:
//   sqlite  the query's answer from hyrax against SQLite's (same multiset, or the same sequence
//           when ORDER BY determines it);
//   tlp     ternary logic partitioning: a query's rows equal the union of its rows WHERE p,
//           WHERE NOT p and WHERE p IS NULL (HAVING for grouped queries; for an ungrouped
//           count/sum/min/max, the partitions' aggregates combined);
//   norec   count(*) WHERE p equals sum(CASE WHEN p THEN 1 ELSE 0 END) over the same FROM.
// A mismatch is reported with the schema, its data (rows no longer needed removed) and the
// statements, ready to paste into a .slt file.
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "test/differential/generator.hpp"

namespace hyrax::differential {

enum Oracle : uint8_t { kSqlite, kTlp, kNorec, kOracles };
const char* oracleName(Oracle o);
// On SIGSEGV/SIGABRT/SIGBUS/SIGFPE, prints the hyrax statement that was running, then dies.
void installCrashHandler();

struct OracleStats {
  uint64_t checks = 0;       // comparisons made
  uint64_t unsupported = 0;  // hyrax answered 0A000 (feature not supported): not compared
  uint64_t skipped = 0;      // SQLite failed on its half: not compared
  uint64_t mismatches = 0;   // different answers, or an error from hyrax where the other side has one
};

struct Stats {
  uint64_t queries = 0;
  OracleStats oracle[kOracles];
  uint64_t mismatches() const;
};

class Checker {
 public:
  Checker(bool sqlite, std::ostream& report);
  ~Checker();
  // A fresh hyrax database (and SQLite database) with the schema's tables and rows.
  void load(const Schema& schema);
  // Runs every oracle that applies to the query; returns the number of mismatches and reports
  // each (as seed/query number `id`).
  int check(const Query& q, const std::string& id, bool reduce);
  const Stats& stats() const { return stats_; }
  const Schema& schema() const { return schema_; }

 private:
  struct Impl;
  // Whether the oracle finds a mismatch for q on the loaded data; `detail` says what differs.
  enum class Verdict : uint8_t { Same, Differs, Unsupported, Skipped, NotApplicable };
  Verdict run(Oracle o, const Query& q, std::string& detail);
  void reportMismatch(Oracle o, const Query& q, const std::string& id, const std::string& detail, bool reduce);
  std::unique_ptr<Impl> impl_;
  bool sqlite_;
  std::ostream& report_;
  Stats stats_;
  Schema schema_;
};

}  // namespace hyrax::differential
