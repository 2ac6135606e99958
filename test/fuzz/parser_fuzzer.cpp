// libFuzzer target: a whole script through the statement splitter and the parser, as
// Connection::executeScript takes it. Bad input must end in an Error with an SQLSTATE; anything
// else (a crash, a sanitizer report, another exception, a hang) is a bug.
//
// Text that is not UTF-8 stops at the parser's first check (22021). So that mutations which break
// UTF-8 still reach the lexer and the parser, the script runs twice: as it is, and with each
// invalid byte replaced by '?'.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/types/utf8.hpp"
#include "sql/parser/parser.hpp"
#include "sql/parser/statement_splitter.hpp"

namespace {

void parseScript(std::string_view script, bool valid) {
  for (const hyrax::StatementText& st : hyrax::splitStatements(script)) {
    try {
      hyrax::ast::StatementPtr stmt = hyrax::parseStatement(st.text, hyrax::SourcePos{st.line, st.column});
    } catch (const hyrax::Error& e) {
      if (e.sqlstate().size() != 5) std::abort();                 // every error carries an SQLSTATE
      // UTF-8 refused, unless an E'...' string's escapes (\xff, \0) made bytes that are not UTF-8.
      const bool escapes = st.text.find("E'") != std::string::npos || st.text.find("e'") != std::string::npos;
      if (valid && e.sqlstate() == hyrax::sqlstate::CharacterNotInRepertoire && !escapes) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view script(reinterpret_cast<const char*>(data), size);
  const bool valid = hyrax::invalidUtf8At(script) == std::string_view::npos;
  parseScript(script, valid);
  if (valid) return 0;
  std::string repaired(script);
  for (size_t at; (at = hyrax::invalidUtf8At(repaired)) != std::string::npos;) repaired[at] = '?';
  parseScript(repaired, true);
  return 0;
}
