#include <catch2/catch.hpp>

#include "engine/types/text_format.hpp"
#include "engine/types/value.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

TEST_CASE("decimal text is parsed exactly and rounded half away from zero") {
  CHECK(text::parseDecimal("12.5", 4, 2) == 1250);
  CHECK(text::parseDecimal(" -0.125 ", 5, 2) == -13);
  CHECK(text::parseDecimal(".5", 2, 1) == 5);
  CHECK(text::parseDecimal("99.994", 4, 2) == 9999);
  CHECK_THROWS_AS(text::parseDecimal("99.995", 4, 2), Error);  // rounds to 100.00: too many digits
  CHECK_THROWS_AS(text::parseDecimal("1.2.3", 5, 2), Error);
  CHECK_THROWS_AS(text::parseDecimal("", 5, 2), Error);
  CHECK(text::formatDecimal(-5, 2) == "-0.05");
  CHECK(text::formatDecimal(123456, 3) == "123.456");
  CHECK(text::formatDecimal(7, 0) == "7");
}

TEST_CASE("integers are range-checked per type") {
  CHECK(text::parseInt("32767", TypeId::Int16) == 32767);
  CHECK_THROWS_WITH(text::parseInt("32768", TypeId::Int16), Catch::Contains("out of range"));
  CHECK(text::parseInt("-9223372036854775808", TypeId::Int64) == INT64_MIN);
  CHECK_THROWS_AS(text::parseInt("9223372036854775808", TypeId::Int64), Error);
  try {
    text::parseInt("12a", TypeId::Int32);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "22P02");
  }
}

TEST_CASE("dates round-trip and reject impossible days") {
  CHECK(text::parseDate("1970-01-01") == 0);
  CHECK(text::formatDate(text::parseDate("1998-12-01") - 90) == "1998-09-02");
  CHECK(text::formatDate(text::parseDate("2000-02-29")) == "2000-02-29");
  CHECK_THROWS_AS(text::parseDate("1900-02-29"), Error);
  CHECK_THROWS_AS(text::parseDate("2023-13-01"), Error);
  CHECK_THROWS_AS(text::parseDate("2023-1-"), Error);
  for (int d = text::daysFromCivil(1, 1, 1); d <= text::daysFromCivil(9999, 12, 31); d += 997) CHECK(text::parseDate(text::formatDate(d)) == d);
}

TEST_CASE("values print as PostgreSQL does") {
  CHECK(Value::boolean(true).toString() == "true");
  CHECK(Value::decimal(1250, 6, 2).toString() == "12.50");
  CHECK(Value::float64(0.1).toString() == "0.1");
  CHECK(Value::null(SqlType::int32()).toString() == "NULL");
}

TEST_CASE("a string headed for CHAR(n)/VARCHAR(n): a CAST cuts it to n characters, an assignment only trailing blanks") {
  using text::fitString;
  // within the length: as it is (a CHAR without its trailing blanks)
  CHECK(*fitString("ab  ", TypeId::Varchar, 4, false) == "ab  ");
  CHECK(*fitString("ab  ", TypeId::Char, 4, false) == "ab");
  CHECK(*fitString("abcdef", TypeId::Varchar, 0, false) == "abcdef");  // no limit
  // an explicit CAST: the first n characters, not bytes ('é' is two bytes, one character)
  CHECK(*fitString("abc", TypeId::Varchar, 2, true) == "ab");
  CHECK(*fitString("\xc3\xa9\xc3\xa8\xc3\xa0", TypeId::Char, 2, true) == "\xc3\xa9\xc3\xa8");
  CHECK(*fitString("ab cd", TypeId::Char, 3, true) == "ab");   // a CHAR loses the blanks the cut leaves
  CHECK(*fitString("ab cd", TypeId::Varchar, 3, true) == "ab ");
  // an assignment: blanks past n go, anything else is too long (nullopt: 22001)
  CHECK(*fitString("ab    ", TypeId::Varchar, 3, false) == "ab ");
  CHECK(*fitString("\xc3\xa9     ", TypeId::Varchar, 3, false) == "\xc3\xa9  ");
  CHECK_FALSE(fitString("ab c", TypeId::Varchar, 3, false));
  CHECK_FALSE(fitString("abcd", TypeId::Char, 3, false));
  CHECK(*fitString("abc   ", TypeId::Char, 3, false) == "abc");
}
