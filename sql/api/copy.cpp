#include "sql/api/copy.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>

#include "engine/catalog/catalog.hpp"
#include "engine/load/file_source.hpp"
#include "engine/load/json_reader.hpp"
#include "engine/load/table_loader.hpp"
#include "engine/storage/table.hpp"
#include "engine/types/text_format.hpp"

namespace hyrax {

namespace {

// Option words may be written as identifiers (lower-cased by the lexer) or strings ('CSV').
std::string lower(const std::string& v) { return text::lowerAscii(v); }

char singleChar(const ast::CopyOption& o) {
  if (o.value.size() != 1)
    throw Error(sqlstate::InvalidParameter, "COPY " + o.name + " must be a single one-byte character", o.pos);
  return o.value[0];
}

bool boolOption(const ast::CopyOption& o, const char* name) {
  std::string v = lower(o.value);
  if (v == "true" || v == "on" || v == "1") return true;
  if (v == "false" || v == "off" || v == "0") return false;
  throw Error(sqlstate::InvalidParameter, std::string(name) + " requires a Boolean value", o.pos);
}

CopyFormat formatOf(const ast::CopyStmt& s) {
  CopyFormat f = CopyFormat::text();
  for (auto& o : s.options)
    if (o.name == "format") {
      if (lower(o.value) == "csv") f = CopyFormat::csv();
      else if (lower(o.value) == "json") f = CopyFormat::json();
      else if (lower(o.value) == "binary")
        throw Error(sqlstate::FeatureNotSupported, "COPY format \"binary\" is not supported", o.pos);
      else if (lower(o.value) != "text")
        throw Error(sqlstate::InvalidParameter, "COPY format \"" + o.value + "\" not recognized", o.pos);
    }
  const bool csv = f.kind == CopyFormat::Kind::Csv;
  const bool json = f.kind == CopyFormat::Kind::Json;
  bool quoteSet = false;
  for (auto& o : s.options) {
    if (o.name == "format") continue;
    if (json != (o.name == "ignore_unknown_keys"))
      throw Error(json ? sqlstate::FeatureNotSupported : sqlstate::SyntaxError,
                  json ? "COPY " + o.name + " is not available in JSON mode"
                       : "option \"" + o.name + "\" not recognized" + (o.name == "ignore_unknown_keys" ? " (it is FORMAT json's)" : ""),
                  o.pos);
    if (json) {
      f.ignoreUnknownKeys = boolOption(o, "ignore_unknown_keys");
      continue;
    }
    if (o.name == "delimiter") {
      f.delimiter = singleChar(o);
      if (f.delimiter == '\n' || f.delimiter == '\r' || (!csv && f.delimiter == '\\'))
        throw Error(sqlstate::InvalidParameter, "COPY delimiter cannot be newline, carriage return or backslash", o.pos);
    } else if (o.name == "header") {
      f.header = boolOption(o, "header");
    } else if (o.name == "null") {
      f.null = o.value;
    } else if (o.name == "quote" || o.name == "escape") {
      if (!csv) throw Error(sqlstate::FeatureNotSupported, "COPY " + o.name + " is available only in CSV mode", o.pos);
      (o.name == "quote" ? f.quote : f.escape) = singleChar(o);
      quoteSet = quoteSet || o.name == "quote";
    } else {
      throw Error(sqlstate::SyntaxError, "option \"" + o.name + "\" not recognized", o.pos);
    }
  }
  // ESCAPE defaults to QUOTE.
  bool escapeSet = false;
  for (auto& o : s.options) escapeSet = escapeSet || o.name == "escape";
  if (quoteSet && !escapeSet) f.escape = f.quote;
  if (csv && f.delimiter == f.quote)
    throw Error(sqlstate::InvalidParameter, "COPY delimiter and quote must be different", s.pos);
  return f;
}

std::vector<uint32_t> targetColumns(const ast::CopyStmt& s, const Table& t) {
  std::vector<uint32_t> cols;
  if (s.columns.empty()) {
    for (uint32_t i = 0; i < t.columns().size(); ++i) cols.push_back(i);
    return cols;
  }
  for (size_t i = 0; i < s.columns.size(); ++i) {
    int found = -1;
    for (uint32_t c = 0; c < t.columns().size(); ++c)
      if (t.columns()[c].name == s.columns[i]) found = static_cast<int>(c);
    if (found < 0)
      throw Error(sqlstate::UndefinedColumn,
                  "column \"" + s.columns[i] + "\" of relation \"" + t.name() + "\" does not exist", s.columnPos[i]);
    for (uint32_t prev : cols)
      if (prev == static_cast<uint32_t>(found))
        throw Error(sqlstate::DuplicateColumn, "column \"" + s.columns[i] + "\" specified more than once", s.columnPos[i]);
    cols.push_back(static_cast<uint32_t>(found));
  }
  return cols;
}

std::string megabytes(uint64_t bytes) { return std::to_string(bytes >> 20) + " MB"; }

QueryResult copyFrom(const ast::CopyStmt& s, const CopyContext& ctx, Table& table) {
  CopyFormat format = formatOf(s);
  LoadTarget target{&table, targetColumns(s, table), s.stdio ? "STDIN" : s.file, ctx.transactionTime};
  RecordReader::Source source;
  if (s.stdio) {
    if (!ctx.in)
      throw Error(sqlstate::FeatureNotSupported,
                  "COPY FROM STDIN needs a client that sends the data (the hyrax shell does); use COPY FROM 'file'", s.filePos);
    std::istream* in = ctx.in;
    source = [in](char* buf, size_t n) {
      in->read(buf, static_cast<std::streamsize>(n));
      return static_cast<size_t>(in->gcount());
    };
  } else {
    try {
      source = openFileSource(s.file);
    } catch (const Error& e) {
      throw Error(e.sqlstate(), e.message(), s.filePos);
    }
  }
  if (ctx.cancel)
    source = [read = std::move(source), cancel = ctx.cancel](char* buf, size_t n) {
      if (cancel->load(std::memory_order_relaxed))
        throw Error(sqlstate::QueryCanceled, "canceling statement due to user request");
      return read(buf, n);
    };
  std::function<void(const LoadProgress&)> progress;
  if (ctx.progress)
    progress = [&](const LoadProgress& p) {
      ctx.progress("COPY " + table.name() + ": " + std::to_string(p.rows) + " rows, " + megabytes(p.bytes) + " read");
    };
  const uint64_t before = table.rowCount();
  uint64_t n = 0;
  if (format.kind == CopyFormat::Kind::Json) {
    std::vector<std::string> keys;
    for (uint32_t c : target.columns) keys.push_back(table.columns()[c].name);
    JsonReader reader(std::move(source), keys, JsonReader::Options{format.ignoreUnknownKeys, false});
    n = loadRecords(target, reader, format.header, progress);
  } else {
    n = loadDelimited(target, std::move(source), format, ctx.threads, progress);
  }
  if (ctx.afterLoad) ctx.afterLoad(table, before);
  return QueryResult({}, {}, "COPY " + std::to_string(n));
}

// One value in the output format. Text: backslash escapes; csv: quoted when it would otherwise
// read back differently (delimiter, quote, line breaks, or equal to the NULL string).
void writeField(std::ostream& os, const std::string& v, const CopyFormat& f) {
  if (f.kind == CopyFormat::Kind::Text) {
    for (char c : v) {
      switch (c) {
        case '\\': os << "\\\\"; break;
        case '\n': os << "\\n"; break;
        case '\r': os << "\\r"; break;
        case '\t': os << "\\t"; break;
        default:
          if (c == f.delimiter) os << '\\';
          os << c;
      }
    }
    return;
  }
  bool quote = v == f.null || v.find_first_of(std::string{f.delimiter, f.quote, '\n', '\r'}) != std::string::npos;
  if (!quote) {
    os << v;
    return;
  }
  os << f.quote;
  for (char c : v) {
    if (c == f.quote || c == f.escape) os << f.escape;
    os << c;
  }
  os << f.quote;
}

QueryResult copyTo(const ast::CopyStmt& s, const CopyContext& ctx) {
  CopyFormat format = formatOf(s);
  if (format.kind == CopyFormat::Kind::Json)
    throw Error(sqlstate::FeatureNotSupported, "COPY TO does not write FORMAT json (only COPY FROM reads it)", s.pos);
  QueryResult r;
  if (s.query) {
    r = ctx.runSelect(*s.query);
  } else {
    // COPY table [(columns)] TO: the same as SELECT columns FROM table.
    ast::Select sel;
    sel.pos = s.tablePos;
    if (s.columns.empty()) {
      sel.items.push_back({std::make_unique<ast::Expr>(ast::ExprKind::Star, s.tablePos), "", s.tablePos});
    } else {
      for (size_t i = 0; i < s.columns.size(); ++i) {
        auto e = std::make_unique<ast::Expr>(ast::ExprKind::Column, s.columnPos[i]);
        e->name = s.columns[i];
        sel.items.push_back({std::move(e), "", s.columnPos[i]});
      }
    }
    auto from = std::make_unique<ast::TableRef>(ast::TableRef::Kind::Table, s.tablePos);
    from->name = s.table;
    sel.from.push_back(std::move(from));
    r = ctx.runSelect(sel);
  }
  std::ofstream file;
  std::ostream* os = ctx.out;
  if (!s.stdio) {
    file.open(s.file, std::ios::binary | std::ios::trunc);
    if (!file)
      throw Error(sqlstate::IoError, "could not open file \"" + s.file + "\" for writing: " + std::strerror(errno), s.filePos);
    os = &file;
  } else if (!os) {
    throw Error(sqlstate::FeatureNotSupported, "COPY TO STDOUT needs a client that receives the data", s.filePos);
  }
  const auto& cols = r.columns();
  if (format.header) {
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c) *os << format.delimiter;
      writeField(*os, cols[c].name, format);
    }
    *os << '\n';
  }
  for (uint64_t row = 0; row < r.rowCount(); ++row) {
    for (uint32_t c = 0; c < cols.size(); ++c) {
      if (c) *os << format.delimiter;
      if (r.isNull(row, c)) *os << format.null;
      else if (cols[c].type.id == TypeId::Bool) *os << (r.value(row, c).asBool() ? 't' : 'f');  // as PostgreSQL's COPY
      else writeField(*os, r.text(row, c), format);
    }
    *os << '\n';
  }
  os->flush();
  if (!*os) throw Error(sqlstate::IoError, "could not write COPY output" + (s.stdio ? std::string() : " to \"" + s.file + "\""));
  return QueryResult({}, {}, "COPY " + std::to_string(r.rowCount()));
}

}  // namespace

QueryResult executeCopy(const ast::CopyStmt& s, const CopyContext& ctx) {
  if (!s.from) return copyTo(s, ctx);
  Table* table = ctx.catalog.findTable(s.table);
  if (!table) throw Error(sqlstate::UndefinedTable, "relation \"" + s.table + "\" does not exist", s.tablePos);
  return copyFrom(s, ctx, *table);
}

}  // namespace hyrax
