// libFuzzer target: COPY ... FROM's reader and loader. The first bytes choose the options and the
// columns' types, the rest is the data. Mostly the data is split by a DelimitedReader and every
// field checked against its column's type with parseFieldValue, the loader's own check; one input
// in eight (flag bits 4-6 all set) is loaded whole by loadRecords into a fresh table, which starts
// a thread and maps a chunk (ten times slower), and again by loadDelimited on two threads over
// chunks, which must load the same rows or fail with the same error. Bad input must end in an
// Error with an SQLSTATE (and a failed load leave the table empty); anything else is a bug.
//
// Input layout (test/fuzz/make_corpus.py writes seeds in it):
//   byte 0   flags: bit 0 csv, bit 1 HEADER, bits 2-3 NULL string (format default, '', 'NULL',
//            '\N'), bits 4-6 all set: load with loadRecords
//   byte 1   DELIMITER (0: the format's default)
//   byte 2   QUOTE (csv; 0: '"')
//   byte 3   ESCAPE (csv; 0: the quote)
//   byte 4   bytes the source hands out per read and the reader's first block (0: all at once)
//   byte 5   column count - 1 (mod kMaxColumns)
//   then     one byte per column: its type (low 4 bits, mod the type list), bit 7 NOT NULL
//   then     the data
// Options COPY itself refuses (sql/api/copy.cpp: a newline or carriage-return delimiter, a
// backslash delimiter in text, a csv quote equal to the delimiter) are skipped, not loaded.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine/load/delimited_reader.hpp"
#include "engine/load/table_loader.hpp"
#include "engine/storage/table.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

namespace {

constexpr size_t kHeader = 6;
constexpr size_t kMaxColumns = 8;

SqlType typeOf(uint8_t b) {
  static const SqlType types[] = {
      SqlType::int16(),      SqlType::int32(),         SqlType::int64(),      SqlType::boolean(),
      SqlType::decimal(15, 2), SqlType::decimal(18, 0), SqlType::decimal(4, 4), SqlType::float32(),
      SqlType::float64(),    SqlType::date(),          SqlType::charN(3),     SqlType::varchar(8),
      SqlType::text(),       SqlType::decimal(12, 6),  SqlType::varchar(40),  SqlType::charN(1),
  };
  return types[(b & 0x0f) % std::size(types)].withNullable((b & 0x80) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeader) return 0;
  const uint8_t flags = data[0];
  CopyFormat f = (flags & 1) ? CopyFormat::csv() : CopyFormat::text();
  const bool csv = f.kind == CopyFormat::Kind::Csv;
  f.header = (flags & 2) != 0;
  switch ((flags >> 2) & 3) {
    case 1: f.null = ""; break;
    case 2: f.null = "NULL"; break;
    case 3: f.null = "\\N"; break;
    default: break;
  }
  if (data[1]) f.delimiter = static_cast<char>(data[1]);
  if (csv) {
    if (data[2]) f.quote = static_cast<char>(data[2]);
    f.escape = data[3] ? static_cast<char>(data[3]) : f.quote;
  }
  if (f.delimiter == '\n' || f.delimiter == '\r' || (!csv && f.delimiter == '\\') || (csv && f.delimiter == f.quote))
    return 0;  // COPY refuses these options before reading anything
  const size_t step = data[4] ? data[4] : SIZE_MAX;
  const size_t columns = data[5] % kMaxColumns + 1;
  if (size < kHeader + columns) return 0;
  std::vector<ColumnDef> defs;
  LoadTarget target;
  for (size_t c = 0; c < columns; ++c) {
    defs.push_back({"c" + std::to_string(c), typeOf(data[kHeader + c])});
    target.columns.push_back(static_cast<uint32_t>(c));
  }
  const char* in = reinterpret_cast<const char*>(data + kHeader + columns);
  const size_t n = size - kHeader - columns;
  size_t pos = 0;
  DelimitedReader reader(
      [&](char* buf, size_t want) {
        size_t k = std::min({want, step, n - pos});
        std::memcpy(buf, in + pos, k);
        pos += k;
        return k;
      },
      f, step == SIZE_MAX ? n + 1 : step);  // all at once: a block larger than the input, as for a small file

  if ((flags & 0x70) != 0x70) {
    std::vector<DelimitedReader::Field> fields;
    try {
      if (f.header) reader.next(fields);
      while (reader.next(fields)) {
        for (size_t i = 0; i < fields.size(); ++i) {
          if (fields[i].null) continue;
          uint64_t value[2];
          try {
            parseFieldValue(fields[i].text, defs[i % columns].type, value);
          } catch (const Error& e) {
            if (e.sqlstate().size() != 5) std::abort();
          }
        }
      }
    } catch (const Error& e) {
      if (e.sqlstate().size() != 5) std::abort();
    }
    return 0;
  }

  // Loaded by one parser, then by two threads over chunks of `step` bytes (loadDelimited): the
  // same rows or the same error, whatever the chunks' cuts go through.
  Table one("t", defs), many("t", defs);
  auto loadInto = [&](Table& table, const std::function<uint64_t(const LoadTarget&)>& run) {
    LoadTarget t = target;
    t.table = &table;
    t.source = "fuzz";
    try {
      uint64_t rows = run(t);
      if (rows != table.rowCount()) std::abort();
      return std::string();
    } catch (const Error& e) {
      if (e.sqlstate().size() != 5) std::abort();
      if (table.rowCount() != 0) std::abort();  // all or nothing
      return e.sqlstate() + e.message();
    }
  };
  std::string oneError = loadInto(one, [&](const LoadTarget& t) { return loadRecords(t, reader, f.header); });
  std::string manyError = loadInto(many, [&](const LoadTarget& t) {
    size_t at = 0;
    RecordReader::Source source = [&](char* buf, size_t want) {
      size_t k = std::min({want, step, n - at});
      std::memcpy(buf, in + at, k);
      at += k;
      return k;
    };
    return loadDelimited(t, source, f, 2, {}, step == SIZE_MAX ? n + 1 : step);
  });
  if (oneError != manyError || one.rowCount() != many.rowCount()) std::abort();
  for (uint64_t r = 0; r < one.rowCount(); ++r)
    for (uint32_t c = 0; c < columns; ++c)
      if (one.isNull(r, c) != many.isNull(r, c) || (!one.isNull(r, c) && one.getValue(r, c).toString() != many.getValue(r, c).toString()))
        std::abort();
  return 0;
}
