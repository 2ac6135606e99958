#pragma once
// read_json('file'): a newline-delimited JSON file as a table of its own (no catalog's), its
// columns inferred from the file (JsonReader::inferColumns), then loaded by loadRecords. The file
// is read twice: once for the columns, once for the rows.
#include <memory>
#include <string>

namespace hyrax {

class Table;

// Errors: 58P01 for a missing file, 42809 for a directory, 58030 when unreadable, 22023 when the
// file holds no key with a value (an empty file); malformed JSON as COPY reports it, naming the
// file, line and byte column.
std::unique_ptr<Table> readJsonTable(const std::string& path, const std::string& tableName);

}  // namespace hyrax
