// SCRAM-SHA-256 (scram.hpp) on OpenSSL's PBKDF2, HMAC and SHA-256.
#include "server/scram.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <vector>

#include "engine/util/error.hpp"

namespace hyrax::scram {

namespace {

constexpr const char* kPrefix = "SCRAM-SHA-256$";
constexpr size_t kKeyBytes = SHA256_DIGEST_LENGTH;
constexpr size_t kNonceBytes = 18;  // PostgreSQL's SCRAM_RAW_NONCE_LEN

[[noreturn]] void malformed(const std::string& what) {
  throw Error(sqlstate::ProtocolViolation, "malformed SCRAM message (" + what + ")");
}

std::string randomBytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1)
    throw Error(sqlstate::InternalError, "could not generate random bytes");
  return out;
}

std::string hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
            data.size(), out, &len))
    throw Error(sqlstate::InternalError, "HMAC failed");
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string sha256(std::string_view data) {
  unsigned char out[kKeyBytes];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out);
  return std::string(reinterpret_cast<char*>(out), kKeyBytes);
}

std::string saltedPassword(std::string_view password, std::string_view salt, int iterations) {
  std::string out(kKeyBytes, '\0');
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()), static_cast<int>(salt.size()), iterations,
                        EVP_sha256(), static_cast<int>(kKeyBytes), reinterpret_cast<unsigned char*>(out.data())) != 1)
    throw Error(sqlstate::InternalError, "PBKDF2 failed");
  return out;
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

std::string base64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[n >> 18 & 63];
    out += kAlphabet[n >> 12 & 63];
    out += i + 1 < bytes.size() ? kAlphabet[n >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

std::optional<std::string> base64Decode(std::string_view text) {
  if (text.size() % 4) return std::nullopt;
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int pad = 0;
    if (last && text[i + 3] == '=') pad = text[i + 2] == '=' ? 2 : 1;
    uint32_t n = 0;
    for (int k = 0; k < 4; ++k) {
      int v = k >= 4 - pad ? 0 : value(text[i + static_cast<size_t>(k)]);
      if (v < 0) return std::nullopt;
      n = n << 6 | static_cast<uint32_t>(v);
    }
    out += static_cast<char>(n >> 16 & 0xff);
    if (pad < 2) out += static_cast<char>(n >> 8 & 0xff);
    if (pad < 1) out += static_cast<char>(n & 0xff);
  }
  return out;
}

std::string makeVerifier(std::string_view password) { return makeVerifier(password, randomBytes(kSaltBytes), kIterations); }

std::string makeVerifier(std::string_view password, std::string_view salt, int iterations) {
  std::string salted = saltedPassword(password, salt, iterations);
  std::string storedKey = sha256(hmac(salted, "Client Key"));
  std::string serverKey = hmac(salted, "Server Key");
  return kPrefix + std::to_string(iterations) + ":" + base64Encode(salt) + "$" + base64Encode(storedKey) + ":" +
         base64Encode(serverKey);
}

std::optional<Verifier> parseVerifier(std::string_view text) {
  std::string_view prefix = kPrefix;
  if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
  text.remove_prefix(prefix.size());
  size_t colon = text.find(':'), dollar = text.find('$');
  if (colon == std::string_view::npos || dollar == std::string_view::npos || colon > dollar) return std::nullopt;
  size_t colon2 = text.find(':', dollar);
  if (colon2 == std::string_view::npos) return std::nullopt;
  Verifier v;
  std::string_view iterations = text.substr(0, colon);
  if (iterations.empty() || iterations.size() > 9) return std::nullopt;
  for (char c : iterations) {
    if (c < '0' || c > '9') return std::nullopt;
    v.iterations = v.iterations * 10 + (c - '0');
  }
  auto salt = base64Decode(text.substr(colon + 1, dollar - colon - 1));
  auto stored = base64Decode(text.substr(dollar + 1, colon2 - dollar - 1));
  auto server = base64Decode(text.substr(colon2 + 1));
  if (v.iterations < 1 || !salt || salt->empty() || !stored || !server || stored->size() != kKeyBytes ||
      server->size() != kKeyBytes)
    return std::nullopt;
  v.salt = std::move(*salt);
  v.storedKey = std::move(*stored);
  v.serverKey = std::move(*server);
  return v;
}

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
  std::string clientKey = hmac(v.storedKey, authMessage);
  for (size_t i = 0; i < kKeyBytes; ++i) clientKey[i] = static_cast<char>(clientKey[i] ^ (*proof)[i]);
  const std::string stored = sha256(clientKey);
  const bool match = CRYPTO_memcmp(stored.data(), v.storedKey.data(), kKeyBytes) == 0;
  if (!match || !verifier_) throw Error(sqlstate::InvalidPassword, "password authentication failed");
  succeeded_ = true;
  return "v=" + base64Encode(hmac(v.serverKey, authMessage));
}

}  // namespace hyrax::scram
