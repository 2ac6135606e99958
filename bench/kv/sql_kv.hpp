#pragma once
// The workload on a SQL engine over PostgreSQL's protocol (hyrax's server or PostgreSQL), through
// the same libpqxx code for both: the table, its tag index and the upsert procedure, the load
// (COPY FROM STDIN), a session of prepared statements, and the check after a run.
#include <memory>
#include <string>

#include "bench/kv/kv_workload.hpp"

namespace hyrax::bench::kv {

// Creates kv (dropping an old one) and loads it with the 9 in 10 keys.
void loadSql(const std::string& conninfo, const Options& o);
std::unique_ptr<Session> connectSql(const std::string& conninfo, const Options& o);
// After a run: every loaded key is still there, every row whole, and the tag index finds every
// row (a count through a range over all tags equals the table's). An empty string if all holds,
// else what did not.
std::string checkSql(const std::string& conninfo, const Options& o);

}  // namespace hyrax::bench::kv
