#pragma once
// The drivers hyrax-bench runs (bench/main.cpp picks one by its first argument).
namespace hyrax::bench {

int runTpch(int argc, char** argv);  // bench/tpch: the 22 TPC-H queries, answers checked
int runTpcc(int argc, char** argv);  // bench/tpcc: the TPC-C transaction mix
int runCh(int argc, char** argv);    // bench/ch: the CH-benCHmark, TPC-C's mix beside analytical streams
int runFork(int argc, char** argv);  // bench/fork_bench.cpp: fork() time against mapped memory, huge vs 4 KiB pages
int runJoinOrder(int argc, char** argv);
int runGroupBy(int argc, char** argv);  // bench/groupby_bench.cpp: GROUP BY from 10 to 10M groups beside PostgreSQL  // bench/join_order_bench.cpp: join ordering time and plan cost by graph shape and size

}  // namespace hyrax::bench
