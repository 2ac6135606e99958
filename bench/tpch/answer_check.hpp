#pragma once
// Compares a query result with a reference answer file (the rules in bench/tpch/README.md):
// same rows and columns; integers, strings and dates equal; values the answer prints with at
// most two decimals equal to the cent; other numbers within a relative 1e-6.
#include <string>

#include "sql/api/database.hpp"

namespace hyrax::bench {

// Empty when the result matches; otherwise what differs first.
std::string checkAnswer(const QueryResult& result, const std::string& answerPath);

}  // namespace hyrax::bench
