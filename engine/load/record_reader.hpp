#pragma once
// What loadRecords reads: records of fields, one per target column, from an input read in large
// blocks. DelimitedReader (text, csv) and JsonReader (newline-delimited JSON) are the two kinds.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hyrax {

class RecordReader {
 public:
  // Reads up to n bytes into buf; returns 0 at the end of the input. Throws on I/O errors.
  using Source = std::function<size_t(char* buf, size_t n)>;

  struct Field {
    std::string_view text;
    bool null = false;    // SQL NULL (text: the NULL string; csv: unquoted; json: null or absent)
    uint32_t column = 1;  // 1-based character (json: byte) column where the field starts in its line
  };

  // The source is read kDefaultBlock bytes at a time; the buffer doubles while one record does
  // not fit. Tests and the fuzzers pass a tiny block to reach every refill and growth path.
  static constexpr size_t kDefaultBlock = size_t{1} << 20;

  virtual ~RecordReader() = default;
  // The next record, false at the end. Fields stay valid until the next call.
  virtual bool next(std::vector<Field>& fields) = 0;
  virtual uint64_t line() const = 0;  // 1-based line where the last record started
  virtual uint64_t bytesRead() const = 0;
};

// The longest record: PostgreSQL's limit for a value (1 GB). Input without line breaks (a binary
// file, /dev/zero) thus fails instead of growing a buffer until memory runs out.
constexpr size_t kMaxRecord = size_t{1} << 30;
// 54000 for a record starting at `line` that passes kMaxRecord.
[[noreturn]] void failRecordTooLong(uint64_t line);

// The input of a reader: the bytes read and not yet consumed are buf[pos, size).
struct BlockInput {
  BlockInput(RecordReader::Source s, size_t block);
  // All of the input at once (a chunk of whole records cut by chunked_load.cpp): nothing to read.
  explicit BlockInput(std::string all) : buf(std::move(all)), size(buf.size()), eof(true) {}
  // Moves the unread tail to the front and reads until the buffer is full or the input ends
  // (doubling the buffer when the tail filled it: one record is larger). False when nothing came.
  // `line` is for the error of a record longer than the limit (1 GB).
  bool fill(uint64_t line);

  RecordReader::Source source;
  std::string buf;
  size_t pos = 0, size = 0;
  bool eof = false;
};

}  // namespace hyrax
