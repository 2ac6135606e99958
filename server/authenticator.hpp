#pragma once
// How a client proves who it is, between the startup packet and AuthenticationOk. One interface
// so that SCRAM-SHA-256 (server/scram) is added as one more implementation: it runs its
// AuthenticationSASL exchange on the wire and throws on a wrong password.
#include <map>
#include <memory>
#include <string>

#include "server/wire.hpp"

namespace hyrax::server {

// The startup packet's parameters (user, database, application_name, options, ...).
struct StartupParameters {
  std::map<std::string, std::string> values;
  std::string get(const std::string& key) const {
    auto it = values.find(key);
    return it == values.end() ? std::string() : it->second;
  }
};

class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // Returns when the client may go on (the session then sends AuthenticationOk); throws
  // FatalError (28000, 28P01) when it may not. May read and write messages on `wire`.
  virtual void authenticate(Wire& wire, const StartupParameters& startup) = 0;
};

// Everyone is let in: the Unix socket (whose file permissions decide who connects) and TCP
// when the server was started with --trust.
class TrustAuthenticator : public Authenticator {
 public:
  void authenticate(Wire&, const StartupParameters&) override {}
};

// TCP without --trust, until password authentication exists: every client is refused.
class RefuseAuthenticator : public Authenticator {
 public:
  void authenticate(Wire& wire, const StartupParameters& startup) override;
};

}  // namespace hyrax::server
