#pragma once
// Bulk loading (COPY ... FROM): records from a RecordReader (delimited text, JSON) are validated against their
// column types and appended to a table, all or nothing.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/load/delimited_reader.hpp"

namespace hyrax {

class Table;
struct SqlType;
struct ColumnDef;

struct LoadProgress {
  uint64_t rows = 0;
  uint64_t bytes = 0;
};

struct LoadTarget {
  Table* table = nullptr;
  std::vector<uint32_t> columns;  // the table column each field goes to; unlisted columns get NULL
  std::string source;             // file name or "STDIN", for error messages
  int64_t transactionTime = 0;    // what DEFAULT now() columns left out get (microseconds since 1970)
};

// A field's text as a value of type t in its physical representation (dst holds 16 bytes; a
// string points into `s`). Throws the Error of a bad value (22P02, 22003, 22008, 22001, ...).
void parseFieldValue(std::string_view s, const SqlType& t, void* dst);
// A row's value of a column whose DEFAULT is nextval('s'): the next value, as INSERT would assign
// it (22003 past a narrower column's range).
void storeDefaultSequenceValue(const ColumnDef& column, void* out);

// Appends every record and returns how many. On any error the table is truncated back to its
// rows before the call and an Error names the source, line, field column and table column.
// A record may end with one extra empty field (dbgen writes a delimiter after the last value).
// Afterwards the table has fresh statistics (statistics.hpp).
uint64_t loadRecords(const LoadTarget& target, RecordReader& reader, bool skipHeader,
                     const std::function<void(const LoadProgress&)>& progress = {});

// COPY's text and csv input on `threads` threads (the worker pool, engine/util/worker_pool.hpp):
// the source is cut into chunks of whole records in order (record_boundaries.hpp), each thread
// parses the next chunk, and this thread appends the parsed chunks in input order, parsing too
// while the next one is not ready. Rows, errors (the first in the input wins, with its line) and
// statistics are those of loadRecords over a DelimitedReader, which one thread still uses.
// `chunkBytes`: what each chunk starts from (tests pass a few bytes to cut at every place).
uint64_t loadDelimited(const LoadTarget& target, RecordReader::Source source, const CopyFormat& format,
                       uint32_t threads, const std::function<void(const LoadProgress&)>& progress = {},
                       size_t chunkBytes = RecordReader::kDefaultBlock);

}  // namespace hyrax
