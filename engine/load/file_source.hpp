#pragma once
// A file as the source of a RecordReader (COPY FROM 'file', read_json). Opening fails with 58P01
// when the file is missing, 42809 for a directory, 58030 otherwise; reading fails with 58030.
#include <string>

#include "engine/load/record_reader.hpp"

namespace hyrax {

RecordReader::Source openFileSource(const std::string& path);

}  // namespace hyrax
