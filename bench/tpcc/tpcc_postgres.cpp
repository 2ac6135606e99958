// PostgreSQL as a TPC-C engine: a throwaway server (bench/pg_server.hpp) loaded by server-side
// COPY of the same text-format data, with the five transactions as the PL/pgSQL procedures of
// procedures.sql (the same text hyrax compiles), each transaction one CALL of a prepared
// statement through libpqxx in autocommit. The same client code drives hyrax's own server
// (`hyrax-bench tpcc --server`).
#include <pqxx/pqxx>

#include <chrono>
#include <functional>

#include "bench/pg_server.hpp"
#include "bench/tpcc/tpcc_engine.hpp"
#include "bench/tpch/answer_check.hpp"
#include "engine/types/text_format.hpp"

namespace fs = std::filesystem;

namespace hyrax::bench::tpcc {

namespace {

// An analytical client: a connection of its own to the same server.
class PostgresQueryClient : public Engine::QueryClient {
 public:
  explicit PostgresQueryClient(const std::string& connection) : con_(connection) {}
  uint64_t run(const std::string& sql, Answer* answer) override {
    pqxx::nontransaction tx(con_);
    pqxx::result r = tx.exec(sql);
    if (answer) {
      answer->columns.clear();
      answer->rows.clear();
      for (pqxx::row::size_type c = 0; c < r.columns(); ++c) answer->columns.push_back(r.column_name(c));
      for (const auto& row : r) {
        auto& out = answer->rows.emplace_back();
        for (const auto& f : row) out.push_back(f.is_null() ? "NULL" : f.c_str());
      }
    }
    return r.size();
  }

 private:
  pqxx::connection con_;
};

// The five transactions as CALLs of prepared statements over one libpq connection, to any server
// that speaks PostgreSQL's protocol (PostgreSQL, or hyrax's own server for --server).
// `writeFile` puts a table's text where the server can COPY it from.
class WireEngine : public Engine {
 public:
  using FileWriter = std::function<fs::path(const std::string& name, const std::string& text)>;
  WireEngine(std::string conninfo, std::string name, FileWriter writeFile, std::string analyze = "ANALYZE")
      : conninfo_(std::move(conninfo)), name_(std::move(name)), writeFile_(std::move(writeFile)),
        analyze_(std::move(analyze)), con_(conninfo_) {}

  std::string name() const override { return name_; }

  double load(const std::string& schema, const std::vector<std::string>& procedures, const InitialData& data) override {
    auto start = std::chrono::steady_clock::now();
    pqxx::nontransaction tx(con_);
    tx.exec(schema);
    for (auto& t : data.tables) {
      fs::path file = writeFile_(t.name + ".tsv", t.text);
      tx.exec("COPY " + t.name + " FROM '" + file.string() + "'");
      fs::remove(file);
    }
    tx.exec(analyze_);
    for (auto& p : procedures) tx.exec(p);
    prepareCalls();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  // The transactions' statements on this connection (load() does it for the loading one).
  void prepareCalls() {
    std::string params;
    for (int i = 1; i <= 51; ++i) params += (i > 1 ? ", $" : "$") + std::to_string(i);
    con_.prepare("new_order", "CALL new_order(" + params + ")");
    con_.prepare("payment", "CALL payment($1, $2, $3, $4, $5, $6, $7, $8, $9)");
    con_.prepare("order_status", "CALL order_status($1, $2, $3, $4, $5)");
    con_.prepare("delivery", "CALL delivery($1, $2, $3)");
    con_.prepare("stock_level", "CALL stock_level($1, $2, $3)");
  }

  bool newOrder(const NewOrderInput& in, int date) override {
    std::vector<std::string> a = {s(in.w), s(in.d), s(in.c), s(in.olCnt), s(in.allLocal), text::formatDate(date)};
    for (int k = 0; k < 15; ++k) {
      a.push_back(s(in.item[k]));
      a.push_back(s(in.supply[k]));
      a.push_back(s(in.qty[k]));
    }
    try {
      call("new_order", a);
    } catch (const pqxx::sql_error& e) {
      if (e.sqlstate() == "P0001") return false;  // the unknown item: RAISE rolled it back
      throw;
    }
    return true;
  }
  void payment(const PaymentInput& in, int date) override {
    call("payment", {s(in.w), s(in.d), s(in.cw), s(in.cd), s(in.c), in.last, s(in.byName),
                     text::formatDecimal(in.amountCents, 2), text::formatDate(date)});
  }
  void orderStatus(const OrderStatusInput& in) override {
    call("order_status", {s(in.w), s(in.d), s(in.c), in.last, s(in.byName)});
  }
  void delivery(const DeliveryInput& in, int date) override {
    call("delivery", {s(in.w), s(in.carrier), text::formatDate(date)});
  }
  void stockLevel(const StockLevelInput& in) override { call("stock_level", {s(in.w), s(in.d), s(in.threshold)}); }

  std::unique_ptr<QueryClient> openQueryClient(bool) override { return std::make_unique<PostgresQueryClient>(conninfo_); }

  int64_t count(const std::string& sql) override {
    pqxx::nontransaction tx(con_);
    return tx.exec1(sql)[0].as<int64_t>();
  }

 private:
  static std::string s(int v) { return std::to_string(v); }
  void call(const char* statement, const std::vector<std::string>& args) {
    pqxx::nontransaction tx(con_);
    tx.exec_prepared(statement, pqxx::prepare::make_dynamic_params(args));
  }
  std::string conninfo_, name_;
  FileWriter writeFile_;
  std::string analyze_;  // statistics after the load (PostgreSQL: VACUUM ANALYZE, as before)
  pqxx::connection con_;
};

// PostgreSQL in a throwaway server of its own (the server starts before the connection).
struct OwnedPgServer {
  explicit OwnedPgServer(const fs::path& dir) : server(dir) {}
  PgServer server;
};

class PostgresEngine : private OwnedPgServer, public WireEngine {
 public:
  explicit PostgresEngine(const fs::path& dir)
      : OwnedPgServer(dir),
        WireEngine(server.connectionString(), versionName(server.connectionString()),
                   [this](const std::string& name, const std::string& text) { return server.writeFile(name, text); },
                   "VACUUM ANALYZE") {}

 private:
  static std::string versionName(const std::string& conninfo) {
    pqxx::connection c(conninfo);
    return "PostgreSQL " + std::to_string(c.server_version() / 10000);
  }
};

}  // namespace

std::unique_ptr<Engine> makePostgresEngine(const fs::path& workDir) { return std::make_unique<PostgresEngine>(workDir); }

std::unique_ptr<Engine> makeWireEngine(const std::string& conninfo, const std::string& name,
                                       std::function<fs::path(const std::string&, const std::string&)> writeFile,
                                       bool prepare) {
  auto e = std::make_unique<WireEngine>(conninfo, name, std::move(writeFile));
  if (prepare) e->prepareCalls();
  return e;
}

}  // namespace hyrax::bench::tpcc
