// libFuzzer target: a whole script through the statement splitter and the parser, as
// Connection::executeScript takes it. Bad input must end in an Error with an SQLSTATE; anything
// else (a crash, a sanitizer report, another exception, a hang) is a bug.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sql/parser/parser.hpp"
#include "sql/parser/statement_splitter.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view script(reinterpret_cast<const char*>(data), size);
  for (const hyrax::StatementText& st : hyrax::splitStatements(script)) {
    try {
      hyrax::ast::StatementPtr stmt = hyrax::parseStatement(st.text, hyrax::SourcePos{st.line, st.column});
    } catch (const hyrax::Error& e) {
      if (e.sqlstate().size() != 5) std::abort();  // every error carries an SQLSTATE
    }
  }
  return 0;
}
