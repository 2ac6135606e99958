// hyrax: the SQL shell on an in-memory database.
#include "sql/shell/shell_main.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>
#include <editline/readline.h>

#include "sql/shell/session.hpp"

namespace po = boost::program_options;
using namespace hyrax;

namespace {

Connection* activeConnection = nullptr;
volatile std::sig_atomic_t interrupted = 0;

// Ctrl-C cancels the running statement (the flag is an atomic the generated code polls); at the
// prompt it interrupts the read, and the loop below throws the line away (as psql does).
void onInterrupt(int) {
  interrupted = 1;
  if (activeConnection) activeConnection->cancel();
}

int interactive(shell::Session& session) {
  std::string home = std::getenv("HOME") ? std::getenv("HOME") : ".";
  std::string historyFile = home + "/.hyrax_history";
  using_history();
  read_history(historyFile.c_str());
  std::cout << "hyrax, a compiled-query SQL database. Type \\? for help, \\q to quit.\n";
  std::string pending;
  bool ok = true;
  while (!session.quitRequested()) {
    interrupted = 0;
    char* line = readline(pending.empty() ? "hyrax=> " : "hyrax-> ");
    if (interrupted) {  // Ctrl-C: a fresh prompt, the unfinished statement forgotten
      free(line);
      pending.clear();
      std::cout << "\n";
      continue;
    }
    if (!line) break;  // Ctrl-D
    std::string text = line;
    free(line);
    if (text.find_first_not_of(" \t") != std::string::npos) {
      add_history(text.c_str());
      write_history(historyFile.c_str());
    }
    pending += text + "\n";
    std::string rest;
    auto pieces = shell::splitInput(pending, rest);
    for (auto& p : pieces) {
      if (session.quitRequested()) break;
      ok = (p.meta ? session.metaCommand(p.text) : session.runStatement(p.text, p.data)) && ok;
    }
    pending = rest;
  }
  return ok ? 0 : 1;
}

}  // namespace

namespace hyrax::shell {

int shellMain(int argc, char** argv) {
  po::options_description desc("usage: hyrax [options]\n       hyrax serve [options]   (the PostgreSQL-protocol server; hyrax serve --help)\nA compiled-query SQL database; in memory, empty at start.\nOptions");
  std::vector<std::string> commands, files;
  desc.add_options()("help,h", "show this help")("version", "show the version")(
      "command,c", po::value(&commands), "run SQL (several statements allowed), then exit")(
      "file,f", po::value(&files), "run the statements in a file, then exit")("csv", "print results as CSV")(
      "json", "print results as JSON")("timing", "print the time each statement takes (as psql's \\timing: without printing its rows)");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << "hyrax: " << e.what() << "\n" << desc;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc << "\nWith neither -c nor -f, statements are read from standard input\n"
                         "(interactively, with line editing, when it is a terminal).\n"
                         "The exit code is 1 if any statement failed.\n";
    return 0;
  }
  if (vm.count("version")) {
    std::cout << "hyrax 0.1\n";
    return 0;
  }
  Database db;
  Connection con(db);
  activeConnection = &con;
  struct sigaction sa {};
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);

  // Long statements (COPY of millions of rows) report progress on stderr when a person watches.
  if (isatty(STDERR_FILENO)) con.setProgressHandler([](const std::string& m) { std::cerr << m << "\n"; });
  shell::Session session(db, con);
  if (vm.count("csv")) session.format = shell::Format::Csv;
  if (vm.count("json")) session.format = shell::Format::Json;
  session.timing = vm.count("timing") > 0;

  bool ok = true;
  if (!commands.empty() || !files.empty()) {
    for (auto& c : commands) ok = session.runText(c) && ok;
    for (auto& f : files) ok = session.metaCommand("\\i " + f) && ok;
    return ok ? 0 : 1;
  }
  if (isatty(STDIN_FILENO)) return interactive(session);
  std::stringstream ss;
  ss << std::cin.rdbuf();
  return session.runText(ss.str()) ? 0 : 1;
}

}  // namespace hyrax::shell
