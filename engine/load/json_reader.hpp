#pragma once
// Newline-delimited JSON (one object a line) as records for loadRecords: COPY ... (FORMAT json)
// and read_json. Each object's keys name columns; a nested object's keys are "outer.inner". A
// record has one field per column, in the order given: a string's characters (unescaped), a
// number's or true/false's text as written (parseFieldValue converts it, as for text input),
// NULL for null and for absent keys; a key given twice in one object, its last value. Lines
// holding only white space are skipped, and a line `\.` ends the input (a client's end of data,
// as for the text format).
//
// Malformed JSON (truncated, bad escapes, control characters in strings, invalid UTF-8, more than
// one value on a line) is an Error naming the byte column (22P02; invalid UTF-8 22021). The reader
// is hand-written: one pass over each line, no allocation per record once the buffers have grown
// (strings without escapes are views into the input block).
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/load/record_reader.hpp"
#include "engine/types/sql_type.hpp"

namespace hyrax {

class JsonReader : public RecordReader {
 public:
  struct Options {
    bool ignoreUnknownKeys = false;  // keys that match no column are skipped (else 22P02)
    // read_json: an array, or an object at a key that is itself a column, goes into that column
    // as its JSON text (COPY refuses both: 22P02).
    bool containersAsText = false;
  };
  // `columns`: each record field's key path ("a" or "a.b").
  JsonReader(Source source, const std::vector<std::string>& columns, Options options, size_t block = kDefaultBlock);

  bool next(std::vector<Field>& fields) override;
  uint64_t line() const override { return recordLine_; }
  uint64_t bytesRead() const override { return consumed_; }

  // read_json's columns: one per key path that has a value (not an object) in some object, in the
  // order first seen; BIGINT when all its numbers are integers that fit, DOUBLE when all are
  // numbers, BOOLEAN when all are true/false, VARCHAR otherwise (strings, arrays, mixed, only nulls).
  struct Column {
    std::string name;
    SqlType type;
  };
  static std::vector<Column> inferColumns(Source source, size_t block = kDefaultBlock);

 private:
  // What inference has seen at one key path.
  struct Seen {
    std::string name;
    bool value = false, object = false, integer = false, fraction = false, boolean = false, text = false;
  };
  bool parseLine(const char* begin, const char* end, std::vector<Field>& fields);
  void parseObject(int depth, std::vector<Field>* fields);
  void parseValue(const char* keyAt, int depth, std::vector<Field>* fields);
  void skipValue(int depth);
  std::string_view parseString();  // at the opening quote; unescaped into scratch_ when needed
  std::string_view parseNumber(bool& integer);
  void expectLiteral(std::string_view word);
  void skipSpace();
  Seen& seen();  // inference: the entry of path_
  [[noreturn]] void fail(const char* at, const std::string& message) const;
  [[noreturn]] void failKey(const char* keyAt, const std::string& message) const;

  BlockInput in_;
  Options options_;
  std::unordered_map<std::string, uint32_t> columns_;  // key path -> field index
  bool infer_ = false;
  std::vector<Seen> seen_;  // inference: key paths in the order first seen
  uint64_t line_ = 1, recordLine_ = 0, consumed_ = 0;
  const char *cur_ = nullptr, *end_ = nullptr, *lineStart_ = nullptr;
  std::string path_;     // the key path of the value being parsed
  std::string scratch_;  // unescaped strings of the current line (never longer than the line)
  size_t scratchUsed_ = 0;
};

}  // namespace hyrax
