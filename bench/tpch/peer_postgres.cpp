// The PostgreSQL peer: a throwaway server in `workDir` (bench/pg_server.hpp), loaded with
// server-side COPY and analyzed. dbgen's trailing '|' fills one extra column per table.
#include <pqxx/pqxx>

#include <chrono>
#include <regex>
#include <stdexcept>

#include "bench/pg_server.hpp"
#include "bench/tpch/peers.hpp"

namespace fs = std::filesystem;

namespace hyrax::bench {

namespace {

using Clock = std::chrono::steady_clock;

class PostgresPeer : public Peer {
 public:
  PostgresPeer(const fs::path& workDir, double limit, int threads)
      : server_(workDir), limit_(limit), con_(std::make_unique<pqxx::connection>(server_.connectionString())) {
    pqxx::nontransaction tx(*con_);
    tx.exec("SET max_parallel_workers_per_gather = " + std::to_string(threads > 1 ? threads - 1 : 0));
  }

  std::string name() const override {
    pqxx::nontransaction tx(*con_);
    std::string v = tx.exec1("SHOW server_version")[0].as<std::string>();
    return "PostgreSQL " + v.substr(0, v.find(' '));
  }

  double load(const std::string& schemaSql, const fs::path& dataDir) override {
    // One more column per table for the empty field after dbgen's trailing '|'.
    std::string schema = std::regex_replace(schemaSql, std::regex(R"(\)\);)"), "), tpch_end CHAR(1));");
    pqxx::nontransaction tx(*con_);
    tx.exec(schema);
    auto start = Clock::now();
    for (const char* t : kTpchTables)
      tx.exec("COPY " + std::string(t) + " FROM '" + fs::absolute(dataDir / (std::string(t) + ".tbl")).string() +
              "' WITH (DELIMITER '|')");
    tx.exec("VACUUM ANALYZE");
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }

  double run(int, const std::string& sql, uint64_t& rows) override {
    pqxx::nontransaction tx(*con_);
    tx.exec("SET statement_timeout = " + std::to_string(static_cast<long>(limit_ * 1000)));
    auto start = Clock::now();
    try {
      pqxx::result r = tx.exec(sql);
      rows = r.size();
    } catch (const pqxx::sql_error& e) {
      std::string what = e.sqlstate() == "57014" ? "stopped after the time limit" : std::string("postgres: ") + e.what();
      throw std::runtime_error(what);
    }
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }

 private:
  PgServer server_;
  double limit_;
  std::unique_ptr<pqxx::connection> con_;
};

}  // namespace

std::unique_ptr<Peer> makePostgresPeer(const fs::path& workDir, double timeLimitSeconds, int threads) {
  return std::make_unique<PostgresPeer>(workDir, timeLimitSeconds, threads);
}

}  // namespace hyrax::bench
