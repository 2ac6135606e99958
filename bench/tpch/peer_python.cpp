// The DuckDB and Hyper peers: bench/tpch/peer_python.py loads the .tbl files into the engine and
// runs the queries in a child process (popen); this side installs the engine's PyPI package on
// demand and reads the script's JSON lines.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include <sys/wait.h>

#include "bench/tpch/peers.hpp"

namespace fs = std::filesystem;

namespace hyrax::bench {

namespace {

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The package and the pinned version of each engine, so that figures taken at different times
// come from the same engine.
struct Engine {
  const char* name;
  const char* module;
  const char* package;
};
constexpr Engine kEngines[] = {{"duckdb", "duckdb", "duckdb==2.0.1"},
                               {"hyper", "tableauhyperapi", "tableauhyperapi==0.0.26963"}};

const Engine& engine(const std::string& name) {
  for (auto& e : kEngines)
    if (name == e.name) return e;
  throw std::runtime_error("unknown Python peer " + name);
}

// Installs the engine into <checkout>/.tools/<engine> unless it imports from there already (the
// way scripts/setup.sh installs tpchgen-cli); returns that directory, for PYTHONPATH.
fs::path install(const Engine& e, bool quiet) {
  fs::path dir = fs::path(HYRAX_SOURCE_DIR) / ".tools" / e.name;
  std::string probe = "PYTHONPATH=" + quoted(dir.string()) + " python3 -c " + quoted(std::string("import ") + e.module) +
                      " >/dev/null 2>&1";
  if (std::system(probe.c_str()) == 0) return dir;
  if (!quiet) std::fprintf(stderr, "installing %s into %s\n", e.package, dir.c_str());
  std::error_code ec;
  fs::remove_all(dir, ec);
  std::string pip = "python3 -m pip install -q --disable-pip-version-check --target " + quoted(dir.string()) + " " +
                    quoted(e.package) + (quiet ? " >/dev/null 2>&1" : " >&2");
  if (std::system(pip.c_str()) != 0 || std::system(probe.c_str()) != 0)
    throw std::runtime_error(std::string("cannot install ") + e.package + " with pip into " + dir.string());
  return dir;
}

// The value after "key": in one of the script's JSON lines (flat objects of numbers and strings).
bool jsonField(const std::string& line, const std::string& key, std::string& value) {
  size_t at = line.find("\"" + key + "\": ");
  if (at == std::string::npos) return false;
  size_t i = at + key.size() + 4;
  value.clear();
  if (i < line.size() && line[i] == '"') {
    for (++i; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) ++i;
      value += line[i];
    }
  } else {
    while (i < line.size() && line[i] != ',' && line[i] != '}') value += line[i++];
  }
  return true;
}

double jsonNumber(const std::string& line, const std::string& key) {
  std::string v;
  if (!jsonField(line, key, v)) throw std::runtime_error("peer_python.py: no \"" + key + "\" in " + line);
  return std::strtod(v.c_str(), nullptr);
}

}  // namespace

ScriptPeerRun runPythonPeer(const std::string& name, const fs::path& dataDir, const std::vector<int>& queries, int repeat,
                            int threads, double timeLimitSeconds, bool quiet) {
  const Engine& e = engine(name);
  fs::path tools = install(e, quiet);
  std::string list;
  for (int q : queries) {
    if (!list.empty()) list += ',';
    list += std::to_string(q);
  }
  std::string cmd = "PYTHONPATH=" + quoted(tools.string()) + " python3 " +
                    quoted((fs::path(HYRAX_SOURCE_DIR) / "bench/tpch/peer_python.py").string()) + " " + e.name +
                    " --data " + quoted(fs::absolute(dataDir).string()) + " --queries " + list +
                    " --repeat " + std::to_string(repeat) + " --threads " + std::to_string(threads) + " --limit " +
                    std::to_string(timeLimitSeconds) + (quiet ? " 2>/dev/null" : "");
  std::unique_ptr<FILE, int (*)(FILE*)> out(popen(cmd.c_str(), "r"), pclose);
  if (!out) throw std::runtime_error("cannot run " + cmd);
  ScriptPeerRun run;
  std::string line;
  char buf[4096];
  while (std::fgets(buf, sizeof(buf), out.get())) {
    line += buf;
    if (line.empty() || line.back() != '\n') continue;
    std::string v;
    if (jsonField(line, "engine", run.name)) {
      run.loadMs = jsonNumber(line, "load_ms");
    } else if (jsonField(line, "query", v)) {
      PeerQueryTimes t;
      t.query = std::atoi(v.c_str());
      if (!jsonField(line, "error", t.problem)) {
        t.rows = static_cast<uint64_t>(jsonNumber(line, "rows"));
        t.firstMs = jsonNumber(line, "first_ms");
        t.bestMs = jsonNumber(line, "best_ms");
      }
      run.queries.push_back(t);
    }
    line.clear();
  }
  int status = pclose(out.release());
  if (status != 0 || run.name.empty())
    throw std::runtime_error("bench/tpch/peer_python.py " + name + " failed (exit status " +
                             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : status) + ")" +
                             (quiet ? "; run without --json to see its messages" : ""));
  return run;
}

}  // namespace hyrax::bench
