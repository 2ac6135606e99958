#pragma once
// The options of COPY's two text formats, with PostgreSQL's defaults: `text` (tab-separated,
// backslash escapes, NULL written \N) and `csv` (comma-separated, "quoted" fields, NULL is an
// unquoted empty field).
#include <string>

namespace hyrax {

struct CopyFormat {
  enum class Kind { Text, Csv } kind = Kind::Text;
  char delimiter = '\t';
  bool header = false;     // the first line holds column names: skipped on input, written on output
  std::string null = "\\N";
  char quote = '"';        // csv only
  char escape = '"';       // csv only: escapes a quote inside a quoted field

  static CopyFormat text() { return {}; }
  static CopyFormat csv() {
    CopyFormat f;
    f.kind = Kind::Csv;
    f.delimiter = ',';
    f.null = "";
    return f;
  }
};

}  // namespace hyrax
