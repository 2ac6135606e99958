// hyrax: the SQL shell on an in-memory database, or with `serve` first the server that PostgreSQL
// clients connect to.
#include <cstring>

#include "server/serve_command.hpp"
#include "sql/shell/shell_main.hpp"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "serve") == 0) return hyrax::server::serveMain(argc - 1, argv + 1);
  return hyrax::shell::shellMain(argc, argv);
}
