#include "server/server.hpp"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <system_error>

#include <boost/asio/post.hpp>

#include "engine/util/machine_cores.hpp"
#include "engine/util/stack_depth.hpp"
#include "server/session.hpp"
#include "server/wire.hpp"

namespace hyrax::server {

namespace asio = boost::asio;
using boost::asio::ip::tcp;
using local = boost::asio::local::stream_protocol;

namespace {

// A session thread's stack (and a dispatcher thread's): the executor's where address space is
// plenty (the session then runs its statements itself); on a 32-bit board, where a hundred such
// stacks would not fit, the default, and its statements go to the executor's thread.
constexpr size_t kSessionStackBytes = sizeof(void*) >= 8 ? kExecutorStackBytes : size_t{8} << 20;

Error startupError(const std::string& message) { return Error(sqlstate::InvalidParameter, message); }

// Any address when TCP clients must prove a password (SCRAM); loopback only with --trust.
tcp::endpoint listenEndpoint(const std::string& listen, uint16_t port, bool trust) {
  std::string host = listen == "localhost" ? "127.0.0.1" : listen;
  boost::system::error_code ec;
  auto address = asio::ip::make_address(host, ec);
  if (ec) throw startupError("invalid listen address \"" + listen + "\"");
  if (!address.is_loopback() && trust)
    throw startupError("refusing to listen on " + listen +
                       " with --trust: anyone who reaches it would get in without a password; without --trust TCP "
                       "clients log in with a role's password (CREATE ROLE ... LOGIN PASSWORD ...)");
  return {address, port};
}

// The accepted socket's descriptor, taken out of the reactor's epoll set (wire.hpp says why);
// -1 if that failed (the socket is closed then).
template <typename Socket>
int releaseFromReactor(Socket& socket) {
  boost::system::error_code ec;
  const int fd = socket.release(ec);
  return ec ? -1 : fd;
}

}  // namespace

Server::Server(Database& db, ServerConfig config) : db_(db), config_(std::move(config)), tcp_(io_), unix_(io_) {
  boost::system::error_code ec;
  if (config_.tcp) {
    tcp::endpoint endpoint = listenEndpoint(config_.listen, config_.port, config_.trust);
    tcp_.open(endpoint.protocol());
    tcp_.set_option(asio::socket_base::reuse_address(true));
    tcp_.bind(endpoint, ec);
    if (ec) throw startupError("could not bind " + config_.listen + ":" + std::to_string(config_.port) + ": " + ec.message());
    tcp_.listen(asio::socket_base::max_listen_connections);
    port_ = tcp_.local_endpoint().port();
  } else {
    if (config_.port == 0) throw startupError("without TCP, --port names the Unix socket and cannot be 0");
    port_ = config_.port;
  }
  if (!config_.socketDir.empty()) {
    socketPath_ = config_.socketDir + "/.s.PGSQL." + std::to_string(port_);
    if (socketPath_.size() >= sizeof(sockaddr_un::sun_path)) throw startupError("Unix socket path too long: " + socketPath_);
    // A socket file left by a server that died is removed; one a live server answers on is not.
    local::socket probe(io_);
    probe.connect(local::endpoint(socketPath_), ec);
    if (!ec) throw startupError("another server is listening on " + socketPath_);
    ::unlink(socketPath_.c_str());
    unix_.open();
    unix_.bind(local::endpoint(socketPath_), ec);
    if (ec) throw startupError("could not bind the Unix socket " + socketPath_ + ": " + ec.message());
    unix_.listen(asio::socket_base::max_listen_connections);
    ::chmod(socketPath_.c_str(), 0777);  // as PostgreSQL's unix_socket_permissions default
  }
  if (!tcp_.is_open() && !unix_.is_open()) throw startupError("neither a TCP address nor a socket directory to listen on");
  if (config_.dispatchThreads != 0)
    dispatcher_ = std::make_unique<Dispatcher>(config_.dispatchThreads < 0 ? machineCores() : static_cast<size_t>(config_.dispatchThreads),
                                               kSessionStackBytes);
}

Server::~Server() {
  stop();
  // run() joins the sessions; a server that never ran has none.
  for (auto& c : clients_)
    if (c.thread) c.thread->join();
  if (!socketPath_.empty()) ::unlink(socketPath_.c_str());
}

std::vector<std::string> Server::listeningOn() const {
  std::vector<std::string> where;
  if (tcp_.is_open()) {
    auto e = tcp_.local_endpoint();
    where.push_back((e.address().is_v6() ? "[" + e.address().to_string() + "]" : e.address().to_string()) + ":" +
                    std::to_string(e.port()));
  }
  if (!socketPath_.empty()) where.push_back(socketPath_);
  return where;
}

void Server::acceptTcp() {
  tcp_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    if (!tcp_.is_open()) return;  // stopped
    if (!ec) {
      socket.set_option(tcp::no_delay(true));
      startSession(releaseFromReactor(socket));
    }
    acceptTcp();
  });
}

void Server::acceptUnix() {
  unix_.async_accept([this](const boost::system::error_code& ec, local::socket socket) {
    if (!unix_.is_open()) return;
    if (!ec) startSession(releaseFromReactor(socket));
    acceptUnix();
  });
}

void Server::reapFinished() {
  for (auto it = clients_.begin(); it != clients_.end();) {
    if (it->done.load()) {
      it->thread->join();
      it = clients_.erase(it);
    } else {
      ++it;
    }
  }
}

void Server::startSession(int fd) {
  if (fd < 0) return;
  auto wire = std::make_shared<Wire>(fd, config_.maxMessageBytes);  // closes it on every way out
  std::lock_guard lock(clientsMutex_);
  if (stopping_) return;
  reapFinished();
  // Beyond the limit a session only says 53300 (a CancelRequest still works); far beyond it, a
  // flood of connections gets no thread at all.
  if (clients_.size() >= 2 * size_t{config_.maxConnections} + 16) return;
  bool overLimit = clients_.size() >= config_.maxConnections;
  Client& client = clients_.emplace_back();
  client.wire = wire;
  try {
    client.thread = std::make_unique<LargeStackThread>(kSessionStackBytes, [this, &client, overLimit] {
      ::pthread_setname_np(::pthread_self(), "hyrax session");  // for top -H and perf's --sort comm
      {
        Session session(db_, *client.wire, registry_, config_, overLimit, dispatcher_.get());
        session.run();
      }
      // Closed here, not when the entry is reaped: the client sees the end at once. Under the
      // lock, so that stop() never shuts a descriptor number that was closed and reused.
      std::lock_guard lock(clientsMutex_);
      client.wire->close();
      client.done.store(true);
    });
  } catch (const std::system_error&) {  // no thread to be had (address space, process limits): hang up
    wire->close();
    clients_.pop_back();
  }
}

void Server::run() {
  if (tcp_.is_open()) acceptTcp();
  if (unix_.is_open()) acceptUnix();
  io_.run();
  // Stopped: every client was disconnected; wait for their threads (a statement running on the
  // executor was canceled and ends at its next check).
  std::list<Client> clients;
  {
    std::lock_guard lock(clientsMutex_);
    clients.splice(clients.end(), clients_);
  }
  for (auto& c : clients)
    if (c.thread) c.thread->join();
}

void Server::stop() {
  asio::post(io_, [this] {
    boost::system::error_code ec;
    tcp_.close(ec);
    unix_.close(ec);
    {
      std::lock_guard lock(clientsMutex_);
      stopping_ = true;
      registry_.cancelAll();
      for (auto& c : clients_)
        if (!c.done.load()) c.wire->shutdown();
    }
    io_.stop();
  });
}

}  // namespace hyrax::server
