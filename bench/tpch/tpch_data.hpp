#pragma once
// TPC-H data for the benchmarks: dbgen-identical .tbl files made by tpchgen-cli (scripts/setup.sh
// installs it into .tools/), kept in a folder per scale factor.
#include <filesystem>
#include <string>

namespace hyrax::bench {

std::string sfName(double sf);  // 0.01 -> "0.01", 1 -> "1"
// Writes the eight tables' .tbl files into `dir` unless lineitem.tbl is there already.
void makeTpchData(const std::filesystem::path& dir, double sf);

}  // namespace hyrax::bench
