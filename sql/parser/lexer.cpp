#include "sql/parser/lexer.hpp"

#include <cctype>

#include "engine/types/utf8.hpp"

namespace hyrax::sqlparse {

void advance(SourcePos& pos, std::string_view text) {
  for (char c : text) {
    if (c == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
}

namespace {

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }
bool identChar(char c) { return identStart(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '$'; }

class Lexer {
 public:
  Lexer(std::string_view sql, SourcePos origin) : s_(sql), pos_(origin) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    while (true) {
      skipSpaceAndComments();
      if (i_ >= s_.size()) {
        out.push_back({TokenKind::End, "", pos_});
        return out;
      }
      size_t begin = i_;
      out.push_back(next());
      out.back().raw = std::string(s_.substr(begin, i_ - begin));
    }
  }

 private:
  char peek(size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  void step(size_t n = 1) {
    for (size_t k = 0; k < n && i_ < s_.size(); ++k, ++i_) {
      if (s_[i_] == '\n') {
        ++pos_.line;
        pos_.column = 1;
      } else {
        ++pos_.column;
      }
    }
  }
  [[noreturn]] void fail(const std::string& msg, SourcePos p) { throw Error(sqlstate::SyntaxError, msg, p); }

  void skipSpaceAndComments() {
    while (i_ < s_.size()) {
      char c = peek();
      if (std::isspace(static_cast<unsigned char>(c))) {
        step();
      } else if (c == '-' && peek(1) == '-') {
        while (i_ < s_.size() && peek() != '\n') step();
      } else if (c == '/' && peek(1) == '*') {
        SourcePos start = pos_;
        int depth = 0;
        do {
          if (i_ >= s_.size()) fail("unterminated /* comment", start);
          if (peek() == '/' && peek(1) == '*') {
            ++depth;
            step(2);
          } else if (peek() == '*' && peek(1) == '/') {
            --depth;
            step(2);
          } else {
            step();
          }
        } while (depth > 0);
      } else {
        return;
      }
    }
  }

  // The text between quotes q, where a doubled q stands for one.
  std::string quoted(char q, const char* unterminated, SourcePos start) {
    std::string t;
    step();
    while (true) {
      if (i_ >= s_.size()) fail(unterminated, start);
      if (peek() == q) {
        if (peek(1) != q) break;
        step();
      }
      t += peek();
      step();
    }
    step();
    return t;
  }

  // The body of E'...' after the E: backslash escapes as PostgreSQL's (\n \t \r \b \f, octal
  // \ooo, hex \xHH, any other character itself), '' a quote.
  std::string escapedString(SourcePos start) {
    std::string t;
    step();
    while (true) {
      if (i_ >= s_.size()) fail("unterminated quoted string", start);
      char c = peek();
      if (c == '\'') {
        if (peek(1) != '\'') break;
        step(2);
        t += '\'';
        continue;
      }
      if (c != '\\') {
        t += c;
        step();
        continue;
      }
      step();
      if (i_ >= s_.size()) fail("unterminated quoted string", start);
      char e = peek();
      step();
      auto digit = [&](int base) {
        char d = peek();
        int v = d >= '0' && d <= '9' ? d - '0' : base == 16 && std::isxdigit(static_cast<unsigned char>(d)) ? std::tolower(d) - 'a' + 10 : -1;
        return v < base ? v : -1;
      };
      if (e >= '0' && e <= '7') {
        int v = e - '0';
        for (int k = 0; k < 2 && digit(8) >= 0; ++k) v = v * 8 + digit(8), step();
        t += static_cast<char>(v);
      } else if (e == 'x' && digit(16) >= 0) {
        int v = 0;
        for (int k = 0; k < 2 && digit(16) >= 0; ++k) v = v * 16 + digit(16), step();
        t += static_cast<char>(v);
      } else {
        t += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
      }
    }
    step();
    // Escapes can make bytes the statement's text could not hold: UTF-8 only, no NUL (22021).
    if (size_t at = invalidUtf8At(t); at != std::string::npos)
      throw Error(sqlstate::CharacterNotInRepertoire, invalidUtf8Message(t, at), start);
    if (t.find('\0') != std::string::npos)
      throw Error(sqlstate::CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x00", start);
    return t;
  }

  Token next() {
    SourcePos start = pos_;
    char c = peek();
    if ((c == 'e' || c == 'E') && peek(1) == '\'') {
      step();
      return {TokenKind::String, escapedString(start), start};
    }
    if (identStart(c)) {
      std::string t;
      while (i_ < s_.size() && identChar(peek())) {
        t += static_cast<char>(std::tolower(static_cast<unsigned char>(peek())));
        step();
      }
      return {TokenKind::Identifier, t, start};
    }
    if (c == '"') {
      std::string t = quoted('"', "unterminated quoted identifier", start);
      if (t.empty()) fail("zero-length delimited identifier", start);
      return {TokenKind::QuotedIdentifier, t, start};
    }
    if (c == '\'') return {TokenKind::String, quoted('\'', "unterminated quoted string", start), start};
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
      std::string t;
      TokenKind kind = TokenKind::Integer;
      while (std::isdigit(static_cast<unsigned char>(peek()))) t += peek(), step();
      if (peek() == '.' && peek(1) != '.') {
        kind = TokenKind::Decimal;
        t += '.', step();
        while (std::isdigit(static_cast<unsigned char>(peek()))) t += peek(), step();
      }
      if ((peek() == 'e' || peek() == 'E') &&
          (std::isdigit(static_cast<unsigned char>(peek(1))) ||
           ((peek(1) == '+' || peek(1) == '-') && std::isdigit(static_cast<unsigned char>(peek(2)))))) {
        kind = TokenKind::Float;
        t += peek(), step();
        if (peek() == '+' || peek() == '-') t += peek(), step();
        while (std::isdigit(static_cast<unsigned char>(peek()))) t += peek(), step();
      }
      if (identStart(peek())) fail("trailing junk after numeric literal", start);
      return {kind, t, start};
    }
    if (size_t n = dollarQuoteLength(s_, i_)) {
      // $$text$$ or $tag$text$tag$: the body of CREATE FUNCTION, quotes inside need no doubling.
      size_t open = s_.find('$', i_ + 1) + 1 - i_;
      std::string t(s_.substr(i_ + open, n - 2 * open));
      step(n);
      return {TokenKind::String, t, start};
    }
    if (dollarTagAt(s_, i_)) fail("unterminated dollar-quoted string", start);
    if (c == '$' && std::isdigit(static_cast<unsigned char>(peek(1)))) {
      step();
      std::string t;
      while (std::isdigit(static_cast<unsigned char>(peek()))) t += peek(), step();
      if (t.size() > 5 || std::stoul(t) < 1 || std::stoul(t) > 65535) fail("there is no parameter $" + t, start);
      return {TokenKind::Parameter, t, start};
    }
    if (c == '!' && peek(1) == '~' && peek(2) == '*') {  // !~* : POSIX regex, case-insensitive, negated
      step(3);
      return {TokenKind::Operator, "!~*", start};
    }
    static const char* twoChar[] = {"<>", "!=", "<=", ">=", "||", "::", ":=", "..", "!~", "~*"};
    for (const char* op : twoChar) {
      if (c == op[0] && peek(1) == op[1]) {
        step(2);
        return {TokenKind::Operator, op, start};
      }
    }
    if (std::string_view("+-*/%=<>(),.;~[]:&").find(c) != std::string_view::npos) {
      step();
      return {TokenKind::Operator, std::string(1, c), start};
    }
    fail(std::string("syntax error at or near \"") + c + "\"", start);
  }

  std::string_view s_;
  size_t i_ = 0;
  SourcePos pos_;
};

}  // namespace

size_t dollarTagAt(std::string_view s, size_t i) {
  if (i >= s.size() || s[i] != '$') return 0;
  size_t j = i + 1;
  if (j < s.size() && identStart(s[j]))
    while (j < s.size() && s[j] != '$' && (identStart(s[j]) || std::isdigit(static_cast<unsigned char>(s[j])))) ++j;
  if (j >= s.size() || s[j] != '$') return 0;
  return j + 1 - i;
}

size_t dollarQuoteLength(std::string_view s, size_t i) {
  size_t tag = dollarTagAt(s, i);
  if (!tag) return 0;
  size_t close = s.find(s.substr(i, tag), i + tag);
  return close == std::string_view::npos ? 0 : close + tag - i;
}

std::vector<Token> tokenize(std::string_view sql, SourcePos origin) { return Lexer(sql, origin).run(); }

}  // namespace hyrax::sqlparse
