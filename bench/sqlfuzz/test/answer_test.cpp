// compareAnswers: answers that agree within the tolerance are equal however their rows sort,
// and answers that differ still differ.
#include <catch2/catch.hpp>

#include "bench/sqlfuzz/answer.hpp"

using hyrax::bench::sqlfuzz::Answer;
using hyrax::bench::sqlfuzz::ColumnClass;
using hyrax::bench::sqlfuzz::compareAnswers;
using hyrax::bench::sqlfuzz::ordersRows;

namespace {

using Value = std::optional<std::string>;

Answer answer(std::vector<ColumnClass> columns, std::vector<std::vector<Value>> rows) {
  Answer a;
  a.columns = std::move(columns);
  a.rows = std::move(rows);
  return a;
}

const ColumnClass N = ColumnClass::Numeric, T = ColumnClass::Other;

}  // namespace

TEST_CASE("a number one engine prints as an integer sorts by value beside the other's fraction", "[sqlfuzz]") {
  // Seed 524 query 980: PostgreSQL's stddev_pop of a BIGINT is numeric of scale 0 near 1e23 of
  // variance (1000000007), hyrax's a double (1000000006.5). As text "10" sorted before
  // "1000000007" but after "1.000000006e+09", so each was compared with the other's partner.
  Answer hyrax = answer({N}, {{"1000000006.5"}, {"10"}});
  Answer postgresql = answer({N}, {{"10"}, {"1000000007"}});
  CHECK_FALSE(compareAnswers(hyrax, postgresql, false));
  CHECK_FALSE(compareAnswers(postgresql, hyrax, false));
}

TEST_CASE("avg of scale 6 against PostgreSQL's longer digits", "[sqlfuzz]") {
  // Seed 101 query 1879 (README, finding 3).
  Answer hyrax = answer({N}, {{"-0.111111"}, {"-1.111111"}});
  Answer postgresql = answer({N}, {{"-1.1111111111111111"}, {"-0.11111111111111111111"}});
  CHECK_FALSE(compareAnswers(hyrax, postgresql, false));
}

TEST_CASE("PostgreSQL's stddev rounded to its numeric scale", "[sqlfuzz]") {
  // Seed 524 query 980: the root of a variance of 1.8e17 to 0 fraction digits.
  CHECK_FALSE(compareAnswers(answer({N}, {{"427176270.5"}, {"500000003.5"}}), answer({N}, {{"500000003"}, {"427176270"}}), false));
  CHECK_FALSE(compareAnswers(answer({N}, {{"1234567.845"}}), answer({N}, {{"1234567.8"}}), false));
  // Farther than half a unit of the last digit, or too few digits for a rounding.
  CHECK(compareAnswers(answer({N}, {{"427176271.5"}}), answer({N}, {{"427176270"}}), false));
  CHECK(compareAnswers(answer({N}, {{"3.5"}}), answer({N}, {{"3"}}), false));
  CHECK(compareAnswers(answer({N}, {{"1234567.86"}}), answer({N}, {{"1234567.8"}}), false));
}

TEST_CASE("rows within the tolerance pair up though they sort in other orders", "[sqlfuzz]") {
  // The first column agrees within 1e-9 (relative), so the second decides the partners, while
  // the sort goes by the first.
  Answer a = answer({N, N}, {{"1.0000000001", "2"}, {"1", "1"}});
  Answer b = answer({N, N}, {{"1", "2"}, {"1.0000000001", "1"}});
  CHECK_FALSE(compareAnswers(a, b, false));
  // Beside exact columns and NULLs.
  Answer c = answer({T, N}, {{"x", std::nullopt}, {"x", "1000000006.5"}, {"y", "3.25"}});
  Answer d = answer({T, N}, {{"y", "3.25"}, {"x", "1000000007"}, {"x", std::nullopt}});
  CHECK_FALSE(compareAnswers(c, d, false));
}

TEST_CASE("answers that differ still differ", "[sqlfuzz]") {
  Answer a = answer({N}, {{"1"}, {"2"}});
  auto values = compareAnswers(a, answer({N}, {{"1"}, {"2.1"}}), false);
  REQUIRE(values);
  CHECK(values->kind == "values");
  CHECK(values->detail.find("first difference at row 1") != std::string::npos);
  // Integers are exact, whatever their neighbours.
  CHECK(compareAnswers(answer({N}, {{"1000000007"}, {"3"}}), answer({N}, {{"1000000008"}, {"3"}}), false));
  // An exact column decides though the numbers agree.
  CHECK(compareAnswers(answer({T, N}, {{"x", "1.5"}}), answer({T, N}, {{"y", "1.5"}}), false));
  // A value near its tolerance but beyond it.
  CHECK(compareAnswers(answer({N}, {{"1.000001"}, {"7.5"}}), answer({N}, {{"1"}, {"7.5"}}), false));
  // As many rows, one of them twice on one side.
  CHECK(compareAnswers(answer({N}, {{"1.5"}, {"1.5"}, {"2.5"}}), answer({N}, {{"1.5"}, {"2.5"}, {"2.5"}}), false)->kind == "values");
  CHECK(compareAnswers(a, answer({N}, {{"1"}}), false)->kind == "rows");
  // In order where the query's ORDER BY names every column.
  CHECK(compareAnswers(a, answer({N}, {{"2"}, {"1"}}), true));
  CHECK_FALSE(compareAnswers(a, answer({N}, {{"2"}, {"1"}}), false));
}

TEST_CASE("rows in ORDER BY order whose keys are too close to tell apart may come in either order", "[sqlfuzz]") {
  // Seed 546 query 925: var_pop of two groups, one value summed in other orders at 1 and 2
  // threads, so ORDER BY 1 DESC puts the groups in other orders.
  Answer one = answer({N, T}, {{"3051395700.5", "a"}, {"3051395683.999118", "m"}, {"3051395683.9991174", "x"}, {"7.25", "b"}});
  Answer two = answer({N, T}, {{"3051395700.5", "a"}, {"3051395683.9991179", "x"}, {"3051395683.999117", "m"}, {"7.25", "b"}});
  CHECK_FALSE(compareAnswers(one, two, true));
  // PostgreSQL's numeric variance ties, so its next key decides.
  Answer postgresql = answer({N, T}, {{"3051395700.5000000000", "a"}, {"3051395683.9991176470", "m"}, {"3051395683.9991176470", "x"},
                                      {"7.2500000000000000", "b"}});
  CHECK_FALSE(compareAnswers(two, postgresql, true));
  // hyrax's 6-digit avg ties where PostgreSQL's numeric does not; avg of a BIGINT: a double.
  CHECK_FALSE(compareAnswers(answer({N, T}, {{"0.333333", "b"}, {"0.333333", "c"}}),
                             answer({N, T}, {{"0.33333333333333333333", "c"}, {"0.33333340000000000000", "b"}}), true));
  CHECK_FALSE(compareAnswers(answer({N, T}, {{"10000000003.333334", "b"}, {"10000000003.333334", "c"}}),
                             answer({N, T}, {{"10000000003.3333333333", "c"}, {"10000000003.3333335000", "b"}}), true));
  // Otherwise the order counts: values apart, a swapped pair beside close values, integers.
  CHECK(compareAnswers(answer({N, T}, {{"1.5", "a"}, {"1.75", "b"}}), answer({N, T}, {{"1.75", "b"}, {"1.5", "a"}}), true));
  CHECK(compareAnswers(answer({N, T}, {{"3051395683.999118", "m"}, {"3051395683.9991174", "x"}, {"7.25", "b"}, {"7.5", "c"}}),
                       answer({N, T}, {{"3051395683.9991174", "x"}, {"3051395683.999118", "m"}, {"7.5", "c"}, {"7.25", "b"}}), true));
  CHECK(compareAnswers(answer({N, T}, {{"1000000007", "a"}, {"1000000008", "b"}}), answer({N, T}, {{"1000000008", "b"}, {"1000000007", "a"}}),
                       true));
  // Exact columns before the number decide; and within such a run the rows must still agree.
  CHECK(compareAnswers(answer({T, N}, {{"a", "0.333333"}, {"b", "0.3333331"}}), answer({T, N}, {{"b", "0.3333331"}, {"a", "0.333333"}}), true));
  auto values = compareAnswers(answer({N, T}, {{"2.5", "a"}, {"0.3333331", "m"}, {"0.333333", "x"}}),
                               answer({N, T}, {{"2.5", "a"}, {"0.333333", "x"}, {"0.3333331", "y"}}), true);
  REQUIRE(values);
  CHECK(values->detail.find("first difference at row 1") != std::string::npos);
}

// --sql compares rows in order only where the query itself orders them.
TEST_CASE("only a query's own ORDER BY orders its rows", "[sqlfuzz]") {
  CHECK(ordersRows("SELECT a FROM t ORDER BY a"));
  CHECK(ordersRows("select a from t order  by a desc limit 3"));
  CHECK(ordersRows("SELECT a FROM t UNION SELECT b FROM u Order\nBy 1"));
  CHECK(ordersRows("SELECT rank() OVER (ORDER BY a) FROM t ORDER BY 1"));
  CHECK_FALSE(ordersRows("SELECT rank() OVER (PARTITION BY g ORDER BY a) FROM t"));
  CHECK_FALSE(ordersRows("SELECT g, string_agg(s, ',' ORDER BY s) FROM t GROUP BY g"));
  CHECK_FALSE(ordersRows("SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 5) x"));
  CHECK_FALSE(ordersRows("SELECT 'ORDER BY a' FROM t"));
  CHECK_FALSE(ordersRows("SELECT \"order by\" FROM t -- ORDER BY a"));
  CHECK_FALSE(ordersRows("SELECT border, bylaw FROM t"));
  CHECK_FALSE(ordersRows("SELECT a AS ordered FROM t WHERE b = 'it''s ORDER BY'"));
}
