#include <catch2/catch.hpp>

#include "test/runner/slt_record.hpp"

using namespace hyrax::slt;

TEST_CASE("MD5 matches RFC 1321's test vectors") {
  CHECK(md5Hex("") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(md5Hex("abc") == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(md5Hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890") ==
        "57edf4a22be3c955ac49da2e2107b67a");
}

TEST_CASE("records parse as SQLite's runner reads them") {
  auto records = parseFile(
      "# comment\nhash-threshold 8\n\nstatement ok\nCREATE TABLE t (a INT)\n\n"
      "skipif postgresql\nquery IT rowsort label-1\nSELECT a,\n b FROM t\n----\n1 x\n2 y\n\n"
      "statement error 22012\nSELECT 1/0\n\nhalt\n",
      "f.slt");
  REQUIRE(records.size() == 5);
  CHECK(records[0].kind == Record::Kind::HashThreshold);
  CHECK(records[0].threshold == 8);
  CHECK(records[2].kind == Record::Kind::Query);
  CHECK(records[2].types == "IT");
  CHECK(records[2].sortMode == "rowsort");
  CHECK(records[2].label == "label-1");
  CHECK(records[2].sql == "SELECT a,\n b FROM t");
  CHECK(records[2].skipif == std::vector<std::string>{"postgresql"});
  CHECK(records[3].errorExpect == "22012");
  CHECK(records[4].kind == Record::Kind::Halt);
  CHECK_THROWS(parseFile("bogus record\n", "f.slt"));
}

TEST_CASE("values format as SQLite's runner prints them") {
  Cell n;
  n.isNull = true;
  CHECK(formatCell(n, 'I') == "NULL");
  Cell r{false, true, 2.0 / 3, "0.6666"};
  CHECK(formatCell(r, 'R') == "0.667");
  CHECK(formatCell(r, 'I') == "0");
  Cell e{false, false, 0, ""};
  CHECK(formatCell(e, 'T') == "(empty)");
  Cell ctl{false, false, 0, "a\tb"};
  CHECK(formatCell(ctl, 'T') == "a@b");
  Cell big{false, true, 9.2e18, "9223372036854775807"};
  CHECK(formatCell(big, 'I') == "9223372036854775807");
}

TEST_CASE("results beyond the threshold become a hash; sort modes sort") {
  std::vector<std::vector<std::string>> rows = {{"2", "b"}, {"1", "a"}};
  CHECK(resultLines(rows, "rowsort", 0) == std::vector<std::string>{"1", "a", "2", "b"});
  CHECK(resultLines(rows, "valuesort", 0) == std::vector<std::string>{"1", "2", "a", "b"});
  CHECK(resultLines(rows, "nosort", 3) == std::vector<std::string>{"4 values hashing to " + md5Hex("2\nb\n1\na\n")});
  CHECK(expectedValues({"1 a", "2 b"}, 2, 4) == std::vector<std::string>{"1", "a", "2", "b"});
  CHECK(expectedValues({"a b", "c"}, 1, 2) == std::vector<std::string>{"a b", "c"});
}
