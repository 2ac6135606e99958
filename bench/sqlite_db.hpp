#pragma once
// A thin owner of an in-memory SQLite database and its prepared statements, for the SQLite peers
// of the benchmarks: errors become std::runtime_error with SQLite's message.
#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace hyrax::bench {

class SqliteDb {
 public:
  SqliteDb() {
    if (sqlite3_open(":memory:", &db_) != SQLITE_OK) throw std::runtime_error("sqlite: cannot open a database");
  }
  ~SqliteDb() { sqlite3_close(db_); }
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  sqlite3* handle() const { return db_; }
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error("sqlite: " + msg);
    }
  }
  void check(int rc) const {
    if (rc != SQLITE_OK) throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
  }

 private:
  sqlite3* db_ = nullptr;
};

// One prepared statement, reused: bind() after reset() binds parameters left to right, step()
// says whether a row came, the getters read its columns.
class SqliteStmt {
 public:
  SqliteStmt(const SqliteDb& db, const std::string& sql) : db_(db) {
    db.check(sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &st_, nullptr));
  }
  ~SqliteStmt() { sqlite3_finalize(st_); }
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;

  sqlite3_stmt* handle() const { return st_; }
  template <typename... A>
  SqliteStmt& bind(const A&... args) {
    sqlite3_reset(st_);
    int i = 0;
    (bindOne(++i, args), ...);
    return *this;
  }
  bool step() {
    int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db_.handle()));
    return false;
  }
  void run() {  // a statement without rows
    step();
    sqlite3_reset(st_);
  }
  bool isNull(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
  int64_t i64(int col) const { return sqlite3_column_int64(st_, col); }
  double f64(int col) const { return sqlite3_column_double(st_, col); }
  std::string text(int col) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st_, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(st_, col))) : std::string();
  }

 private:
  void bindOne(int i, int v) { sqlite3_bind_int(st_, i, v); }
  void bindOne(int i, int64_t v) { sqlite3_bind_int64(st_, i, v); }
  void bindOne(int i, double v) { sqlite3_bind_double(st_, i, v); }
  void bindOne(int i, const std::string& v) {
    sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  const SqliteDb& db_;
  sqlite3_stmt* st_ = nullptr;
};

}  // namespace hyrax::bench
