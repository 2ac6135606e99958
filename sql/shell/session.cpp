#include "sql/shell/session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "engine/catalog/catalog.hpp"
#include "engine/index/index.hpp"
#include "sql/parser/lexer.hpp"

namespace hyrax::shell {

namespace {

// COPY ... FROM STDIN: its data follows on the next lines, up to a line `\.` (or the end).
bool copiesFromStdin(const std::string& sql) {
  try {
    auto tokens = sqlparse::tokenize(sql);
    if (tokens.empty() || !tokens[0].is("copy")) return false;
    for (size_t i = 0; i + 1 < tokens.size(); ++i)
      if (tokens[i].is("from") && tokens[i + 1].is("stdin")) return true;
  } catch (const Error&) {
  }
  return false;
}

}  // namespace

std::vector<Piece> splitInput(const std::string& text, std::string& rest, bool atEnd) {
  std::vector<Piece> out;
  std::string pending;
  std::istringstream in(text);
  std::string line;
  bool inData = false;  // reading the data of out.back(), a COPY FROM STDIN
  size_t piecesBeforeCopy = 0;
  std::string copyText;
  while (std::getline(in, line)) {
    if (inData) {
      copyText += line + "\n";
      std::string_view l = line;
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      if (l == "\\.") {
        inData = false;
        copyText.clear();
      } else {
        out.back().data += line + "\n";
      }
      continue;
    }
    // A backslash command is only recognised on a line of its own outside a statement.
    size_t first = line.find_first_not_of(" \t");
    bool blankPending = pending.find_first_not_of(" \t\r\n") == std::string::npos;
    if (blankPending && first != std::string::npos && line[first] == '\\') {
      out.push_back({true, line.substr(first), {}});
      pending.clear();
      continue;
    }
    pending += line + "\n";
    auto stmts = splitStatements(pending);
    size_t complete = !stmts.empty() && stmts.back().complete ? stmts.size() : stmts.size() > 1 ? stmts.size() - 1 : 0;
    if (complete == 0) continue;
    std::string left = complete < stmts.size() ? stmts.back().text + "\n" : "";
    for (size_t i = 0; i < complete; ++i) {
      out.push_back({false, stmts[i].text, {}});
      if (copiesFromStdin(stmts[i].text)) {
        inData = true;
        piecesBeforeCopy = out.size() - 1;
        copyText = stmts[i].text + "\n";
        break;  // what follows the statement on its line is ignored, as in psql
      }
    }
    pending = inData ? "" : left;
  }
  if (inData && !atEnd) {
    // Interactive input: wait for the rest of the data; the COPY runs once `\.` arrives.
    out.resize(piecesBeforeCopy);
    rest = copyText;
    return out;
  }
  rest = splitStatements(pending).empty() ? "" : pending;  // blanks and comments run nothing
  return out;
}

bool Session::runStatement(const std::string& sql, const std::string& copyData) {
  // \timing's time is the statement's, as psql's: up to its result, not the printing of its rows
  // (formatting TPC-H Q16's 18,314 rows as a table took as long as the query).
  auto start = std::chrono::steady_clock::now();
  double ms = 0;
  auto stop = [&] { ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); };
  bool ok = true;
  std::istringstream data(copyData);
  con_.setCopyStreams(&data, &out());
  try {
    QueryResult r = con_.execute(sql);
    stop();
    out().flush();  // the notice belongs after what came before it
    for (auto& n : r.notices) std::cerr << n.severity << ":  " << n.message << "\n";
    printResult(out(), r, format);
  } catch (const Error& e) {
    stop();
    out().flush();
    for (auto& n : e.notices()) std::cerr << n.severity << ":  " << n.message << "\n";
    printError(std::cerr, e, sql);
    ok = false;
  } catch (const std::exception& e) {
    stop();
    std::cerr << "ERROR:  XX000: " << e.what() << "\n";
    ok = false;
  }
  if (timing) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "Time: %.3f ms\n", ms);
    out() << buf;
  }
  out().flush();
  return ok;
}

bool Session::runText(const std::string& text) {
  std::string rest;
  bool ok = true;
  for (auto& p : splitInput(text, rest, true)) {
    if (quit_) break;
    ok = (p.meta ? metaCommand(p.text) : runStatement(p.text, p.data)) && ok;
  }
  if (!rest.empty() && !quit_) ok = runStatement(rest) && ok;  // a last statement without ';'
  return ok;
}

bool Session::runFile(const std::string& path) {
  // A file that includes itself (or a cycle of them) would recurse until the stack overflows.
  constexpr int kMaxIncludeDepth = 64;
  if (includeDepth_ >= kMaxIncludeDepth) {
    std::cerr << "ERROR:  54001: \\i nested more than " << kMaxIncludeDepth << " levels deep (does \"" << path
              << "\" include itself?)\n";
    return false;
  }
  std::ifstream in(path);
  if (!in) {
    std::cerr << "ERROR:  58P01: could not open file \"" << path << "\"\n";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  ++includeDepth_;
  bool ok = runText(ss.str());
  --includeDepth_;
  return ok;
}

bool Session::describe(const std::string& name) {
  Catalog& cat = db_.catalog();
  if (name.empty()) {
    out() << "        List of tables\n";
    out() << " name                 | columns | rows\n----------------------+---------+-----------\n";
    for (const Table* t : cat.tables()) {
      char buf[256];
      std::snprintf(buf, sizeof(buf), " %-20s | %7zu | %9llu\n", t->name().c_str(), t->columns().size(),
                    static_cast<unsigned long long>(t->rowCount()));
      out() << buf;
    }
    out() << "(" << cat.tables().size() << (cat.tables().size() == 1 ? " table)\n" : " tables)\n");
    auto views = cat.views();
    if (!views.empty()) {
      out() << "\n        List of views\n name                 | query\n----------------------+------------------------------\n";
      for (auto& v : views) {
        char buf[256];
        std::snprintf(buf, sizeof(buf), " %-20s | ", v.c_str());
        out() << buf << cat.findView(v)->sql << "\n";
      }
    }
    return true;
  }
  if (const Catalog::View* v = cat.findView(name)) {
    out() << "View \"" << name << "\"";
    if (!v->columns.empty()) {
      out() << " (";
      for (size_t i = 0; i < v->columns.size(); ++i) out() << (i ? ", " : "") << v->columns[i];
      out() << ")";
    }
    out() << "\n AS " << v->sql << "\n";
    return true;
  }
  const Table* t = cat.findTable(name);
  if (!t) {
    std::cerr << "Did not find any relation named \"" << name << "\".\n";
    return false;
  }
  out() << "Table \"" << t->name() << "\" (" << t->rowCount() << " rows)\n";
  out() << " column               | type                 | nullable | key\n"
           "----------------------+----------------------+----------+-----\n";
  for (uint32_t i = 0; i < t->columns().size(); ++i) {
    auto& c = t->columns()[i];
    bool key = std::find(t->primaryKey().begin(), t->primaryKey().end(), i) != t->primaryKey().end();
    char buf[256];
    std::snprintf(buf, sizeof(buf), " %-20s | %-20s | %-8s | %s\n", c.name.c_str(), c.type.name().c_str(),
                  c.type.nullable ? "yes" : "no", key ? "PK" : "");
    out() << buf;
  }
  // Indexes and constraints, as psql lists them.
  auto names = [](const Table& table, const std::vector<uint32_t>& cols) {
    std::string r;
    for (uint32_t c : cols) r += (r.empty() ? "" : ", ") + table.columns()[c].name;
    return r;
  };
  if (!t->indexes().empty()) out() << "Indexes:\n";
  for (auto& idx : t->indexes()) {
    bool pk = idx->unique() && idx->columns() == t->primaryKey();
    out() << "    \"" << idx->name() << "\" " << (pk ? "PRIMARY KEY, " : idx->unique() ? "UNIQUE, " : "") << "hash ("
          << names(*t, idx->columns()) << ")\n";
  }
  if (!t->checks().empty()) out() << "Check constraints:\n";
  for (auto& c : t->checks()) out() << "    \"" << c.name << "\" CHECK (" << c.sql << ")\n";
  if (!t->foreignKeys().empty()) out() << "Foreign-key constraints:\n";
  for (auto& fk : t->foreignKeys()) {
    static const char* kActions[] = {"", " ON DELETE CASCADE", " ON DELETE SET NULL", " ON DELETE SET DEFAULT"};
    out() << "    \"" << fk.name << "\" FOREIGN KEY (" << names(*t, fk.columns) << ") REFERENCES "
          << fk.referenced->name() << "(" << names(*fk.referenced, fk.referencedColumns) << ")"
          << kActions[static_cast<int>(fk.onDelete)] << "\n";
  }
  if (!t->referencedBy().empty()) out() << "Referenced by:\n";
  for (const ForeignKey* fk : t->referencedBy())
    out() << "    TABLE \"" << fk->referencing->name() << "\" CONSTRAINT \"" << fk->name << "\"\n";
  return true;
}

bool Session::metaCommand(const std::string& line) {
  std::istringstream in(line);
  std::string cmd, arg, arg2;
  in >> cmd >> arg >> arg2;
  if (cmd == "\\q") {
    quit_ = true;
    return true;
  }
  if (cmd == "\\?") {
    out() << "hyrax shell commands:\n"
             "  \\q                 quit\n"
             "  \\?                 this help\n"
             "  \\d [NAME]          list tables and views, or describe one\n"
             "  \\i FILE            run the statements in FILE\n"
             "  \\o [FILE]          send query output to FILE (or back to standard output)\n"
             "  \\timing [on|off]   show how long each statement takes (without printing its rows)\n"
             "  \\pset format aligned|csv|json   choose the output format\n"
             "SQL statements end with ';'. Ctrl-C cancels a running statement.\n";
    return true;
  }
  if (cmd == "\\timing") {
    timing = arg.empty() ? !timing : arg == "on";
    out() << "Timing is " << (timing ? "on" : "off") << ".\n";
    return true;
  }
  if (cmd == "\\d") return describe(arg);
  if (cmd == "\\i") {
    if (arg.empty()) {
      std::cerr << "\\i: missing required argument\n";
      return false;
    }
    return runFile(arg);
  }
  if (cmd == "\\o") {
    file_.reset();
    if (arg.empty()) return true;
    file_ = std::make_unique<std::ofstream>(arg);
    if (!*file_) {
      file_.reset();
      std::cerr << "ERROR:  58P01: could not open file \"" << arg << "\" for writing\n";
      return false;
    }
    return true;
  }
  if (cmd == "\\pset") {
    if (arg == "format" && parseFormat(arg2, format)) {
      out() << "Output format is " << arg2 << ".\n";
      return true;
    }
    std::cerr << "\\pset: usage: \\pset format aligned|csv|json\n";
    return false;
  }
  std::cerr << "invalid command " << cmd << "\nTry \\? for help.\n";
  return false;
}

}  // namespace hyrax::shell
