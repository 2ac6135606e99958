#include "server/authenticator.hpp"

#include "server/protocol.hpp"

namespace hyrax::server {

void RefuseAuthenticator::authenticate(Wire&, const StartupParameters& startup) {
  throw FatalError(wirestate::InvalidAuthorization,
                   "no password authentication for user \"" + startup.get("user") +
                       "\" over TCP yet: connect through the Unix socket, or start the server with --trust");
}

}  // namespace hyrax::server
