#include "engine/load/delimited_reader.hpp"

#include <algorithm>
#include <cstring>

#include "engine/util/error.hpp"

namespace hyrax {

DelimitedReader::DelimitedReader(Source source, CopyFormat format, size_t block)
    : in_(std::move(source), block), format_(std::move(format)) {
  markSpecialCharacters();
}

DelimitedReader::DelimitedReader(std::string records, CopyFormat format, uint64_t firstLine)
    : in_(std::move(records)), format_(std::move(format)), line_(firstLine) {
  markSpecialCharacters();
}

void DelimitedReader::markSpecialCharacters() {
  special_['\n'] = special_['\\'] = special_[static_cast<unsigned char>(format_.delimiter)] = true;
}

void DelimitedReader::fail(const std::string& message) const {
  throw Error(sqlstate::BadCopyFormat, message);
}

bool DelimitedReader::next(std::vector<Field>& fields) {
  // The record read now starts on line_: a format error inside it (an unterminated quote) names
  // that line, not the previous record's.
  recordLine_ = line_;
  for (;;) {
    fields.clear();
    size_t end = 0;
    bool complete = format_.kind == CopyFormat::Kind::Csv ? parseCsv(fields, end) : parseText(fields, end);
    if (!complete) {
      if (in_.fill(line_)) continue;
      if (!in_.eof) continue;
      // At the end: parse once more with in_.eof set, so the last line may lack its newline.
      fields.clear();
      complete = format_.kind == CopyFormat::Kind::Csv ? parseCsv(fields, end) : parseText(fields, end);
      if (!complete) return false;  // nothing left
    }
    const size_t startPos = in_.pos;
    line_ += newlines_;
    consumed_ += end - in_.pos;
    in_.pos = end;
    if (format_.kind == CopyFormat::Kind::Text && fields.size() == 1 && !fields[0].null && fields[0].text == "." &&
        in_.buf.compare(startPos, 2, "\\.") == 0) {
      endMarker_ = true;
      return false;  // `\.` ends the data
    }
    return true;
  }
}

// One record of the text format starting at in_.pos. Returns false when the buffer ends first and
// more input may come; `end` is the position after the record's newline.
bool DelimitedReader::parseText(std::vector<Field>& fields, size_t& end) {
  if (in_.pos == in_.size) return false;
  scratch_.resize(in_.size - in_.pos);  // unescaped text is never longer than the raw text
  newlines_ = 0;
  size_t out = 0;
  size_t i = in_.pos;
  size_t lineStart = in_.pos;
  for (;;) {
    size_t start = i;
    size_t scratchStart = out;
    bool escaped = false;
    for (;;) {
      if (i == in_.size) {
        if (!in_.eof) return false;
        break;
      }
      if (!escaped) {
        // Plain characters need no copying: skip them in a tight loop.
        const char* p = in_.buf.data() + i;
        const char* e = in_.buf.data() + in_.size;
        while (p < e && !special_[static_cast<unsigned char>(*p)]) ++p;
        i = static_cast<size_t>(p - in_.buf.data());
        if (i == in_.size) continue;
      }
      char c = in_.buf[i];
      if (c == '\n' || c == format_.delimiter) break;
      if (c == '\\') {
        if (i + 1 == in_.size && !in_.eof) return false;
        if (!escaped) {
          std::memcpy(&scratch_[scratchStart], &in_.buf[start], i - start);
          out = scratchStart + (i - start);
          escaped = true;
        }
        ++i;
        if (i == in_.size) fail("end of input after a backslash");
        char e = in_.buf[i++];
        if (e == '\n') {  // a line break inside the field: errors after it name the lines as an editor does
          ++newlines_;
          lineStart = i;
        }
        switch (e) {
          case 'b': scratch_[out++] = '\b'; break;
          case 'f': scratch_[out++] = '\f'; break;
          case 'n': scratch_[out++] = '\n'; break;
          case 'r': scratch_[out++] = '\r'; break;
          case 't': scratch_[out++] = '\t'; break;
          case 'v': scratch_[out++] = '\v'; break;
          default: scratch_[out++] = e;
        }
        continue;
      }
      if (escaped) scratch_[out++] = c;
      ++i;
    }
    size_t rawEnd = i;
    bool atNewline = i < in_.size && in_.buf[i] == '\n';
    // A field at the end of a line loses the \r of a \r\n line ending.
    if ((atNewline || i == in_.size) && rawEnd > start && in_.buf[rawEnd - 1] == '\r') {
      --rawEnd;
      if (escaped && out > scratchStart && scratch_[out - 1] == '\r') --out;
    }
    Field f;
    f.column = static_cast<uint32_t>(start >= lineStart ? start - lineStart + 1 : 1);
    std::string_view raw(in_.buf.data() + start, rawEnd - start);
    f.null = raw == format_.null;
    f.text = escaped ? std::string_view(scratch_.data() + scratchStart, out - scratchStart) : raw;
    fields.push_back(f);
    if (i == in_.size) {
      end = i;
      return !(fields.size() == 1 && raw.empty());  // an empty tail is no record
    }
    ++i;
    if (atNewline) {
      end = i;
      ++newlines_;
      return true;
    }
  }
}

// One record of the csv format: quoted fields may hold delimiters, quotes (doubled) and newlines.
bool DelimitedReader::parseCsv(std::vector<Field>& fields, size_t& end) {
  if (in_.pos == in_.size) return false;
  scratch_.resize(in_.size - in_.pos);
  newlines_ = 0;
  size_t out = 0;
  size_t i = in_.pos;
  size_t lineStart = in_.pos;
  const char q = format_.quote, esc = format_.escape, d = format_.delimiter;
  for (;;) {
    size_t start = i;
    size_t scratchStart = out;
    bool quoted = false;
    bool inQuotes = false;
    for (;;) {
      if (i == in_.size) {
        if (!in_.eof) return false;
        if (inQuotes) fail("unterminated CSV quoted field");
        break;
      }
      char c = in_.buf[i];
      if (inQuotes) {
        if (c == esc || c == q) {
          if (i + 1 == in_.size && !in_.eof) return false;  // the next character decides
          char n = i + 1 < in_.size ? in_.buf[i + 1] : '\0';
          if (c == esc && (n == q || (esc != q && n == esc))) {  // an escaped quote (or escape)
            scratch_[out++] = n;
            i += 2;
            continue;
          }
          if (c == q) {
            inQuotes = false;
            ++i;
            continue;
          }
        }
        if (c == '\n') {
          lineStart = i + 1;
          ++newlines_;
        }
        scratch_[out++] = c;
        ++i;
        continue;
      }
      if (c == '\n' || c == d) break;
      if (c == q) {
        quoted = inQuotes = true;
        ++i;
        continue;
      }
      scratch_[out++] = c;
      ++i;
    }
    bool atNewline = i < in_.size && in_.buf[i] == '\n';
    // A \r\n line ending leaves a \r on the last field (unless it was inside quotes).
    if ((atNewline || i == in_.size) && out > scratchStart && scratch_[out - 1] == '\r' && in_.buf[i - 1] == '\r') --out;
    Field f;
    f.column = static_cast<uint32_t>(start >= lineStart ? start - lineStart + 1 : 1);
    f.text = std::string_view(scratch_.data() + scratchStart, out - scratchStart);
    f.null = !quoted && f.text == format_.null;
    fields.push_back(f);
    if (i == in_.size) {
      end = i;
      return !(fields.size() == 1 && f.text.empty() && !quoted);
    }
    ++i;
    if (atNewline) {
      end = i;
      ++newlines_;
      return true;
    }
  }
}

}  // namespace hyrax
