// Splits a script at top-level semicolons, skipping those inside quotes and comments.
#include "sql/parser/statement_splitter.hpp"

#include <cctype>

#include "engine/util/error.hpp"
#include "sql/parser/lexer.hpp"

namespace hyrax {

namespace {

// Whether `s` holds nothing but blanks and comments (an unterminated string or comment is more).
bool onlyComments(std::string_view s) {
  if (s.empty()) return true;
  if (s[0] != '-' && s[0] != '/') return false;  // a statement starts here: no need to lex
  try {
    return sqlparse::tokenize(s).size() == 1;  // just the end
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

std::vector<StatementText> splitStatements(std::string_view s) {
  std::vector<StatementText> out;
  SourcePos pos{1, 1};
  size_t start = 0;
  SourcePos startPos = pos;
  auto emit = [&](size_t end, bool complete) {
    std::string_view piece = s.substr(start, end - start);
    // Skip leading blanks so the statement's position is its first character.
    size_t lead = 0;
    SourcePos p = startPos;
    while (lead < piece.size() && std::isspace(static_cast<unsigned char>(piece[lead]))) ++lead;
    sqlparse::advance(p, piece.substr(0, lead));
    piece.remove_prefix(lead);
    // Nothing but blanks and comments (before the ';': an empty statement, as in `;;`): no statement.
    if (onlyComments(complete ? piece.substr(0, piece.size() - 1) : piece)) return;
    out.push_back({std::string(piece), p.line, p.column, complete});
  };
  size_t i = 0;
  int depth = 0;
  auto step = [&](size_t n) {
    sqlparse::advance(pos, s.substr(i, n));
    i += n;
  };
  while (i < s.size()) {
    char c = s[i];
    if (c == '\'' || c == '"') {
      // E'...': a backslash escapes the next character (a quote too), as the lexer reads it.
      auto identChar = [](char x) { return std::isalnum(static_cast<unsigned char>(x)) || x == '_' || (x & 0x80); };
      const bool escapes = c == '\'' && i > 0 && (s[i - 1] == 'E' || s[i - 1] == 'e') && (i == 1 || !identChar(s[i - 2]));
      step(1);
      while (i < s.size()) {
        if (escapes && s[i] == '\\') {
          step(i + 1 < s.size() ? 2 : 1);
          continue;
        }
        if (s[i] == c) {
          if (i + 1 < s.size() && s[i + 1] == c) {
            step(2);
            continue;
          }
          step(1);
          break;
        }
        step(1);
      }
    } else if (c == '$' && (i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_')) &&
               sqlparse::dollarTagAt(s, i)) {
      // A dollar-quoted body: its semicolons are the procedure's. Unterminated: the rest of the
      // script is in it (the statement is incomplete).
      size_t n = sqlparse::dollarQuoteLength(s, i);
      step(n ? n : s.size() - i);
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') step(1);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      int d = 0;
      do {
        if (s.compare(i, 2, "/*") == 0) ++d, step(2);
        else if (s.compare(i, 2, "*/") == 0) --d, step(2);
        else step(1);
      } while (d > 0 && i < s.size());
    } else if (c == '(') {
      ++depth, step(1);
    } else if (c == ')') {
      --depth, step(1);
    } else if (c == ';') {
      step(1);
      emit(i, true);
      start = i;
      startPos = pos;
    } else {
      step(1);
    }
  }
  // What follows the last ';' only counts if it holds more than blanks and comments.
  emit(s.size(), false);
  return out;
}

}  // namespace hyrax
