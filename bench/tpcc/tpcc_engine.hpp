#pragma once
// What the TPC-C driver asks of an engine: load the initial database, run each of the five
// transactions with the inputs the driver drew, and answer the counting queries of the
// consistency checks. hyrax and PostgreSQL run the transactions as the stored procedures of
// procedures.sql; SQLite, which has none, runs the same statements from C++.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench/tpcc/tpcc_data.hpp"

namespace hyrax::bench::tpcc {

struct NewOrderInput {
  int w = 0, d = 0, c = 0, olCnt = 0, allLocal = 1;
  int item[15] = {}, supply[15] = {}, qty[15] = {};
};
struct PaymentInput {
  int w = 0, d = 0, cw = 0, cd = 0, c = 0;
  std::string last;
  bool byName = false;
  int64_t amountCents = 0;
};
struct OrderStatusInput {
  int w = 0, d = 0, c = 0;
  std::string last;
  bool byName = false;
};
struct DeliveryInput {
  int w = 0, carrier = 0;
};
struct StockLevelInput {
  int w = 0, d = 0, threshold = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  // Creates the tables and procedures (`procedures`: one CREATE PROCEDURE each) and loads the
  // data; returns milliseconds.
  virtual double load(const std::string& schema, const std::vector<std::string>& procedures, const InitialData& data) = 0;
  // Each runs one transaction. newOrder returns false when it rolled back as asked (an unknown
  // item); anything else that fails throws. `date`: days since 1970.
  virtual bool newOrder(const NewOrderInput& in, int date) = 0;
  virtual void payment(const PaymentInput& in, int date) = 0;
  virtual void orderStatus(const OrderStatusInput& in) = 0;
  virtual void delivery(const DeliveryInput& in, int date) = 0;
  virtual void stockLevel(const StockLevelInput& in) = 0;
  // The one integer a query returns (consistency checks).
  virtual int64_t count(const std::string& sql) = 0;
};

std::unique_ptr<Engine> makeHyraxEngine();
std::unique_ptr<Engine> makeSqliteEngine();
std::unique_ptr<Engine> makePostgresEngine(const std::filesystem::path& workDir);

}  // namespace hyrax::bench::tpcc
