#pragma once
// A result of text columns made in C++ (EXPLAIN's plan lines, SHOW's settings): rows of strings,
// each column nullable TEXT, in result chunks as generated code would write them.
#include <optional>
#include <string>
#include <vector>

#include "sql/api/database.hpp"

namespace hyrax::sql {

QueryResult textResult(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows,
                       std::string tag);

}  // namespace hyrax::sql
