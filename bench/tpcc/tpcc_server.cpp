// hyrax-bench tpcc --server: the TPC-C mix over the wire, on hyrax's PostgreSQL server (in this
// process, on a Unix socket) and on PostgreSQL, both driven by the same libpqxx client code
// (tpcc_postgres.cpp's WireEngine: each transaction a CALL of a prepared statement), with 1 to N
// client connections, each a thread running the mix on inputs of its own seed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <thread>

#include <pthread.h>
#include <unistd.h>

#include "bench/options.hpp"
#include "bench/pg_server.hpp"
#include "bench/tpcc/tpcc_mix.hpp"
#include "bench/hyrax_server.hpp"

namespace fs = std::filesystem;

namespace hyrax::bench::tpcc {

namespace {

using FileWriter = std::function<fs::path(const std::string&, const std::string&)>;

struct ClientsRun {
  int clients = 0;
  double txPerSecond = 0, newOrderP99Ms = 0;
  uint64_t errors = 0;
};

// `clients` connections run the mix for `duration` seconds at once; their figures are summed.
ClientsRun runClients(const std::string& conninfo, const std::string& name, const Setup& setup, int clients,
                      double duration) {
  std::vector<std::unique_ptr<Engine>> engines;
  for (int c = 0; c < clients; ++c) engines.push_back(makeWireEngine(conninfo, name, {}, true));
  std::vector<Stats> stats(static_cast<size_t>(clients));
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      ::pthread_setname_np(::pthread_self(), "bench client");  // apart from the server's in a profile
      const auto i = static_cast<size_t>(c);
      stats[i] = runMix(*engines[i], setup.warehouses, duration, 0, setup.seed + 1000 + i, setup.date);
    });
  for (auto& t : threads) t.join();
  ClientsRun r;
  r.clients = clients;
  std::vector<double> newOrders;
  for (Stats& s : stats) {
    r.txPerSecond += s.txPerSecond();
    r.errors += s.errors;
    newOrders.insert(newOrders.end(), s.micros[NewOrder].begin(), s.micros[NewOrder].end());
  }
  r.newOrderP99Ms = percentile(newOrders, 0.99) / 1000;
  return r;
}

struct EngineRuns {
  std::string name;
  std::vector<ClientsRun> runs;
  int violations = 0;
  uint64_t errors = 0;
};

// Loads through one client, checks the conditions, warms up, runs each client count, checks again.
EngineRuns runEngine(const std::string& conninfo, const std::string& name, const FileWriter& writeFile, const Setup& setup,
                     const std::vector<int>& clients, double duration, double warmup) {
  EngineRuns out;
  out.name = name;
  std::unique_ptr<Engine> loader = makeWireEngine(conninfo, name, writeFile, false);
  out.violations += loadAndWarmUp(*loader, setup, warmup, out.errors);
  for (int n : clients) {
    out.runs.push_back(runClients(conninfo, name, setup, n, duration));
    const ClientsRun& r = out.runs.back();
    out.errors += r.errors;
    std::printf("%s: %2d client(s): %.0f tx/s, New-Order p99 %.2f ms%s\n", name.c_str(), n, r.txPerSecond, r.newOrderP99Ms,
                r.errors ? " (errors)" : "");
    std::fflush(stdout);
  }
  out.violations += checkConsistency(*loader, "after the runs");
  return out;
}

}  // namespace

int runOverTheWire(const Setup& setup, const std::string& clientList, double duration, double warmup, bool test,
                   const std::string& engineList) {
  std::vector<int> clients;
  for (auto& c : splitList(clientList)) clients.push_back(std::stoi(c));
  const std::vector<std::string> wanted = splitList(engineList);
  auto runs = [&](const char* engine) { return std::find(wanted.begin(), wanted.end(), engine) != wanted.end(); };
  if (!runs("hyrax")) throw std::runtime_error("--engines must name hyrax (the table sets PostgreSQL beside it)");
  const fs::path work = fs::temp_directory_path() / ("hyrax-tpcc-server-" + std::to_string(getpid()));
  std::vector<EngineRuns> engines;
  {
    HyraxServer hyrax(work / "hyrax");
    FileWriter writeFile = [&](const std::string& name, const std::string& text) {
      fs::path p = work / "hyrax" / name;  // the server is this process: it reads any file
      std::ofstream(p, std::ios::binary) << text;
      return p;
    };
    engines.push_back(runEngine(hyrax.connectionString("tpcc"), "hyrax server", writeFile, setup, clients, duration, warmup));
  }
  if (runs("postgresql") && PgServer::available()) {
    PgServer pg(work / "pg");
    engines.push_back(runEngine(pg.connectionString(), "PostgreSQL", [&](const std::string& n, const std::string& t) {
      return pg.writeFile(n, t);
    }, setup, clients, duration, warmup));
  } else if (runs("postgresql")) {
    std::printf("PostgreSQL is not installed: hyrax's server alone\n");
  }
  fs::remove_all(work);
  std::printf("\n| clients | hyrax server tx/s | New-Order p99 ms | PostgreSQL tx/s | New-Order p99 ms | hyrax / PostgreSQL |\n"
              "|---:|---:|---:|---:|---:|---:|\n");
  for (size_t i = 0; i < clients.size(); ++i) {
    const ClientsRun& h = engines[0].runs[i];
    std::printf("| %d | %.0f | %.2f |", h.clients, h.txPerSecond, h.newOrderP99Ms);
    if (engines.size() > 1) {
      const ClientsRun& p = engines[1].runs[i];
      std::printf(" %.0f | %.2f | %.2f |\n", p.txPerSecond, p.newOrderP99Ms, h.txPerSecond / p.txPerSecond);
    } else {
      std::printf(" | | |\n");
    }
  }
  int violations = 0;
  uint64_t errors = 0;
  for (auto& e : engines) {
    violations += e.violations;
    errors += e.errors;
  }
  if (violations) std::fprintf(stderr, "FAILED: %d consistency violation(s)\n", violations);
  return violations || (test && errors) ? 1 : 0;
}

}  // namespace hyrax::bench::tpcc
