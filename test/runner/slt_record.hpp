#pragma once
// sqllogictest files (SQLite's format): records, their parsing, and the value formatting and
// hashing SQLite's own runner uses, so that existing corpora run unchanged.
#include <optional>
#include <string>
#include <vector>

namespace hyrax::slt {

struct Record {
  // Invalid: a record the parser did not understand (unknown or malformed); it fails alone and
  // parsing goes on after the next blank line.
  enum class Kind { StatementOk, StatementError, Query, QueryError, HashThreshold, Halt, Invalid } kind;
  int line = 0;                  // where the record starts
  std::string sql;
  std::string errorExpect;       // statement/query error <SQLSTATE or regex>; empty: any error
  std::string problem;           // Invalid: what was not understood
  std::string types;             // query: one char per column (I, R, T)
  std::string sortMode = "nosort";
  std::string label;
  std::vector<std::string> expected;  // the lines after ----
  int threshold = 0;                  // hash-threshold N
  std::vector<std::string> skipif, onlyif;
};

// Parses a whole file. A record it does not understand becomes one Invalid record (its problem
// says what, with file:line) and parsing goes on with the next record, after a blank line.
std::vector<Record> parseFile(const std::string& text, const std::string& fileName);

// Whether an error's expectation is a SQLSTATE: exactly five characters, digits or capital
// letters (e.g. 22012, 42P01, 0A000). Anything else is an ECMAScript regex.
bool isSqlstate(const std::string& expect);
// Whether an error matches `expect`: empty accepts any error, a SQLSTATE compares the code, any
// other text is an ECMAScript regex searched in the message (std::regex_search).
bool errorMatches(const std::string& expect, const std::string& sqlstate, const std::string& message);

// One value as SQLite's runner prints it for type character `type`: NULL, "(empty)", %.3f for R,
// integers for I, non-printable characters as '@'.
struct Cell {
  bool isNull = false;
  bool isNumber = false;  // the value is numeric (integer, decimal, float, boolean)
  double number = 0;      // numeric value (for I and R)
  std::string text;       // the value's text
};
std::string formatCell(const Cell& c, char type);

std::string md5Hex(const std::string& data);

// The values to compare: sorted as asked, or "N values hashing to <md5>" past the threshold
// (threshold < 0: always hashed; 0: never).
std::vector<std::string> resultLines(std::vector<std::vector<std::string>> rows, const std::string& sortMode,
                                     int threshold);
// Expected lines flattened to one value per line. SQLite's files hold a value per line; others
// hold a row per line with values separated by blanks. When the line count equals the number of
// values the query returned, lines are values (a value may then contain blanks).
std::vector<std::string> expectedValues(const std::vector<std::string>& expected, size_t columns, size_t actualValues);

}  // namespace hyrax::slt
