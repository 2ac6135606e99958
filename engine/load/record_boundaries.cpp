#include "engine/load/record_boundaries.hpp"

#include <algorithm>
#include <cstring>

namespace hyrax {

namespace {

RecordCut lastTextRecordEnd(std::string_view text) {
  // From the back: the last line break not escaped by an odd run of backslashes before it
  // (`\` + line break is a line break inside a field; `\\` + line break ends the record).
  size_t i = text.size();
  while (i > 0) {
    const void* nl = memrchr(text.data(), '\n', i);
    if (!nl) return {};
    size_t at = static_cast<size_t>(static_cast<const char*>(nl) - text.data());
    size_t backslashes = 0;
    while (backslashes < at && text[at - 1 - backslashes] == '\\') ++backslashes;
    if (backslashes % 2 == 0) {
      RecordCut cut;
      cut.end = at + 1;
      cut.lines = static_cast<uint64_t>(std::count(text.data(), text.data() + cut.end, '\n'));
      return cut;
    }
    i = at;
  }
  return {};
}

}  // namespace

// DelimitedReader::parseCsv's states, in its order of tests (so odd options such as a line
// break for the quote agree too): inside quotes, an escape before a quote (or, when it differs
// from the quote, before another escape) takes that character, a quote closes them, a line
// break is a line of the field; outside them a line break ends the record and a quote opens
// quotes (anywhere in a field). A byte at a time: the reference, and the way for such options.
RecordCut lastCsvRecordEndByBytes(std::string_view text, const CopyFormat& f) {
  const char q = f.quote, esc = f.escape;
  RecordCut cut;
  uint64_t lines = 0;
  bool inQuotes = false;
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (inQuotes) {
      if (c == esc || c == q) {
        if (i + 1 == n) break;  // the next character decides, and it has not been read
        const char next = text[i + 1];
        if (c == esc && (next == q || (esc != q && next == esc))) {
          ++i;
          continue;
        }
        if (c == q) {
          inQuotes = false;
          continue;
        }
      }
      if (c == '\n') ++lines;
      continue;
    }
    if (c == '\n') {
      cut.end = i + 1;
      cut.lines = ++lines;
    } else if (c == q) {
      inQuotes = true;
    }
  }
  return cut;
}

namespace {

size_t find(std::string_view text, size_t from, char c) {
  const void* p = std::memchr(text.data() + from, c, text.size() - from);
  return p ? static_cast<size_t>(static_cast<const char*>(p) - text.data()) : text.size();
}

uint64_t lineBreaks(std::string_view text, size_t from, size_t to) {
  return static_cast<uint64_t>(std::count(text.data() + from, text.data() + to, '\n'));
}

// The same states, jumping with memchr from one quote (or escape) to the next and counting the
// line breaks between them (both vectorized): the cut is sequential, so it must be much faster
// than the parsing it feeds (a byte at a time it held two threads to 1.04x on lineitem).
RecordCut lastCsvRecordEnd(std::string_view text, const CopyFormat& f) {
  const char q = f.quote, esc = f.escape;
  if (q == '\n' || esc == '\n') return lastCsvRecordEndByBytes(text, f);
  RecordCut cut;
  uint64_t lines = 0;
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    // Outside quotes: line breaks up to the next quote end records.
    const size_t open = find(text, i, q);
    if (const void* nl = memrchr(text.data() + i, '\n', open - i)) {
      lines += lineBreaks(text, i, open);
      cut.end = static_cast<size_t>(static_cast<const char*>(nl) - text.data()) + 1;
      cut.lines = lines;
    }
    if (open == n) break;
    // Inside quotes from open + 1: to the quote that closes them.
    i = open + 1;
    for (;;) {
      const size_t at = esc == q ? find(text, i, q) : std::min(find(text, i, q), find(text, i, esc));
      if (at + 1 >= n) return cut;  // unclosed here, or the next character decides and is not read
      lines += lineBreaks(text, i, at);
      const char c = text[at], next = text[at + 1];
      if (c == esc && (next == q || (esc != q && next == esc))) {
        i = at + 2;
        continue;
      }
      i = at + 1;
      if (c == q) break;  // closed; an escape before anything else is a character of the field
    }
  }
  return cut;
}

}  // namespace

RecordCut lastRecordEnd(std::string_view text, const CopyFormat& format) {
  return format.kind == CopyFormat::Kind::Csv ? lastCsvRecordEnd(text, format) : lastTextRecordEnd(text);
}

}  // namespace hyrax
