// hyrax-bench joinorder: how long join ordering takes, and how good its plans are, by the shape and
// size of the join graph.
//   hyrax-bench joinorder [--sizes 8,12,16,32,64] [--shapes chain,star,clique,tree] [--repeat R]
//                         [--dpsub-max N] [--dpccp-max-pairs P] [--sql]
// Part 1 plans synthetic graphs (sql/optimizer/join_graph_shapes.hpp) with each enumerator of
// join_enumeration.hpp and prints the time (best of R) and C_out over the cheapest plan any of
// them found; DPsub, the planner before issue 20 (DP over all subsets, 3^n), is the reference
// where it finishes (up to --dpsub-max leaves). Part 2 (--sql) times planning through SQL:
// EXPLAIN of a chain, star and clique of tiny tables (parse, bind, rewrites, join order).
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "bench/benchmarks.hpp"
#include "bench/options.hpp"
#include "sql/api/database.hpp"
#include "sql/optimizer/join_graph_shapes.hpp"

namespace po = boost::program_options;
using namespace hyrax;
using namespace hyrax::sql;
using Clock = std::chrono::steady_clock;

namespace {

SyntheticJoin shape(const std::string& name, size_t n) {
  if (name == "chain") return SyntheticJoin::chain(n);
  if (name == "star") return SyntheticJoin::star(n);
  if (name == "clique") return SyntheticJoin::clique(n);
  if (name == "tree") return SyntheticJoin::tree(n, 0, 5);
  throw std::runtime_error("unknown shape " + name + " (chain, star, clique, tree)");
}

struct Method {
  const char* name;
  JoinMethod method;
};

// The SQL of an n-table join of the shape over tables j0 .. j{n-1} (a, b, and for the star's
// centre one column per satellite): equalities only, so the planner's estimates decide. The
// clique is one column equal in all tables (a WHERE of n^2/2 conditions nests deeper than the
// parser allows).
std::string joinSql(const std::string& name, size_t n) {
  auto table = [](size_t i) { return std::string("j").append(std::to_string(i)); };
  std::string from = table(0), where;
  auto cond = [&](const std::string& left, const std::string& right) {
    if (!where.empty()) where.append(" AND ");
    where.append(left).append(" = ").append(right);
  };
  for (size_t i = 1; i < n; ++i) {
    const std::string t = table(i);
    from.append(", ").append(t);
    if (name == "chain") cond(table(i - 1) + ".b", t + ".a");
    else if (name == "star") cond("j0.c" + std::to_string(i), t + ".a");
    else if (name == "clique") cond(table(i - 1) + ".b", t + ".b");  // all equal: the planner adds the implied n^2/2
    else cond(table((i * 7919 + 13) % i) + ".b", t + ".a");  // a random tree
  }
  return "SELECT count(*) FROM " + from + " WHERE " + where;
}

void sqlPart(const std::vector<std::string>& shapes, const std::vector<size_t>& sizes, int repeat) {
  Database db;
  Connection con(db);
  con.execute("SET analytics = 'inline'");
  const size_t most = *std::max_element(sizes.begin(), sizes.end());
  for (size_t i = 0; i < most; ++i) {
    std::string cols;
    if (i == 0)
      for (size_t c = 1; c < most; ++c) cols += ", c" + std::to_string(c) + " INTEGER";
    con.execute("CREATE TABLE j" + std::to_string(i) + " (a INTEGER, b INTEGER" + cols + ")");
    con.execute("INSERT INTO j" + std::to_string(i) + " (a, b) VALUES (1, 2), (2, 3), (3, 1)");
  }
  std::printf("\nplanning through SQL (EXPLAIN: parse, bind, rewrites, join order), best of %d, ms:\n", repeat);
  std::printf("%-8s %6s %10s %10s\n", "shape", "tables", "parse", "plan");
  for (auto& s : shapes)
    for (size_t n : sizes) {
      const std::string sql = "EXPLAIN " + joinSql(s, n);
      double plan = 1e300, parse = 1e300;
      for (int r = 0; r < repeat; ++r) {
        QueryResult res = con.execute(sql);
        plan = std::min(plan, res.times.plan);
        parse = std::min(parse, res.times.parse);
      }
      std::printf("%-8s %6zu %10.2f %10.2f\n", s.c_str(), n, parse, plan);
    }
}

}  // namespace

namespace hyrax::bench {

int runJoinOrder(int argc, char** argv) {
  std::string sizesText = "8,10,12,14,16,24,32,48,64", shapesText = "chain,star,clique,tree";
  int repeat = 3;
  size_t dpsubMax = 14, dpccpMaxPairs = 2'000'000;
  po::options_description desc("usage: hyrax-bench joinorder [options]\nOptions");
  desc.add_options()("help,h", "show this help")("sizes", po::value(&sizesText), "numbers of tables")(
      "shapes", po::value(&shapesText), "chain, star, clique, tree (a random tree, like SQLite's select5)")(
      "repeat", po::value(&repeat), "report the best of R runs")("dpsub-max", po::value(&dpsubMax),
                                                                 "run DPsub (3^n) up to this many tables")(
      "dpccp-max-pairs", po::value(&dpccpMaxPairs), "run exact DPccp while a graph has at most this many connected pairs")(
      "sql", "also time planning through SQL (EXPLAIN)");
  po::variables_map vm;
  if (!bench::parseOptions(desc, argc, argv, vm)) return 0;
  std::vector<size_t> sizes;
  for (auto& s : splitList(sizesText)) sizes.push_back(std::stoul(s));
  const std::vector<std::string> shapes = splitList(shapesText);
  const std::vector<Method> methods = {{"adaptive", JoinMethod::Adaptive},
                                       {"DPsub (old)", JoinMethod::DPsub},
                                       {"DPccp", JoinMethod::DPccp},
                                       {"linearized", JoinMethod::Linearized},
                                       {"greedy", JoinMethod::Greedy}};

  std::printf("join enumeration on synthetic graphs, best of %d: ms, and C_out / the cheapest plan found (1.00 = it)\n", repeat);
  std::printf("%-8s %6s", "shape", "tables");
  for (auto& m : methods) std::printf(" %22s", m.name);
  std::printf("\n");
  for (auto& s : shapes)
    for (size_t n : sizes) {
      SyntheticJoin synthetic = shape(s, n);
      std::vector<double> ms(methods.size(), -1), cost(methods.size(), -1);
      for (size_t m = 0; m < methods.size(); ++m) {
        const JoinMethod method = methods[m].method;
        if (method == JoinMethod::DPsub && n > dpsubMax) continue;
        if (method == JoinMethod::DPccp) {  // only where it ends: count the pairs first
          JoinGraph g = synthetic.graph();
          if (planDPccp(g, LeafSet::upTo(n - 1), false, dpccpMaxPairs).nodes.empty()) continue;
        }
        for (int r = 0; r < repeat; ++r) {
          JoinGraph g = synthetic.graph();  // a fresh graph: estimates are memoized per graph, as per query
          auto start = Clock::now();
          JoinTree tree = enumerateJoins(g, method);
          double t = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
          ms[m] = ms[m] < 0 ? t : std::min(ms[m], t);
          cost[m] = tree.cost();
        }
      }
      double best = std::numeric_limits<double>::infinity();
      for (double c : cost)
        if (c >= 0) best = std::min(best, c);
      std::printf("%-8s %6zu", s.c_str(), n);
      for (size_t m = 0; m < methods.size(); ++m) {
        if (ms[m] < 0) {
          std::printf(" %22s", "-");
          continue;
        }
        char cell[64];
        std::snprintf(cell, sizeof(cell), "%.3f ms %7.2fx", ms[m], best > 0 ? cost[m] / best : 1.0);
        std::printf(" %22s", cell);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  if (vm.count("sql")) sqlPart(shapes, sizes, repeat);
  return 0;
}

}  // namespace hyrax::bench
