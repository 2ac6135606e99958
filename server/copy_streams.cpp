#include "server/copy_streams.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>

#include "engine/types/text_format.hpp"
#include "server/protocol.hpp"
#include "sql/parser/lexer.hpp"
#include "sql/parser/parser.hpp"

namespace hyrax::server {

namespace {

// CopyInResponse and CopyOutResponse: text format overall and for each column.
void sendCopyResponse(Wire& wire, char type, int16_t columns) {
  wire.begin(type);
  wire.buffer().push_back('\0');
  wire.putInt16(columns);
  for (int16_t i = 0; i < columns; ++i) wire.putInt16(0);
  wire.end();
}

// The fields of one row of COPY TO's output: delimiters outside quotes (csv) or not escaped by a
// backslash (text, which writes a delimiter inside a value as \ and the character).
int16_t fieldCount(std::string_view row, const CopyRowFormat& format) {
  int64_t fields = 1;
  bool inQuotes = false, escaped = false;
  for (char c : row) {
    if (escaped) {
      escaped = false;
    } else if (!format.csv) {
      if (c == '\\') escaped = true;
      else if (c == format.delimiter) ++fields;
    } else if (inQuotes) {
      if (c == format.escape && format.escape != format.quote) escaped = true;
      else if (c == format.quote) inQuotes = false;
    } else if (c == format.quote) {
      inQuotes = true;
    } else if (c == format.delimiter) {
      ++fields;
    }
  }
  return static_cast<int16_t>(std::min<int64_t>(fields, INT16_MAX));
}

}  // namespace

CopyUse copyUseOf(const std::string& text) {
  // Every Bind asks: a statement whose first word is another than COPY is none, untokenized
  // (TPC-C's `CALL new_order(...)` was tokenized whole on every Bind, 5% of its session's time).
  // The word ends where the lexer's identifier does (letters, digits, _, $, bytes >= 0x80).
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string::npos) return {};
  if (std::isalpha(static_cast<unsigned char>(text[i]))) {
    size_t end = i;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' ||
                                 text[end] == '$' || (text[end] & 0x80)))
      ++end;
    if (end - i != 4 || text::lowerAscii(std::string_view(text).substr(i, 4)) != "copy") return {};
  }
  try {
    auto tokens = sqlparse::tokenize(text);
    if (tokens.empty() || !tokens[0].is("copy")) return {};
    auto stmt = parseStatement(text);
    if (stmt->kind != ast::StmtKind::Copy) return {};
    auto& copy = static_cast<const ast::CopyStmt&>(*stmt);
    if (!copy.stdio) return {};
    CopyUse use{copy.from, !copy.from, static_cast<int16_t>(copy.columns.size()), {}};
    auto option = [&](std::string_view name) -> const ast::CopyOption* {
      auto it = std::find_if(copy.options.begin(), copy.options.end(), [&](auto& o) { return o.name == name; });
      return it == copy.options.end() ? nullptr : &*it;
    };
    if (auto* o = option("format"); o && text::lowerAscii(o->value) == "csv") {
      use.rows.csv = true;
      use.rows.delimiter = ',';
    }
    if (auto* o = option("delimiter"); o && o->value.size() == 1) use.rows.delimiter = o->value[0];
    if (auto* o = option("quote"); o && o->value.size() == 1) use.rows.quote = o->value[0];
    if (auto* o = option("escape"); o && o->value.size() == 1) use.rows.escape = o->value[0];
    else use.rows.escape = use.rows.quote;  // csv's escape defaults to its quote
    return use;
  } catch (const Error&) {
    return {};  // execute() reports the syntax error
  }
}

void receiveCopyIn(Wire& wire, int16_t columns, Spool& spool) {
  sendCopyResponse(wire, backend::CopyInResponse, columns);
  wire.flush();
  for (;;) {
    Message m = wire.readMessage();
    switch (m.type) {
      case frontend::CopyData: spool.append(m.body); break;
      case frontend::CopyDone: return;
      case frontend::CopyFail: {
        MessageReader r(m.body);
        throw Error(sqlstate::QueryCanceled, "COPY from stdin failed: " + std::string(r.cstring()));
      }
      case frontend::Flush:
      case frontend::Sync: break;  // PostgreSQL ignores them here (a driver may send them)
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(m.type));
        throw Error(wirestate::ProtocolViolation, std::string("unexpected message type ") + hex + " during COPY from stdin");
      }
    }
  }
}

void sendCopyOut(Wire& wire, int16_t columns, const CopyRowFormat& format, Spool& spool) {
  bool announced = false;  // CopyOutResponse waits for the first row (its field count)
  auto sendRow = [&](std::string_view row) {
    if (!announced) sendCopyResponse(wire, backend::CopyOutResponse, fieldCount(row, format));
    announced = true;
    wire.send(backend::CopyData, row);
  };
  std::streambuf& in = spool.reader();
  std::string row;  // the row being collected (rows span reads)
  bool inQuotes = false, escaped = false;
  char chunk[64 * 1024];
  for (;;) {
    std::streamsize n = in.sgetn(chunk, sizeof chunk);
    if (n <= 0) break;
    std::streamsize start = 0;  // where this chunk's part of the current row begins
    for (std::streamsize i = 0; i < n; ++i) {
      char c = chunk[i];
      bool rowEnds = false;
      if (!format.csv) {
        rowEnds = c == '\n';
      } else if (inQuotes) {
        if (escaped) escaped = false;
        else if (c == format.escape && format.escape != format.quote) escaped = true;
        else if (c == format.quote) inQuotes = false;
      } else if (c == format.quote) {
        inQuotes = true;
      } else {
        rowEnds = c == '\n';
      }
      if (!rowEnds) continue;
      std::string_view piece(chunk + start, static_cast<size_t>(i + 1 - start));
      if (row.empty()) {
        sendRow(piece);
      } else {
        row.append(piece);
        sendRow(row);
        row.clear();
      }
      start = i + 1;
    }
    row.append(chunk + start, static_cast<size_t>(n - start));
  }
  if (!row.empty()) sendRow(row);
  if (!announced) sendCopyResponse(wire, backend::CopyOutResponse, columns);
  wire.begin(backend::CopyDone);
  wire.end();
}

}  // namespace hyrax::server
