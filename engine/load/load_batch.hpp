#pragma once
// The two halves of a load (engine/load's own; COPY uses table_loader.hpp): parsing records into
// batches of values in their columns' physical representation, and appending batches to the table
// in input order. The halves run on different threads: one parser beside the appender
// (loadRecords), or many parsers over chunks of the input (loadDelimited, chunked_load.cpp).
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/load/record_reader.hpp"
#include "engine/load/table_loader.hpp"
#include "engine/storage/statistics.hpp"

namespace hyrax {

// Parsed rows handed from a parsing thread to the appending one.
struct Batch {
  static constexpr uint32_t kRows = 4096;
  // 16 bytes per field, in the column's physical representation; only the bytes a value uses are
  // written, and only those are read (NULLs not at all), so nothing needs clearing.
  std::unique_ptr<uint64_t[]> values;
  std::unique_ptr<uint8_t[]> nulls;
  std::string strings;           // the characters of strings too long to live in their 16 bytes
  std::vector<std::pair<size_t, size_t>> longStrings;  // (value index, offset in `strings`)
  uint32_t rows = 0;
  uint64_t bytesRead = 0;    // of the whole input, after this batch's last record
  std::exception_ptr error;  // parsing stopped here; the rows before it are complete
  bool last = false;         // the reader's input ended (or failed) with this batch
};

// The statistics of the fields' columns (target.columns' order), gathered by the parsing thread:
// hashing every value is a sixth of a load's work, too much for the one appending thread.
using FieldStatistics = std::vector<ColumnStatisticsBuilder>;

// Reads records until the reader's end, converting each field with the same checks and messages
// (source, line, column) whatever thread runs it. Each full batch and the last one go to `emit`,
// which returns false to stop early. Never throws: an error ends the last batch. With `stats`,
// each value parsed is added to its column's builder there.
void parseRecords(const LoadTarget& target, RecordReader& reader, bool skipHeader,
                  const std::function<bool(Batch&&)>& emit, FieldStatistics* stats = nullptr);

// Appends batches to the target table in input order: the values of the fields, then the
// DEFAULTs (constants, now(), SERIAL and nextval numbering, in row order) of the columns the
// input leaves out, and statistics as it goes when the table started empty. Only on the session's
// thread (nextval). The constructor throws 23502 when a left-out column can get no value.
class BatchAppender {
 public:
  BatchAppender(const LoadTarget& target, const std::function<void(const LoadProgress&)>& progress);
  ~BatchAppender();
  // Appends the batch's rows, then rethrows its error if it has one.
  void append(Batch& batch);
  // Whether the load gathers statistics as it goes (the table started empty): then the parsing
  // side fills the builders newFieldStatistics() gives and hands them to mergeStatistics().
  bool gathersStatistics() const { return !stats_.empty(); }
  FieldStatistics newFieldStatistics() const;
  void mergeStatistics(const FieldStatistics& fields);
  // The load is complete: statistics are set. Returns the rows added.
  uint64_t finish(uint64_t bytesRead);
  // The load failed: the table goes back to its rows before it.
  void rollback();

 private:
  struct Unlisted;
  const LoadTarget& target_;
  const std::function<void(const LoadProgress&)>& progress_;
  std::vector<Unlisted> unlisted_;
  std::vector<ColumnStatisticsBuilder> stats_;
  uint64_t before_ = 0, added_ = 0, nextReport_ = 0;
};

}  // namespace hyrax
