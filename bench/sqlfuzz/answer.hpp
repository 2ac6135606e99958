#pragma once
// One engine's answer to a query, in a form both engines' answers can be compared in: each value
// as text (PostgreSQL's text form) or NULL, each column marked numeric (compared by value, DOUBLE
// within a tolerance: answer.cpp, sameValue) or CHAR (trailing blanks dropped: PostgreSQL prints CHAR(n)
// padded, hyrax without its blanks) or BOOLEAN (hyrax's API prints true/false, PostgreSQL t/f), or
// the error's SQLSTATE and message.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hyrax::bench::sqlfuzz {

enum class ColumnClass { Other, Numeric, Char, Bool };

// Answers longer than this are not compared (Answer::tooLarge): held as text per value, a cross
// product's millions of rows in six ways took the bench's process to 23 GB (seed 207, query 661).
inline constexpr uint64_t kMaxAnswerRows = 1'000'000;

struct Answer {
  bool failed = false;
  bool tooLarge = false;  // more than kMaxAnswerRows rows: not kept, not compared
  std::string sqlstate, message;  // when failed
  std::vector<ColumnClass> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;

  static Answer oversized() {
    Answer a;
    a.tooLarge = true;
    return a;
  }
  static Answer error(std::string sqlstate, std::string message) {
    Answer a;
    a.failed = true;
    a.sqlstate = std::move(sqlstate);
    a.message = std::move(message);
    return a;
  }
};

// How `other` differs from `reference`, or nullopt when they are equal: as multisets of rows, or
// as sequences where `ordered` (the query's ORDER BY names every column; rows whose values there
// are too close for the comparison to tell which comes first compare as a multiset). The text names the
// kind first ("error", "columns", "rows", "values"), then the first differing rows of each side.
struct Difference {
  std::string kind;
  std::string detail;
};
std::optional<Difference> compareAnswers(const Answer& reference, const Answer& other, bool ordered);

// Whether a query's text orders its rows: an ORDER BY of the query itself, outside parentheses,
// string literals, quoted names and comments, in any case. (`--sql`: an ORDER BY inside OVER (...),
// an aggregate's or a subquery's orders no rows of the answer.)
bool ordersRows(const std::string& sql);

// The answer as a few lines of text (its first `maxRows` rows), for reports.
std::string describe(const Answer& a, size_t maxRows = 8);

}  // namespace hyrax::bench::sqlfuzz
