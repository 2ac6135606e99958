// hyrax as a TPC-C engine: COPY loads the data, and each transaction is one call of its stored
// procedure through Connection::call (no SQL text parsed per transaction). In the driver's mix it
// serves several terminals, one connection each, whose calls queue at the one OLTP thread.
#include <sstream>
#include <thread>

#include <signal.h>
#include <cerrno>
#include <unistd.h>

#include "bench/tpcc/tpcc_engine.hpp"
#include "bench/tpch/answer_check.hpp"
#include "sql/api/database.hpp"

namespace hyrax::bench::tpcc {

namespace {

// An analytical client: a connection of its own, its queries on fork snapshots or inline.
class HyraxQueryClient : public Engine::QueryClient {
 public:
  HyraxQueryClient(Database& db, bool snapshot) : con_(db) {
    con_.execute(std::string("SET analytics = '") + (snapshot ? "snapshot" : "inline") + "'");
  }
  uint64_t run(const std::string& sql, Answer* answer) override {
    QueryResult r = con_.execute(sql);
    if (answer) *answer = answerOf(r);
    lastAge_ = r.ranOn.snapshotAgeMs;
    return r.rowCount();
  }
  double lastSnapshotAgeMs() const override { return lastAge_; }

 private:
  Connection con_;
  double lastAge_ = -1;
};

class HyraxEngine : public Engine {
 public:
  explicit HyraxEngine(int terminals) {
    for (int k = 0; k < terminals; ++k) {
      terminals_.push_back({std::make_unique<Connection>(db_), NewOrder});
      // The driver's own queries (the consistency counts) run inline: on a snapshot, the one after
      // the load would fork the process while the generated text is alive, and that snapshot,
      // shared as long as nothing writes, made every later worker's fork copy its pages (8-14 ms
      // each against ~2 ms once the text is gone; hyrax-bench ch --check).
      terminals_.back().con->execute("SET analytics = 'inline'");
    }
  }
  std::string name() const override { return "hyrax"; }

  double load(const std::string& schema, const std::vector<std::string>& procedures, const InitialData& data) override {
    auto start = std::chrono::steady_clock::now();
    con().executeScript(schema);
    for (auto& t : data.tables) {
      std::istringstream in(t.text);
      con().setCopyStreams(&in, nullptr);
      con().execute("COPY " + t.name + " FROM STDIN");
      con().setCopyStreams(nullptr, nullptr);
    }
    con().execute("ANALYZE");
    for (auto& p : procedures) con().execute(p);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  bool newOrder(const NewOrderInput& in, int date) override { return callNow(NewOrder, "new_order", newOrderArgs(in, date)); }
  void payment(const PaymentInput& in, int date) override { callNow(Payment, "payment", paymentArgs(in, date)); }
  void orderStatus(const OrderStatusInput& in) override { callNow(OrderStatus, "order_status", orderStatusArgs(in)); }
  void delivery(const DeliveryInput& in, int date) override {
    callNow(Delivery, "delivery", {i(in.w), i(in.carrier), Value::date(date)});
  }
  void stockLevel(const StockLevelInput& in) override {
    callNow(StockLevel, "stock_level", {i(in.w), i(in.d), i(in.threshold)});
  }

  // The driver's overlapped form: the call runs on the OLTP thread while the driver draws the
  // next transaction.
  bool overlaps() const override { return !onDriverThread_; }
  void runOnDriverThread() override { onDriverThread_ = true; }
  int terminals() const override { return static_cast<int>(terminals_.size()); }
  void prepare(const Transaction& t) override {
    if (onDriverThread_) return;  // (finish() makes the call, on this thread)
    switch (t.type) {
      case NewOrder: prepared_ = {"new_order", newOrderArgs(t.newOrder, t.date)}; break;
      case Payment: prepared_ = {"payment", paymentArgs(t.payment, t.date)}; break;
      case OrderStatus: prepared_ = {"order_status", orderStatusArgs(t.orderStatus)}; break;
      case Delivery: prepared_ = {"delivery", {i(t.delivery.w), i(t.delivery.carrier), Value::date(t.date)}}; break;
      default: prepared_ = {"stock_level", {i(t.stockLevel.w), i(t.stockLevel.d), i(t.stockLevel.threshold)}}; break;
    }
  }
  void start(int k, const Transaction& t) override {
    if (onDriverThread_) return Engine::start(k, t);
    Terminal& term = terminals_[static_cast<size_t>(k)];
    term.type = t.type;
    if (!prepared_.name) prepare(t);  // the driver prepares each transaction; others start unprepared
    term.con->startCall(prepared_.name, std::move(prepared_.args));
    prepared_.name = nullptr;
  }
  bool finish(int k) override {
    if (onDriverThread_) return Engine::finish(k);
    Terminal& term = terminals_[static_cast<size_t>(k)];
    try {
      term.con->finishCall();
    } catch (const Error& e) {
      if (term.type == NewOrder && e.sqlstate() == sqlstate::RaiseException) return false;  // the unknown item
      throw;
    }
    return true;
  }

  int64_t count(const std::string& sql) override { return con().execute(sql).value(0, 0).asInt(); }

  std::unique_ptr<QueryClient> openQueryClient(bool snapshot) override {
    return std::make_unique<HyraxQueryClient>(db_, snapshot);
  }

  bool hasSnapshots() const override { return true; }
  void prepareSnapshotKills() override {
    victim_ = std::make_unique<Connection>(db_);
    checker_ = std::make_unique<Connection>(db_);
    victim_->execute("SET analytics = 'snapshot'");
    checker_->execute("SET analytics = 'snapshot'");
    victim_->setSnapshotHookForTesting([] {
      for (;;) pause();  // the child waits here until it is killed
    });
  }
  SnapshotKills killSnapshots(int kills, const std::vector<std::string>& checks) override {
    SnapshotKills r;
    for (int k = 0; k < kills; ++k) {
      std::string state;
      std::thread query([&] {
        try {
          victim_->execute("SELECT sum(ol_amount) FROM order_line");
        } catch (const Error& e) {
          state = e.sqlstate();
        }
      });
      int pid = 0;
      for (int wait = 0; wait < 60000 && !(pid = victim_->snapshotPid()); ++wait) usleep(1000);
      if (pid) kill(pid, SIGKILL);
      query.join();
      // Failed with XX000 and reaped (its snapshot process reaps it before it reports how it
      // ended): no such process is left, not even a zombie.
      r.killed += pid && state == sqlstate::InternalError && kill(pid, 0) == -1 && errno == ESRCH;
      if (k % 10 == 0) {
        for (auto& c : checks) r.violations += checker_->execute(c).value(0, 0).asInt() != 0;
        ++r.checked;
      }
    }
    return r;
  }

 private:
  static Value i(int v) { return Value::int32(v); }
  static std::vector<Value> newOrderArgs(const NewOrderInput& in, int date) {
    std::vector<Value> a;
    a.reserve(6 + 45);
    for (Value v : {i(in.w), i(in.d), i(in.c), i(in.olCnt), i(in.allLocal), Value::date(date)}) a.push_back(std::move(v));
    for (int k = 0; k < 15; ++k) {
      a.push_back(i(in.item[k]));
      a.push_back(i(in.supply[k]));
      a.push_back(i(in.qty[k]));
    }
    return a;
  }
  static std::vector<Value> paymentArgs(const PaymentInput& in, int date) {
    return {i(in.w), i(in.d), i(in.cw), i(in.cd), i(in.c), Value::string(in.last, SqlType::varchar(16)),
            i(in.byName), Value::decimal(in.amountCents, 6, 2), Value::date(date)};
  }
  static std::vector<Value> orderStatusArgs(const OrderStatusInput& in) {
    return {i(in.w), i(in.d), i(in.c), Value::string(in.last, SqlType::varchar(16)), i(in.byName)};
  }
  // A New-Order with the unknown item raises: false (rolled back as asked); other errors throw.
  bool callNow(Type type, const char* name, const std::vector<Value>& args) {
    try {
      con().call(name, args);
    } catch (const Error& e) {
      if (type == NewOrder && e.sqlstate() == sqlstate::RaiseException) return false;
      throw;
    }
    return true;
  }
  bool onDriverThread_ = false;
  struct PreparedCall {
    const char* name = nullptr;
    std::vector<Value> args;
  } prepared_;
  Database db_;
  struct Terminal {
    std::unique_ptr<Connection> con;
    Type type;  // of the call under way
  };
  std::vector<Terminal> terminals_;  // the first also loads and checks
  std::unique_ptr<Connection> victim_, checker_;  // snapshot kills (prepareSnapshotKills)
  Connection& con() { return *terminals_.front().con; }
};

}  // namespace

std::unique_ptr<Engine> makeHyraxEngine(int terminals) { return std::make_unique<HyraxEngine>(terminals); }

}  // namespace hyrax::bench::tpcc
