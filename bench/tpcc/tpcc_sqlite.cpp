// SQLite as a TPC-C engine: an in-memory database (its C API, in process) holding the same rows,
// with each transaction written out in C++ as the statements of its procedure in
// procedures.sql, all prepared once and run between BEGIN and COMMIT. SQLite keeps DECIMALs as
// floating point, so money is compared to the cent in the consistency checks.
#include <chrono>
#include <memory>

#include "bench/sqlite_db.hpp"
#include "bench/tpcc/tpcc_engine.hpp"
#include "bench/tpcc/tpcc_random.hpp"
#include "engine/types/text_format.hpp"

namespace hyrax::bench::tpcc {

namespace {

class SqliteEngine : public Engine {
 public:
  std::string name() const override { return "SQLite " + std::string(sqlite3_libversion()); }

  double load(const std::string& schema, const std::vector<std::string>&, const InitialData& data) override {
    auto start = std::chrono::steady_clock::now();
    db_.exec(schema);
    db_.exec("BEGIN");
    for (auto& t : data.tables) loadTable(t.name.c_str(), t.text);
    db_.exec("COMMIT");
    db_.exec("ANALYZE");
    prepare();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  bool newOrder(const NewOrderInput& in, int date) override {
    Transaction tx(*this);
    SqliteStmt& w = *wTax_;
    w.bind(in.w).step();
    double wTax = w.f64(0);
    district_->bind(in.w, in.d).step();
    double dTax = district_->f64(0);
    int oId = static_cast<int>(district_->i64(1));
    districtNext_->bind(in.w, in.d).run();
    customer_->bind(in.w, in.d, in.c).step();
    double discount = customer_->f64(0);
    insertOrder_->bind(oId, in.d, in.w, in.c, text::formatDate(date), in.olCnt, in.allLocal).run();
    insertNewOrder_->bind(oId, in.d, in.w).run();
    double total = 0;
    for (int n = 1; n <= in.olCnt; ++n) {
      int item = in.item[n - 1], supply = in.supply[n - 1], qty = in.qty[n - 1];
      if (!item_->bind(item).step()) return false;  // the unknown item: ~Transaction rolls back
      double price = item_->f64(0);
      stock_->bind(in.d, supply, item).step();
      int sQty = static_cast<int>(stock_->i64(0));
      std::string dist = stock_->text(1);
      sQty = sQty - qty >= 10 ? sQty - qty : sQty - qty + 91;
      updateStock_->bind(sQty, qty, supply != in.w ? 1 : 0, supply, item).run();
      double amount = qty * price;
      insertLine_->bind(oId, in.d, in.w, n, item, supply, qty, amount, dist).run();
      total += amount;
    }
    total *= (1 - discount) * (1 + wTax + dTax);
    tx.commit();
    return true;
  }

  void payment(const PaymentInput& in, int date) override {
    Transaction tx(*this);
    double amount = static_cast<double>(in.amountCents) / 100;
    warehouseYtd_->bind(amount, in.w).run();
    warehouseName_->bind(in.w).step();
    std::string wName = warehouseName_->text(0);
    districtYtd_->bind(amount, in.w, in.d).run();
    districtName_->bind(in.w, in.d).step();
    std::string dName = districtName_->text(0);
    int c = in.byName ? customerByName(in.cw, in.cd, in.last) : in.c;
    customerCredit_->bind(in.cw, in.cd, c).step();
    std::string credit = customerCredit_->text(0), cData = customerCredit_->text(1);
    if (credit == "BC") {
      std::string data = std::to_string(c) + " " + std::to_string(in.cd) + " " + std::to_string(in.cw) + " " +
                         std::to_string(in.d) + " " + std::to_string(in.w) + " " +
                         text::formatDecimal(in.amountCents, 2) + " | " + cData;
      payBadCredit_->bind(amount, amount, data.substr(0, 500), in.cw, in.cd, c).run();
    } else {
      payGoodCredit_->bind(amount, amount, in.cw, in.cd, c).run();
    }
    insertHistory_->bind(c, in.cd, in.cw, in.d, in.w, text::formatDate(date), amount, wName + "    " + dName).run();
    tx.commit();
  }

  void orderStatus(const OrderStatusInput& in) override {
    Transaction tx(*this);
    int c = in.byName ? customerByName(in.w, in.d, in.last) : in.c;
    customerStatus_->bind(in.w, in.d, c).step();
    lastOrder_->bind(in.w, in.d, c).step();
    int oId = static_cast<int>(lastOrder_->i64(0));
    order_->bind(in.w, in.d, oId).step();
    int lines = 0;
    for (orderLines_->bind(in.w, in.d, oId); orderLines_->step();) ++lines;
    tx.commit();
  }

  void delivery(const DeliveryInput& in, int date) override {
    Transaction tx(*this);
    std::string day = text::formatDate(date);
    for (int d = 1; d <= kDistricts; ++d) {
      oldestNewOrder_->bind(in.w, d).step();
      if (oldestNewOrder_->isNull(0)) continue;
      int oId = static_cast<int>(oldestNewOrder_->i64(0));
      deleteNewOrder_->bind(in.w, d, oId).run();
      orderCustomer_->bind(in.w, d, oId).step();
      int c = static_cast<int>(orderCustomer_->i64(0));
      setCarrier_->bind(in.carrier, in.w, d, oId).run();
      setDelivered_->bind(day, in.w, d, oId).run();
      orderTotal_->bind(in.w, d, oId).step();
      double total = orderTotal_->f64(0);
      deliverCustomer_->bind(total, in.w, d, c).run();
    }
    tx.commit();
  }

  void stockLevel(const StockLevelInput& in) override {
    Transaction tx(*this);
    nextOrder_->bind(in.w, in.d).step();
    int next = static_cast<int>(nextOrder_->i64(0));
    lowStock_->bind(in.w, in.d, next, next - 20, in.w, in.threshold).step();
    tx.commit();
  }

  int64_t count(const std::string& sql) override {
    // Money is floating point here: equal to the cent.
    std::string text = sql;
    size_t p = text.find("w.w_ytd <> d.s");
    if (p != std::string::npos) text.replace(p, 14, "abs(w.w_ytd - d.s) > 0.005");
    SqliteStmt st(db_, text);
    st.step();
    return st.i64(0);
  }

 private:
  // BEGIN now; ROLLBACK unless commit() ran (an early return or an exception).
  class Transaction {
   public:
    explicit Transaction(SqliteEngine& e) : e_(e) { e_.begin_->run(); }
    ~Transaction() {
      if (!done_) e_.rollback_->run();
    }
    void commit() {
      e_.commit_->run();
      done_ = true;
    }

   private:
    SqliteEngine& e_;
    bool done_ = false;
  };

  // The middle customer of those with the last name, by first name (clause 2.5.2.2).
  int customerByName(int w, int d, const std::string& last) {
    std::vector<int> ids;
    for (customersByName_->bind(w, d, last); customersByName_->step();) ids.push_back(static_cast<int>(customersByName_->i64(0)));
    if (ids.empty()) throw std::runtime_error("no customer named " + last);
    return ids[(ids.size() + 1) / 2 - 1];
  }

  void loadTable(const char* table, const std::string& rows) {
    SqliteStmt probe(db_, "SELECT * FROM " + std::string(table));
    int columns = sqlite3_column_count(probe.handle());
    std::string insert = "INSERT INTO " + std::string(table) + " VALUES (";
    for (int i = 0; i < columns; ++i) insert += i ? ",?" : "?";
    SqliteStmt st(db_, insert + ")");
    size_t pos = 0;
    while (pos < rows.size()) {
      size_t end = rows.find('\n', pos);
      if (end == std::string::npos) end = rows.size();
      sqlite3_reset(st.handle());
      size_t field = pos;
      for (int i = 0; i < columns; ++i) {
        size_t tab = rows.find('\t', field);
        if (tab == std::string::npos || tab > end) tab = end;
        if (tab - field == 2 && rows.compare(field, 2, "\\N") == 0)
          sqlite3_bind_null(st.handle(), i + 1);
        else
          sqlite3_bind_text(st.handle(), i + 1, rows.data() + field, static_cast<int>(tab - field), SQLITE_STATIC);
        field = tab + 1;
      }
      st.step();
      pos = end + 1;
    }
  }

  void prepare() {
    auto p = [&](const char* sql) { return std::make_unique<SqliteStmt>(db_, sql); };
    begin_ = p("BEGIN");
    commit_ = p("COMMIT");
    rollback_ = p("ROLLBACK");
    wTax_ = p("SELECT w_tax FROM warehouse WHERE w_id = ?");
    district_ = p("SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?");
    districtNext_ = p("UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?");
    customer_ = p("SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
    insertOrder_ = p("INSERT INTO orders VALUES (?, ?, ?, ?, ?, NULL, ?, ?)");
    insertNewOrder_ = p("INSERT INTO new_order VALUES (?, ?, ?)");
    item_ = p("SELECT i_price, i_name, i_data FROM item WHERE i_id = ?");
    stock_ = p("SELECT s_quantity, CASE ? WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN "
               "s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 "
               "THEN s_dist_09 WHEN 10 THEN s_dist_10 END, s_data FROM stock WHERE s_w_id = ? AND s_i_id = ?");
    updateStock_ = p("UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?2, s_order_cnt = s_order_cnt + 1, "
                     "s_remote_cnt = s_remote_cnt + ?3 WHERE s_w_id = ?4 AND s_i_id = ?5");
    insertLine_ = p("INSERT INTO order_line VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)");
    warehouseYtd_ = p("UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?");
    warehouseName_ = p("SELECT w_name FROM warehouse WHERE w_id = ?");
    districtYtd_ = p("UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?");
    districtName_ = p("SELECT d_name FROM district WHERE d_w_id = ? AND d_id = ?");
    customersByName_ = p("SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first");
    customerCredit_ = p("SELECT c_credit, c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
    payBadCredit_ = p("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, "
                      "c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
    payGoodCredit_ = p("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, "
                       "c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
    insertHistory_ = p("INSERT INTO history VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    customerStatus_ = p("SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
    lastOrder_ = p("SELECT max(o_id) FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?");
    order_ = p("SELECT o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?");
    orderLines_ = p("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
                    "WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?");
    oldestNewOrder_ = p("SELECT min(no_o_id) FROM new_order WHERE no_w_id = ? AND no_d_id = ?");
    deleteNewOrder_ = p("DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?");
    orderCustomer_ = p("SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?");
    setCarrier_ = p("UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?");
    setDelivered_ = p("UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?");
    orderTotal_ = p("SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?");
    deliverCustomer_ = p("UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 "
                         "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
    nextOrder_ = p("SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?");
    lowStock_ = p("SELECT count(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? "
                  "AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?");
  }

  SqliteDb db_;
  std::unique_ptr<SqliteStmt> begin_, commit_, rollback_, wTax_, district_, districtNext_, customer_, insertOrder_,
      insertNewOrder_, item_, stock_, updateStock_, insertLine_, warehouseYtd_, warehouseName_, districtYtd_,
      districtName_, customersByName_, customerCredit_, payBadCredit_, payGoodCredit_, insertHistory_,
      customerStatus_, lastOrder_, order_, orderLines_, oldestNewOrder_, deleteNewOrder_, orderCustomer_, setCarrier_,
      setDelivered_, orderTotal_, deliverCustomer_, nextOrder_, lowStock_;
};

}  // namespace

std::unique_ptr<Engine> makeSqliteEngine() { return std::make_unique<SqliteEngine>(); }

}  // namespace hyrax::bench::tpcc
