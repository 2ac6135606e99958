#pragma once
// A result value in PostgreSQL's text format, appended to a DataRow being built: booleans as
// t/f, CHAR(n) blank-padded to n characters (hyrax keeps them unpadded), the rest as hyrax prints
// them (engine/types/text_format.hpp, PostgreSQL's forms). Integers and strings are written
// straight from the chunk, with no string made per value.
#include <cstdint>
#include <string>

#include "engine/runtime/result_chunk.hpp"

namespace hyrax::server {

void appendTextValue(std::string& out, const ResultChunk& chunk, uint64_t row, uint32_t col, const SqlType& type);

}  // namespace hyrax::server
