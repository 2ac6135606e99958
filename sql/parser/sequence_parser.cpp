// CREATE SEQUENCE and its options (PostgreSQL's grammar, without AS type, CACHE, OWNED BY).
#include <cerrno>
#include <cstdlib>

#include "sql/parser/parser_internal.hpp"

namespace hyrax::sqlparse {

StatementPtr Parser::createSequence(SourcePos pos) {
  auto s = std::make_unique<CreateSequenceStmt>(pos);
  s->namePos = cur().pos;
  s->name = identifier();
  SequenceOptions& o = s->options;
  // A signed BIGINT constant (an option's value).
  auto number = [&]() -> int64_t {
    bool negative = accept("-");
    if (!negative) accept("+");
    if (cur().kind != TokenKind::Integer) syntaxError();
    std::string text = (negative ? "-" : "") + cur().text;
    errno = 0;
    long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE) throw Error(sqlstate::NumericOutOfRange, "value \"" + text + "\" is out of range for type bigint", cur().pos);
    ++i_;
    return v;
  };
  for (;;) {
    if (accept("increment")) {
      accept("by");
      o.increment = number();
    } else if (accept("start")) {
      accept("with");
      o.hasStart = true;
      o.start = number();
    } else if (accept("minvalue")) {
      o.hasMin = true;
      o.minValue = number();
    } else if (accept("maxvalue")) {
      o.hasMax = true;
      o.maxValue = number();
    } else if (accept("cycle")) {
      o.cycle = true;
    } else if (accept("no")) {
      if (accept("minvalue")) o.hasMin = false;
      else if (accept("maxvalue")) o.hasMax = false;
      else if (accept("cycle")) o.cycle = false;
      else syntaxError();
    } else {
      break;
    }
  }
  return s;
}

}  // namespace hyrax::sqlparse
