// COPY's input parsed on many threads (loadDelimited) loads what one thread loads: the same rows
// in the same order, the same first error with its line, nothing after `\.`, whatever the chunk
// size cuts through (an escaped line break, a quoted one, a record longer than a chunk).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/load/delimited_reader.hpp"
#include "engine/load/record_boundaries.hpp"
#include "engine/load/table_loader.hpp"
#include "engine/storage/statistics.hpp"
#include "engine/storage/table.hpp"
#include "engine/test/reader_testing.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

namespace {

Table freshTable() {
  return Table("t", {{"id", SqlType::int32(false)}, {"s", SqlType::text(true)}, {"d", SqlType::date(true)}});
}

std::vector<std::string> rowsOf(const Table& t) {
  std::vector<std::string> out;
  for (uint64_t r = 0; r < t.rowCount(); ++r) {
    std::string row;
    for (uint32_t c = 0; c < 3; ++c) row += (t.isNull(r, c) ? "<null>" : t.getValue(r, c).toString()) + "|";
    out.push_back(row);
  }
  return out;
}

struct Outcome {
  std::vector<std::string> rows;
  std::string error;  // SQLSTATE: message, empty when the load succeeded
  uint64_t loaded = 0;
  std::string stats;  // the table's statistics after a load
};

// Loads `data` into a fresh table on `threads` threads (1: the one-parser path) from a source
// that hands out `step` bytes at a time.
Outcome load(const std::string& data, const CopyFormat& f, uint32_t threads, size_t chunk, size_t step = 5) {
  Table t = freshTable();
  Outcome o;
  try {
    o.loaded = loadDelimited({&t, {0, 1, 2}, "in.txt"}, trickle(data, step), f, threads, {}, chunk);
  } catch (const Error& e) {
    o.error = e.sqlstate() + ": " + e.message();
  }
  o.rows = rowsOf(t);
  if (o.error.empty() && t.statistics())  // gathered by the parsing threads, merged: as one thread's
    for (const ColumnStatistics& c : t.statistics()->columns)
      o.stats += std::to_string(c.distinct) + "/" + std::to_string(c.nullFraction) + "/" + std::to_string(c.min) + "/" +
                 std::to_string(c.max) + " ";
  return o;
}

void checkSameAsOneThread(const std::string& data, const CopyFormat& f) {
  Outcome one = load(data, f, 1, RecordReader::kDefaultBlock, 1000);
  for (uint32_t threads : {2u, 3u})
    for (size_t chunk : {1, 2, 3, 5, 8, 13, 64, 1 << 20}) {
      INFO("threads " << threads << ", chunk " << chunk);
      Outcome many = load(data, f, threads, chunk);
      CHECK(many.error == one.error);
      CHECK(many.rows == one.rows);
      CHECK(many.loaded == one.loaded);
      CHECK(many.stats == one.stats);
    }
}

std::string manyRows(int n) {
  std::string data;
  for (int i = 0; i < n; ++i)
    data += std::to_string(i) + "\t" + (i % 5 ? "row " + std::to_string(i) + " \\\\ tab\\t" : "\\N") + "\t2020-01-" +
            std::to_string(1 + i % 28) + "\n";
  return data;
}

}  // namespace

TEST_CASE("record ends: an escaped line break continues the record, an escaped backslash does not") {
  CopyFormat text = CopyFormat::text();
  CHECK(lastRecordEnd("1\ta\n2\tb", text).end == 4);
  CHECK(lastRecordEnd("1\ta\\\n2\tb", text).end == 0);      // `\` + line break: inside the field
  CHECK(lastRecordEnd("1\ta\\\\\n2\tb", text).end == 6);    // `\\` + line break: the record ends
  CHECK(lastRecordEnd("1\n2\\\n3", text).end == 2);
  CHECK(lastRecordEnd("1\n2\\\n3", text).lines == 1);
  CopyFormat csv = CopyFormat::csv();
  CHECK(lastRecordEnd("a,\"b\nc\"\nd", csv).end == 8);     // the quoted line break is no end
  CHECK(lastRecordEnd("a,\"b\nc\"\nd", csv).lines == 2);   // but a line, as errors count them
  CHECK(lastRecordEnd("a,\"b\"\"\nc", csv).end == 0);      // "" inside quotes: still quoted
  CHECK(lastRecordEnd("a,\"b\"\n\"", csv).end == 6);
}

TEST_CASE("csv's fast cut agrees with the byte-at-a-time one on random text") {
  // Few characters, many of them special, so quotes, escapes and line breaks meet in every order.
  uint64_t state = 12345;
  auto rnd = [&] { return (state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  for (const char* options : {"\"\"", "\"\\", "'\\", "\\\""}) {
    CopyFormat f = CopyFormat::csv();
    f.quote = options[0];
    f.escape = options[1];
    const std::string alphabet = std::string("a,\n") + f.quote + f.escape;
    for (int round = 0; round < 20000; ++round) {
      std::string text;
      for (size_t len = rnd() % 24; len > 0; --len) text += alphabet[rnd() % alphabet.size()];
      RecordCut fast = lastRecordEnd(text, f), bytes = lastCsvRecordEndByBytes(text, f);
      INFO("quote " << f.quote << " escape " << f.escape << " text [" << text << "]");
      REQUIRE(fast.end == bytes.end);
      REQUIRE(fast.lines == bytes.lines);
    }
  }
}

TEST_CASE("many threads load the rows one thread loads, in input order, whatever the cut") {
  checkSameAsOneThread(manyRows(300), CopyFormat::text());
  // Escaped line breaks and backslashes before line breaks, CRLF endings, no final line break.
  checkSameAsOneThread("1\tline\\\nbreak\t\\N\n2\tback\\\\\t2021-02-03\r\n3\t\\\\\\\n\t\n4\tlast\t2020-01-01", CopyFormat::text());
  // Errors count the lines an editor shows: a field's escaped line break is one (it was not).
  for (uint32_t threads : {1u, 2u}) {
    Outcome o = load("1\tline\\\nbreak\t\\N\n2\tx\tnot a date\n", CopyFormat::text(), threads, 3);
    CHECK(o.error.find("in.txt line 3, column 5 (d)") != std::string::npos);
  }
  CopyFormat csv = CopyFormat::csv();
  checkSameAsOneThread("1,\"two\nlines\",2020-01-01\n2,\"say \"\"hi\"\"\n\",\n3,,2020-01-03\r\n4,\"\"\"\",", csv);
  csv.escape = '\\';
  checkSameAsOneThread("1,\"a\\\"\n\\\\\",2020-01-01\n2,\"\\\\\",\n3,x\\,", csv);
  CopyFormat header = CopyFormat::csv();
  header.header = true;
  checkSameAsOneThread("id,s,d\n1,a,\n2,b,2020-01-02\n", header);
}

TEST_CASE("many threads report the input's first error with its line, and load nothing") {
  std::string data = manyRows(200);
  std::string badEarly = data, badLate = data;
  badEarly.replace(badEarly.find("\n40\t") + 1, 2, "x0");        // line 41: not an integer
  badLate.replace(badLate.find("\n150\t") + 1, 3, "15x");        // line 151
  std::string both = badEarly;
  both.replace(both.find("\n150\t") + 1, 3, "15x");
  for (const std::string* d : {&badEarly, &badLate, &both}) checkSameAsOneThread(*d, CopyFormat::text());
  Outcome o = load(both, CopyFormat::text(), 2, 64);
  CHECK(o.error.find("in.txt line 41, column 1 (id)") != std::string::npos);
  CHECK(o.rows.empty());
  // A missing column, an extra one, a NULL where none may be, an unterminated quote at the end.
  checkSameAsOneThread(data + "7\tonly two\n", CopyFormat::text());
  checkSameAsOneThread(data + "7\ta\t2020-01-01\textra\n", CopyFormat::text());
  checkSameAsOneThread(data + "\\N\ta\t\\N\n", CopyFormat::text());
  checkSameAsOneThread("1,a,\n2,\"open,\n3,b,\n", CopyFormat::csv());
}

TEST_CASE("many threads stop at a line holding only \\. and load nothing after it") {
  std::string data = manyRows(50) + "\\.\n" + "not a row at all\n" + manyRows(50);
  checkSameAsOneThread(data, CopyFormat::text());
  Outcome o = load(data, CopyFormat::text(), 2, 16);
  CHECK(o.error.empty());
  CHECK(o.loaded == 50);
}

TEST_CASE("a record longer than a chunk grows the chunk; a source's error fails the load") {
  std::string longField(5000, 'y');
  checkSameAsOneThread("1\t" + longField + "\t\n2\tb\t\n3\t" + longField + "\\\n" + longField + "\t\n", CopyFormat::text());
  Table t = freshTable();
  int reads = 0;
  RecordReader::Source failing = [&](char* buf, size_t n) -> size_t {
    if (++reads > 3) throw Error(sqlstate::QueryCanceled, "canceling statement due to user request");
    std::string row = "1\tx\t\n";
    size_t k = std::min(n, row.size());
    std::memcpy(buf, row.data(), k);
    return k;
  };
  CHECK_THROWS_WITH(loadDelimited({&t, {0, 1, 2}, "in.txt"}, failing, CopyFormat::text(), 2, {}, 4),
                    Catch::Contains("canceling statement"));
  CHECK(t.rowCount() == 0);
}
