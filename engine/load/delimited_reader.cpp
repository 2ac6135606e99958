#include "engine/load/delimited_reader.hpp"

#include <algorithm>
#include <cstring>

#include "engine/util/error.hpp"

namespace hyrax {

namespace {
// The longest record: PostgreSQL's limit for a value (1 GB). Input without line breaks (a binary
// file, /dev/zero) thus fails instead of growing the buffer until memory runs out.
constexpr size_t kMaxRecord = size_t{1} << 30;
}

DelimitedReader::DelimitedReader(Source source, CopyFormat format, size_t block)
    : source_(std::move(source)), format_(std::move(format)) {
  buf_.resize(std::max<size_t>(block, 1));
  special_['\n'] = special_['\\'] = special_[static_cast<unsigned char>(format_.delimiter)] = true;
}

void DelimitedReader::fail(const std::string& message) const {
  throw Error(sqlstate::BadCopyFormat, message);
}

bool DelimitedReader::fill() {
  if (eof_) return false;
  // Keep the unread tail; grow when one record is larger than the buffer.
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, size_ - pos_);
    size_ -= pos_;
    pos_ = 0;
  }
  if (size_ == buf_.size()) {
    if (buf_.size() >= kMaxRecord)
      throw Error(sqlstate::ProgramLimitExceeded, "record at line " + std::to_string(line_) + " is longer than " +
                                                      std::to_string(kMaxRecord >> 20) + " MB (is the input a text file?)");
    buf_.resize(buf_.size() * 2);
  }
  // Read until the buffer is full or the input ends. A source that hands out a little at a time
  // (a pipe, a network stream, the fuzzer's) would otherwise have a long record parsed again from
  // its start after every read: quadratic in its length (found by fuzzing: 4 KB one byte at a time
  // took 170 ms). Full buffers double, so a record is parsed O(log length) times.
  size_t got = 0;
  while (size_ < buf_.size()) {
    size_t n = source_(buf_.data() + size_, buf_.size() - size_);
    if (n == 0) {
      eof_ = true;
      break;
    }
    size_ += n;
    got += n;
  }
  return got > 0;
}

bool DelimitedReader::next(std::vector<Field>& fields) {
  for (;;) {
    fields.clear();
    size_t end = 0;
    bool complete = format_.kind == CopyFormat::Kind::Csv ? parseCsv(fields, end) : parseText(fields, end);
    if (!complete) {
      if (fill()) continue;
      if (!eof_) continue;
      // At the end: parse once more with eof_ set, so the last line may lack its newline.
      fields.clear();
      complete = format_.kind == CopyFormat::Kind::Csv ? parseCsv(fields, end) : parseText(fields, end);
      if (!complete) return false;  // nothing left
    }
    const size_t startPos = pos_;
    recordLine_ = line_;
    line_ += newlines_;
    consumed_ += end - pos_;
    pos_ = end;
    if (format_.kind == CopyFormat::Kind::Text && fields.size() == 1 && !fields[0].null && fields[0].text == "." &&
        buf_.compare(startPos, 2, "\\.") == 0)
      return false;  // `\.` ends the data
    return true;
  }
}

// One record of the text format starting at pos_. Returns false when the buffer ends first and
// more input may come; `end` is the position after the record's newline.
bool DelimitedReader::parseText(std::vector<Field>& fields, size_t& end) {
  if (pos_ == size_) return false;
  scratch_.resize(size_ - pos_);  // unescaped text is never longer than the raw text
  newlines_ = 0;
  size_t out = 0;
  size_t i = pos_;
  size_t lineStart = pos_;
  for (;;) {
    size_t start = i;
    size_t scratchStart = out;
    bool escaped = false;
    for (;;) {
      if (i == size_) {
        if (!eof_) return false;
        break;
      }
      if (!escaped) {
        // Plain characters need no copying: skip them in a tight loop.
        const char* p = buf_.data() + i;
        const char* e = buf_.data() + size_;
        while (p < e && !special_[static_cast<unsigned char>(*p)]) ++p;
        i = static_cast<size_t>(p - buf_.data());
        if (i == size_) continue;
      }
      char c = buf_[i];
      if (c == '\n' || c == format_.delimiter) break;
      if (c == '\\') {
        if (i + 1 == size_ && !eof_) return false;
        if (!escaped) {
          std::memcpy(&scratch_[scratchStart], &buf_[start], i - start);
          out = scratchStart + (i - start);
          escaped = true;
        }
        ++i;
        if (i == size_) fail("end of input after a backslash");
        char e = buf_[i++];
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
    bool atNewline = i < size_ && buf_[i] == '\n';
    // A field at the end of a line loses the \r of a \r\n line ending.
    if ((atNewline || i == size_) && rawEnd > start && buf_[rawEnd - 1] == '\r') {
      --rawEnd;
      if (escaped && out > scratchStart && scratch_[out - 1] == '\r') --out;
    }
    Field f;
    f.column = static_cast<uint32_t>(start - lineStart + 1);
    std::string_view raw(buf_.data() + start, rawEnd - start);
    f.null = raw == format_.null;
    f.text = escaped ? std::string_view(scratch_.data() + scratchStart, out - scratchStart) : raw;
    fields.push_back(f);
    if (i == size_) {
      end = i;
      return !(fields.size() == 1 && raw.empty());  // an empty tail is no record
    }
    ++i;
    if (atNewline) {
      end = i;
      newlines_ = 1;
      return true;
    }
  }
}

// One record of the csv format: quoted fields may hold delimiters, quotes (doubled) and newlines.
bool DelimitedReader::parseCsv(std::vector<Field>& fields, size_t& end) {
  if (pos_ == size_) return false;
  scratch_.resize(size_ - pos_);
  newlines_ = 0;
  size_t out = 0;
  size_t i = pos_;
  size_t lineStart = pos_;
  const char q = format_.quote, esc = format_.escape, d = format_.delimiter;
  for (;;) {
    size_t start = i;
    size_t scratchStart = out;
    bool quoted = false;
    bool inQuotes = false;
    for (;;) {
      if (i == size_) {
        if (!eof_) return false;
        if (inQuotes) fail("unterminated CSV quoted field");
        break;
      }
      char c = buf_[i];
      if (inQuotes) {
        if (c == esc || c == q) {
          if (i + 1 == size_ && !eof_) return false;  // the next character decides
          char n = i + 1 < size_ ? buf_[i + 1] : '\0';
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
    bool atNewline = i < size_ && buf_[i] == '\n';
    // A \r\n line ending leaves a \r on the last field (unless it was inside quotes).
    if ((atNewline || i == size_) && out > scratchStart && scratch_[out - 1] == '\r' && buf_[i - 1] == '\r') --out;
    Field f;
    f.column = static_cast<uint32_t>(start >= lineStart ? start - lineStart + 1 : 1);
    f.text = std::string_view(scratch_.data() + scratchStart, out - scratchStart);
    f.null = !quoted && f.text == format_.null;
    fields.push_back(f);
    if (i == size_) {
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
