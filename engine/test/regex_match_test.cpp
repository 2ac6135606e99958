#include <catch2/catch.hpp>

#include <string>

#include "engine/runtime/regex_match.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

namespace {
bool matches(const std::string& s, const std::string& p, bool icase = false) { return regexMatches(s, p, icase); }

std::string sqlstateOf(const std::string& p) {
  try {
    regexMatches("x", p, false);
  } catch (const Error& e) {
    return e.sqlstate();
  }
  return "";
}
}  // namespace

TEST_CASE("regex operators: a match anywhere in the string, POSIX ERE syntax") {
  CHECK(matches("abc", "b"));
  CHECK_FALSE(matches("abc", "^b"));
  CHECK(matches("t", "^(t)$"));  // psql's \d t
  CHECK_FALSE(matches("tt", "^(t)$"));
  CHECK_FALSE(matches("public", "^pg_toast"));
  CHECK(matches("pg_toast_1", "^pg_toast"));
  CHECK(matches("aa", "^a{2}$"));
  CHECK_FALSE(matches("a", "^a{2}$"));
  CHECK(matches("x1", "[[:digit:]]"));
  CHECK(matches("cat", "^(dog|cat)$"));
  CHECK(matches("a.b", "a\\.b"));
  CHECK_FALSE(matches("axb", "a\\.b"));
  CHECK(matches("", "^$"));
}

TEST_CASE("regex operators: ~* folds ASCII case") {
  CHECK(matches("ABC", "^abc$", true));
  CHECK_FALSE(matches("ABC", "^abc$", false));
}

TEST_CASE("regex operators: UTF-8 characters are one character each") {
  CHECK(matches("h\xc3\xa9llo", "^h.llo$"));         // é is two bytes, one "."
  CHECK(matches("\xc3\xa9", "^[^a]$"));
  CHECK(matches("\xe2\x82\xac", "^[\xe2\x82\xac]$"));  // € in a bracket expression
}

TEST_CASE("regex operators: malformed patterns are 2201B, very long ones 54000") {
  CHECK(sqlstateOf("(") == "2201B");
  CHECK(sqlstateOf("[") == "2201B");
  CHECK(sqlstateOf("\\d") == "2201B");  // ARE's class escapes are not ERE
  CHECK(sqlstateOf(std::string(kMaxRegexPatternBytes + 1, 'a')) == "54000");
  CHECK(sqlstateOf(std::string(kMaxRegexPatternBytes, 'a')).empty());
  // Big automata are refused before their depth-first walks could exhaust a worker's stack.
  CHECK(sqlstateOf("(a?){16000}") == "2201B");
  CHECK(sqlstateOf("((a?){100}){100}") == "2201B");
  CHECK(sqlstateOf("(a?){100}").empty());
}

TEST_CASE("regex operators: a long string does not exhaust the stack") {
  // The breadth-first executor's depth depends on the pattern, not on the string.
  std::string s(2'000'000, 'a');
  CHECK(matches(s, "^a*$"));
  CHECK(matches(s + "b", "(a|b)*b$"));
}
