// SCRAM-SHA-256's stored verifier (scram_verifier.hpp) on OpenSSL.
#include "sql/api/scram_verifier.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "engine/util/error.hpp"

namespace hyrax::scram {

namespace {

constexpr const char* kPrefix = "SCRAM-SHA-256$";

std::string saltedPassword(std::string_view password, std::string_view salt, int iterations) {
  std::string out(kKeyBytes, '\0');
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()), static_cast<int>(salt.size()), iterations,
                        EVP_sha256(), static_cast<int>(kKeyBytes), reinterpret_cast<unsigned char*>(out.data())) != 1)
    throw Error(sqlstate::InternalError, "PBKDF2 failed");
  return out;
}

}  // namespace

std::string randomBytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1)
    throw Error(sqlstate::InternalError, "could not generate random bytes");
  return out;
}

std::string hmacSha256(std::string_view key, std::string_view data) {
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
  std::string storedKey = sha256(hmacSha256(salted, "Client Key"));
  std::string serverKey = hmacSha256(salted, "Server Key");
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

}  // namespace hyrax::scram
