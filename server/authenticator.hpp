#pragma once
// How a client proves who it is, between the startup packet and AuthenticationOk. One interface
// so that SCRAM-SHA-256 (server/scram) is added as one more implementation: it runs its
// AuthenticationSASL exchange on the wire and throws on a wrong password.
#include <map>
#include <memory>
#include <string>

#include "server/wire.hpp"

namespace hyrax::sql {
class Roles;  // sql/api/roles.hpp
}

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

// TCP without --trust: SCRAM-SHA-256 (RFC 5802, 7677) against the role's stored verifier
// (CREATE ROLE name LOGIN PASSWORD '...'; sql/api/roles.hpp). A role that does not exist or has no
// password goes through the same exchange and fails at its proof (28P01), so a client cannot
// tell which; a role without LOGIN is refused after it (28000).
class ScramAuthenticator : public Authenticator {
 public:
  explicit ScramAuthenticator(const sql::Roles& roles) : roles_(roles) {}
  void authenticate(Wire& wire, const StartupParameters& startup) override;

 private:
  const sql::Roles& roles_;
};

}  // namespace hyrax::server
