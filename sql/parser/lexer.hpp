#pragma once
// The SQL lexer: keywords are case-insensitive, unquoted identifiers are lower-cased, "quoted"
// ones keep their case; -- and /* */ comments (nested) are skipped. Every token has its line and
// column in the whole script.
#include <string>
#include <string_view>
#include <vector>

#include "engine/util/error.hpp"

namespace hyrax::sqlparse {

enum class TokenKind : uint8_t {
  Identifier,  // text lower-cased (keywords are identifiers too; the parser decides)
  QuotedIdentifier,
  Integer,
  Decimal,
  Float,
  String,
  Parameter,  // $1, $2 ... (text holds the number)
  Operator,  // + - * / % = <> != < <= > >= || ( ) , . ; ::
  End,
};

struct Token {
  TokenKind kind;
  std::string text;  // identifier (lower-cased), literal characters, operator spelling
  SourcePos pos;
  std::string raw = {};  // as written (for error messages)
  bool is(const char* keywordOrOp) const {
    return (kind == TokenKind::Identifier || kind == TokenKind::Operator) && text == keywordOrOp;
  }
};

// Throws Error 42601 on a malformed token (unterminated string, comment or identifier; a stray
// character) with its position.
std::vector<Token> tokenize(std::string_view sql, SourcePos origin = {1, 1});

// A dollar quote ($$ or $tag$) starting at s[i]: the length of its opening tag, 0 if none; and
// the length of the whole quoted string through its closing tag, 0 if there is none or no end.
size_t dollarTagAt(std::string_view s, size_t i);
size_t dollarQuoteLength(std::string_view s, size_t i);

// Advances a position over text (for statement offsets in a script).
void advance(SourcePos& pos, std::string_view text);

}  // namespace hyrax::sqlparse
