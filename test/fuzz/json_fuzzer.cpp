// libFuzzer target: COPY ... (FORMAT json)'s reader (JsonReader) and read_json's column
// inference. The first bytes choose the options and the columns, the rest is the data. Mostly
// the records are read and each field checked against its column's type with parseFieldValue;
// one input in eight (flag bits 4-6 all set) is loaded whole by loadRecords into a fresh table.
// Bad input must end in an Error with an SQLSTATE (and a failed load leave the table empty);
// anything else is a bug.
//
// Input layout:
//   byte 0   flags: bit 0 IGNORE_UNKNOWN_KEYS, bit 1 containers as text (read_json), bit 2 infer
//            the columns first (read_json), bits 4-6 all set: load with loadRecords
//   byte 1   bytes the source hands out per read and the reader's first block (0: all at once)
//   byte 2   column count - 1 (mod kMaxColumns)
//   then     one byte per column: its type (low 4 bits, mod the type list), bit 7 NOT NULL; the
//            column's key is kKeys[i] ("a", "b", "a.b", ...)
//   then     the data
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/load/json_reader.hpp"
#include "engine/load/table_loader.hpp"
#include "engine/storage/table.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

namespace {

constexpr size_t kHeader = 3;
constexpr size_t kMaxColumns = 6;
const char* const kKeys[kMaxColumns] = {"a", "b", "a.b", "c", "a.b.c", "d"};

SqlType typeOf(uint8_t b) {
  static const SqlType types[] = {
      SqlType::int16(),  SqlType::int32(),  SqlType::int64(),   SqlType::boolean(), SqlType::decimal(15, 2),
      SqlType::float64(), SqlType::date(),  SqlType::timestamp(), SqlType::varchar(8), SqlType::text(),
  };
  return types[(b & 0x0f) % std::size(types)].withNullable((b & 0x80) == 0);
}

void check(const Error& e) {
  if (e.sqlstate().size() != 5) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeader) return 0;
  const uint8_t flags = data[0];
  const size_t step = data[1] ? data[1] : SIZE_MAX;
  const size_t columns = data[2] % kMaxColumns + 1;
  if (size < kHeader + columns) return 0;
  std::vector<ColumnDef> defs;
  std::vector<std::string> keys;
  LoadTarget target;
  for (size_t c = 0; c < columns; ++c) {
    defs.push_back({kKeys[c], typeOf(data[kHeader + c])});
    keys.push_back(kKeys[c]);
    target.columns.push_back(static_cast<uint32_t>(c));
  }
  const char* in = reinterpret_cast<const char*>(data + kHeader + columns);
  const size_t n = size - kHeader - columns;
  auto source = [&, pos = size_t{0}](char* buf, size_t want) mutable {
    size_t k = std::min({want, step, n - pos});
    std::memcpy(buf, in + pos, k);
    pos += k;
    return k;
  };
  const size_t block = step == SIZE_MAX ? n + 1 : step;
  if (flags & 4) {
    try {
      auto inferred = JsonReader::inferColumns(source, block);
      std::vector<std::string> names;
      for (auto& c : inferred) names.push_back(c.name);
      std::sort(names.begin(), names.end());
      if (std::adjacent_find(names.begin(), names.end()) != names.end()) std::abort();  // one column per key path
    } catch (const Error& e) {
      check(e);
    }
  }
  JsonReader reader(source, keys, JsonReader::Options{(flags & 1) != 0, (flags & 2) != 0}, block);
  if ((flags & 0x70) != 0x70) {
    std::vector<RecordReader::Field> fields;
    try {
      while (reader.next(fields)) {
        if (fields.size() != columns) std::abort();
        for (size_t i = 0; i < fields.size(); ++i) {
          if (fields[i].null) continue;
          uint64_t value[2];
          try {
            parseFieldValue(fields[i].text, defs[i].type, value);
          } catch (const Error& e) {
            check(e);
          }
        }
      }
    } catch (const Error& e) {
      check(e);
    }
    return 0;
  }
  Table table("t", std::move(defs));
  target.table = &table;
  target.source = "fuzz";
  try {
    uint64_t rows = loadRecords(target, reader, false);
    if (rows != table.rowCount()) std::abort();
  } catch (const Error& e) {
    check(e);
    if (table.rowCount() != 0) std::abort();  // all or nothing
  }
  return 0;
}
