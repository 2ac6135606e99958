#pragma once
// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL speaks it, without I/O: the stored verifier
// made from a password, and the server's side of one exchange. No channel binding (a client that
// requires it, gs2 flag "p", is refused); the user name in client-first is ignored, as
// PostgreSQL does (the startup message names the role).
//
// Errors: hyrax::Error 08P01 for a malformed message, 28P01 for a wrong password. Their messages
// never contain the password or the proof. The verifier a role keeps: sql/api/scram_verifier.hpp.
#include <optional>
#include <string>
#include <string_view>

#include "sql/api/scram_verifier.hpp"  // the verifier, base64

namespace hyrax::scram {

// The server's side of one exchange: clientFirst() answers the client's first message (SASLInitialResponse's
// data) with server-first, clientFinal() checks the client's proof and answers server-final.
// Without a verifier (no such role, or no password), the exchange runs with a made-up one and
// fails at the proof, so a client cannot tell which it was.
class ServerExchange {
 public:
  explicit ServerExchange(std::optional<Verifier> verifier);
  // Tests: the server's nonce part given (RFC 7677's example).
  ServerExchange(std::optional<Verifier> verifier, std::string serverNonce);

  std::string clientFirst(std::string_view message);
  std::string clientFinal(std::string_view message);
  bool succeeded() const { return succeeded_; }

 private:
  enum class Step { ClientFirst, ClientFinal, Done } step_ = Step::ClientFirst;
  std::optional<Verifier> verifier_;
  Verifier mock_;
  std::string serverNonce_;
  std::string gs2Header_;
  std::string clientFirstBare_;
  std::string serverFirst_;
  std::string nonce_;  // the client's and the server's
  bool succeeded_ = false;
};

}  // namespace hyrax::scram
