// The server's side of a SCRAM-SHA-256 exchange (scram.hpp).
#include "server/scram.hpp"

#include <openssl/crypto.h>

#include <vector>

#include "engine/util/error.hpp"

namespace hyrax::scram {

namespace {

constexpr size_t kNonceBytes = 18;  // PostgreSQL's SCRAM_RAW_NONCE_LEN

[[noreturn]] void malformed(const std::string& what) {
  throw Error(sqlstate::ProtocolViolation, "malformed SCRAM message (" + what + ")");
}

// The attributes of a message, "a=value,b=value,...", in order; malformed() when one is not.
std::vector<std::pair<char, std::string_view>> attributes(std::string_view message) {
  std::vector<std::pair<char, std::string_view>> out;
  size_t at = 0;
  while (at <= message.size()) {
    size_t comma = message.find(',', at);
    if (comma == std::string_view::npos) comma = message.size();
    std::string_view part = message.substr(at, comma - at);
    if (part.size() < 2 || part[1] != '=' || !((part[0] >= 'a' && part[0] <= 'z') || (part[0] >= 'A' && part[0] <= 'Z')))
      malformed("expected an attribute");
    out.emplace_back(part[0], part.substr(2));
    at = comma + 1;
  }
  return out;
}

bool printableNonce(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < 0x21 || c > 0x7e || c == ',') return false;
  return true;
}

}  // namespace

ServerExchange::ServerExchange(std::optional<Verifier> verifier)
    : ServerExchange(std::move(verifier), base64Encode(randomBytes(kNonceBytes))) {}

ServerExchange::ServerExchange(std::optional<Verifier> verifier, std::string serverNonce)
    : verifier_(std::move(verifier)), serverNonce_(std::move(serverNonce)) {
  if (!verifier_) {  // a made-up verifier no proof matches (keys of random bytes)
    mock_.iterations = kIterations;
    mock_.salt = randomBytes(kSaltBytes);
    mock_.storedKey = randomBytes(kKeyBytes);
    mock_.serverKey = randomBytes(kKeyBytes);
  }
}

std::string ServerExchange::clientFirst(std::string_view message) {
  if (step_ != Step::ClientFirst) malformed("unexpected client-first message");
  step_ = Step::Done;  // until it succeeds: a failed exchange takes no further message
  // gs2-header: "n,," or "y,," (the client could bind but thinks we cannot: we cannot);
  // "p=..." asks for channel binding, which this server does not offer; "a=" an authzid.
  if (message.size() < 3) malformed("too short");
  if (message[0] == 'p')
    throw Error(sqlstate::ProtocolViolation, "channel binding is not supported: the client must not require it");
  if ((message[0] != 'n' && message[0] != 'y') || message[1] != ',') malformed("bad GS2 header");
  if (message[2] != ',') {
    if (message.substr(2, 2) == "a=")
      throw Error(sqlstate::FeatureNotSupported, "client uses authorization identity, but it is not supported");
    malformed("bad GS2 header");
  }
  gs2Header_ = std::string(message.substr(0, 3));
  clientFirstBare_ = std::string(message.substr(3));
  auto attrs = attributes(clientFirstBare_);
  if (attrs.size() < 2 || attrs[0].first != 'n' || attrs[1].first != 'r') malformed("expected n= and r=");
  if (!printableNonce(attrs[1].second)) malformed("bad nonce");
  for (size_t i = 2; i < attrs.size(); ++i)
    if (attrs[i].first == 'm') throw Error(sqlstate::FeatureNotSupported, "SCRAM extensions are not supported");
  nonce_ = std::string(attrs[1].second) + serverNonce_;
  const Verifier& v = verifier_ ? *verifier_ : mock_;
  serverFirst_ = "r=" + nonce_ + ",s=" + base64Encode(v.salt) + ",i=" + std::to_string(v.iterations);
  step_ = Step::ClientFinal;
  return serverFirst_;
}

std::string ServerExchange::clientFinal(std::string_view message) {
  if (step_ != Step::ClientFinal) malformed("unexpected client-final message");
  step_ = Step::Done;
  auto attrs = attributes(message);
  if (attrs.size() < 3 || attrs[0].first != 'c' || attrs[1].first != 'r' || attrs.back().first != 'p')
    malformed("expected c=, r= and p=");
  if (attrs[0].second != base64Encode(gs2Header_)) malformed("unexpected channel binding");
  if (attrs[1].second != nonce_) malformed("wrong nonce");
  auto proof = base64Decode(attrs.back().second);
  if (!proof || proof->size() != kKeyBytes) malformed("bad proof");
  const std::string_view withoutProof = message.substr(0, message.rfind(",p="));
  const std::string authMessage = clientFirstBare_ + "," + serverFirst_ + "," + std::string(withoutProof);
  const Verifier& v = verifier_ ? *verifier_ : mock_;
  // ClientKey = proof XOR HMAC(StoredKey, AuthMessage); the proof holds if H(ClientKey) is StoredKey.
  std::string clientKey = hmacSha256(v.storedKey, authMessage);
  for (size_t i = 0; i < kKeyBytes; ++i) clientKey[i] = static_cast<char>(clientKey[i] ^ (*proof)[i]);
  const std::string stored = sha256(clientKey);
  const bool match = CRYPTO_memcmp(stored.data(), v.storedKey.data(), kKeyBytes) == 0;
  if (!match || !verifier_) throw Error(sqlstate::InvalidPassword, "password authentication failed");
  succeeded_ = true;
  return "v=" + base64Encode(hmacSha256(v.serverKey, authMessage));
}

}  // namespace hyrax::scram
