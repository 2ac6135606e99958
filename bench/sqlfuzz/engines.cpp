#include "bench/sqlfuzz/engines.hpp"

#include <pqxx/pqxx>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "bench/pg_server.hpp"
#include "sql/api/database.hpp"

namespace fs = std::filesystem;

namespace hyrax::bench::sqlfuzz {

std::vector<Way> hyraxWays() {
  const std::string timeout = "SET statement_timeout = '30s'";
  return {
      {"threads=1", {"SET analytics = 'inline'", "SET threads = 1", timeout}},
      {"threads=2", {"SET analytics = 'inline'", "SET threads = 2", timeout}},
      {"snapshot", {"SET analytics = 'snapshot'", "SET threads = 2", "SET snapshot_max_age = '10s'", timeout}},
      {"cheap", {"SET analytics = 'inline'", "SET threads = 2", "SET compile_tier = 'cheap'", timeout}},
      {"optimized", {"SET analytics = 'inline'", "SET threads = 2", "SET compile_tier = 'optimized'", timeout}},
      // Cheap code in two parts (the first part's functions called from the second's), which needs
      // a thread fewer than the cores; on a machine of one core it compiles one module.
      {"split", {"SET analytics = 'inline'", "SET threads = 1", "SET compile_tier = 'cheap'", "SET compile_parts = 'two'",
                 timeout}},
  };
}

struct Engines::Postgres {
  explicit Postgres(const std::string& connection) : con(connection), tx(con) {}
  pqxx::connection con;
  pqxx::nontransaction tx;
};

namespace {

ColumnClass classOf(const SqlType& t) {
  if (t.isNumeric()) return ColumnClass::Numeric;
  return t.id == TypeId::Char ? ColumnClass::Char : t.id == TypeId::Bool ? ColumnClass::Bool : ColumnClass::Other;
}

// PostgreSQL's type oids (pg_type.dat): int8, int2, int4, float4, float8, numeric; bpchar; bool.
ColumnClass classOfOid(pqxx::oid oid) {
  if (oid == 20 || oid == 21 || oid == 23 || oid == 700 || oid == 701 || oid == 1700) return ColumnClass::Numeric;
  return oid == 1042 ? ColumnClass::Char : oid == 16 ? ColumnClass::Bool : ColumnClass::Other;
}

Answer hyraxAnswer(Connection& con, const std::string& sql) {
  try {
    QueryResult r = con.execute(sql);
    if (r.rowCount() > kMaxAnswerRows) return Answer::oversized();
    Answer a;
    for (const ResultColumn& c : r.columns()) a.columns.push_back(classOf(c.type));
    for (uint64_t row = 0; row < r.rowCount(); ++row) {
      a.rows.emplace_back();
      for (uint32_t c = 0; c < r.columns().size(); ++c)
        a.rows.back().push_back(r.isNull(row, c) ? std::nullopt : std::optional<std::string>(r.text(row, c)));
    }
    return a;
  } catch (const Error& e) {
    return Answer::error(e.sqlstate(), e.message());
  } catch (const std::exception& e) {  // not hyrax's Error: a bug in itself, reported as XX000
    return Answer::error("XX000", std::string("exception escaped the API: ") + e.what());
  }
}

}  // namespace

Engines::Engines(const Schema& schema, uint64_t seed, const std::string& work, bool withHyrax, bool withPostgres) {
  if (withPostgres) {
    server_ = std::make_unique<PgServer>(fs::path(work) / "pg");
    pg_ = std::make_unique<Postgres>(server_->connectionString());
    pgVersion_ = pg_->tx.exec1("SHOW server_version")[0].as<std::string>();
    pg_->tx.exec("SET statement_timeout = '3s'");  // a timeout is no mismatch, and PostgreSQL's nested loops can take minutes
  }
  std::vector<fs::path> files;
  for (size_t t = 0; t < schema.tables.size(); ++t) {
    std::string csv = tableCsv(schema, t, seed), name = schema.tables[t].name + ".csv";
    if (server_) {
      files.push_back(server_->writeFile(name, csv));
    } else {
      fs::create_directories(work);
      files.push_back(fs::path(work) / name);
      std::ofstream(files.back(), std::ios::binary) << csv;
    }
  }
  const std::vector<std::string> creates = schema.createStatements();
  if (withHyrax) {
    db_ = std::make_unique<Database>();
    Connection load(*db_);
    for (size_t t = 0; t < creates.size(); ++t) {
      load.execute(creates[t]);
      load.execute("COPY " + schema.tables[t].name + " FROM '" + files[t].string() + "' (FORMAT csv)");
    }
    for (const Way& way : hyraxWays()) {
      sessions_.push_back(std::make_unique<Connection>(*db_));
      for (const std::string& set : way.settings) sessions_.back()->execute(set);
      names_.push_back(way.name);
    }
  }
  if (pg_) {
    for (size_t t = 0; t < creates.size(); ++t) {
      pg_->tx.exec(creates[t]);
      pg_->tx.exec("COPY " + schema.tables[t].name + " FROM '" + files[t].string() + "' (FORMAT csv)");
    }
    pg_->tx.exec("ANALYZE");
    names_.push_back("postgresql");
  }
}

Engines::~Engines() = default;

Answer Engines::runOne(size_t way, const std::string& sql) {
  const auto start = std::chrono::steady_clock::now();
  Answer a = way < sessions_.size() ? hyraxAnswer(*sessions_[way], sql) : postgresAnswer(sql);
  seconds_.resize(names_.size());
  seconds_[way] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return a;
}

Answer Engines::postgresAnswer(const std::string& sql) {
  try {
    pqxx::result r = pg_->tx.exec(sql);
    if (static_cast<uint64_t>(r.size()) > kMaxAnswerRows) return Answer::oversized();
    Answer a;
    for (pqxx::row::size_type c = 0; c < r.columns(); ++c) a.columns.push_back(classOfOid(r.column_type(c)));
    for (const auto& row : r) {
      a.rows.emplace_back();
      for (const auto& f : row) a.rows.back().push_back(f.is_null() ? std::nullopt : std::optional<std::string>(f.c_str()));
    }
    return a;
  } catch (const pqxx::sql_error& e) {
    return Answer::error(e.sqlstate(), e.what());
  }
}

std::vector<Answer> Engines::run(const std::string& sql) {
  std::vector<Answer> out;
  for (size_t i = 0; i < names_.size(); ++i) out.push_back(runOne(i, sql));
  return out;
}

}  // namespace hyrax::bench::sqlfuzz
