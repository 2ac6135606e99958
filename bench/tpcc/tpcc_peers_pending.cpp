#include <stdexcept>

#include "bench/tpcc/tpcc_engine.hpp"

namespace hyrax::bench::tpcc {
std::unique_ptr<Engine> makeSqliteEngine() { throw std::runtime_error("the SQLite TPC-C peer is not built yet"); }
std::unique_ptr<Engine> makePostgresEngine(const std::filesystem::path&) {
  throw std::runtime_error("the PostgreSQL TPC-C peer is not built yet");
}
}  // namespace hyrax::bench::tpcc
