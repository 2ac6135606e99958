#pragma once
// `hyrax serve [options]`: parses the options, starts the server on a fresh in-memory database,
// prints where it listens and serves until SIGINT or SIGTERM.
namespace hyrax::server {

// argv[0] is "serve". Returns the process's exit code.
int serveMain(int argc, char** argv);

}  // namespace hyrax::server
