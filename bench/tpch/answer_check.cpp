#include "bench/tpch/answer_check.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <vector>

namespace hyrax::bench {

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t bar = line.find('|', start);
    out.push_back(line.substr(start, bar - start));
    if (bar == std::string::npos) return out;
    start = bar + 1;
  }
}

bool number(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

bool sameValue(const std::string& got, const std::string& want) {
  if (got == want) return true;
  double g, w;
  if (!number(got, g) || !number(want, w)) return false;
  size_t point = want.find('.');
  size_t decimals = point == std::string::npos ? 0 : want.size() - point - 1;
  if (decimals == 0 && point == std::string::npos && got.find('.') == std::string::npos) return false;  // integers
  if (decimals <= 2) return std::fabs(g - w) <= 0.01 + 1e-9 * std::fabs(w);
  return std::fabs(g - w) <= 1e-6 * std::max(1.0, std::fabs(w));
}

}  // namespace

std::string checkAnswer(const QueryResult& r, const std::string& answerPath) {
  std::ifstream in(answerPath);
  if (!in) return "cannot read " + answerPath;
  std::string line;
  std::getline(in, line);  // column names
  const size_t columns = split(line).size();
  if (columns != r.columns().size())
    return std::to_string(r.columns().size()) + " columns, expected " + std::to_string(columns);
  uint64_t row = 0;
  while (std::getline(in, line)) {
    if (row >= r.rowCount()) return std::to_string(r.rowCount()) + " rows, expected more";
    auto want = split(line);
    for (uint32_t c = 0; c < columns; ++c) {
      std::string got = r.isNull(row, c) ? "NULL" : r.text(row, c);  // as the answers write it
      if (!sameValue(got, want[c]))
        return "row " + std::to_string(row + 1) + ", column " + r.columns()[c].name + ": got " + got + ", expected " +
               want[c];
    }
    ++row;
  }
  if (row != r.rowCount()) return std::to_string(r.rowCount()) + " rows, expected " + std::to_string(row);
  return "";
}

}  // namespace hyrax::bench
