#pragma once
// Splits COPY input (text or csv format) into records of fields, reading the source in large
// blocks. Fields are views into the reader's buffer (or its scratch space, for fields that had
// escapes or quotes to remove) and stay valid until the next call of next().
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/load/copy_format.hpp"

namespace hyrax {

class DelimitedReader {
 public:
  // Reads up to n bytes into buf; returns 0 at the end of the input. Throws on I/O errors.
  using Source = std::function<size_t(char* buf, size_t n)>;

  struct Field {
    std::string_view text;
    bool null = false;    // matched the NULL string (text: before unescaping; csv: unquoted)
    uint32_t column = 1;  // 1-based character column where the field starts in its line
  };

  // The source is read kDefaultBlock bytes at a time; the buffer doubles while one record does
  // not fit. Tests and the fuzzer pass a tiny block to reach every refill and growth path.
  static constexpr size_t kDefaultBlock = size_t{1} << 20;
  DelimitedReader(Source source, CopyFormat format, size_t block = kDefaultBlock);

  // The next record, false at the end. For text input from a client, a line `\.` ends the data.
  bool next(std::vector<Field>& fields);
  uint64_t line() const { return recordLine_; }  // 1-based line where the last record started
  uint64_t bytesRead() const { return consumed_; }

 private:
  bool fill();  // moves the unread tail to the front and reads more; false when nothing came
  bool parseText(std::vector<Field>& fields, size_t& end);
  bool parseCsv(std::vector<Field>& fields, size_t& end);
  [[noreturn]] void fail(const std::string& message) const;

  Source source_;
  CopyFormat format_;
  std::string buf_;
  size_t pos_ = 0, size_ = 0;
  bool eof_ = false;
  uint64_t line_ = 1, recordLine_ = 0, consumed_ = 0;
  std::string scratch_;
  uint64_t newlines_ = 0;   // in the record just parsed
  bool special_[256] = {};  // text format: characters the field scanner must look at
};

}  // namespace hyrax
