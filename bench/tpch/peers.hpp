#pragma once
// Other engines that run the same TPC-H work in the same bench run, so hyrax's figures come with
// references measured on the same (shared, noisy) machine at the same time:
//   SQLite (its C API, in process, an in-memory database), and
//   PostgreSQL (a throwaway server this process starts on a Unix socket, through libpqxx;
//   single-threaded: no parallel workers).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace hyrax::bench {

// The eight TPC-H tables, in an order their foreign keys allow loading.
inline constexpr const char* kTpchTables[] = {"region", "nation", "part", "supplier", "partsupp", "customer", "orders",
                                              "lineitem"};

class Peer {
 public:
  virtual ~Peer() = default;
  virtual std::string name() const = 0;
  // Creates the schema and loads dbgen's .tbl files; returns milliseconds.
  virtual double load(const std::string& schemaSql, const std::filesystem::path& dataDir) = 0;
  // Runs one query (the shared text, adapted to the engine's dialect where needed); returns its
  // wall time in milliseconds and the number of rows. Throws std::runtime_error on failure or
  // when it runs past the time limit.
  virtual double run(int query, const std::string& sql, uint64_t& rows) = 0;
};

std::unique_ptr<Peer> makeSqlitePeer(double timeLimitSeconds);
// `workDir`: where the server's data directory and socket go (removed afterwards).
std::unique_ptr<Peer> makePostgresPeer(const std::filesystem::path& workDir, double timeLimitSeconds);

}  // namespace hyrax::bench
