#pragma once
// How the shell prints results: an aligned table like psql's, CSV (RFC 4180) or JSON.
#include <ostream>
#include <string>

#include "sql/api/database.hpp"

namespace hyrax::shell {

enum class Format { Aligned, Csv, Json };

bool parseFormat(const std::string& name, Format& out);
void printResult(std::ostream& out, const QueryResult& r, Format f);
// "ERROR:  42601: syntax error ..." and, with a position, the line and a caret under the column.
void printError(std::ostream& out, const Error& e, const std::string& script);

}  // namespace hyrax::shell
