#pragma once
// Other engines that run the same TPC-H work in the same bench run, so hyrax's figures come with
// references measured on the same (shared, noisy) machine at the same time:
//   SQLite (its C API, in process, an in-memory database), and
//   PostgreSQL (a throwaway server this process starts on a Unix socket, through libpqxx;
//   --threads N gives it N - 1 parallel workers per query),
//   DuckDB and Hyper (their Python packages, in a child process: bench/tpch/peer_python.py).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

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
std::unique_ptr<Peer> makePostgresPeer(const std::filesystem::path& workDir, double timeLimitSeconds, int threads);

// A peer whose whole run happens in a child process: the load, then each query `repeat` times in
// a row. Times are wall time at the client, from handing over the text to the last row.
struct PeerQueryTimes {
  int query = 0;
  uint64_t rows = 0;
  double firstMs = 0, bestMs = 0;  // the text's first run in the process; the best of the repeats
  std::string problem;             // the engine's error, or the time limit; empty when it ran
};
struct ScriptPeerRun {
  std::string name;  // engine and version
  double loadMs = 0;
  std::vector<PeerQueryTimes> queries;
};
// `engine`: duckdb or hyper. Installs the engine's PyPI package into .tools/<engine> of the
// checkout when it is not there, then runs bench/tpch/peer_python.py. `threads`: DuckDB's
// threads setting; Hyper is confined to that many cores. `quiet`: no progress on stderr.
ScriptPeerRun runPythonPeer(const std::string& engine, const std::filesystem::path& dataDir,
                            const std::vector<int>& queries, int repeat, int threads, double timeLimitSeconds,
                            bool quiet);

}  // namespace hyrax::bench
