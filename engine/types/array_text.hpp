#pragma once
// Arrays as hyrax holds them: the value is its canonical text, PostgreSQL's output form of a
// one-dimensional array with lower bound 1: {1,2,NULL}, {a,"b c","",\"NULL\"}. Every element is
// its type's canonical text (integers without sign or zeros ahead), so two equal arrays have equal
// bytes: = <> GROUP BY DISTINCT and hashing work on the bytes, and output (shell, server, COPY)
// is the value as it is. Operations parse it (O(length)); fine for the catalog's short arrays.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/types/sql_type.hpp"

namespace hyrax::text {

using ArrayElements = std::vector<std::optional<std::string>>;

// The elements of an array's text (quotes and backslashes undone; an unquoted NULL is NULL).
// `error` says why not: a malformed literal (22P02) or more than one dimension or explicit
// bounds (0A000, `unsupported`). Never throws, for runtime functions.
bool parseArray(std::string_view text, ArrayElements& out, std::string& error, bool& unsupported);
// The same, throwing hyrax::Error with the SQLSTATE.
ArrayElements parseArray(std::string_view text);

// An element appended as array_out writes it: in double quotes (with \" and \\) when it is empty,
// is NULL in any case, or holds { } , " \ or white space.
void appendArrayElement(std::string& out, std::string_view element);
std::string formatArray(const ArrayElements& elements);

// int2vector's and oidvector's output: the elements separated by spaces ("1 2"), as PostgreSQL
// prints them (their lower bound is 0 there).
bool isVectorType(const SqlType& t);
std::string vectorText(std::string_view canonical);

// An element's text made canonical for the array's element type: integers of the type's range
// (22003 out of range, 22P02 not an integer), others as they are. False with `error` set.
bool canonicalElement(TypeId element, std::string_view text, std::string& out, std::string& error,
                      const char*& sqlstate);

}  // namespace hyrax::text
