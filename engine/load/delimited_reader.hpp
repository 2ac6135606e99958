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
#include "engine/load/record_reader.hpp"

namespace hyrax {

class DelimitedReader : public RecordReader {
 public:
  DelimitedReader(Source source, CopyFormat format, size_t block = kDefaultBlock);
  // Records already in memory (a chunk of whole records), the first of them on line `firstLine`
  // of the input: errors name the input's lines.
  DelimitedReader(std::string records, CopyFormat format, uint64_t firstLine);

  // The next record, false at the end. For text input from a client, a line `\.` ends the data.
  bool next(std::vector<Field>& fields) override;
  uint64_t line() const override { return recordLine_; }
  uint64_t bytesRead() const override { return consumed_; }
  // next() returned false at a line `\.` (the end of a client's data), not at the input's end.
  bool endedByMarker() const { return endMarker_; }

 private:
  bool parseText(std::vector<Field>& fields, size_t& end);
  bool parseCsv(std::vector<Field>& fields, size_t& end);
  void markSpecialCharacters();
  [[noreturn]] void fail(const std::string& message) const;

  BlockInput in_;
  CopyFormat format_;
  uint64_t line_ = 1, recordLine_ = 0, consumed_ = 0;
  std::string scratch_;
  uint64_t newlines_ = 0;   // in the record just parsed
  bool endMarker_ = false;
  bool special_[256] = {};  // text format: characters the field scanner must look at
};

}  // namespace hyrax
