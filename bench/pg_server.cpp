#include "bench/pg_server.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace hyrax::bench {

namespace {

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

void sh(const std::string& cmd) {
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("failed: " + cmd);
}

}  // namespace

bool PgServer::available() {
  try {
    serverBin();
    return true;
  } catch (const std::runtime_error&) {
    return false;
  }
}

PgServer::PgServer(const fs::path& dir) : dir_(dir) {
  fs::remove_all(dir_);
  fs::create_directories(dir_);
  bin_ = serverBin();
  if (geteuid() == 0) {
    asUser_ = "runuser -u postgres -- ";
    if (std::system(("chown postgres '" + dir_.string() + "'").c_str()) != 0)
      throw std::runtime_error("cannot hand " + dir_.string() + " to the postgres user");
  }
  // The destructor stops the server; a benchmark killed outright (SIGTERM, SIGKILL, a crash) runs
  // none, and its PostgreSQL would live on with gigabytes of shared buffers. A watchdog of its
  // own session, started before initdb, outlives this process, notices that it ended, and stops
  // the server and removes its directory (both no-ops after the destructor did so).
  sh("setsid sh -c 'while kill -0 " + std::to_string(getpid()) + " 2>/dev/null; do sleep 1; done; " + asUser_ + bin_ +
     "pg_ctl -D \"" + (dir_ / "data").string() + "\" -m immediate stop; rm -rf \"" + dir_.string() +
     "\"' </dev/null >/dev/null 2>&1 &");
  sh(asUser_ + bin_ + "initdb -D '" + (dir_ / "data").string() + "' -U hyrax -A trust -E UTF8 --locale=C --no-sync >'" +
     (dir_ / "initdb.log").string() + "' 2>&1");
  std::string opts = "-k " + dir_.string() +
                     " -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
                     " -c max_parallel_workers_per_gather=0 -c shared_buffers=2GB -c work_mem=512MB"
                     " -c maintenance_work_mem=1GB -c max_wal_size=8GB";
  sh(asUser_ + bin_ + "pg_ctl -D '" + (dir_ / "data").string() + "' -o \"" + opts + "\" -l '" +
     (dir_ / "server.log").string() + "' -w start >/dev/null");
  started_ = true;
}

PgServer::~PgServer() {
  if (started_)
    (void)std::system((asUser_ + bin_ + "pg_ctl -D '" + (dir_ / "data").string() + "' -m immediate stop >/dev/null 2>&1").c_str());
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string PgServer::connectionString() const { return "host=" + dir_.string() + " user=hyrax dbname=postgres"; }

fs::path PgServer::writeFile(const std::string& name, const std::string& contents) const {
  fs::path p = dir_ / name;
  std::ofstream out(p, std::ios::binary);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + p.string());
  return p;
}

}  // namespace hyrax::bench
