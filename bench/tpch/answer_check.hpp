#pragma once
// Compares a query result with a reference answer (the rules in bench/tpch/README.md): same rows
// and columns, in order; integers, strings and dates equal; values the answer prints with at most
// two decimals equal to the cent; other numbers within a relative 1e-6. Answers are text, so
// results of other engines (PostgreSQL's, for the CH-benCHmark) compare the same way.
#include <cstdint>
#include <string>
#include <vector>

#include "sql/api/database.hpp"

namespace hyrax::bench {

// A query's answer as text: its column names and rows, values as PostgreSQL prints them, "NULL"
// for NULL. An answer file holds the names on its first line, then a row a line, fields
// separated by '|'. A long answer's file may hold only its first rows and then a line
// "#rows N fnv1a64 HEX": how many rows it has and a hash of all of them as text (each row's
// fields joined by '|', a '\n' after each), which a result must then match exactly.
struct Answer {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  uint64_t digestRows = 0;  // with `digest`: all the rows of the answer (rows holds the first ones)
  std::string digest;       // empty: rows is the whole answer
};
Answer answerOf(const QueryResult& result);
// Throws std::runtime_error when the file cannot be read.
Answer readAnswer(const std::string& path);
// The file's contents; with more than `keepRows` rows, the first ones and the digest line.
std::string answerText(const Answer& answer, size_t keepRows = SIZE_MAX);

// Empty when `got` matches `want`; otherwise what differs first.
std::string compareAnswers(const Answer& got, const Answer& want);
// The same against an answer file.
std::string checkAnswer(const QueryResult& result, const std::string& answerPath);

}  // namespace hyrax::bench
