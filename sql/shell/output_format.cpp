#include "sql/shell/output_format.hpp"

#include <algorithm>
#include <vector>

namespace hyrax::shell {

bool parseFormat(const std::string& name, Format& out) {
  if (name == "aligned") out = Format::Aligned;
  else if (name == "csv") out = Format::Csv;
  else if (name == "json") out = Format::Json;
  else return false;
  return true;
}

namespace {

size_t displayWidth(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;  // count UTF-8 code points
  return n;
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string r = "\"";
  for (char c : s) r += c == '"' ? std::string("\"\"") : std::string(1, c);
  return r + "\"";
}

std::string jsonString(const std::string& s) {
  std::string r = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': r += "\\\""; break;
      case '\\': r += "\\\\"; break;
      case '\n': r += "\\n"; break;
      case '\r': r += "\\r"; break;
      case '\t': r += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          r += buf;
        } else {
          r += static_cast<char>(c);
        }
    }
  }
  return r + "\"";
}

std::string cell(const QueryResult& r, uint64_t row, uint32_t col) { return r.isNull(row, col) ? "" : r.text(row, col); }

// A write's RETURNING rows are followed by its tag, as psql prints them ("INSERT 0 1").
void printWriteTag(std::ostream& out, const QueryResult& r) {
  const std::string& t = r.tag();
  if (t.rfind("INSERT", 0) == 0 || t.rfind("UPDATE", 0) == 0 || t.rfind("DELETE", 0) == 0) out << t << "\n";
}

}  // namespace

void printResult(std::ostream& out, const QueryResult& r, Format f) {
  if (!r.hasRows()) {
    out << r.tag() << "\n";
    return;
  }
  const auto& cols = r.columns();
  if (f == Format::Csv) {
    for (size_t c = 0; c < cols.size(); ++c) out << (c ? "," : "") << csvField(cols[c].name);
    out << "\n";
    for (uint64_t i = 0; i < r.rowCount(); ++i) {
      for (uint32_t c = 0; c < cols.size(); ++c) out << (c ? "," : "") << csvField(cell(r, i, c));
      out << "\n";
    }
    printWriteTag(out, r);
    return;
  }
  if (f == Format::Json) {
    out << "[";
    for (uint64_t i = 0; i < r.rowCount(); ++i) {
      out << (i ? ",\n " : "\n ") << "{";
      for (uint32_t c = 0; c < cols.size(); ++c) {
        out << (c ? ", " : "") << jsonString(cols[c].name) << ": ";
        const SqlType& t = cols[c].type;
        if (r.isNull(i, c)) out << "null";
        else if (t.isNumeric() || t.id == TypeId::Bool) out << r.text(i, c);
        else out << jsonString(r.text(i, c));
      }
      out << "}";
    }
    out << (r.rowCount() ? "\n]\n" : "]\n");
    return;
  }
  // Aligned, like psql: centred headers, numbers right-aligned, a row-count footer.
  std::vector<size_t> width(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) width[c] = displayWidth(cols[c].name);
  std::vector<std::vector<std::string>> cells(r.rowCount());
  for (uint64_t i = 0; i < r.rowCount(); ++i)
    for (uint32_t c = 0; c < cols.size(); ++c) {
      cells[i].push_back(cell(r, i, c));
      width[c] = std::max(width[c], displayWidth(cells[i].back()));
    }
  for (size_t c = 0; c < cols.size(); ++c) {
    size_t pad = width[c] - displayWidth(cols[c].name);
    out << (c ? " | " : " ") << std::string(pad / 2, ' ') << cols[c].name << std::string(pad - pad / 2, ' ');
  }
  out << "\n";
  for (size_t c = 0; c < cols.size(); ++c) out << (c ? "+" : "") << std::string(width[c] + 2, '-');
  out << "\n";
  for (auto& row : cells) {
    for (size_t c = 0; c < cols.size(); ++c) {
      size_t pad = width[c] - displayWidth(row[c]);
      bool right = cols[c].type.isNumeric();
      out << (c ? " | " : " ") << (right ? std::string(pad, ' ') + row[c] : row[c] + (c + 1 < cols.size() ? std::string(pad, ' ') : ""));
    }
    out << "\n";
  }
  out << "(" << r.rowCount() << (r.rowCount() == 1 ? " row)\n\n" : " rows)\n\n");
  printWriteTag(out, r);
}

void printError(std::ostream& out, const Error& e, const std::string& script) {
  out << "ERROR:  " << e.sqlstate() << ": " << e.message() << "\n";
  if (!e.detail().empty()) out << "DETAIL:  " << e.detail() << "\n";
  if (!e.pos().known()) return;
  // The offending line, and a caret under the column (like psql).
  size_t start = 0;
  for (uint32_t l = 1; l < e.pos().line && start != std::string::npos; ++l) {
    start = script.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos || start > script.size()) return;
  size_t end = script.find('\n', start);
  std::string line = script.substr(start, end == std::string::npos ? std::string::npos : end - start);
  std::string prefix = "LINE " + std::to_string(e.pos().line) + ": ";
  out << prefix << line << "\n" << std::string(prefix.size() + e.pos().column - 1, ' ') << "^\n";
}

}  // namespace hyrax::shell
