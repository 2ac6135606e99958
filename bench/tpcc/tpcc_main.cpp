// hyrax-bench tpcc: the TPC-C transaction mix on hyrax's stored procedures, with no wait times on
// one OLTP thread, beside SQLite and PostgreSQL running the same mix in the same run.
//   hyrax-bench tpcc [--warehouses W] [--duration S] [--transactions N] [--peers sqlite,postgres] [--seed N] [--test]
// Loads the initial database of clause 4.3 (NURand, the spec's populations), checks consistency
// conditions 1-4 (clause 3.3.2) before and after the run and fails loudly on a violation, and
// prints transactions/s, New-Orders per minute (tpmC) and latency percentiles per transaction type.
// --test (ctest): exits non-zero on a violation or an unexpected error.
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "bench/benchmarks.hpp"
#include "bench/options.hpp"
#include "bench/read_file.hpp"
#include "bench/tpcc/tpcc_engine.hpp"
#include "bench/tpcc/tpcc_random.hpp"
#include "engine/types/text_format.hpp"
#include "engine/util/error.hpp"

namespace fs = std::filesystem;
namespace po = boost::program_options;

namespace hyrax::bench::tpcc {

namespace {

using Clock = std::chrono::steady_clock;

// procedures.sql holds one CREATE PROCEDURE per piece between "--;;" lines.
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

// Consistency conditions 1-4 of clause 3.3.2.1, each a count of the districts or warehouses
// that violate it.
struct Check {
  const char* what;
  const char* sql;
};
const Check kChecks[] = {
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

// Returns the number of conditions violated, printing each.
int checkConsistency(Engine& e, const char* when) {
  int bad = 0;
  for (auto& c : kChecks) {
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

const char* kTypeNames[] = {"New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"};

struct Stats {
  std::vector<double> micros[kTypes];
  uint64_t rolledBack = 0, errors = 0;
  double seconds = 0;
  uint64_t total() const {
    uint64_t n = 0;
    for (auto& m : micros) n += m.size();
    return n;
  }
};

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  size_t k = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

// The mix of clause 5.2.3 without wait times: 45% New-Order (1% of them with an unknown item),
// 43% Payment, 4% each of the others; inputs by clause 2.
// Stops at the duration or after `limit` transactions (0: no limit), whichever comes first; the
// inputs are the same sequence for every run with one seed, so a limit gives a fixed piece of work
// (for profiling under callgrind, where time means little).
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
  while (Clock::now() < deadline && handed < limit) {
    for (int batch = 0; batch < 64 && handed < limit; ++batch, ++handed) {
      end(turn);
      begin(turn);
      turn = (turn + 1) % terminals;
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
              name.c_str(), static_cast<unsigned long long>(s.total()), s.seconds, static_cast<double>(s.total()) / s.seconds,
              static_cast<double>(s.micros[NewOrder].size() - s.rolledBack) * 60.0 / s.seconds,
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

}  // namespace

int tpcc(int argc, char** argv) {
  po::options_description opts("hyrax-bench tpcc options");
  opts.add_options()("help,h", "show this help")("warehouses,w", po::value<int>()->default_value(1), "warehouses (W)")(
      "duration,d", po::value<double>()->default_value(10), "seconds of the mix per engine")(
      "transactions", po::value<uint64_t>()->default_value(0),
      "stop each engine after this many transactions if the duration has not passed (0: no limit)")(
      "peers", po::value<std::string>()->default_value(""), "also run it on: sqlite, postgres (comma-separated)")(
      "seed", po::value<uint64_t>()->default_value(42), "random seed (the same inputs for every engine)")(
      "warmup", po::value<double>()->default_value(1),
      "seconds of the mix each engine runs first, not counted (TPC-C's ramp-up: first calls compile and plan)")(
      "terminals", po::value<int>()->default_value(2),
      "hyrax's clients, each a connection with one transaction under way; their calls queue at the one OLTP thread")(
      "kill-snapshots", po::value<int>()->default_value(0),
      "while hyrax's mix runs, start this many analytical queries on fork snapshots and kill each child; every "
      "tenth time check the consistency conditions on a snapshot")(
      "test", "exit non-zero on a consistency violation or an unexpected error (ctest)");
  po::variables_map vm;
  if (!bench::parseOptions(opts, argc, argv, vm, "usage: hyrax-bench tpcc [options]\n")) return 0;
  int warehouses = vm["warehouses"].as<int>();
  double duration = vm["duration"].as<double>();
  uint64_t seed = vm["seed"].as<uint64_t>();
  if (warehouses < 1 || warehouses > 1000) throw std::runtime_error("--warehouses must be between 1 and 1000");
  int terminals = vm["terminals"].as<int>();
  if (terminals < 1 || terminals > 64) throw std::runtime_error("--terminals must be between 1 and 64");
  fs::path src = fs::path(HYRAX_SOURCE_DIR) / "bench/tpcc";
  std::string schema = readFile(src / "schema.sql");
  std::vector<std::string> procedures = splitProcedures(readFile(src / "procedures.sql"));
  int date = text::parseDate("2026-11-23");

  auto t = Clock::now();
  InitialData data = generate(warehouses, seed, date);
  std::printf("generated %d warehouse(s): %llu rows in %.0f ms\n", warehouses, static_cast<unsigned long long>(data.rows),
              std::chrono::duration<double, std::milli>(Clock::now() - t).count());

  std::vector<std::unique_ptr<Engine>> engines;
  engines.push_back(makeHyraxEngine(terminals));
  std::string peers = vm["peers"].as<std::string>();
  std::stringstream ps(peers);
  for (std::string p; std::getline(ps, p, ',');) {
    if (p == "sqlite") engines.push_back(makeSqliteEngine());
    else if (p == "postgres") engines.push_back(makePostgresEngine(fs::temp_directory_path() / ("hyrax-tpcc-pg-" + std::to_string(getpid()))));
    else if (!p.empty()) throw std::runtime_error("unknown peer " + p + " (sqlite, postgres)");
  }
  int violations = 0;
  uint64_t errors = 0;
  std::vector<double> rates;
  for (auto& e : engines) {
    double ms = e->load(schema, procedures, data);
    std::printf("%s: loaded in %.0f ms (%.0f rows/s)\n", e->name().c_str(), ms, static_cast<double>(data.rows) / ms * 1000);
    violations += checkConsistency(*e, "before the run");
    if (double warmup = vm["warmup"].as<double>(); warmup > 0) {
      Stats w = runMix(*e, warehouses, warmup, 0, seed + 1, date);  // other inputs than the run's
      std::printf("%s: warm-up: %llu transactions in %.1f s, not counted\n", e->name().c_str(),
                  static_cast<unsigned long long>(w.total()), w.seconds);
      errors += w.errors;
    }
    const int kills = e->hasSnapshots() ? vm["kill-snapshots"].as<int>() : 0;
    Engine::SnapshotKills killed;
    std::thread killer;
    if (kills > 0) {
      e->prepareSnapshotKills();
      std::vector<std::string> checks;
      for (auto& c : kChecks) checks.push_back(c.sql);
      killer = std::thread([&, checks] { killed = e->killSnapshots(kills, checks); });
    }
    Stats s = runMix(*e, warehouses, duration, vm["transactions"].as<uint64_t>(), seed, date);
    if (killer.joinable()) {
      killer.join();
      std::printf("%s: %d of %d snapshot children killed, each failing only its query and reaped; consistency "
                  "conditions checked on %d snapshots: %d violation(s)\n",
                  e->name().c_str(), killed.killed, kills, killed.checked, killed.violations);
      violations += killed.violations + (kills - killed.killed);
    }
    report(e->name(), s);
    violations += checkConsistency(*e, "after the run");
    errors += s.errors;
    rates.push_back(static_cast<double>(s.total()) / s.seconds);
    if (vm.count("test"))
      for (int k = 0; k < kTypes; ++k)
        if (s.micros[k].empty()) throw std::runtime_error(std::string("no ") + kTypeNames[k] + " transaction ran");
  }
  if (engines.size() > 1) {
    std::printf("\n| engine | tx/s | hyrax / engine |\n|---|---:|---:|\n");
    for (size_t i = 0; i < engines.size(); ++i)
      std::printf("| %s | %.0f | %.2f |\n", engines[i]->name().c_str(), rates[i], rates[0] / rates[i]);
  }
  if (violations) std::fprintf(stderr, "FAILED: %d consistency violation(s)\n", violations);
  return violations || (vm.count("test") && errors) ? 1 : 0;
}

}  // namespace hyrax::bench::tpcc

int hyrax::bench::runTpcc(int argc, char** argv) { return tpcc::tpcc(argc, argv); }
