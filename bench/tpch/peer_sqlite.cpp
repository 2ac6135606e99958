// The SQLite peer: an in-memory database loaded with prepared INSERTs in one transaction. The
// queries need a few dialect changes: DATE literals are ISO strings (SQLite compares them as
// text), EXTRACT(YEAR ...) is strftime, SUBSTRING(x FROM a FOR b) is substr, and a derived
// table's column list (Q13) becomes column aliases.
#include <chrono>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <vector>

#include "bench/sqlite_db.hpp"
#include "bench/tpch/peers.hpp"

namespace hyrax::bench {

namespace {

using Clock = std::chrono::steady_clock;

std::string sqliteDialect(int query, std::string sql) {
  auto icase = std::regex::icase;
  sql = std::regex_replace(sql, std::regex(R"(CAST\('(\d{4}-\d{2}-\d{2})' AS date\))", icase), "'$1'");
  sql = std::regex_replace(sql, std::regex(R"(\bdate\s+'(\d{4}-\d{2}-\d{2})')", icase), "'$1'");
  sql = std::regex_replace(sql, std::regex(R"(extract\(\s*year\s+from\s+([a-z_.0-9]+)\s*\))", icase),
                           "CAST(strftime('%Y', $1) AS INTEGER)");
  sql = std::regex_replace(sql, std::regex(R"(substring\(\s*([a-z_.0-9]+)\s+FROM\s+(\d+)\s+FOR\s+(\d+)\s*\))", icase),
                           "substr($1, $2, $3)");
  if (query == 13) {
    sql = std::regex_replace(sql, std::regex(R"(count\(o_orderkey\))", icase), "count(o_orderkey) AS c_count");
    sql = std::regex_replace(sql, std::regex(R"(AS c_orders\s*\([^)]*\))", icase), "AS c_orders");
  }
  return sql;
}

class SqlitePeer : public Peer {
 public:
  explicit SqlitePeer(double limit) : limit_(limit) {
    sqlite3_progress_handler(db_.handle(), 100000, &SqlitePeer::progress, this);
  }

  std::string name() const override { return "SQLite " + std::string(sqlite3_libversion()); }

  double load(const std::string& schemaSql, const std::filesystem::path& dataDir) override {
    exec(schemaSql);
    auto start = Clock::now();
    exec("BEGIN");
    for (const char* t : kTpchTables) {
      sqlite3_stmt* probe = nullptr;
      check(sqlite3_prepare_v2(db_.handle(), ("SELECT * FROM " + std::string(t)).c_str(), -1, &probe, nullptr));
      int columns = sqlite3_column_count(probe);
      sqlite3_finalize(probe);
      std::string insert = "INSERT INTO " + std::string(t) + " VALUES (";
      for (int i = 0; i < columns; ++i) insert += i ? ",?" : "?";
      insert += ")";
      sqlite3_stmt* st = nullptr;
      check(sqlite3_prepare_v2(db_.handle(), insert.c_str(), -1, &st, nullptr));
      std::ifstream in(dataDir / (std::string(t) + ".tbl"));
      std::string line;
      while (std::getline(in, line)) {
        size_t start = 0;
        for (int i = 0; i < columns; ++i) {
          size_t bar = line.find('|', start);
          if (bar == std::string::npos) bar = line.size();
          sqlite3_bind_text(st, i + 1, line.data() + start, static_cast<int>(bar - start), SQLITE_STATIC);
          start = bar + 1;
        }
        if (sqlite3_step(st) != SQLITE_DONE) throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db_.handle()));
        sqlite3_reset(st);
      }
      sqlite3_finalize(st);
    }
    exec("COMMIT");
    exec("ANALYZE");
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }

  double run(int query, const std::string& sql, uint64_t& rows) override {
    std::string text = sqliteDialect(query, sql);
    auto start = Clock::now();
    deadline_ = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_));
    sqlite3_stmt* st = nullptr;
    check(sqlite3_prepare_v2(db_.handle(), text.c_str(), -1, &st, nullptr));
    rows = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) ++rows;
    sqlite3_finalize(st);
    if (rc == SQLITE_INTERRUPT) throw std::runtime_error("stopped after the time limit");
    if (rc != SQLITE_DONE) throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db_.handle()));
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }

 private:
  static int progress(void* self) { return Clock::now() > static_cast<SqlitePeer*>(self)->deadline_ ? 1 : 0; }
  void exec(const std::string& sql) { db_.exec(sql); }
  void check(int rc) { db_.check(rc); }
  SqliteDb db_;
  double limit_;
  Clock::time_point deadline_ = Clock::time_point::max();
};

}  // namespace

std::unique_ptr<Peer> makeSqlitePeer(double timeLimitSeconds) { return std::make_unique<SqlitePeer>(timeLimitSeconds); }

}  // namespace hyrax::bench
