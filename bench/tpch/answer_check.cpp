#include "bench/tpch/answer_check.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

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

std::string rowText(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "|" : "") + fields[i];
  return out + '\n';
}

std::string digestOf(const std::vector<std::vector<std::string>>& rows) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bits
  for (auto& r : rows)
    for (char ch : rowText(r)) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  char hex[24];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace

Answer answerOf(const QueryResult& r) {
  Answer a;
  for (auto& c : r.columns()) a.columns.push_back(c.name);
  a.rows.reserve(r.rowCount());
  for (uint64_t row = 0; row < r.rowCount(); ++row) {
    auto& out = a.rows.emplace_back();
    for (uint32_t c = 0; c < a.columns.size(); ++c) out.push_back(r.isNull(row, c) ? "NULL" : r.text(row, c));
  }
  return a;
}

Answer readAnswer(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  Answer a;
  std::string line;
  if (std::getline(in, line)) a.columns = split(line);
  while (std::getline(in, line)) {
    if (line.rfind("#rows ", 0) == 0) {
      char hex[64] = {};
      unsigned long long n = 0;
      if (std::sscanf(line.c_str(), "#rows %llu fnv1a64 %63s", &n, hex) != 2) throw std::runtime_error("bad digest line in " + path);
      a.digestRows = n;
      a.digest = hex;
      break;
    }
    a.rows.push_back(split(line));
  }
  return a;
}

std::string answerText(const Answer& a, size_t keepRows) {
  std::string out = rowText(a.columns);
  for (size_t r = 0; r < a.rows.size() && r < keepRows; ++r) out += rowText(a.rows[r]);
  if (a.rows.size() > keepRows) out += "#rows " + std::to_string(a.rows.size()) + " fnv1a64 " + digestOf(a.rows) + "\n";
  return out;
}

std::string compareAnswers(const Answer& got, const Answer& want) {
  const size_t columns = want.columns.size();
  if (columns != got.columns.size())
    return std::to_string(got.columns.size()) + " columns, expected " + std::to_string(columns);
  for (size_t row = 0; row < want.rows.size(); ++row) {
    if (row >= got.rows.size())
      return std::to_string(got.rows.size()) + " rows, expected " + std::to_string(want.digest.empty() ? want.rows.size() : want.digestRows);
    auto& w = want.rows[row];
    if (w.size() != columns) return "row " + std::to_string(row + 1) + " of the answer has " + std::to_string(w.size()) + " fields";
    for (size_t c = 0; c < columns; ++c)
      if (!sameValue(got.rows[row][c], w[c]))
        return "row " + std::to_string(row + 1) + ", column " + got.columns[c] + ": got " + got.rows[row][c] + ", expected " + w[c];
  }
  if (!want.digest.empty()) {
    if (got.rows.size() != want.digestRows)
      return std::to_string(got.rows.size()) + " rows, expected " + std::to_string(want.digestRows);
    if (digestOf(got.rows) != want.digest) return "the rows after the first " + std::to_string(want.rows.size()) + " differ (their hash)";
    return "";
  }
  if (got.rows.size() != want.rows.size())
    return std::to_string(got.rows.size()) + " rows, expected " + std::to_string(want.rows.size());
  return "";
}

std::string checkAnswer(const QueryResult& r, const std::string& answerPath) {
  try {
    return compareAnswers(answerOf(r), readAnswer(answerPath));
  } catch (const std::runtime_error& e) {
    return e.what();
  }
}

}  // namespace hyrax::bench
