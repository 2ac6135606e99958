#include "bench/tpch/tpch_data.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace hyrax::bench {

std::string sfName(double sf) {
  std::ostringstream os;
  os << sf;
  return os.str();
}

void makeTpchData(const fs::path& dir, double sf) {
  if (fs::exists(dir / "lineitem.tbl")) return;
  fs::create_directories(dir);
  fs::path tool = fs::path(HYRAX_SOURCE_DIR) / ".tools/bin/tpchgen-cli";
  std::string exe = fs::exists(tool) ? tool.string() : "tpchgen-cli";
  std::string cmd = exe + " -s " + sfName(sf) + " --output-dir '" + dir.string() + "' >/dev/null";
  std::fprintf(stderr, "generating TPC-H SF %s into %s\n", sfName(sf).c_str(), dir.c_str());
  if (std::system(cmd.c_str()) != 0 || !fs::exists(dir / "lineitem.tbl"))
    throw std::runtime_error("tpchgen-cli failed (run scripts/setup.sh to install it): " + cmd);
}

}  // namespace hyrax::bench
