#include "server/serve_command.hpp"

#include <csignal>
#include <iostream>

#include <boost/asio/signal_set.hpp>
#include <boost/program_options.hpp>

#include "server/server.hpp"

namespace hyrax::server {

namespace po = boost::program_options;

int serveMain(int argc, char** argv) {
  ServerConfig config;
  uint32_t idleSeconds = 0;
  uint32_t idleInTransactionSeconds = config.idleInTransactionTimeoutMs / 1000;
  uint32_t maxMessageMiB = config.maxMessageBytes >> 20;
  po::options_description desc(
      "usage: hyrax serve [options]\n"
      "Serves a new in-memory database to PostgreSQL clients (psql, libpq, JDBC, ...) over\n"
      "PostgreSQL's protocol 3.0 (simple and extended queries, COPY, cancel).\nOptions");
  desc.add_options()("help,h", "show this help")(
      "listen", po::value(&config.listen)->default_value(config.listen),
      "TCP address (any with password authentication; loopback only with --trust)")("port", po::value(&config.port)->default_value(config.port),
                                                                  "TCP port, also in the Unix socket's name (0: any free port)")(
      "no-tcp", "listen on the Unix socket only")("socket-dir", po::value(&config.socketDir)->default_value(config.socketDir),
                                                  "directory of the Unix socket .s.PGSQL.<port> (psql -h DIR)")(
      "max-connections", po::value(&config.maxConnections)->default_value(config.maxConnections),
      "sessions at most; more are refused (SQLSTATE 53300)")(
      "trust", "let TCP clients in without a password (loopback only); without it they prove a role's password by "
      "SCRAM-SHA-256 (Unix socket clients always get in)")(
      "max-message-mb", po::value(&maxMessageMiB)->default_value(maxMessageMiB),
      "largest message a client may send, in MiB (larger: the session ends with 08P01)")(
      "idle-session-timeout", po::value(&idleSeconds)->default_value(0),
      "seconds a session may sit idle outside a transaction block before it is closed (57P05); 0: forever")(
      "idle-in-transaction-timeout", po::value(&idleInTransactionSeconds)->default_value(idleInTransactionSeconds),
      "seconds a session may sit idle inside a transaction block before it is closed and the block rolled back "
      "(25P03); a block holds the executor, so others wait meanwhile; 0: forever")(
      "dispatch-threads", po::value(&config.dispatchThreads)->default_value(config.dispatchThreads),
      "threads that serve idle sessions' next requests from one epoll set (-1: one per core; 0: none, each "
      "session's thread waits on its socket)");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << "hyrax serve: " << e.what() << "\n" << desc;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  config.tcp = vm.count("no-tcp") == 0;
  config.trust = vm.count("trust") > 0;
  config.idleSessionTimeoutMs = idleSeconds * 1000;
  config.idleInTransactionTimeoutMs = idleInTransactionSeconds * 1000;
  if (maxMessageMiB == 0 || maxMessageMiB > 1024) {
    std::cerr << "hyrax serve: --max-message-mb must be between 1 and 1024\n";
    return 2;
  }
  config.maxMessageBytes = maxMessageMiB << 20;
  if (config.maxConnections == 0) {
    std::cerr << "hyrax serve: --max-connections must be at least 1\n";
    return 2;
  }
  // A client that closes its socket while we write to it must not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    Database db;
    Server server(db, config);
    boost::asio::signal_set signals(server.ioContext(), SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int) {
      if (!ec) server.stop();
    });
    for (auto& where : server.listeningOn()) std::cout << "hyrax: listening on " << where << "\n";
    std::cout << std::flush;
    server.run();
    std::cout << "hyrax: stopped\n";
    return 0;
  } catch (const Error& e) {
    std::cerr << "hyrax serve: " << e.message() << "\n";
    return 1;
  }
}

}  // namespace hyrax::server
