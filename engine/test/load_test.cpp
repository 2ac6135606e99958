#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "engine/load/delimited_reader.hpp"
#include "engine/load/table_loader.hpp"
#include "engine/storage/statistics.hpp"
#include "engine/storage/table.hpp"
#include "engine/types/interval.hpp"
#include "engine/util/error.hpp"
#include "engine/test/reader_testing.hpp"

using namespace hyrax;

namespace {

std::vector<std::vector<std::string>> readAll(const std::string& data, const CopyFormat& f, size_t step,
                                              size_t block = DelimitedReader::kDefaultBlock) {
  DelimitedReader r(trickle(data, step), f, block);
  return recordsOf(r);
}

}  // namespace

TEST_CASE("the text format splits fields, unescapes, and finds NULLs across refills") {
  const std::string data = "1\ta\\tb\t\\N\n2\tx\\\\y\tlast\r\n3\t\t";
  for (size_t step : {1, 2, 3, 7, 1000}) {
    auto rows = readAll(data, CopyFormat::text(), step);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0] == std::vector<std::string>{"1", "a\tb", "<null>"});
    CHECK(rows[1] == std::vector<std::string>{"2", "x\\y", "last"});
    CHECK(rows[2] == std::vector<std::string>{"3", "", ""});  // no newline at the end
  }
}

TEST_CASE("the text format stops at a line holding only \\.") {
  auto rows = readAll("1\n\\.\n2\n", CopyFormat::text(), 1000);
  CHECK(rows.size() == 1);
}

TEST_CASE("csv quotes hold delimiters, doubled quotes and newlines; empty unquoted is NULL") {
  const std::string data = "a,\"b,c\",\"say \"\"hi\"\"\"\n,\"\",\"two\nlines\"\r\n";
  for (size_t step : {1, 2, 5, 1000}) {
    auto rows = readAll(data, CopyFormat::csv(), step);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0] == std::vector<std::string>{"a", "b,c", "say \"hi\""});
    CHECK(rows[1] == std::vector<std::string>{"<null>", "", "two\nlines"});
  }
  CHECK_THROWS_AS(readAll("\"open", CopyFormat::csv(), 1000), Error);
}

TEST_CASE("a record longer than the reader's block grows its buffer, in both formats") {
  const std::string text = "1\ta\\tb\t\\N\nlonger line\twith\\\\escapes\n";
  const std::string csv = "a,\"b,c\"\n\"two\nlines\",x\r\n";
  for (size_t block : {1, 2, 3, 7}) {
    CHECK(readAll(text, CopyFormat::text(), block, block) == readAll(text, CopyFormat::text(), 1000));
    CHECK(readAll(csv, CopyFormat::csv(), block, block) == readAll(csv, CopyFormat::csv(), 1000));
  }
}

TEST_CASE("a long record from a source that hands out one byte at a time is read in linear time") {
  // Parsing again from the record's start after every one-byte read took hours for this.
  std::string data = "1\t" + std::string(3u << 20, 'x') + "\n2\tb\n";
  for (CopyFormat f : {CopyFormat::text(), CopyFormat::csv()}) {
    if (f.kind == CopyFormat::Kind::Csv) f.delimiter = '\t';
    auto rows = readAll(data, f, 1);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0][1].size() == (3u << 20));
    CHECK(rows[1] == std::vector<std::string>{"2", "b"});
  }
}

TEST_CASE("loading is all or nothing and reports the line and column") {
  Table t("t", {{"a", SqlType::int32(false)}, {"s", SqlType::varchar(4)}, {"d", SqlType::date()}});
  CopyFormat f = CopyFormat::text();
  f.delimiter = '|';
  {
    DelimitedReader r(trickle("1|ab|2020-01-01|\n2|cd|2020-01-02|\n", 3), f);
    CHECK(loadRecords({&t, {0, 1, 2}, "good"}, r, false) == 2);
  }
  REQUIRE(t.rowCount() == 2);
  DelimitedReader bad(trickle("3|ef|2020-01-03|\n4|toolong|2020-01-04|\n", 3), f);
  try {
    loadRecords({&t, {0, 1, 2}, "bad.tbl"}, bad, false);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "22001");
    CHECK(e.message().find("bad.tbl line 2, column 3 (s)") != std::string::npos);
  }
  CHECK(t.rowCount() == 2);
  CHECK(t.getValue(1, 0).asInt() == 2);
}

TEST_CASE("a VARCHAR(n)'s length is in characters: four two-byte characters fit a VARCHAR(4), five do not") {
  Table t("t", {{"s", SqlType::varchar(4)}});
  CopyFormat f = CopyFormat::text();
  {
    DelimitedReader r(trickle("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n", 3), f);
    CHECK(loadRecords({&t, {0}, "good"}, r, false) == 1);
  }
  REQUIRE(t.rowCount() == 1);
  CHECK(t.getValue(0, 0).asString() == "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
  DelimitedReader bad(trickle("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n", 3), f);
  try {
    loadRecords({&t, {0}, "bad"}, bad, false);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.sqlstate() == "22001");
  }
  CHECK(t.rowCount() == 1);
  // Trailing blanks past the length are cut, as INSERT cuts them (PostgreSQL's COPY does too).
  DelimitedReader blanks(trickle("ab   \n", 3), f);
  CHECK(loadRecords({&t, {0}, "blanks"}, blanks, false) == 1);
  CHECK(t.getValue(1, 0).asString() == "ab  ");
}

TEST_CASE("a load leaves the statistics a full scan would gather") {
  Table t("s", {{"k", SqlType::int32(false)}, {"name", SqlType::text(true)}, {"d", SqlType::date(true)},
                {"unlisted", SqlType::int64(true)}});
  std::string data;
  for (int i = 0; i < 20000; ++i)
    data += std::to_string(i % 1000) + "|" + (i % 7 ? "name-that-is-longer-than-twelve-" + std::to_string(i % 300) : "\\N") +
            "|2020-01-" + std::to_string(1 + i % 28) + "\n";
  CopyFormat f = CopyFormat::text();
  f.delimiter = '|';
  DelimitedReader r(trickle(data, 4096), f);
  REQUIRE(loadRecords({&t, {0, 1, 2}, "s.tbl"}, r, false) == 20000);
  REQUIRE(t.statistics() != nullptr);
  TableStatistics during = *t.statistics(), after = gatherStatistics(t);
  REQUIRE(during.rows == 20000);
  for (size_t c = 0; c < 4; ++c) {
    CHECK(during.columns[c].distinct == after.columns[c].distinct);
    CHECK(during.columns[c].nullFraction == after.columns[c].nullFraction);
    CHECK(during.columns[c].hasRange == after.columns[c].hasRange);
    if (after.columns[c].hasRange) {
      CHECK(during.columns[c].min == after.columns[c].min);
      CHECK(during.columns[c].max == after.columns[c].max);
    }
  }
  CHECK(std::abs(during.columns[0].distinct - 1000) < 50);  // HyperLogLog: within a few percent
  CHECK(std::abs(during.columns[1].distinct - 300) < 15);
  CHECK(during.columns[3].nullFraction == 1.0);
}

TEST_CASE("statistics of an INTERVAL column count values that differ in days or months only") {
  // INTERVAL is 16 bytes (microseconds, then days and months); its hash once took 8 bytes of
  // them, copied into an 8-byte word (a stack overflow the asan preset reported).
  ColumnStatisticsBuilder b(SqlType::interval(true));
  for (int64_t days = 1; days <= 1000; ++days) {
    const text::Interval v{0, static_cast<int32_t>(days % 500), static_cast<int32_t>(days / 500)};
    b.add(&v, false);
  }
  b.add(nullptr, true);
  ColumnStatistics s = b.finish(1001);
  CHECK(std::abs(s.distinct - 1000) < 50);  // HyperLogLog: within a few percent
  CHECK(s.nullFraction == Approx(1.0 / 1001));
}
