#include "bench/sqlfuzz/answer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace hyrax::bench::sqlfuzz {

namespace {

using Row = std::vector<std::optional<std::string>>;

// A number's text in one spelling: no trailing zeros after a point, no "-0".
std::string canonicalNumber(std::string s) {
  if (s.find('.') != std::string::npos && s.find_first_of("eE") == std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

bool isInteger(const std::string& s) {
  size_t i = !s.empty() && s[0] == '-' ? 1 : 0;
  return i < s.size() && s.find_first_not_of("0123456789", i) == std::string::npos;
}

// The rows with every value in its canonical spelling, sorted unless `ordered`. Non-integer
// numbers sort by their value rounded to 6 fraction digits (hyrax's avg has 6, PostgreSQL's 16
// or more: seed 101 query 1879 sorted -0.111111 and -1.111111 one way, -0.1111111111111111 and
// -1.1111111111111111 the other) and then to 10 significant digits, so values within the
// tolerance (sameValue) sort alike.
std::vector<Row> normalized(const Answer& a, const std::vector<ColumnClass>& classes, bool ordered) {
  std::vector<Row> rows = a.rows;
  for (Row& r : rows)
    for (size_t c = 0; c < r.size() && c < classes.size(); ++c) {
      if (!r[c]) continue;
      if (classes[c] == ColumnClass::Numeric) r[c] = canonicalNumber(*r[c]);
      if (classes[c] == ColumnClass::Bool) r[c] = *r[c] == "true" ? "t" : *r[c] == "false" ? "f" : *r[c];
      if (classes[c] == ColumnClass::Char)
        while (!r[c]->empty() && r[c]->back() == ' ') r[c]->pop_back();
    }
  if (ordered) return rows;
  auto key = [&](const Row& r) {
    Row k = r;
    for (size_t c = 0; c < k.size() && c < classes.size(); ++c)
      if (k[c] && classes[c] == ColumnClass::Numeric && !isInteger(*k[c])) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.9e", std::round(std::strtod(k[c]->c_str(), nullptr) * 1e6) / 1e6);
        k[c] = buf;
      }
    return k;
  };
  std::vector<std::pair<Row, Row>> keyed;
  for (Row& r : rows) keyed.push_back({key(r), std::move(r)});
  std::sort(keyed.begin(), keyed.end());
  rows.clear();
  for (auto& k : keyed) rows.push_back(std::move(k.second));
  return rows;
}

size_t fractionDigits(const std::string& s) {
  size_t dot = s.find('.');
  return dot == std::string::npos || s.find_first_of("eE") != std::string::npos ? 0 : s.size() - dot - 1;
}

bool sameValue(const std::optional<std::string>& a, const std::optional<std::string>& b, ColumnClass cls) {
  if (!a || !b) return !a && !b;
  if (*a == *b) return true;
  if (cls != ColumnClass::Numeric || (isInteger(*a) && isInteger(*b))) return false;  // integers are exact
  char* endA;
  char* endB;
  double x = std::strtod(a->c_str(), &endA), y = std::strtod(b->c_str(), &endB);
  if (*endA || *endB) return false;
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y)) || std::fabs(x - y) < 1e-12) return true;
  // hyrax's avg of integers and DECIMALs is a DECIMAL of scale 6 (sql/semantic/distinct_aggregates.cpp),
  // PostgreSQL's has 16 or more digits: equal when the longer one rounds to the shorter.
  const size_t da = fractionDigits(*a), db = fractionDigits(*b);
  return std::min(da, db) <= 6 && std::max(da, db) > 6 && std::fabs(x - y) <= 0.5000001e-6;
}

std::string rowText(const Row& r) {
  std::string s;
  for (size_t i = 0; i < r.size(); ++i) s += (i ? " | " : "") + (r[i] ? *r[i] : std::string("NULL"));
  return s;
}

}  // namespace

std::optional<Difference> compareAnswers(const Answer& reference, const Answer& other, bool ordered) {
  if (reference.failed || other.failed) {
    if (reference.failed && other.failed) return std::nullopt;  // both erring is fine
    return Difference{"error", "reference: " + describe(reference, 3) + "\nother: " + describe(other, 3)};
  }
  if (reference.columns.size() != other.columns.size())
    return Difference{"columns", std::to_string(reference.columns.size()) + " columns vs " + std::to_string(other.columns.size())};
  std::vector<ColumnClass> classes = reference.columns;
  for (size_t c = 0; c < classes.size(); ++c)
    if (other.columns[c] != ColumnClass::Other) classes[c] = other.columns[c];
  std::vector<Row> a = normalized(reference, classes, ordered), b = normalized(other, classes, ordered);
  size_t i = 0;
  for (; i < a.size() && i < b.size(); ++i) {
    bool same = a[i].size() == b[i].size();
    for (size_t c = 0; same && c < a[i].size(); ++c) same = sameValue(a[i][c], b[i][c], classes[c]);
    if (!same) break;
  }
  if (i == a.size() && i == b.size()) return std::nullopt;
  std::string detail = std::to_string(a.size()) + " rows vs " + std::to_string(b.size()) + " rows" +
                       (ordered ? " (in order)" : " (sorted)") + "; first difference at row " + std::to_string(i) + ":";
  for (size_t k = i; k < i + 5 && k < a.size(); ++k) detail += "\n  reference: " + rowText(a[k]);
  for (size_t k = i; k < i + 5 && k < b.size(); ++k) detail += "\n  other:     " + rowText(b[k]);
  return Difference{a.size() != b.size() ? "rows" : "values", detail};
}

std::string describe(const Answer& a, size_t maxRows) {
  if (a.failed) return "ERROR " + a.sqlstate + ": " + a.message;
  std::string s = std::to_string(a.rows.size()) + " rows";
  for (size_t i = 0; i < a.rows.size() && i < maxRows; ++i) s += "\n    " + rowText(a.rows[i]);
  if (a.rows.size() > maxRows) s += "\n    ...";
  return s;
}

}  // namespace hyrax::bench::sqlfuzz
