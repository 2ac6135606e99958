#pragma once
// SCRAM-SHA-256's stored verifier (RFC 5802, RFC 7677), in PostgreSQL's form, and the primitives
// the exchange (server/scram.hpp) shares with it: roles keep only this, never the password
// (sql/api/roles.hpp). On OpenSSL's PBKDF2, HMAC, SHA-256 and random bytes.
#include <optional>
#include <string>
#include <string_view>

namespace hyrax::scram {

inline constexpr int kIterations = 4096;  // PostgreSQL's scram_iterations default
inline constexpr size_t kSaltBytes = 16;
inline constexpr size_t kKeyBytes = 32;  // SHA-256's

// PostgreSQL's form: "SCRAM-SHA-256$<iterations>:<salt base64>$<StoredKey base64>:<ServerKey base64>".
// Passwords are used as given: no SASLprep (the same for ASCII passwords).
std::string makeVerifier(std::string_view password);  // a random salt, kIterations
std::string makeVerifier(std::string_view password, std::string_view salt, int iterations);

struct Verifier {
  int iterations = 0;
  std::string salt;       // raw bytes
  std::string storedKey;  // kKeyBytes raw bytes
  std::string serverKey;  // kKeyBytes raw bytes
};
std::optional<Verifier> parseVerifier(std::string_view text);  // nullopt if it is not one

std::string base64Encode(std::string_view bytes);
std::optional<std::string> base64Decode(std::string_view text);  // nullopt on bad characters or padding

std::string hmacSha256(std::string_view key, std::string_view data);
std::string sha256(std::string_view data);
std::string randomBytes(size_t n);  // from OpenSSL's CSPRNG; XX000 if it fails

}  // namespace hyrax::scram
