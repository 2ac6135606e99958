#include "bench/sqlfuzz/answer.hpp"

#include <algorithm>
#include <cctype>
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

// Where a value of a numeric column sorts: NULL first, then numbers by value, then NaN and text
// that is no number (by text).
struct NumberKey {
  int rank;  // 0 NULL, 1 a number, 2 NaN or no number
  double value;
};
NumberKey numberKey(const std::optional<std::string>& v) {
  if (!v) return {0, 0};
  char* end;
  const double x = std::strtod(v->c_str(), &end);
  return *end || std::isnan(x) ? NumberKey{2, 0} : NumberKey{1, x};
}

// Rows sort by their exact columns first (text, booleans, CHAR: equal only when equal), then by
// the numeric ones' values, so rows that agree within sameValue's tolerance have the same exact
// part and sort next to each other, by value. Only next to each other: two engines' spellings
// of nearly equal values can still sort in different orders (seed 524 query 980: PostgreSQL's
// stddev 1000000007, hyrax's 1000000006.5, beside other rows of those values), which
// matchedRows below tolerates.
int compareExact(const Row& x, const Row& y, const std::vector<ColumnClass>& classes) {
  for (size_t c = 0; c < x.size() && c < y.size() && c < classes.size(); ++c)
    if (classes[c] != ColumnClass::Numeric && x[c] != y[c]) return x[c] < y[c] ? -1 : 1;
  return 0;
}
bool rowLess(const Row& x, const Row& y, const std::vector<ColumnClass>& classes) {
  if (int exact = compareExact(x, y, classes)) return exact < 0;
  for (size_t c = 0; c < x.size() && c < y.size() && c < classes.size(); ++c) {
    if (classes[c] != ColumnClass::Numeric) continue;
    const NumberKey kx = numberKey(x[c]), ky = numberKey(y[c]);
    if (kx.rank != ky.rank) return kx.rank < ky.rank;
    if (kx.value != ky.value) return kx.value < ky.value;
    if (x[c] != y[c]) return x[c] < y[c];  // the same double, other text: sorted alike on both sides
  }
  return x.size() < y.size();
}

// The rows with every value in its canonical spelling, sorted (rowLess) unless `ordered`.
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
  if (!ordered) std::stable_sort(rows.begin(), rows.end(), [&](const Row& x, const Row& y) { return rowLess(x, y, classes); });
  return rows;
}

size_t fractionDigits(const std::string& s) {
  size_t dot = s.find('.');
  return dot == std::string::npos || s.find_first_of("eE") != std::string::npos ? 0 : s.size() - dot - 1;
}

// The digits from the first that is not 0 on, before any exponent.
size_t significantDigits(const std::string& s) {
  const size_t first = s.find_first_of("123456789"), end = std::min(s.find_first_of("eE"), s.size());
  size_t n = 0;
  for (size_t i = first; i < end; ++i) n += std::isdigit(static_cast<unsigned char>(s[i])) ? 1 : 0;
  return first < end ? n : 0;
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
  const double diff = std::fabs(x - y), relative = 1e-9 * std::max(std::fabs(x), std::fabs(y));
  if (diff <= relative || diff < 1e-12) return true;
  // Equal when the longer one rounds to the shorter. hyrax's avg of 16/32-bit integers and DECIMALs
  // is a DECIMAL of scale 6 (plan::aggregateResultType), PostgreSQL's has 16 or more digits.
  const size_t da = fractionDigits(*a), db = fractionDigits(*b), shorter = std::min(da, db);
  if (da == db) return false;
  if (shorter <= 6 && std::max(da, db) > 6 && diff <= 0.5000001e-6) return true;
  // PostgreSQL's variance of integers and DECIMALs is numeric of the scale its division gives (16
  // significant digits, select_div_scale), its stddev that variance's square root at the same
  // scale: of a variance of 1.8e17, the root to 0 fraction digits (427176270 where hyrax's double
  // is 427176270.5, seed 524 query 980). Such a rounded value has 8 or more significant digits;
  // fewer (3 against 3.5) would be a different answer, not a rounding.
  const std::string& rounded = da < db ? *a : *b;
  return significantDigits(rounded) >= 8 && diff <= 0.5000001 * std::pow(10.0, -static_cast<double>(shorter)) + relative;
}

bool sameRow(const Row& x, const Row& y, const std::vector<ColumnClass>& classes) {
  if (x.size() != y.size()) return false;
  for (size_t c = 0; c < x.size(); ++c)
    if (!sameValue(x[c], y[c], c < classes.size() ? classes[c] : ColumnClass::Other)) return false;
  return true;
}

// Whether row y's first numeric value is surely below (-1) or above (1) x's: farther than
// sameValue's widest tolerance (avg's half a millionth, or half a unit of a rounded value's last
// digit of 8 or more: less than 1e-7 of it), so no row sorted after y (before x) can equal x.
int compareBeyondTolerance(const Row& y, const Row& x, const std::vector<ColumnClass>& classes) {
  if (int exact = compareExact(y, x, classes)) return exact;
  for (size_t c = 0; c < x.size() && c < y.size() && c < classes.size(); ++c) {
    if (classes[c] != ColumnClass::Numeric) continue;
    const NumberKey ky = numberKey(y[c]), kx = numberKey(x[c]);
    if (ky.rank != kx.rank) return ky.rank < kx.rank ? -1 : 1;
    const double slack = 0.6e-6 + 1e-7 * std::max(std::fabs(kx.value), std::fabs(ky.value));
    return ky.value < kx.value - slack ? -1 : ky.value > kx.value + slack ? 1 : 0;
  }
  return 0;
}

// The sorted answers `a` and `b`, of as many rows, as multisets whose rows pair up by sameRow:
// each row of `a` takes the first unpaired row of `b` equal to it among those sorted within the
// tolerance of its first numeric value (rowLess sorts rows that agree next to each other, but
// maybe in other orders). Returns the first row of `a` without a partner, or nullopt. A search
// that grows past kMaxMatchSteps (many rows within one tolerance: answers of a numeric constant
// beside values) gives up at the row it is on, and says so in `gaveUp`.
constexpr uint64_t kMaxMatchSteps = 50'000'000;
std::optional<size_t> unmatchedRow(const std::vector<Row>& a, const std::vector<Row>& b, const std::vector<ColumnClass>& classes,
                                   bool& gaveUp) {
  std::vector<bool> paired(b.size());
  size_t first = 0;  // b's first unpaired row
  uint64_t steps = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    while (first < b.size() && paired[first]) ++first;
    bool found = false;
    for (size_t j = first; j < b.size() && !found; ++j) {
      if (paired[j]) continue;
      if (++steps > kMaxMatchSteps) {
        gaveUp = true;
        return i;
      }
      const int where = compareBeyondTolerance(b[j], a[i], classes);
      if (where < 0) return i;  // b[j] equals neither a[i] nor a row after it
      if (where > 0) break;     // nor does any row of b from b[j] on equal a[i]
      if (sameRow(a[i], b[j], classes)) found = paired[j] = true;
    }
    if (!found) return i;
  }
  return std::nullopt;
}

// Whether adjacent rows x and y of an answer in ORDER BY order may come in either order: where
// they first differ, both are non-integer numbers closer than any two values the comparison
// could take for one (sameValue: two values within half a millionth of one 6-digit avg, or
// within half a unit of the last of 8+ significant digits of one rounded value). Such values
// are equal sums in other orders or their engines' roundings of one value: var_pop
// 3051395683.999118 and 3051395683.9991174 at 1 and 2 threads (seed 546 query 925), where
// PostgreSQL's numeric ties and orders by the next key; two averages hyrax's avg rounds alike.
bool undecidedOrder(const Row& x, const Row& y, const std::vector<ColumnClass>& classes) {
  for (size_t c = 0; c < x.size() && c < y.size(); ++c) {
    if (x[c] == y[c]) continue;
    if (c >= classes.size() || classes[c] != ColumnClass::Numeric || !x[c] || !y[c]) return false;
    if (isInteger(*x[c]) && isInteger(*y[c])) return false;  // integers are exact
    const NumberKey kx = numberKey(x[c]), ky = numberKey(y[c]);
    if (kx.rank != 1 || ky.rank != 1) return false;
    return std::fabs(kx.value - ky.value) <= 1.0000001e-6 + 1e-7 * std::max(std::fabs(kx.value), std::fabs(ky.value));
  }
  return false;
}

// The answers `a` and `b` in ORDER BY order: row by row, but a run of rows whose order is
// undecided (undecidedOrder in either answer: one engine's values tie where the other's differ
// in the last digits) as multisets (unmatchedRow). Returns the first row of `a` without its
// partner, or nullopt where `a` and `b` have as many rows and agree.
std::optional<size_t> unmatchedInOrder(const std::vector<Row>& a, const std::vector<Row>& b, const std::vector<ColumnClass>& classes,
                                       bool& gaveUp) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n;) {
    size_t end = i + 1;
    while (end < n && (undecidedOrder(a[end - 1], a[end], classes) || undecidedOrder(b[end - 1], b[end], classes))) ++end;
    if (end == i + 1) {
      if (!sameRow(a[i], b[i], classes)) return i;
      ++i;
      continue;
    }
    std::vector<Row> runA(a.begin() + static_cast<long>(i), a.begin() + static_cast<long>(end));
    std::vector<Row> runB(b.begin() + static_cast<long>(i), b.begin() + static_cast<long>(end));
    auto less = [&](const Row& x, const Row& y) { return rowLess(x, y, classes); };
    std::stable_sort(runA.begin(), runA.end(), less);
    std::stable_sort(runB.begin(), runB.end(), less);
    if (std::optional<size_t> at = unmatchedRow(runA, runB, classes, gaveUp)) {
      // Where in `a` that row is, for the report.
      for (size_t k = i; k < end; ++k)
        if (a[k] == runA[*at]) return k;
      return i;
    }
    i = end;
  }
  return a.size() == b.size() ? std::nullopt : std::optional<size_t>(n);
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
  while (i < a.size() && i < b.size() && sameRow(a[i], b[i], classes)) ++i;
  if (i == a.size() && i == b.size()) return std::nullopt;
  bool gaveUp = false;
  if (a.size() == b.size()) {
    std::optional<size_t> unmatched = ordered ? unmatchedInOrder(a, b, classes, gaveUp) : unmatchedRow(a, b, classes, gaveUp);
    if (!unmatched) return std::nullopt;
    i = *unmatched;
  }
  std::string detail = std::to_string(a.size()) + " rows vs " + std::to_string(b.size()) + " rows" +
                       (ordered ? " (in order)" : " (sorted)") + "; first difference at row " + std::to_string(i) +
                       (gaveUp ? " (the rows' pairing gave up there: too many rows within the tolerance)" : "") + ":";
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

bool ordersRows(const std::string& sql) {
  auto word = [&](size_t at, size_t& end) {
    end = at;
    while (end < sql.size() && (std::isalnum(static_cast<unsigned char>(sql[end])) || sql[end] == '_')) ++end;
    std::string w = sql.substr(at, end - at);
    for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return w;
  };
  int depth = 0;
  for (size_t i = 0; i < sql.size();) {
    const char c = sql[i];
    if (c == '\'' || c == '"') {  // a literal or a quoted name: to its closing quote ('' and "" inside)
      for (++i; i < sql.size(); ++i)
        if (sql[i] == c) {
          if (i + 1 < sql.size() && sql[i + 1] == c) ++i;
          else break;
        }
      ++i;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      while (i < sql.size() && sql[i] != '\n') ++i;
    } else if (c == '(' || c == ')') {
      depth += c == '(' ? 1 : -1;
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t end;
      const std::string w = word(i, end);
      if (depth == 0 && w == "order") {
        size_t next = end;
        while (next < sql.size() && std::isspace(static_cast<unsigned char>(sql[next]))) ++next;
        size_t after;
        if (word(next, after) == "by") return true;
      }
      i = end;
    } else {
      ++i;
    }
  }
  return false;
}

}  // namespace hyrax::bench::sqlfuzz
