#pragma once
// What the TPC-C driver asks of an engine: load the initial database, run each of the five
// transactions with the inputs the driver drew, and answer the counting queries of the
// consistency checks. hyrax and PostgreSQL run the transactions as the stored procedures of
// procedures.sql; SQLite, which has none, runs the same statements from C++.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/tpcc/tpcc_data.hpp"

namespace hyrax::bench {
struct Answer;  // bench/tpch/answer_check.hpp
}

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

enum Type { NewOrder, Payment, OrderStatus, Delivery, StockLevel, kTypes };

// One transaction of the mix: its type and the inputs of that type.
struct Transaction {
  Type type = NewOrder;
  NewOrderInput newOrder;
  PaymentInput payment;
  OrderStatusInput orderStatus;
  DeliveryInput delivery;
  StockLevelInput stockLevel;
  int date = 0;  // days since 1970
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

  // A client of its own that runs analytical queries beside the mix (the CH-benCHmark's OLAP
  // streams, and its answer check): for hyrax a Connection of its own whose queries run on fork
  // snapshots (`snapshot`: SET analytics = 'snapshot') or inline on the executor; for PostgreSQL a
  // connection of its own. run() returns the rows and fills *answer when given; it throws what
  // the query threw. One thread per client.
  class QueryClient {
   public:
    virtual ~QueryClient() = default;
    virtual uint64_t run(const std::string& sql, Answer* answer) = 0;
    // How old the snapshot the last query ran on was when it started (ms); < 0: none (inline, or
    // an engine without snapshots).
    virtual double lastSnapshotAgeMs() const { return -1; }
  };
  virtual std::unique_ptr<QueryClient> openQueryClient(bool /*snapshot*/) {
    throw std::runtime_error(name() + " has no analytical clients here");
  }

  // Snapshot failures beside the mix (hyrax only; issue 17): prepareSnapshotKills() before the
  // mix, then on a thread of its own killSnapshots() starts `kills` analytical queries on fork
  // snapshots and kills each child, and every tenth time runs the `checks` (queries that count
  // violations) on a fresh snapshot. Returns the kills that failed only their query (and were
  // reaped) and the violations the snapshots saw. Engines without snapshots return nothing.
  struct SnapshotKills {
    int killed = 0, checked = 0, violations = 0;
  };
  virtual bool hasSnapshots() const { return false; }
  virtual void prepareSnapshotKills() {}
  virtual SnapshotKills killSnapshots(int, const std::vector<std::string>&) { return {}; }

  // A transaction in two halves. An engine that runs transactions on a thread of its own
  // (overlaps() true: hyrax's OLTP thread) serves terminals() clients at once, each with at most
  // one transaction under way, as TPC-C's terminals are: start(k, t) hands terminal k's
  // transaction over and returns at once, finish(k) waits for it. Meanwhile the driver draws the
  // next transaction's inputs and prepare()s them (an overlapping engine turns them into a call
  // there, so start() only hands it over). Other engines run the transaction in finish(), with
  // one terminal. finish() returns newOrder's answer (false: rolled back as asked), true for the
  // other types, and throws what the transaction threw.
  virtual bool overlaps() const { return false; }
  // hyrax: from now on the driver's thread runs each transaction itself, one terminal, as a
  // server session's thread does (it must have the executor's stack: LargeStackThread of
  // kExecutorStackBytes), instead of handing it to the OLTP thread. hyrax-bench ch does so.
  virtual void runOnDriverThread() {}
  virtual int terminals() const { return 1; }
  virtual void prepare(const Transaction&) {}
  virtual void start(int, const Transaction& t) { pending_ = t; }
  virtual bool finish(int) { return runNow(pending_); }

 protected:
  bool runNow(const Transaction& t) {
    switch (t.type) {
      case NewOrder: return newOrder(t.newOrder, t.date);
      case Payment: payment(t.payment, t.date); break;
      case OrderStatus: orderStatus(t.orderStatus); break;
      case Delivery: delivery(t.delivery, t.date); break;
      default: stockLevel(t.stockLevel); break;
    }
    return true;
  }

 private:
  Transaction pending_;
};

// hyrax served by `terminals` connections whose calls queue at its one OLTP thread.
std::unique_ptr<Engine> makeHyraxEngine(int terminals);
std::unique_ptr<Engine> makeSqliteEngine();
std::unique_ptr<Engine> makePostgresEngine(const std::filesystem::path& workDir);
// A client of any server speaking PostgreSQL's protocol (hyrax's for --server), with the
// transactions as CALLs of prepared statements; `writeFile` puts a table's text where the server
// can COPY it from. `prepare`: prepare the CALLs now (a client of a server another one loaded).
std::unique_ptr<Engine> makeWireEngine(
    const std::string& conninfo, const std::string& name,
    std::function<std::filesystem::path(const std::string&, const std::string&)> writeFile, bool prepare);

}  // namespace hyrax::bench::tpcc
