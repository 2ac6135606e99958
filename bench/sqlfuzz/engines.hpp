#pragma once
// Where the fuzzer runs its queries: hyrax through the in-process API in several ways (a session
// each, with its own settings: threads, inline or on a snapshot, compile tier), and PostgreSQL,
// a throwaway server (bench/pg_server.hpp) with the same data.
#include <memory>
#include <string>
#include <vector>

#include "bench/sqlfuzz/answer.hpp"
#include "bench/sqlfuzz/schema.hpp"

namespace hyrax {
class Database;
class Connection;
}

namespace hyrax::bench {
class PgServer;
}

namespace hyrax::bench::sqlfuzz {

struct Way {
  std::string name;
  std::vector<std::string> settings;  // SET statements the way's session runs once
};
// threads=1 (the reference), threads=2, snapshot, cheap, optimized.
std::vector<Way> hyraxWays();

// The engines of one run, loaded with the schema's data (files written under `work`).
class Engines {
 public:
  Engines(const Schema& schema, uint64_t seed, const std::string& work, bool withHyrax, bool withPostgres);
  ~Engines();
  // The names of the ways, hyrax's first; answers come in the same order.
  const std::vector<std::string>& names() const { return names_; }
  std::vector<Answer> run(const std::string& sql);
  Answer runOne(size_t way, const std::string& sql);
  bool hasPostgres() const { return pg_ != nullptr; }
  std::string postgresVersion() const { return pgVersion_; }
  // Seconds each way spent answering, in names()' order.
  const std::vector<double>& seconds() const { return seconds_; }

 private:
  struct Postgres;
  Answer postgresAnswer(const std::string& sql);
  std::unique_ptr<Database> db_;
  std::vector<std::unique_ptr<Connection>> sessions_;
  std::unique_ptr<PgServer> server_;
  std::unique_ptr<Postgres> pg_;
  std::vector<std::string> names_;
  std::string pgVersion_;
  std::vector<double> seconds_;
};

}  // namespace hyrax::bench::sqlfuzz
