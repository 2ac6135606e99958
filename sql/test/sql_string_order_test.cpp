// Strings order as bytes (memcmp, then the shorter first) wherever they are compared: ORDER BY
// and <, <=, >, >= in generated code (inline from the 4-byte prefixes when they differ, from the
// high halves when both are short, the runtime otherwise: ExprCompiler::stringCompare3), on every
// code tier, against the rule computed here in C++, over strings that differ inside and after the
// prefix, end inside it, are inline (up to 12 bytes) or not, and hold bytes above 0x7F (UTF-8).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "sql/api/database.hpp"

using namespace hyrax;

namespace {

bool byteLess(const std::string& a, const std::string& b) {
  const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  return c < 0 || (c == 0 && a.size() < b.size());
}

std::vector<std::string> strings() {
  const std::vector<std::string> pieces = {"a", "b", " ", "~", "\xC3\xA9", "ab", "zz"};
  std::mt19937 rng(7);
  std::vector<std::string> out = {"", "a", "ab", "abc", "abcd", "abcde", "abcd ", "abc ", "b", "\xC3\xA9"};
  while (out.size() < 400) {
    std::string s;
    const size_t parts = rng() % 9;
    for (size_t i = 0; i < parts; ++i) s += pieces[rng() % pieces.size()];
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST_CASE("strings order as bytes in ORDER BY and comparisons, on every code tier") {
  const std::vector<std::string> values = strings();
  Database db;
  Connection con(db);
  con.execute("SET analytics = 'inline'");
  con.execute("CREATE TABLE s (id INTEGER, v VARCHAR(40))");
  std::string insert = "INSERT INTO s VALUES ";
  for (size_t i = 0; i < values.size(); ++i) insert += (i ? ", (" : "(") + std::to_string(i) + ", '" + values[i] + "')";
  con.execute(insert);
  std::vector<std::string> sorted = values;
  std::stable_sort(sorted.begin(), sorted.end(), byteLess);
  uint64_t less = 0, lessEqual = 0;
  for (const auto& a : values)
    for (const auto& b : values) {
      less += byteLess(a, b);
      lessEqual += !byteLess(b, a);
    }
  for (const char* tier : {"interpreted", "cheap", "optimized"}) {
    INFO(tier);
    con.execute(std::string("SET compile_tier = '") + tier + "'");
    QueryResult r = con.execute("SELECT v FROM s ORDER BY v, id");
    REQUIRE(r.rowCount() == sorted.size());
    bool inOrder = true;
    for (size_t i = 0; i < sorted.size(); ++i) inOrder = inOrder && r.text(i, 0) == sorted[i];
    CHECK(inOrder);
    QueryResult d = con.execute("SELECT v FROM s ORDER BY v DESC, id");
    bool descending = true;
    for (size_t i = 0; i < sorted.size(); ++i) descending = descending && d.text(i, 0) == sorted[sorted.size() - 1 - i];
    CHECK(descending);
    CHECK(con.execute("SELECT count(*) FROM s a, s b WHERE a.v < b.v").value(0, 0).asInt() == static_cast<int64_t>(less));
    CHECK(con.execute("SELECT count(*) FROM s a, s b WHERE a.v <= b.v").value(0, 0).asInt() == static_cast<int64_t>(lessEqual));
    CHECK(con.execute("SELECT count(*) FROM s a, s b WHERE b.v > a.v").value(0, 0).asInt() == static_cast<int64_t>(less));
    CHECK(con.execute("SELECT count(*) FROM s a, s b WHERE b.v >= a.v").value(0, 0).asInt() == static_cast<int64_t>(lessEqual));
    CHECK(con.execute("SELECT min(v) FROM s").text(0, 0) == sorted.front());
    CHECK(con.execute("SELECT max(v) FROM s").text(0, 0) == sorted.back());
  }
}
