#include "test/runner/slt_record.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

std::vector<Record> parseFile(const std::string& text, const std::string& fileName) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(trimRight(l));
  std::vector<Record> out;
  std::vector<std::string> skipif, onlyif;
  size_t i = 0;
  auto fail = [&](const std::string& msg) { throw std::runtime_error(fileName + ":" + std::to_string(i + 1) + ": " + msg); };
  while (i < lines.size()) {
    const std::string& l = lines[i];
    if (l.empty() || l[0] == '#') {
      ++i;
      continue;
    }
    auto w = words(l);
    if (w[0] == "skipif" || w[0] == "onlyif") {
      if (w.size() < 2) fail("engine name missing");
      (w[0] == "skipif" ? skipif : onlyif).push_back(w[1]);
      ++i;
      continue;
    }
    Record r;
    r.line = static_cast<int>(i + 1);
    r.skipif = std::move(skipif);
    r.onlyif = std::move(onlyif);
    skipif.clear();
    onlyif.clear();
    if (w[0] == "halt") {
      r.kind = Record::Kind::Halt;
      out.push_back(std::move(r));
      ++i;
      continue;
    }
    if (w[0] == "hash-threshold") {
      if (w.size() < 2) fail("hash-threshold needs a number");
      r.kind = Record::Kind::HashThreshold;
      r.threshold = std::stoi(w[1]);
      out.push_back(std::move(r));
      ++i;
      continue;
    }
    if (w[0] == "statement") {
      if (w.size() < 2 || (w[1] != "ok" && w[1] != "error")) fail("expected 'statement ok' or 'statement error'");
      r.kind = w[1] == "ok" ? Record::Kind::StatementOk : Record::Kind::StatementError;
      if (w.size() > 2) r.errorExpect = l.substr(l.find(w[1], 9) + w[1].size() + 1);
      ++i;
      while (i < lines.size() && !lines[i].empty()) r.sql += (r.sql.empty() ? "" : "\n") + lines[i++];
      if (r.sql.empty()) fail("statement without SQL");
      out.push_back(std::move(r));
      continue;
    }
    if (w[0] == "query") {
      if (w.size() < 2) fail("query needs its column types");
      r.kind = Record::Kind::Query;
      r.types = w[1];
      if (w.size() > 2) r.sortMode = w[2];
      if (r.sortMode != "nosort" && r.sortMode != "rowsort" && r.sortMode != "valuesort") fail("unknown sort mode " + r.sortMode);
      if (w.size() > 3) r.label = w[3];
      ++i;
      while (i < lines.size() && !lines[i].empty() && lines[i] != "----") r.sql += (r.sql.empty() ? "" : "\n") + lines[i++];
      if (r.sql.empty()) fail("query without SQL");
      if (i < lines.size() && lines[i] == "----") {
        ++i;
        while (i < lines.size() && !lines[i].empty()) r.expected.push_back(lines[i++]);
      }
      out.push_back(std::move(r));
      continue;
    }
    fail("unknown record '" + w[0] + "'");
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
