#pragma once
// The options of COPY's formats, with PostgreSQL's defaults: `text` (tab-separated, backslash
// escapes, NULL written \N), `csv` (comma-separated, "quoted" fields, NULL is an unquoted empty
// field) and, for input only, `json` (newline-delimited objects; engine/load/json_reader.hpp).
#include <string>

namespace hyrax {

struct CopyFormat {
  enum class Kind { Text, Csv, Json } kind = Kind::Text;
  char delimiter = '\t';
  bool header = false;     // the first line holds column names: skipped on input, written on output
  std::string null = "\\N";
  char quote = '"';        // csv only
  char escape = '"';       // csv only: escapes a quote inside a quoted field
  bool ignoreUnknownKeys = false;  // json only: keys that match no column are skipped, not an error

  static CopyFormat text() { return {}; }
  static CopyFormat csv() {
    CopyFormat f;
    f.kind = Kind::Csv;
    f.delimiter = ',';
    f.null = "";
    return f;
  }
  static CopyFormat json() {
    CopyFormat f;
    f.kind = Kind::Json;
    return f;
  }
};

}  // namespace hyrax
