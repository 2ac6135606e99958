// The TPC-C driver's reusable pieces (tpcc_mix.hpp): the procedures, consistency conditions,
// engines by name, load and warm-up, the mix and its report.
#include "bench/tpcc/tpcc_mix.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "bench/tpcc/tpcc_random.hpp"

namespace hyrax::bench::tpcc {

namespace {

// A New-Order's lines in the order of their stock rows' keys (item, then supply warehouse), for
// every engine alike: the stock updates then take PostgreSQL's row locks in one global order. In
// the drawn order two New-Orders that share stock rows deadlocked (40P01), and PostgreSQL found
// each only after deadlock_timeout (1 s) with the other clients queued behind the two districts'
// locks: one such run gave 2.2k tx/s at 8 clients against 3.6-3.7k without. The unknown item of
// a rolled-back New-Order (kItems + 1) stays the last line, as clause 2.4.1.4 wants.
void sortLines(NewOrderInput& in) {
  auto before = [&](int a, int b) {
    return in.item[a] != in.item[b] ? in.item[a] < in.item[b] : in.supply[a] < in.supply[b];
  };
  for (int k = 1; k < in.olCnt; ++k)  // insertion sort: at most 15 lines
    for (int j = k; j > 0 && before(j, j - 1); --j) {
      std::swap(in.item[j], in.item[j - 1]);
      std::swap(in.supply[j], in.supply[j - 1]);
      std::swap(in.qty[j], in.qty[j - 1]);
    }
}

using Clock = std::chrono::steady_clock;

}  // namespace

std::vector<std::string> splitProcedures(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find("\n--;;", start);
    std::string piece = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    size_t create = piece.find("CREATE PROCEDURE");
    if (create != std::string::npos) out.push_back(piece.substr(create));
    if (end == std::string::npos) break;
    start = end + 5;
  }
  return out;
}

const std::vector<Check>& consistencyChecks() {
  static const std::vector<Check> kChecks = {
    {"1: W_YTD = sum(D_YTD)",
     "SELECT count(*) FROM warehouse w JOIN (SELECT d_w_id, sum(d_ytd) AS s FROM district GROUP BY d_w_id) d "
     "ON w.w_id = d.d_w_id WHERE w.w_ytd <> d.s"},
    {"2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
     "SELECT count(*) FROM district d JOIN (SELECT o_w_id, o_d_id, max(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) o "
     "ON d.d_w_id = o.o_w_id AND d.d_id = o.o_d_id LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS m FROM new_order "
     "GROUP BY no_w_id, no_d_id) n ON d.d_w_id = n.no_w_id AND d.d_id = n.no_d_id "
     "WHERE d.d_next_o_id - 1 <> o.m OR (n.m IS NOT NULL AND d.d_next_o_id - 1 <> n.m)"},
    {"3: max(NO_O_ID) - min(NO_O_ID) + 1 = count(new orders)",
     "SELECT count(*) FROM (SELECT no_w_id, no_d_id, max(no_o_id) - min(no_o_id) + 1 AS span, count(*) AS n "
     "FROM new_order GROUP BY no_w_id, no_d_id) x WHERE span <> n"},
    {"4: sum(O_OL_CNT) = count(order lines)",
     "SELECT count(*) FROM (SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) a JOIN "
     "(SELECT ol_w_id, ol_d_id, count(*) AS c FROM order_line GROUP BY ol_w_id, ol_d_id) b "
     "ON a.o_w_id = b.ol_w_id AND a.o_d_id = b.ol_d_id WHERE a.s <> b.c"},
  };
  return kChecks;
}

int checkConsistency(Engine& e, const char* when) {
  int bad = 0;
  for (auto& c : consistencyChecks()) {
    int64_t n = e.count(c.sql);
    if (n != 0) {
      std::fprintf(stderr, "%s: CONSISTENCY VIOLATION %s: condition %s fails in %lld places\n", e.name().c_str(), when,
                   c.what, static_cast<long long>(n));
      ++bad;
    }
  }
  if (bad == 0) std::printf("%s: consistency conditions 1-4 hold %s\n", e.name().c_str(), when);
  return bad;
}

const char* const kTypeNames[kTypes] = {"New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"};

double Stats::tpmC() const {
  return seconds > 0 ? static_cast<double>(micros[NewOrder].size() - rolledBack) * 60.0 / seconds : 0;
}

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  size_t k = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

Stats runMix(Engine& e, int warehouses, double duration, uint64_t limit, uint64_t seed, int date) {
  Random r(seed);
  Stats s;
  auto start = Clock::now();
  auto deadline = start + std::chrono::duration<double>(duration);
  auto otherWarehouse = [&](int w) {
    if (warehouses == 1) return w;
    int o = static_cast<int>(r.uniform(1, warehouses - 1));
    return o >= w ? o + 1 : o;
  };
  auto customer = [&] { return static_cast<int>(r.nurand(1023, 1, kCustomers, kCId)); };
  auto last = [&] { return lastName(static_cast<int>(r.nurand(255, 0, 999, kCLastRun))); };
  // Inputs by clause 2, drawn in the same order for every engine.
  auto draw = [&] {
    Transaction t;
    t.date = date;
    int w = static_cast<int>(r.uniform(1, warehouses));
    int pick = static_cast<int>(r.uniform(1, 100));
    t.type = pick <= 45 ? NewOrder : pick <= 88 ? Payment : pick <= 92 ? OrderStatus : pick <= 96 ? Delivery : StockLevel;
    switch (t.type) {
      case NewOrder: {
        NewOrderInput& in = t.newOrder;
        in.w = w;
        in.d = static_cast<int>(r.uniform(1, kDistricts));
        in.c = customer();
        in.olCnt = static_cast<int>(r.uniform(5, 15));
        bool rollback = r.uniform(1, 100) == 1;
        for (int k = 0; k < in.olCnt; ++k) {
          in.item[k] = static_cast<int>(r.nurand(8191, 1, kItems, kCItem));
          in.supply[k] = r.uniform(1, 100) == 1 ? otherWarehouse(w) : w;
          in.allLocal &= in.supply[k] == w;
          in.qty[k] = static_cast<int>(r.uniform(1, 10));
        }
        if (rollback) in.item[in.olCnt - 1] = kItems + 1;
        sortLines(in);
        break;
      }
      case Payment: {
        PaymentInput& in = t.payment;
        in.w = w;
        in.d = static_cast<int>(r.uniform(1, kDistricts));
        bool home = r.uniform(1, 100) <= 85;
        in.cw = home ? w : otherWarehouse(w);
        in.cd = home ? in.d : static_cast<int>(r.uniform(1, kDistricts));
        in.byName = r.uniform(1, 100) <= 60;
        if (in.byName) in.last = last();
        else in.c = customer();
        in.amountCents = r.uniform(100, 500'000);
        break;
      }
      case OrderStatus: {
        OrderStatusInput& in = t.orderStatus;
        in.w = w;
        in.d = static_cast<int>(r.uniform(1, kDistricts));
        in.byName = r.uniform(1, 100) <= 60;
        if (in.byName) in.last = last();
        else in.c = customer();
        break;
      }
      case Delivery: t.delivery = {w, static_cast<int>(r.uniform(1, 10))}; break;
      default:
        t.stockLevel = {w, static_cast<int>(r.uniform(1, kDistricts)), static_cast<int>(r.uniform(10, 20))};
        break;
    }
    return t;
  };
  // A transaction's time runs from handing it over to its end. An engine that overlaps gets the
  // next one's inputs drawn (and prepared) while it works, and its terminals' transactions queue
  // behind each other, so their times include that wait; others are handed a transaction after
  // the draw, one at a time.
  const bool overlapped = e.overlaps();
  const int terminals = overlapped ? std::max(1, e.terminals()) : 1;
  std::vector<Transaction> running(static_cast<size_t>(terminals));
  std::vector<Clock::time_point> began(static_cast<size_t>(terminals));
  Transaction next = draw();
  e.prepare(next);
  auto begin = [&](int k) {
    began[static_cast<size_t>(k)] = Clock::now();
    running[static_cast<size_t>(k)] = std::move(next);
    e.start(k, running[static_cast<size_t>(k)]);
    next = draw();
    e.prepare(next);
  };
  auto end = [&](int k) {
    const Transaction& t = running[static_cast<size_t>(k)];
    if (!overlapped) began[static_cast<size_t>(k)] = Clock::now();  // it runs in finish()
    try {
      if (!e.finish(k)) ++s.rolledBack;
    } catch (const std::exception& ex) {
      if (s.errors++ < 5) std::fprintf(stderr, "%s: %s failed: %s\n", e.name().c_str(), kTypeNames[t.type], ex.what());
    }
    s.micros[t.type].push_back(std::chrono::duration<double, std::micro>(Clock::now() - began[static_cast<size_t>(k)]).count());
  };
  if (limit == 0) limit = UINT64_MAX;
  uint64_t handed = 0;
  for (int k = 0; k < terminals && handed < limit; ++k, ++handed) begin(k);
  int turn = 0;
  int open = static_cast<int>(handed);  // terminals with a transaction under way
  // The terminals take turns in two halves: the driver waits for the last transaction of one half
  // while the other half's are still queued, and hands that half new ones. So it sleeps through
  // most of the executor's work instead of spinning at its side (a core the snapshot queries of
  // hyrax-bench ch need), and the executor's queue never runs dry while it wakes up.
  const int half = std::max(1, terminals / 2);
  while (Clock::now() < deadline && handed < limit) {
    for (int batch = 0; batch < 64 && handed < limit;) {
      const int from = turn;
      for (int k = half - 1; k >= 0; --k) end((from + k) % terminals);  // the last first: sleeps
      for (int k = 0; k < half && handed < limit; ++k, ++batch, ++handed) {
        begin(turn);
        turn = (turn + 1) % terminals;
      }
    }
  }
  // What the terminals still have under way runs to its end and counts; a transaction handed to
  // an engine that runs it in finish() has not run and is dropped.
  for (int k = 0; k < open && overlapped; ++k) end((turn + k) % terminals);
  s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return s;
}

void report(const std::string& name, Stats& s) {
  std::printf("\n%s: %llu transactions in %.1f s: %.0f tx/s, tpmC %.0f (New-Orders committed per minute); %llu rolled "
              "back as asked, %llu errors\n",
              name.c_str(), static_cast<unsigned long long>(s.total()), s.seconds, s.txPerSecond(), s.tpmC(),
              static_cast<unsigned long long>(s.rolledBack), static_cast<unsigned long long>(s.errors));
  std::printf("| transaction | count | mean us | p50 us | p90 us | p99 us | max us |\n|---|---:|---:|---:|---:|---:|---:|\n");
  for (int t = 0; t < kTypes; ++t) {
    auto& v = s.micros[t];
    double sum = 0;
    for (double x : v) sum += x;
    double mean = v.empty() ? 0 : sum / static_cast<double>(v.size());
    std::printf("| %s | %zu | %.1f | %.1f | %.1f | %.1f | %.1f |\n", kTypeNames[t], v.size(), mean, percentile(v, 0.5),
                percentile(v, 0.9), percentile(v, 0.99), v.empty() ? 0 : *std::max_element(v.begin(), v.end()));
  }
}

std::unique_ptr<Engine> makeEngine(const std::string& name, int terminals, const std::string& tag) {
  if (name == "hyrax") return makeHyraxEngine(terminals);
  if (name == "sqlite") return makeSqliteEngine();
  if (name == "postgres" || name == "postgresql")
    return makePostgresEngine(std::filesystem::temp_directory_path() / ("hyrax-" + tag + "-pg-" + std::to_string(getpid())));
  throw std::runtime_error("unknown engine " + name + " (hyrax, sqlite, postgres)");
}

int loadAndWarmUp(Engine& e, const Setup& setup, double warmup, uint64_t& errors) {
  double ms = e.load(setup.schema, setup.procedures, *setup.data);
  std::printf("%s: loaded in %.0f ms (%.0f rows/s)\n", e.name().c_str(), ms, static_cast<double>(setup.data->rows) / ms * 1000);
  int violations = checkConsistency(e, "before the run");
  if (warmup > 0) {
    Stats w = runMix(e, setup.warehouses, warmup, 0, setup.seed + 1, setup.date);  // other inputs than the run's
    std::printf("%s: warm-up: %llu transactions in %.1f s, not counted\n", e.name().c_str(),
                static_cast<unsigned long long>(w.total()), w.seconds);
    errors += w.errors;
  }
  return violations;
}

}  // namespace hyrax::bench::tpcc
