#include "test/runner/slt_record.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace hyrax::slt {

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  std::string x;
  while (in >> x) w.push_back(x);
  return w;
}

std::string trimRight(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

}  // namespace

namespace {

// A record the parser does not understand; caught per record.
struct NotUnderstood {
  std::string what;
};

// The text of `line` after its first `n` words, without leading blanks.
std::string afterWords(const std::string& line, int n) {
  size_t at = 0;
  for (int k = 0; k < n; ++k) {
    at = line.find_first_not_of(" \t", at);
    if (at == std::string::npos) return "";
    at = line.find_first_of(" \t", at);
    if (at == std::string::npos) return "";
  }
  at = line.find_first_not_of(" \t", at);
  return at == std::string::npos ? "" : line.substr(at);
}

// statement/query error <expectation>: a SQLSTATE or a regex that must compile.
std::string errorExpectation(const std::string& line) {
  std::string expect = afterWords(line, 2);
  if (!expect.empty() && !isSqlstate(expect)) {
    try {
      std::regex re(expect, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw NotUnderstood{"invalid regex '" + expect + "': " + e.what()};
    }
  }
  return expect;
}

}  // namespace

bool isSqlstate(const std::string& expect) {
  return expect.size() == 5 &&
         std::all_of(expect.begin(), expect.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z'); });
}

bool errorMatches(const std::string& expect, const std::string& sqlstate, const std::string& message) {
  if (expect.empty()) return true;
  if (isSqlstate(expect)) return sqlstate == expect;
  try {
    return std::regex_search(message, std::regex(expect, std::regex::ECMAScript));
  } catch (const std::regex_error&) {
    return false;  // parseFile refuses such records already
  }
}

std::vector<Record> parseFile(const std::string& text, const std::string& fileName) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(trimRight(l));
  std::vector<Record> out;
  std::vector<std::string> skipif, onlyif;
  size_t i = 0;
  auto fail = [](const std::string& msg) { throw NotUnderstood{msg}; };
  // Reads the record starting at lines[i] into r (conditions count as their own records);
  // returns false for a condition line, which belongs to the next record.
  auto parseOne = [&](Record& r) -> bool {
    const std::string& l = lines[i];
    auto w = words(l);
    if (w[0] == "skipif" || w[0] == "onlyif") {
      if (w.size() < 2) fail("engine name missing after " + w[0]);
      (w[0] == "skipif" ? skipif : onlyif).push_back(w[1]);
      ++i;
      return false;
    }
    if (w[0] == "halt") {
      r.kind = Record::Kind::Halt;
      ++i;
      return true;
    }
    if (w[0] == "hash-threshold") {
      if (w.size() < 2 || w[1].find_first_not_of("0123456789") != std::string::npos || w[1].size() > 9)
        fail("hash-threshold needs a number");
      r.kind = Record::Kind::HashThreshold;
      r.threshold = std::stoi(w[1]);
      ++i;
      return true;
    }
    if (w[0] == "statement") {
      if (w.size() < 2 || (w[1] != "ok" && w[1] != "error")) fail("expected 'statement ok' or 'statement error'");
      r.kind = w[1] == "ok" ? Record::Kind::StatementOk : Record::Kind::StatementError;
      if (w[1] == "ok" && w.size() > 2) fail("unexpected text after 'statement ok'");
      if (w[1] == "error") r.errorExpect = errorExpectation(l);
      ++i;
      while (i < lines.size() && !lines[i].empty()) r.sql += (r.sql.empty() ? "" : "\n") + lines[i++];
      if (r.sql.empty()) fail("statement without SQL");
      return true;
    }
    if (w[0] == "query") {
      if (w.size() < 2) fail("query needs its column types");
      if (w[1] == "error") {
        r.kind = Record::Kind::QueryError;
        r.errorExpect = errorExpectation(l);
      } else {
        r.kind = Record::Kind::Query;
        r.types = w[1];
        if (r.types.find_first_not_of("ITR") != std::string::npos) fail("unknown column types " + r.types);
        if (w.size() > 2) r.sortMode = w[2];
        if (r.sortMode != "nosort" && r.sortMode != "rowsort" && r.sortMode != "valuesort")
          fail("unknown sort mode " + r.sortMode);
        if (w.size() > 3) r.label = w[3];
      }
      ++i;
      while (i < lines.size() && !lines[i].empty() && lines[i] != "----") r.sql += (r.sql.empty() ? "" : "\n") + lines[i++];
      if (r.sql.empty()) fail("query without SQL");
      if (i < lines.size() && lines[i] == "----") {
        if (r.kind == Record::Kind::QueryError) fail("a query error record has no expected-result section");
        ++i;
        while (i < lines.size() && !lines[i].empty()) r.expected.push_back(lines[i++]);
      }
      return true;
    }
    fail("unknown record '" + w[0] + "'");
    return false;
  };
  while (i < lines.size()) {
    if (lines[i].empty() || lines[i][0] == '#') {
      ++i;
      continue;
    }
    Record r;
    r.line = static_cast<int>(i + 1);
    size_t start = i;
    try {
      if (!parseOne(r)) continue;
    } catch (const NotUnderstood& e) {
      r = Record{};
      r.kind = Record::Kind::Invalid;
      r.line = static_cast<int>(start + 1);
      r.problem = fileName + ":" + std::to_string(start + 1) + ": not understood: " + e.what;
      i = start;
      while (i < lines.size() && !lines[i].empty()) {
        if (i > start) r.sql += (r.sql.empty() ? "" : "\n") + lines[i];
        ++i;
      }
    }
    r.skipif = std::move(skipif);
    r.onlyif = std::move(onlyif);
    skipif.clear();
    onlyif.clear();
    out.push_back(std::move(r));
  }
  return out;
}

std::string formatCell(const Cell& c, char type) {
  if (c.isNull) return "NULL";
  char buf[64];
  switch (type) {
    case 'I': {
      // Integers print exactly (a double cannot hold every BIGINT).
      if (c.isNumber && !c.text.empty() && c.text.find_first_not_of("-0123456789") == std::string::npos) return c.text;
      double v = c.isNumber ? c.number : std::strtod(c.text.c_str(), nullptr);
      std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(std::trunc(v)));
      return buf;
    }
    case 'R': {
      double v = c.isNumber ? c.number : std::strtod(c.text.c_str(), nullptr);
      std::snprintf(buf, sizeof(buf), "%.3f", v);
      return buf;
    }
    default: {
      if (c.text.empty()) return "(empty)";
      std::string s = c.text;
      for (char& ch : s)
        if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) > 0x7e) ch = '@';
      return s;
    }
  }
}

std::vector<std::string> resultLines(std::vector<std::vector<std::string>> rows, const std::string& sortMode,
                                     int threshold) {
  std::vector<std::string> values;
  if (sortMode == "rowsort") std::sort(rows.begin(), rows.end());
  for (auto& r : rows)
    for (auto& v : r) values.push_back(v);
  if (sortMode == "valuesort") std::sort(values.begin(), values.end());
  if (threshold < 0 || (threshold > 0 && static_cast<int>(values.size()) > threshold)) {
    std::string all;
    for (auto& v : values) all += v + "\n";
    return {std::to_string(values.size()) + " values hashing to " + md5Hex(all)};
  }
  return values;
}

std::vector<std::string> expectedValues(const std::vector<std::string>& expected, size_t columns, size_t actualValues) {
  if (expected.size() == 1 && expected[0].find(" values hashing to ") != std::string::npos) return expected;
  if (expected.size() == actualValues) return expected;  // one value per line
  std::vector<std::string> values;
  for (auto& line : expected) {
    // A row per line (values separated by single spaces), or one value per line.
    if (columns > 1) {
      auto w = words(line);
      if (w.size() == columns) {
        for (auto& x : w) values.push_back(x);
        continue;
      }
    }
    values.push_back(line);
  }
  return values;
}

}  // namespace hyrax::slt
