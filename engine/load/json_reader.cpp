#include "engine/load/json_reader.hpp"

#include <charconv>
#include <cstring>

#include "engine/types/utf8.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

namespace {

// Objects and arrays nested deeper than this are refused (54001), so that parsing (recursive)
// never runs out of stack: the parser's limit for SQL.
constexpr int kMaxDepth = 200;

bool isDigit(char c) { return c >= '0' && c <= '9'; }

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char* putUtf8(char* out, uint32_t cp) {
  if (cp < 0x80) {
    *out++ = static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out++ = static_cast<char>(0xC0 | (cp >> 6));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out++ = static_cast<char>(0xE0 | (cp >> 12));
    *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out++ = static_cast<char>(0xF0 | (cp >> 18));
    *out++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

}  // namespace

JsonReader::JsonReader(Source source, const std::vector<std::string>& columns, Options options, size_t block)
    : in_(std::move(source), block), options_(options) {
  for (uint32_t i = 0; i < columns.size(); ++i) columns_[columns[i]] = i;
}

void JsonReader::fail(const char* at, const std::string& message) const {
  throw Error(sqlstate::InvalidText, "invalid JSON at byte column " + std::to_string(at - lineStart_ + 1) + ": " + message);
}

void JsonReader::failKey(const char* keyAt, const std::string& message) const {
  throw Error(sqlstate::InvalidText,
              "key \"" + path_ + "\" at byte column " + std::to_string(keyAt - lineStart_ + 1) + ": " + message);
}

bool JsonReader::next(std::vector<Field>& fields) {
  for (;;) {
    const char* data = in_.buf.data();
    const void* nl = std::memchr(data + in_.pos, '\n', in_.size - in_.pos);
    size_t lineEnd, after;
    if (nl) {
      lineEnd = static_cast<const char*>(nl) - data;
      after = lineEnd + 1;
    } else if (!in_.eof) {
      in_.fill(line_);
      continue;
    } else if (in_.pos == in_.size) {
      return false;
    } else {
      lineEnd = after = in_.size;  // the last line lacks its newline
    }
    const size_t start = in_.pos;
    recordLine_ = line_++;
    consumed_ += after - start;
    in_.pos = after;
    std::string_view text(data + start, lineEnd - start);
    if (text == "\\." || text == "\\.\r") return false;  // a client's end of data, as for text input
    if (parseLine(text.data(), text.data() + text.size(), fields)) return true;
  }
}

bool JsonReader::parseLine(const char* begin, const char* end, std::vector<Field>& fields) {
  cur_ = lineStart_ = begin;
  end_ = end;
  skipSpace();
  if (cur_ == end_) return false;  // an empty line
  const std::string_view line(begin, static_cast<size_t>(end - begin));
  if (size_t bad = invalidUtf8At(line); bad != std::string_view::npos)
    throw Error(sqlstate::CharacterNotInRepertoire,
                "invalid JSON at byte column " + std::to_string(bad + 1) + ": " + invalidUtf8Message(line, bad));
  if (*cur_ != '{') fail(cur_, "expected an object ('{')");
  if (scratch_.size() < line.size()) scratch_.resize(line.size());  // unescaped text is never longer
  scratchUsed_ = 0;
  path_.clear();
  if (!infer_) fields.assign(columns_.size(), Field{{}, true, 1});
  parseObject(0, infer_ ? nullptr : &fields);
  skipSpace();
  if (cur_ != end_) fail(cur_, "more than one value on a line (newline-delimited JSON has one object a line)");
  return true;
}

void JsonReader::skipSpace() {
  while (cur_ < end_ && (*cur_ == ' ' || *cur_ == '\t' || *cur_ == '\r')) ++cur_;
}

// At '{'. Each key's value is parsed with the key appended to path_.
void JsonReader::parseObject(int depth, std::vector<Field>* fields) {
  if (depth >= kMaxDepth)
    throw Error(sqlstate::TooComplex, "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels at byte column " +
                                          std::to_string(cur_ - lineStart_ + 1));
  ++cur_;
  skipSpace();
  if (cur_ < end_ && *cur_ == '}') {
    ++cur_;
    return;
  }
  for (;;) {
    if (cur_ == end_) fail(cur_, "the line ends inside an object");
    if (*cur_ != '"') fail(cur_, "expected a key in double quotes");
    const char* keyAt = cur_;
    const size_t prefix = path_.size();
    const size_t scratchMark = scratchUsed_;
    std::string_view key = parseString();
    if (prefix) path_ += '.';
    path_.append(key);
    scratchUsed_ = scratchMark;  // the key is copied; its scratch space is free again
    skipSpace();
    if (cur_ == end_ || *cur_ != ':') fail(cur_, cur_ == end_ ? "the line ends inside an object" : "expected ':' after a key");
    ++cur_;
    skipSpace();
    parseValue(keyAt, depth, fields);
    path_.resize(prefix);
    skipSpace();
    if (cur_ == end_) fail(cur_, "the line ends inside an object");
    if (*cur_ == ',') {
      ++cur_;
      skipSpace();
      continue;
    }
    if (*cur_ == '}') {
      ++cur_;
      return;
    }
    fail(cur_, "expected ',' or '}' after a value");
  }
}

JsonReader::Seen& JsonReader::seen() {
  auto [it, added] = columns_.try_emplace(path_, static_cast<uint32_t>(seen_.size()));
  if (added) seen_.push_back({path_});
  return seen_[it->second];
}

void JsonReader::parseValue(const char* keyAt, int depth, std::vector<Field>* fields) {
  if (cur_ == end_) fail(cur_, "the line ends where a value is expected");
  const char* at = cur_;
  const char c = *cur_;
  if (infer_) {
    if (c == '{') {
      auto it = columns_.find(path_);
      if (it == columns_.end() || !seen_[it->second].value) {  // flattened into "key.inner" columns
        seen().object = true;
        parseObject(depth + 1, nullptr);
        return;
      }
    }
    Seen& s = seen();
    s.value = true;
    if (c == '{' || c == '[') {
      s.text = true;
      skipValue(depth);
    } else if (c == '"') {
      s.text = true;
      parseString();
    } else if (c == 't' || c == 'f') {
      s.boolean = true;
      expectLiteral(c == 't' ? "true" : "false");
    } else if (c == 'n') {
      expectLiteral("null");
    } else {
      bool integer = false;
      std::string_view n = parseNumber(integer);
      int64_t v;
      if (integer && std::from_chars(n.data(), n.data() + n.size(), v).ec == std::errc()) s.integer = true;
      else s.fraction = true;
    }
    return;
  }
  auto it = columns_.find(path_);
  if (it == columns_.end()) {
    if (c == '{') {  // its keys are "key.inner"
      parseObject(depth + 1, fields);
      return;
    }
    if (!options_.ignoreUnknownKeys)
      failKey(keyAt, "matches no column (the option IGNORE_UNKNOWN_KEYS true skips such keys)");
    skipValue(depth);
    return;
  }
  Field& f = (*fields)[it->second];
  f.column = static_cast<uint32_t>(at - lineStart_ + 1);
  f.null = false;
  if (c == '{' || c == '[') {
    if (!options_.containersAsText)
      failKey(keyAt, std::string("a JSON ") + (c == '{' ? "object" : "array") + " where a value of the column is expected");
    skipValue(depth);
    f.text = std::string_view(at, static_cast<size_t>(cur_ - at));
  } else if (c == '"') {
    f.text = parseString();
  } else if (c == 't' || c == 'f') {
    expectLiteral(c == 't' ? "true" : "false");
    f.text = std::string_view(at, static_cast<size_t>(cur_ - at));
  } else if (c == 'n') {
    expectLiteral("null");
    f.null = true;
  } else {
    bool integer;
    f.text = parseNumber(integer);
  }
}

// Any value, checked but not kept.
void JsonReader::skipValue(int depth) {
  if (cur_ == end_) fail(cur_, "the line ends where a value is expected");
  const char c = *cur_;
  if (c == '{' || c == '[') {
    if (depth + 1 >= kMaxDepth)
      throw Error(sqlstate::TooComplex, "JSON nested deeper than " + std::to_string(kMaxDepth) +
                                            " levels at byte column " + std::to_string(cur_ - lineStart_ + 1));
    const char close = c == '{' ? '}' : ']';
    ++cur_;
    skipSpace();
    if (cur_ < end_ && *cur_ == close) {
      ++cur_;
      return;
    }
    for (;;) {
      if (c == '{') {
        if (cur_ == end_ || *cur_ != '"') fail(cur_, cur_ == end_ ? "the line ends inside an object" : "expected a key in double quotes");
        const size_t mark = scratchUsed_;
        parseString();
        scratchUsed_ = mark;
        skipSpace();
        if (cur_ == end_ || *cur_ != ':') fail(cur_, cur_ == end_ ? "the line ends inside an object" : "expected ':' after a key");
        ++cur_;
        skipSpace();
      }
      skipValue(depth + 1);
      skipSpace();
      if (cur_ == end_) fail(cur_, c == '{' ? "the line ends inside an object" : "the line ends inside an array");
      if (*cur_ == ',') {
        ++cur_;
        skipSpace();
        continue;
      }
      if (*cur_ == close) {
        ++cur_;
        return;
      }
      fail(cur_, std::string("expected ',' or '") + close + "' after a value");
    }
  }
  if (c == '"') {
    const size_t mark = scratchUsed_;
    parseString();
    scratchUsed_ = mark;
  } else if (c == 't') {
    expectLiteral("true");
  } else if (c == 'f') {
    expectLiteral("false");
  } else if (c == 'n') {
    expectLiteral("null");
  } else {
    bool integer;
    parseNumber(integer);
  }
}

void JsonReader::expectLiteral(std::string_view word) {
  if (static_cast<size_t>(end_ - cur_) < word.size() || std::memcmp(cur_, word.data(), word.size()) != 0)
    fail(cur_, "unexpected character '" + std::string(1, *cur_) + "'");
  cur_ += word.size();
}

// JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
std::string_view JsonReader::parseNumber(bool& integer) {
  const char* start = cur_;
  integer = true;
  if (cur_ < end_ && *cur_ == '-') ++cur_;
  if (cur_ == end_ || !isDigit(*cur_)) fail(start, cur_ == end_ || start != cur_ ? "invalid number" :
                                                   "unexpected character '" + std::string(1, *cur_) + "'");
  if (*cur_ == '0') ++cur_;
  else
    while (cur_ < end_ && isDigit(*cur_)) ++cur_;
  if (cur_ < end_ && *cur_ == '.') {
    integer = false;
    ++cur_;
    if (cur_ == end_ || !isDigit(*cur_)) fail(start, "invalid number: a digit must follow '.'");
    while (cur_ < end_ && isDigit(*cur_)) ++cur_;
  }
  if (cur_ < end_ && (*cur_ == 'e' || *cur_ == 'E')) {
    integer = false;
    ++cur_;
    if (cur_ < end_ && (*cur_ == '+' || *cur_ == '-')) ++cur_;
    if (cur_ == end_ || !isDigit(*cur_)) fail(start, "invalid number: a digit must follow the exponent");
    while (cur_ < end_ && isDigit(*cur_)) ++cur_;
  }
  if (cur_ < end_ && (isDigit(*cur_) || *cur_ == '.' || *cur_ == 'e' || *cur_ == 'E' || *cur_ == '+' || *cur_ == '-'))
    fail(start, "invalid number");  // 012, 1.2.3, 1e5e5
  return std::string_view(start, static_cast<size_t>(cur_ - start));
}

// At the opening quote. A string without escapes is a view into the input; one with escapes is
// unescaped into scratch_ (never longer than its source, so scratch_ sized to the line suffices).
std::string_view JsonReader::parseString() {
  const char* open = cur_++;
  const char* start = cur_;
  while (cur_ < end_ && *cur_ != '"' && *cur_ != '\\' && static_cast<unsigned char>(*cur_) >= 0x20) ++cur_;
  if (cur_ < end_ && *cur_ == '"') {
    ++cur_;
    return std::string_view(start, static_cast<size_t>(cur_ - 1 - start));
  }
  char* const begin = scratch_.data() + scratchUsed_;
  char* out = begin;
  std::memcpy(out, start, static_cast<size_t>(cur_ - start));
  out += cur_ - start;
  for (;;) {
    if (cur_ == end_) fail(open, "unterminated string");
    const char c = *cur_;
    if (c == '"') {
      ++cur_;
      break;
    }
    if (static_cast<unsigned char>(c) < 0x20) fail(cur_, "control character in a string (it must be escaped)");
    if (c != '\\') {
      *out++ = c;
      ++cur_;
      continue;
    }
    const char* esc = cur_;
    if (++cur_ == end_) fail(open, "unterminated string");
    switch (*cur_++) {
      case '"': *out++ = '"'; break;
      case '\\': *out++ = '\\'; break;
      case '/': *out++ = '/'; break;
      case 'b': *out++ = '\b'; break;
      case 'f': *out++ = '\f'; break;
      case 'n': *out++ = '\n'; break;
      case 'r': *out++ = '\r'; break;
      case 't': *out++ = '\t'; break;
      case 'u': {
        auto hex4 = [&](const char* p) -> int32_t {
          if (end_ - p < 4) return -1;
          int32_t v = 0;
          for (int i = 0; i < 4; ++i) {
            int h = hexValue(p[i]);
            if (h < 0) return -1;
            v = v * 16 + h;
          }
          return v;
        };
        int32_t cp = hex4(cur_);
        if (cp < 0) fail(esc, "invalid escape: \\u must be followed by four hexadecimal digits");
        cur_ += 4;
        if (cp == 0) fail(esc, "\\u0000 cannot be converted to text");
        if (cp >= 0xDC00 && cp <= 0xDFFF) fail(esc, "invalid Unicode surrogate pair (a low surrogate alone)");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          int32_t low = end_ - cur_ >= 6 && cur_[0] == '\\' && cur_[1] == 'u' ? hex4(cur_ + 2) : -1;
          if (low < 0xDC00 || low > 0xDFFF) fail(esc, "invalid Unicode surrogate pair (a high surrogate without its low one)");
          cur_ += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        out = putUtf8(out, static_cast<uint32_t>(cp));
        break;
      }
      default: fail(esc, "invalid escape sequence \"\\" + std::string(1, cur_[-1]) + "\"");
    }
  }
  scratchUsed_ += static_cast<size_t>(out - begin);
  return std::string_view(begin, static_cast<size_t>(out - begin));
}

std::vector<JsonReader::Column> JsonReader::inferColumns(Source source, size_t block) {
  JsonReader r(std::move(source), {}, {}, block);
  r.infer_ = true;
  std::vector<Field> none;
  try {
    while (r.next(none)) {
    }
  } catch (const Error& e) {
    if (e.sqlstate() == sqlstate::IoError || e.sqlstate() == sqlstate::QueryCanceled) throw;
    throw Error(e.sqlstate(), "line " + std::to_string(r.line()) + ": " + e.message());
  }
  std::vector<Column> out;
  for (const Seen& s : r.seen_) {
    if (!s.value) continue;  // only ever an object: its keys are columns
    const bool number = s.integer || s.fraction;
    SqlType t = SqlType::varchar(0);
    if (!s.text && !s.object && number != s.boolean)
      t = s.boolean ? SqlType::boolean() : s.fraction ? SqlType::float64() : SqlType::int64();
    out.push_back({s.name, t});
  }
  return out;
}

}  // namespace hyrax
