// hyrax-slt: runs sqllogictest files against hyrax, each file on a fresh in-memory database.
//   hyrax-slt [--engine NAME] [--verbose] [--stop-on-error] FILE|DIR...
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "sql/api/database.hpp"
#include "test/runner/slt_record.hpp"

using namespace hyrax;
namespace fs = std::filesystem;

namespace {

struct Options {
  std::string engine = "hyrax";
  bool verbose = false, stopOnError = false;
  std::vector<std::string> paths;
  std::vector<std::string> setup;  // statements run before each file
};

struct Counts {
  int passed = 0, failed = 0, skipped = 0;
};

slt::Cell cellOf(const QueryResult& r, uint64_t row, uint32_t col) {
  slt::Cell c;
  Value v = r.value(row, col);
  c.isNull = v.isNull();
  if (c.isNull) return c;
  const SqlType& t = v.type();
  c.isNumber = t.isNumeric() || t.id == TypeId::Bool;
  c.number = t.id == TypeId::Bool ? (v.asBool() ? 1 : 0) : v.toDouble();
  c.text = v.toString();
  return c;
}

std::string joinLines(const std::vector<std::string>& v, size_t max = 20) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < max; ++i) s += "    " + v[i] + "\n";
  if (v.size() > max) s += "    ... (" + std::to_string(v.size()) + " values)\n";
  return s;
}

bool skipped(const slt::Record& r, const std::string& engine) {
  for (auto& e : r.skipif)
    if (e == engine) return true;
  if (!r.onlyif.empty()) {
    for (auto& e : r.onlyif)
      if (e == engine) return false;
    return true;
  }
  return false;
}

Counts runFile(const std::string& path, const Options& opt, bool& stop) {
  Counts counts;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  // A record the parser did not understand comes back as Invalid and fails alone, below.
  std::vector<slt::Record> records = slt::parseFile(ss.str(), path);
  // Paths in SQL: __TEST_DIR__ is the .slt file's directory (data files beside it), __TEMP_DIR__ a
  // fresh directory of this run (files a test writes), removed afterwards.
  const std::string testDir = fs::absolute(fs::path(path)).parent_path().string();
  std::string tempTemplate = (fs::temp_directory_path() / "hyrax-slt-XXXXXX").string();
  const char* made = mkdtemp(tempTemplate.data());
  const std::string tempDir = made ? made : fs::temp_directory_path().string();
  struct RemoveTemp {
    std::string dir;
    bool own;
    ~RemoveTemp() {
      std::error_code ec;
      if (own) fs::remove_all(dir, ec);
    }
  } removeTemp{tempDir, made != nullptr};
  auto substitute = [](std::string& sql, const std::string& name, const std::string& value) {
    for (size_t at = sql.find(name); at != std::string::npos; at = sql.find(name, at + value.size()))
      sql.replace(at, name.size(), value);
  };
  for (auto& r : records) {
    substitute(r.sql, "__TEST_DIR__", testDir);
    substitute(r.sql, "__TEMP_DIR__", tempDir);
  }
  Database db;
  Connection con(db);
  for (const std::string& sql : opt.setup) con.execute(sql);
  int threshold = 0;
  std::map<std::string, std::vector<std::string>> labels;
  auto fail = [&](const slt::Record& r, const std::string& what) {
    counts.failed++;
    std::cout << path << ":" << r.line << ": FAILED\n  " << r.sql << "\n" << what;
    if (opt.stopOnError) stop = true;
  };
  for (auto& r : records) {
    if (stop) break;
    if (r.kind == slt::Record::Kind::Halt) {
      if (skipped(r, opt.engine)) continue;
      break;
    }
    if (r.kind == slt::Record::Kind::HashThreshold) {
      threshold = r.threshold;
      continue;
    }
    if (skipped(r, opt.engine)) {
      counts.skipped++;
      continue;
    }
    if (r.kind == slt::Record::Kind::Invalid) {
      counts.failed++;
      std::cout << r.problem << "\n";
      if (opt.stopOnError) stop = true;
      continue;
    }
    if (opt.verbose) std::cout << path << ":" << r.line << ": " << r.sql << "\n";
    bool expectError = r.kind == slt::Record::Kind::StatementError || r.kind == slt::Record::Kind::QueryError;
    if (r.kind == slt::Record::Kind::StatementOk || expectError) {
      try {
        con.execute(r.sql);
        if (!expectError)
          counts.passed++;
        else
          fail(r, "  expected an error, but it succeeded\n");
      } catch (const Error& e) {
        if (!expectError) {
          fail(r, "  error " + e.sqlstate() + ": " + e.message() + "\n");
        } else if (slt::errorMatches(r.errorExpect, e.sqlstate(), e.message())) {
          counts.passed++;
        } else {
          fail(r, std::string("  expected error ") + (slt::isSqlstate(r.errorExpect) ? "" : "matching /") + r.errorExpect +
                      (slt::isSqlstate(r.errorExpect) ? "" : "/") + ", got " + e.sqlstate() + ": " + e.message() + "\n");
        }
      }
      continue;
    }
    // query
    try {
      QueryResult res = con.execute(r.sql);
      if (res.columns().size() != r.types.size()) {
        fail(r, "  expected " + std::to_string(r.types.size()) + " columns, got " + std::to_string(res.columns().size()) + "\n");
        continue;
      }
      std::vector<std::vector<std::string>> rows;
      for (uint64_t i = 0; i < res.rowCount(); ++i) {
        std::vector<std::string> row;
        for (uint32_t c = 0; c < res.columns().size(); ++c) row.push_back(slt::formatCell(cellOf(res, i, c), r.types[c]));
        rows.push_back(std::move(row));
      }
      std::vector<std::string> expected = slt::expectedValues(r.expected, r.types.size(), rows.size() * r.types.size());
      bool hashed = expected.size() == 1 && expected[0].find(" values hashing to ") != std::string::npos;
      std::vector<std::string> actual = slt::resultLines(rows, r.sortMode, hashed ? -1 : threshold);
      if (!r.label.empty()) {
        auto it = labels.find(r.label);
        if (it != labels.end() && it->second != actual) {
          fail(r, "  result differs from the one labelled " + r.label + "\n");
          continue;
        }
        labels[r.label] = actual;
      }
      if (!r.expected.empty() || r.label.empty()) {
        if (actual != expected) {
          fail(r, "  expected:\n" + joinLines(expected) + "  actual:\n" + joinLines(actual));
          continue;
        }
      }
      counts.passed++;
    } catch (const Error& e) {
      fail(r, "  error " + e.sqlstate() + ": " + e.message() + "\n");
    }
  }
  return counts;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--engine" && i + 1 < argc) opt.engine = argv[++i];
    else if (a == "--setup" && i + 1 < argc) opt.setup.push_back(argv[++i]);
    else if (a == "--verbose") opt.verbose = true;
    else if (a == "--stop-on-error") opt.stopOnError = true;
    else if (a == "--help" || a == "-h") {
      std::cout << "usage: hyrax-slt [--engine NAME] [--setup SQL]... [--verbose] [--stop-on-error] FILE|DIR...\n"
                   "  --setup SQL  runs SQL (e.g. SET analytics = 'snapshot') before each file\n";
      return 0;
    } else opt.paths.push_back(a);
  }
  std::vector<std::string> files;
  for (auto& p : opt.paths) {
    if (fs::is_directory(p)) {
      for (auto& e : fs::recursive_directory_iterator(p))
        if (e.path().extension() == ".slt") files.push_back(e.path().string());
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  Counts total;
  bool stop = false;
  for (auto& f : files) {
    if (!fs::exists(f)) {
      std::cout << f << ": no such file\n";
      total.failed++;
      continue;
    }
    Counts c = runFile(f, opt, stop);
    std::cout << f << ": " << c.passed << " passed, " << c.failed << " failed, " << c.skipped << " skipped\n";
    total.passed += c.passed, total.failed += c.failed, total.skipped += c.skipped;
    if (stop) break;
  }
  std::cout << total.passed << " passed, " << total.failed << " failed, " << total.skipped << " skipped\n";
  return total.failed ? 1 : 0;
}
