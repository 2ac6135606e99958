#pragma once
// The drivers hyrax-bench runs (bench/main.cpp picks one by its first argument).
namespace hyrax::bench {

int runTpch(int argc, char** argv);  // bench/tpch: the 22 TPC-H queries, answers checked
int runTpcc(int argc, char** argv);  // bench/tpcc: the TPC-C transaction mix
int runCh(int argc, char** argv);    // bench/ch: the CH-benCHmark, TPC-C's mix beside analytical streams
int runFork(int argc, char** argv);  // bench/fork_bench.cpp: fork() time against mapped memory, huge vs 4 KiB pages
int runJson(int argc, char** argv);  // bench/json: COPY (FORMAT json) and read_json of sparse JSON, beside DuckDB
int runGroupBy(int argc, char** argv);  // bench/groupby_bench.cpp: GROUP BY from 10 to 10M groups beside PostgreSQL
int runCopy(int argc, char** argv);  // bench/copy_bench.cpp: COPY FROM at 1..n parsing threads beside PostgreSQL
int runYcsb(int argc, char** argv);  // bench/ycsb: YCSB A/B/C over the wire, hyrax's server beside PostgreSQL
int runKv(int argc, char** argv);    // bench/kv: a web cache's get/put/tag-range workload over the wire beside PostgreSQL and memcached
int runJoinOrder(int argc, char** argv);  // bench/join_order_bench.cpp: join ordering time and plan cost by graph shape and size
int runSqlFuzz(int argc, char** argv);  // bench/sqlfuzz: random queries, hyrax's ways and PostgreSQL compared

}  // namespace hyrax::bench
