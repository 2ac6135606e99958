#include "server/authenticator.hpp"

#include "server/protocol.hpp"
#include "server/scram.hpp"
#include "sql/api/roles.hpp"

namespace hyrax::server {

namespace {

constexpr int32_t kSasl = 10, kSaslContinue = 11, kSaslFinal = 12;  // AuthenticationSASL* codes

// The client's next SASL message ('p'): anything else ends the login.
Message readSaslMessage(Wire& wire) {
  Message m = wire.readMessage(kMaxAuthMessage);
  if (m.type != frontend::Password)
    throw FatalError(wirestate::ProtocolViolation, "expected SASL response, got message type " + std::string(1, m.type));
  return m;
}

void sendAuthentication(Wire& wire, int32_t code, std::string_view data) {
  wire.begin(backend::Authentication);
  wire.putInt32(code);
  wire.putBytes(data);
  wire.end();
  wire.flush();
}

}  // namespace

void ScramAuthenticator::authenticate(Wire& wire, const StartupParameters& startup) {
  const std::string user = startup.get("user");
  const std::optional<sql::Role> role = roles_.find(user);
  std::optional<scram::Verifier> verifier;
  if (role && !role->verifier.empty()) verifier = scram::parseVerifier(role->verifier);
  const std::string failed = "password authentication failed for user \"" + user + "\"";
  scram::ServerExchange exchange(verifier);
  sendAuthentication(wire, kSasl, std::string_view("SCRAM-SHA-256\0\0", 15));
  try {
    Message first = readSaslMessage(wire);
    MessageReader r(first.body);
    if (r.cstring() != "SCRAM-SHA-256")
      throw FatalError(wirestate::ProtocolViolation, "client selected an invalid SASL authentication mechanism");
    const int32_t length = r.int32();
    if (length < 0 || static_cast<size_t>(length) != r.remaining())
      throw FatalError(wirestate::ProtocolViolation, "malformed SASLInitialResponse message");
    sendAuthentication(wire, kSaslContinue, exchange.clientFirst(r.bytes(static_cast<size_t>(length))));
    Message final = readSaslMessage(wire);
    const std::string serverFinal = exchange.clientFinal(final.body);
    if (!exchange.succeeded() || !verifier) throw FatalError(sqlstate::InvalidPassword, failed);
    sendAuthentication(wire, kSaslFinal, serverFinal);
  } catch (const FatalError&) {
    throw;
  } catch (const Error& e) {
    // A wrong proof says no more than PostgreSQL does; a malformed message keeps its own words.
    throw FatalError(e.sqlstate(), e.sqlstate() == sqlstate::InvalidPassword ? failed : e.message());
  }
  if (!role->login) throw FatalError(wirestate::InvalidAuthorization, "role \"" + user + "\" is not permitted to log in");
}

}  // namespace hyrax::server
