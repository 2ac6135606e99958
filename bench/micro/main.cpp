// bench/micro: four queries on 10M rows (1M strings), each beside the same computation as a
// hand-written C++ loop over the same columnar data, measured in the same run (the machines are
// shared and noisy, so only ratios from one run mean something).
//   (1) SELECT sum(a*b) FROM t WHERE c < 500
//   (2) SELECT g, sum(a), count(*), avg(b) FROM t GROUP BY g          (16 groups)
//   (3) SELECT count(*), sum(d.v) FROM t JOIN d ON t.k = d.k          (10M x 100k)
//   (4) SELECT count(*) FROM w WHERE s < 'mmm'                        (1M words of 5-16 letters)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <unordered_map>

#include "engine/catalog/catalog.hpp"
#include "engine/storage/table.hpp"
#include "engine/types/string_ref.hpp"
#include "sql/api/database.hpp"

using namespace hyrax;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

void fill(Table& t, uint64_t rows, const std::function<void(uint64_t, int32_t*)>& row) {
  const size_t n = t.columns().size();
  std::vector<int32_t> vals(n);
  for (uint64_t r = 0; r < rows; ++r) {
    row(r, vals.data());
    uint64_t idx = t.beginRow();
    for (size_t c = 0; c < n; ++c) t.setValue(idx, static_cast<uint32_t>(c), &vals[c], false);
  }
}

// Calls f(column arrays..., rows) once per storage chunk.
template <typename F>
void forChunks(Table& t, F f) {
  for (uint32_t c = 0; c < t.chunkCount(); ++c) {
    std::vector<const int32_t*> cols;
    for (uint32_t i = 0; i < t.columns().size(); ++i) cols.push_back(static_cast<const int32_t*>(t.columnData(c, i)));
    f(cols, t.chunkRows(c));
  }
}

struct Measured {
  uint64_t rows = 0;
  double compileMs = 1e300, executeMs = 1e300;
};

// Compile ms is the first run's (later runs find the text in the statement cache and compile
// nothing); execute ms the best of `repeat`.
Measured runQuery(Connection& con, const std::string& sql, int repeat) {
  Measured m;
  for (int i = 0; i < repeat; ++i) {
    QueryResult r = con.execute(sql);
    m.rows = r.rowCount();
    if (i == 0) m.compileMs = r.times.codegen + r.times.optimize + r.times.machineCode;
    m.executeMs = std::min(m.executeMs, r.times.execute);
  }
  return m;
}

template <typename F>
double bestOf(int repeat, F f) {
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    auto t = Clock::now();
    f();
    best = std::min(best, msSince(t));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t rows = 10'000'000;
  int threads = 1;  // the hand loops run on one thread
  int repeat = 3;
  std::string tier;  // SET compile_tier: the session's default unless given
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) threads = std::stoi(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::stoi(argv[++i]));
    else if (a == "--compile-tier" && i + 1 < argc) tier = argv[++i];
    else if (a == "--help" || a == "-h") {
      std::printf("usage: hyrax-bench-micro [rows] [--threads N] [--repeat R] [--compile-tier auto|cheap|optimized|adaptive]   (default 10000000 rows, 1 thread as the hand loops, best of 3)\n");
      return 0;
    } else rows = std::stoull(a);
  }
  const uint64_t dimRows = 100'000;
  Database db;
  Connection con(db);
  // In this process, like the hand loops: a snapshot worker (the default) would pay a fork and run
  // at SCHED_IDLE, so on a shared machine its times would measure the neighbours.
  con.execute("SET analytics = 'inline'");
  con.execute("SET threads = " + std::to_string(threads));
  if (!tier.empty()) con.execute("SET compile_tier = '" + tier + "'");
  con.execute("CREATE TABLE t (a INTEGER NOT NULL, b INTEGER NOT NULL, c INTEGER NOT NULL, g INTEGER NOT NULL, k INTEGER NOT NULL)");
  con.execute("CREATE TABLE d (k INTEGER NOT NULL, v INTEGER NOT NULL)");
  Table& t = *db.catalog().findTable("t");
  Table& d = *db.catalog().findTable("d");

  auto loadStart = Clock::now();
  std::mt19937_64 rng(42);
  fill(t, rows, [&](uint64_t, int32_t* v) {
    uint64_t x = rng();
    v[0] = static_cast<int32_t>(x % 1000);
    v[1] = static_cast<int32_t>((x >> 10) % 1000);
    v[2] = static_cast<int32_t>((x >> 20) % 1000);
    v[3] = static_cast<int32_t>((x >> 30) % 16);
    v[4] = static_cast<int32_t>((x >> 34) % (dimRows * 2));  // half the keys find a partner
  });
  fill(d, dimRows, [&](uint64_t r, int32_t* v) {
    v[0] = static_cast<int32_t>(r);
    v[1] = static_cast<int32_t>(r % 97);
  });
  std::printf("hyrax bench/micro: %llu rows loaded in %.0f ms; hyrax at %d thread(s), the hand loops at 1\n\n",
              static_cast<unsigned long long>(rows), msSince(loadStart), threads);
  std::printf("%-28s %10s %12s %12s %12s %8s\n", "query", "rows", "compile ms", "execute ms", "hand ms", "ratio");

  auto report = [&](const char* name, const Measured& m, double hand) {
    std::printf("%-28s %10llu %12.2f %12.2f %12.2f %8.2f\n", name, static_cast<unsigned long long>(m.rows),
                m.compileMs, m.executeMs, hand, m.executeMs / hand);
  };

  // (1) filter + arithmetic + sum
  {
    Measured m = runQuery(con, "SELECT sum(a*b) FROM t WHERE c < 500", repeat);
    volatile int64_t sink = 0;
    double hand = bestOf(repeat, [&] {
      int64_t sum = 0;
      forChunks(t, [&](auto& c, uint32_t n) {
        for (uint32_t i = 0; i < n; ++i)
          if (c[2][i] < 500) sum += static_cast<int64_t>(c[0][i] * c[1][i]);
      });
      sink = sum;
    });
    report("(1) sum(a*b) where c<500", m, hand);
  }
  // (2) group by a low-cardinality key
  {
    Measured m = runQuery(con, "SELECT g, sum(a), count(*), avg(b) FROM t GROUP BY g", repeat);
    volatile double sink = 0;
    double hand = bestOf(repeat, [&] {
      int64_t sumA[16] = {}, sumB[16] = {}, cnt[16] = {};
      forChunks(t, [&](auto& c, uint32_t n) {
        for (uint32_t i = 0; i < n; ++i) {
          int32_t g = c[3][i];
          sumA[g] += c[0][i];
          sumB[g] += c[1][i];
          ++cnt[g];
        }
      });
      double s = 0;
      for (int g = 0; g < 16; ++g) s += static_cast<double>(sumA[g]) + static_cast<double>(sumB[g]) / std::max<int64_t>(1, cnt[g]);
      sink = s;
    });
    report("(2) group by g (16 groups)", m, hand);
  }
  // (3) hash join 10M x 100k with an aggregate on top
  {
    Measured m = runQuery(con, "SELECT count(*), sum(d.v) FROM t JOIN d ON t.k = d.k", repeat);
    volatile int64_t sink = 0;
    double hand = bestOf(repeat, [&] {
      std::unordered_map<int32_t, int32_t> ht;
      ht.reserve(dimRows);
      forChunks(d, [&](auto& c, uint32_t n) {
        for (uint32_t i = 0; i < n; ++i) ht.emplace(c[0][i], c[1][i]);
      });
      int64_t count = 0, sum = 0;
      forChunks(t, [&](auto& c, uint32_t n) {
        for (uint32_t i = 0; i < n; ++i) {
          auto it = ht.find(c[4][i]);
          if (it != ht.end()) ++count, sum += it->second;
        }
      });
      sink = count + sum;
    });
    report("(3) join 10M x 100k", m, hand);
  }
  // (4) string comparison: words against a constant (bytes order, as memcmp)
  {
    con.execute("CREATE TABLE w (s VARCHAR(16) NOT NULL)");
    Table& w = *db.catalog().findTable("w");
    std::mt19937_64 wrng(7);
    std::string word;
    for (uint64_t r = 0; r < std::max<uint64_t>(1, rows / 10); ++r) {
      word.assign(5 + wrng() % 12, 'a');
      for (char& ch : word) ch = static_cast<char>('a' + wrng() % 26);
      const StringRef v = StringRef::make(word);
      w.setValue(w.beginRow(), 0, &v, false);
    }
    Measured m = runQuery(con, "SELECT count(*) FROM w WHERE s < 'mmm'", repeat);
    volatile int64_t sink = 0;
    double hand = bestOf(repeat, [&] {
      int64_t count = 0;
      for (uint32_t c = 0; c < w.chunkCount(); ++c) {
        const auto* col = static_cast<const StringRef*>(w.columnData(c, 0));
        for (uint32_t i = 0; i < w.chunkRows(c); ++i) count += col[i].view() < std::string_view("mmm");
      }
      sink = count;
    });
    report("(4) words < 'mmm' (1M)", m, hand);
  }
  std::printf("\nratio = hyrax execute ms / hand-written loop ms (best of %d runs each)\n", repeat);
  return 0;
}
