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
}

TEST_CASE("error records: a SQLSTATE or a regex; query error has no result section") {
  auto records = parseFile(
      "statement error 42P01\nSELECT * FROM nope\n\n"
      "statement error division by zero\nSELECT 1/0\n\n"
      "query error ^value too long for type VARCHAR\\(2\\)$\nSELECT 1\n\n"
      "query error\nSELECT 2\n",
      "f.slt");
  REQUIRE(records.size() == 4);
  CHECK(records[0].kind == Record::Kind::StatementError);
  CHECK(records[0].errorExpect == "42P01");
  CHECK(records[1].errorExpect == "division by zero");
  CHECK(records[2].kind == Record::Kind::QueryError);
  CHECK(records[2].errorExpect == "^value too long for type VARCHAR\\(2\\)$");
  CHECK(records[2].sql == "SELECT 1");
  CHECK(records[2].expected.empty());
  CHECK(records[3].kind == Record::Kind::QueryError);
  CHECK(records[3].errorExpect.empty());
  CHECK(records[3].sql == "SELECT 2");

  CHECK(isSqlstate("22012"));
  CHECK(isSqlstate("0A000"));
  CHECK_FALSE(isSqlstate("error"));  // five characters, but not a code's
  CHECK_FALSE(isSqlstate("220123"));
  CHECK(errorMatches("22012", "22012", "division by zero"));
  CHECK_FALSE(errorMatches("22012", "42601", "22012"));  // a code never matches the message
  CHECK(errorMatches("", "42601", "anything"));
  CHECK(errorMatches("by z.ro", "22012", "division by zero"));
  CHECK_FALSE(errorMatches("^zero", "22012", "division by zero"));
  CHECK(errorMatches("VARCHAR\\(2\\)", "22001", "value too long for type VARCHAR(2)"));
  CHECK_FALSE(errorMatches("VARCHAR(2)", "22001", "value too long for type VARCHAR(2)"));  // a group, not parentheses
}

TEST_CASE("a record the parser does not understand fails alone; parsing goes on") {
  auto records = parseFile(
      "statement ok\nCREATE TABLE t (a INT)\n\n"
      "bogus record\nwith a second line\n\n"
      "query I sometimes\nSELECT 1\n----\n1\n\n"
      "query error [unclosed\nSELECT 1\n\n"
      "query error x\nSELECT 1\n----\n1\n\n"
      "statement ok\n\n"
      "hash-threshold many\n\n"
      "skipif mysql\nstatement maybe\nSELECT 1\n\n"
      "query I\nSELECT 1\n----\n1\n",
      "f.slt");
  REQUIRE(records.size() == 9);
  CHECK(records[0].kind == Record::Kind::StatementOk);
  for (size_t k = 1; k < 8; ++k) CHECK(records[k].kind == Record::Kind::Invalid);
  CHECK(records[1].line == 4);
  CHECK(records[1].problem == "f.slt:4: not understood: unknown record 'bogus'");
  CHECK(records[1].sql == "with a second line");
  CHECK(records[2].problem == "f.slt:7: not understood: unknown sort mode sometimes");
  CHECK(records[3].problem.find("f.slt:12: not understood: invalid regex '[unclosed'") == 0);
  CHECK(records[4].problem == "f.slt:15: not understood: a query error record has no expected-result section");
  CHECK(records[5].problem == "f.slt:20: not understood: statement without SQL");
  CHECK(records[6].problem == "f.slt:22: not understood: hash-threshold needs a number");
  CHECK(records[7].line == 25);
  CHECK(records[7].skipif == std::vector<std::string>{"mysql"});  // its conditions still apply
  CHECK(records[8].kind == Record::Kind::Query);
  CHECK(records[8].line == 28);
  CHECK(records[8].expected == std::vector<std::string>{"1"});
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
