// The PostgreSQL peer: a throwaway server in `workDir` (initdb, then pg_ctl start on a Unix socket
// there, no TCP), loaded with server-side COPY, analyzed, and stopped and removed afterwards.
// Settings favour a benchmark, not durability (fsync off), and keep it single-threaded like
// hyrax's figures (no parallel workers). As root, the server runs as the `postgres` user, since
// PostgreSQL refuses to run as root. dbgen's trailing '|' fills one extra column per table.
#include <pqxx/pqxx>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <stdexcept>

#include "bench/tpch/peers.hpp"

namespace fs = std::filesystem;

namespace hyrax::bench {

namespace {

using Clock = std::chrono::steady_clock;

// The directory of initdb/pg_ctl: on PATH, else Debian's /usr/lib/postgresql/<version>/bin.
std::string serverBin() {
  if (std::system("command -v pg_ctl >/dev/null 2>&1") == 0) return "";
  fs::path root = "/usr/lib/postgresql";
  std::string best;
  if (fs::exists(root))
    for (auto& v : fs::directory_iterator(root))
      if (fs::exists(v.path() / "bin/pg_ctl") && v.path().string() > best) best = v.path().string();
  if (best.empty()) throw std::runtime_error("PostgreSQL's server programs (initdb, pg_ctl) are not installed");
  return best + "/bin/";
}

class PostgresPeer : public Peer {
 public:
  PostgresPeer(const fs::path& workDir, double limit) : dir_(workDir), limit_(limit) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::string bin = serverBin();
    if (geteuid() == 0) {
      asUser_ = "runuser -u postgres -- ";
      if (std::system(("chown postgres '" + dir_.string() + "'").c_str()) != 0)
        throw std::runtime_error("cannot hand " + dir_.string() + " to the postgres user");
    }
    sh(asUser_ + bin + "initdb -D '" + (dir_ / "data").string() + "' -U hyrax -A trust -E UTF8 --locale=C --no-sync >'" +
       (dir_ / "initdb.log").string() + "' 2>&1");
    std::string opts = "-k " + dir_.string() +
                       " -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
                       " -c max_parallel_workers_per_gather=0 -c shared_buffers=2GB -c work_mem=512MB"
                       " -c maintenance_work_mem=1GB -c max_wal_size=8GB";
    sh(asUser_ + bin + "pg_ctl -D '" + (dir_ / "data").string() + "' -o \"" + opts + "\" -l '" +
       (dir_ / "server.log").string() + "' -w start >/dev/null");
    started_ = true;
    con_ = std::make_unique<pqxx::connection>("host=" + dir_.string() + " user=hyrax dbname=postgres");
    bin_ = bin;
  }

  ~PostgresPeer() override {
    con_.reset();
    if (started_)
      (void)std::system((asUser_ + bin_ + "pg_ctl -D '" + (dir_ / "data").string() + "' -m immediate stop >/dev/null 2>&1").c_str());
    std::error_code ec;
    fs::remove_all(dir_, ec);
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
  static void sh(const std::string& cmd) {
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("failed: " + cmd);
  }
  fs::path dir_;
  double limit_;
  std::string asUser_, bin_;
  bool started_ = false;
  std::unique_ptr<pqxx::connection> con_;
};

}  // namespace

std::unique_ptr<Peer> makePostgresPeer(const fs::path& workDir, double timeLimitSeconds) {
  return std::make_unique<PostgresPeer>(workDir, timeLimitSeconds);
}

}  // namespace hyrax::bench
