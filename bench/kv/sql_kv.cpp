#include "bench/kv/sql_kv.hpp"

#include <pqxx/pqxx>
#include <charconv>

#include "bench/copy_lines.hpp"

namespace hyrax::bench::kv {

namespace {

// The upsert as a procedure both engines compile (hyrax has no INSERT ... ON CONFLICT): update,
// and insert when no row was there. On PostgreSQL two sessions may both miss the same new key;
// the second INSERT's unique violation then becomes an update. hyrax runs calls one at a time.
const char* kPutProcedure = R"(CREATE PROCEDURE kv_put(p_k BIGINT, p_v VARCHAR(4000), p_t1 INTEGER, p_t2 DOUBLE PRECISION) AS $$
BEGIN
  UPDATE kv SET v = p_v, tag1 = p_t1, tag2 = p_t2 WHERE k = p_k;
  IF NOT FOUND THEN
    BEGIN
      INSERT INTO kv VALUES (p_k, p_v, p_t1, p_t2);
    EXCEPTION WHEN unique_violation THEN
      UPDATE kv SET v = p_v, tag1 = p_t1, tag2 = p_t2 WHERE k = p_k;
    END;
  END IF;
END
$$ LANGUAGE plpgsql)";

std::string doubleText(double d) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d);  // shortest text that reads back as d
  return std::string(buffer, end);
}

class SqlSession : public Session {
 public:
  SqlSession(const std::string& conninfo, const Options& o) : con_(conninfo) {
    con_.prepare("get", "SELECT v, tag1, tag2 FROM kv WHERE k = $1");
    con_.prepare("put", "CALL kv_put($1, $2, $3, $4)");
    con_.prepare("range", "SELECT k, v, tag1, tag2 FROM kv WHERE tag1 BETWEEN $1 AND $2 ORDER BY tag1 LIMIT " +
                              std::to_string(o.rangeLimit));
    tx_ = std::make_unique<pqxx::nontransaction>(con_);  // each statement its own transaction
  }
  bool get(uint64_t key, Row& row) override {
    pqxx::result r = tx_->exec_prepared("get", key);
    if (r.empty()) return false;
    if (r.size() > 1) throw std::runtime_error("get of key " + std::to_string(key) + " returned " + std::to_string(r.size()) + " rows");
    row.key = key;
    row.value = r[0][0].as<std::string>();
    row.tag1 = r[0][1].as<int32_t>();
    row.tag2 = r[0][2].as<double>();
    return true;
  }
  void put(const Row& row) override { tx_->exec_prepared("put", row.key, row.value, row.tag1, doubleText(row.tag2)); }
  void range(int32_t lo, int32_t hi, std::vector<Row>& rows) override {
    pqxx::result r = tx_->exec_prepared("range", lo, hi);
    rows.resize(r.size());
    for (size_t i = 0; i < r.size(); ++i) {
      rows[i].key = r[i][0].as<uint64_t>();
      rows[i].value = r[i][1].as<std::string>();
      rows[i].tag1 = r[i][2].as<int32_t>();
      rows[i].tag2 = r[i][3].as<double>();
    }
  }

 private:
  pqxx::connection con_;
  std::unique_ptr<pqxx::nontransaction> tx_;
};

}  // namespace

void loadSql(const std::string& conninfo, const Options& o) {
  pqxx::connection con(conninfo);
  {
    pqxx::nontransaction tx(con);
    tx.exec("DROP TABLE IF EXISTS kv");
    tx.exec("DROP PROCEDURE IF EXISTS kv_put");
    tx.exec("CREATE TABLE kv (k BIGINT PRIMARY KEY, v VARCHAR(4000), tag1 INTEGER, tag2 DOUBLE PRECISION)");
    tx.exec("CREATE INDEX kv_tag1 ON kv (tag1)");
    tx.exec(kPutProcedure);
  }
  copyLines(con, "kv", o.records, [&](uint64_t key, std::string& line) {
    if (!loadedKey(key)) return false;
    const Row r = makeRow(key, 0, o);
    line = std::to_string(key);
    line.append("\t").append(r.value).append("\t").append(std::to_string(r.tag1)).append("\t").append(doubleText(r.tag2));
    return true;
  });
  pqxx::nontransaction(con).exec("ANALYZE kv");
}

std::unique_ptr<Session> connectSql(const std::string& conninfo, const Options& o) {
  return std::make_unique<SqlSession>(conninfo, o);
}

std::string checkSql(const std::string& conninfo, const Options& o) {
  pqxx::connection con(conninfo);
  pqxx::nontransaction tx(con);
  const uint64_t loaded = o.records - (o.records + 9) / 10;
  // (No FILTER clause: hyrax does not parse it yet.)
  pqxx::result r = tx.exec("SELECT count(*), min(length(v)), max(length(v)), sum(CASE WHEN k % 10 <> 0 THEN 1 ELSE 0 END), "
                           "sum(CASE WHEN tag2 <> CAST(tag1 AS DOUBLE PRECISION) / 1000 THEN 1 ELSE 0 END) FROM kv");
  const uint64_t rows = r[0][0].as<uint64_t>();
  std::string problems;
  if (r[0][3].as<uint64_t>() != loaded)
    problems += "loaded keys: " + r[0][3].as<std::string>() + " of " + std::to_string(loaded) + "; ";
  if (r[0][1].as<int>() != o.valueLength || r[0][2].as<int>() != o.valueLength)
    problems += "value lengths " + r[0][1].as<std::string>() + ".." + r[0][2].as<std::string>() + "; ";
  if (r[0][4].as<uint64_t>() != 0) problems += r[0][4].as<std::string>() + " rows with tag2 <> tag1 / 1000; ";
  pqxx::result torn = tx.exec("SELECT count(*) FROM kv WHERE v NOT LIKE k || ':' || tag1 || ':%'");
  if (torn[0][0].as<uint64_t>() != 0) problems += torn[0][0].as<std::string>() + " rows whose value names another key or tag; ";
  // The tag index after the puts moved tags: as many entries over all tags as rows, and for a
  // sample of keys, a lookup by the row's tag1 finds the row.
  pqxx::result byTag = tx.exec("SELECT count(*) FROM kv WHERE tag1 BETWEEN 0 AND " + std::to_string(o.records));
  if (byTag[0][0].as<uint64_t>() != rows)
    problems += "the tag index finds " + byTag[0][0].as<std::string>() + " of " + std::to_string(rows) + " rows; ";
  con.prepare("tagOf", "SELECT tag1 FROM kv WHERE k = $1");
  con.prepare("byTag", "SELECT k FROM kv WHERE tag1 = $1");
  uint64_t missing = 0;
  for (uint64_t i = 0; i < 1000; ++i) {
    const uint64_t key = fnv64(i) % o.records;
    pqxx::result t = tx.exec_prepared("tagOf", key);
    if (t.empty()) continue;
    bool found = false;
    for (const auto& row : tx.exec_prepared("byTag", t[0][0].as<int32_t>())) found = found || row[0].as<uint64_t>() == key;
    missing += found ? 0 : 1;
  }
  if (missing) problems += std::to_string(missing) + " of 1000 sampled rows not found by their tag1 through the index; ";
  return problems;
}

}  // namespace hyrax::bench::kv
