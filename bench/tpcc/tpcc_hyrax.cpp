// hyrax as a TPC-C engine: COPY loads the data, and each transaction is one call of its stored
// procedure through Connection::call (no SQL text parsed per transaction).
#include <sstream>

#include "bench/tpcc/tpcc_engine.hpp"
#include "sql/api/database.hpp"

namespace hyrax::bench::tpcc {

namespace {

class HyraxEngine : public Engine {
 public:
  HyraxEngine() : con_(db_) {}
  std::string name() const override { return "hyrax"; }

  double load(const std::string& schema, const std::vector<std::string>& procedures, const InitialData& data) override {
    auto start = std::chrono::steady_clock::now();
    con_.executeScript(schema);
    for (size_t t = 0; t < kTables.size(); ++t) {
      std::istringstream in(data.text[t]);
      con_.setCopyStreams(&in, nullptr);
      con_.execute("COPY " + std::string(kTables[t]) + " FROM STDIN");
      con_.setCopyStreams(nullptr, nullptr);
    }
    con_.execute("ANALYZE");
    for (auto& p : procedures) con_.execute(p);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  bool newOrder(const NewOrderInput& in, int date) override {
    std::vector<Value> a;
    a.reserve(6 + 45);
    for (Value v : {i(in.w), i(in.d), i(in.c), i(in.olCnt), i(in.allLocal), Value::date(date)}) a.push_back(std::move(v));
    for (int k = 0; k < 15; ++k) {
      a.push_back(i(in.item[k]));
      a.push_back(i(in.supply[k]));
      a.push_back(i(in.qty[k]));
    }
    try {
      con_.call("new_order", a);
    } catch (const Error& e) {
      if (e.sqlstate() == sqlstate::RaiseException) return false;  // the unknown item: rolled back
      throw;
    }
    return true;
  }
  void payment(const PaymentInput& in, int date) override {
    con_.call("payment", {i(in.w), i(in.d), i(in.cw), i(in.cd), i(in.c), Value::string(in.last, SqlType::varchar(16)),
                          i(in.byName), Value::decimal(in.amountCents, 6, 2), Value::date(date)});
  }
  void orderStatus(const OrderStatusInput& in) override {
    con_.call("order_status", {i(in.w), i(in.d), i(in.c), Value::string(in.last, SqlType::varchar(16)), i(in.byName)});
  }
  void delivery(const DeliveryInput& in, int date) override {
    con_.call("delivery", {i(in.w), i(in.carrier), Value::date(date)});
  }
  void stockLevel(const StockLevelInput& in) override { con_.call("stock_level", {i(in.w), i(in.d), i(in.threshold)}); }

  int64_t count(const std::string& sql) override { return con_.execute(sql).value(0, 0).asInt(); }

 private:
  static Value i(int v) { return Value::int32(v); }
  Database db_;
  Connection con_;
};

}  // namespace

std::unique_ptr<Engine> makeHyraxEngine() { return std::make_unique<HyraxEngine>(); }

}  // namespace hyrax::bench::tpcc
