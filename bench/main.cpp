// hyrax-bench <benchmark> [options]: the benchmark drivers, each with its own --help.
#include <iostream>
#include <string>

#include "bench/benchmarks.hpp"
#include "engine/util/error.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << "usage: hyrax-bench <benchmark> [options]\nbenchmarks:\n"
                 "  tpch   the 22 TPC-H queries, checked against reference answers (hyrax-bench tpch --help)\n"
                 "  tpcc   the TPC-C transaction mix on stored procedures (hyrax-bench tpcc --help)\n"
                 "  ch     the CH-benCHmark: the TPC-C mix beside streams of 22 analytical queries (hyrax-bench ch --help)\n"
                 "  fork   fork() time against database size, huge pages vs 4 KiB pages (hyrax-bench fork --help)\n"
                 "  groupby  GROUP BY over a big table, 10 to 10M groups, at 1 and 2 threads beside PostgreSQL (hyrax-bench groupby --help)\n"
                 "  json   sparse JSON into columns: COPY (FORMAT json) and read_json beside DuckDB (hyrax-bench json --help)\n"
                 "  copy   COPY FROM of TPC-H's lineitem at 1 and 2 parsing threads beside PostgreSQL (hyrax-bench copy --help)\n"
                 "  ycsb   YCSB workloads A, B, C over the wire at 1..64 client threads, hyrax's server beside PostgreSQL (hyrax-bench ycsb --help)\n"
                 "  kv     a web cache's get/put and tag-range workload over the wire, hyrax's server beside PostgreSQL and memcached (hyrax-bench kv --help)\n"
                 "  joinorder  join ordering time and plan cost for chains, stars, cliques of 8..64 tables (hyrax-bench joinorder --help)\n"
                 "  sqlfuzz  random queries on hyrax at 1 and 2 threads, on snapshots, cheap and optimized code, and PostgreSQL, compared (hyrax-bench sqlfuzz --help)\n";
    return argc < 2 ? 2 : 0;
  }
  try {
    std::string which = argv[1];
    if (which == "tpch") return hyrax::bench::runTpch(argc - 1, argv + 1);
    if (which == "tpcc") return hyrax::bench::runTpcc(argc - 1, argv + 1);
    if (which == "ch") return hyrax::bench::runCh(argc - 1, argv + 1);
    if (which == "fork") return hyrax::bench::runFork(argc - 1, argv + 1);
    if (which == "groupby") return hyrax::bench::runGroupBy(argc - 1, argv + 1);
    if (which == "json") return hyrax::bench::runJson(argc - 1, argv + 1);
    if (which == "copy") return hyrax::bench::runCopy(argc - 1, argv + 1);
    if (which == "ycsb") return hyrax::bench::runYcsb(argc - 1, argv + 1);
    if (which == "kv") return hyrax::bench::runKv(argc - 1, argv + 1);
    if (which == "joinorder") return hyrax::bench::runJoinOrder(argc - 1, argv + 1);
    if (which == "sqlfuzz") return hyrax::bench::runSqlFuzz(argc - 1, argv + 1);
    std::cerr << "hyrax-bench: unknown benchmark " << which << "\n";
    return 2;
  } catch (const hyrax::Error& e) {
    std::cerr << "hyrax-bench: " << e.sqlstate() << ": " << e.message() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "hyrax-bench: " << e.what() << "\n";
  }
  return 1;
}
