#pragma once
// One shell session: settings (output format, timing, output file) and the execution of input
// text, both SQL statements and backslash commands.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "sql/api/database.hpp"
#include "sql/shell/output_format.hpp"

namespace hyrax::shell {

class Session {
 public:
  Session(Database& db, Connection& con) : db_(db), con_(con) {}

  Format format = Format::Aligned;
  bool timing = false;

  // Runs complete input: statements and meta commands, in order. Returns false if anything failed.
  bool runText(const std::string& text);
  // A backslash command (one line). Returns false if it failed.
  bool metaCommand(const std::string& line);
  bool quitRequested() const { return quit_; }
  // Runs one SQL statement, printing its result or error; `copyData` is what COPY FROM STDIN reads.
  bool runStatement(const std::string& sql, const std::string& copyData = {});

  std::ostream& out() { return file_ ? *file_ : std::cout; }

 private:
  bool describe(const std::string& name);
  bool runFile(const std::string& path);

  Database& db_;
  Connection& con_;
  std::unique_ptr<std::ofstream> file_;
  bool quit_ = false;
  int includeDepth_ = 0;  // files being run by \i, one inside the other
};

// Splits input into statements and meta-command lines, in order; an unfinished statement at the
// end is left in `rest` (the interactive shell then waits for more lines).
// A COPY ... FROM STDIN statement takes the lines after it, up to a line `\.`, as its data; at the
// end of input (`atEnd`) the data may also end there, otherwise the statement waits in `rest`.
struct Piece {
  bool meta;
  std::string text;
  std::string data;  // COPY FROM STDIN's data
};
std::vector<Piece> splitInput(const std::string& text, std::string& rest, bool atEnd = false);

}  // namespace hyrax::shell
