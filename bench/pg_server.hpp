#pragma once
// A throwaway PostgreSQL server for the peers of the benchmarks: initdb into `dir`, then pg_ctl
// start on a Unix socket there (no TCP); stopped and removed by the destructor. Settings favour
// a benchmark, not durability (fsync and synchronous commit off), and keep it single-threaded
// like hyrax's figures (no parallel workers). As root, the server runs as the `postgres` user,
// since PostgreSQL refuses to run as root.
#include <filesystem>
#include <string>

namespace hyrax::bench {

class PgServer {
 public:
  explicit PgServer(const std::filesystem::path& dir);
  // Whether PostgreSQL's server programs are installed where the constructor looks for them.
  static bool available();
  ~PgServer();
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

  // For pqxx::connection.
  std::string connectionString() const;
  const std::filesystem::path& dir() const { return dir_; }
  // A file the server can read with COPY ... FROM 'file' (written into dir(), which it owns).
  std::filesystem::path writeFile(const std::string& name, const std::string& contents) const;

 private:
  std::filesystem::path dir_;
  std::string asUser_, bin_;
  bool started_ = false;
};

}  // namespace hyrax::bench
