#pragma once
// The server: accepts clients on loopback TCP and on the Unix socket DIR/.s.PGSQL.<port> (where
// psql looks with -h DIR), and serves each on a thread of its own (server/session.hpp).
// Statements of all sessions run one after another, each session's on its own thread when its
// turn comes (SerialExecutor), so a thread per client that blocks on its socket costs nothing a
// serial executor would not anyway, and a statement needs no hand-over to another thread.
#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>

#include "engine/util/large_stack_thread.hpp"
#include "server/dispatcher.hpp"
#include "server/server_config.hpp"
#include "server/session_registry.hpp"
#include "server/wire.hpp"
#include "sql/api/database.hpp"

namespace hyrax::server {

class Server {
 public:
  // Binds the listening sockets. Throws hyrax::Error: a non-loopback address (refused without
  // password authentication), an address in use, a socket path too long or taken by a live server.
  Server(Database& db, ServerConfig config);
  ~Server();

  uint16_t port() const { return port_; }  // the TCP port bound (config.port, or the free one chosen for 0)
  std::string socketPath() const { return socketPath_; }  // empty without a Unix socket
  // "127.0.0.1:5433", "/tmp/.s.PGSQL.5433": where clients connect.
  std::vector<std::string> listeningOn() const;

  // Accepts and serves clients until stop(); returns after every session has ended.
  void run();
  // From any thread (a signal handler's asio::signal_set, a test): stops accepting, cancels the
  // running statements and disconnects every client.
  void stop();
  boost::asio::io_context& ioContext() { return io_; }

 private:
  struct Client {
    std::shared_ptr<Wire> wire;
    // With the executor's stack, so the session runs its statements itself (SerialExecutor::run):
    // no hand-over to the executor's thread and back per statement. Only touched pages are memory.
    std::unique_ptr<LargeStackThread> thread;
    std::atomic<bool> done{false};
  };
  void acceptTcp();
  void acceptUnix();
  void startSession(int fd);  // a connected socket's descriptor, now the session's
  void reapFinished();

  Database& db_;
  ServerConfig config_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor tcp_;
  boost::asio::local::stream_protocol::acceptor unix_;
  uint16_t port_ = 0;
  std::string socketPath_;
  SessionRegistry registry_;
  std::unique_ptr<Dispatcher> dispatcher_;  // idle sessions' requests (null: --dispatch-threads 0); outlives them
  std::mutex clientsMutex_;
  std::list<Client> clients_;
  bool stopping_ = false;
};

}  // namespace hyrax::server
