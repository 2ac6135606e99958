#pragma once
// Where records of COPY's text and csv formats end, found without parsing their fields: the cut
// that lets many threads parse one input (chunked_load.cpp). Text: a line break that no backslash
// escapes. Csv: a line break outside quotes, which takes the quote state from the start of the
// text (a chunk starts where a record does).
#include <cstdint>
#include <string_view>

#include "engine/load/copy_format.hpp"

namespace hyrax {

struct RecordCut {
  size_t end = 0;        // just after the line break that ends the last complete record; 0: none
  uint64_t lines = 0;    // line breaks before `end` (inside quoted csv fields too: lines, as errors count them)
};

// The last record end in `text`, whose first byte starts a record. Bytes after it belong to a
// record that the next read completes.
RecordCut lastRecordEnd(std::string_view text, const CopyFormat& format);
// Csv's cut found a byte at a time: what lastRecordEnd does for options that put a line break in
// the quote or escape, and the reference its fast path is tested against.
RecordCut lastCsvRecordEndByBytes(std::string_view text, const CopyFormat& format);

}  // namespace hyrax
