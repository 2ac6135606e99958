// SCRAM-SHA-256 (server/scram.hpp): RFC 7677's example exchange gives its exact messages, a wrong
// password fails, malformed messages fail with a clean error.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "engine/util/error.hpp"
#include "server/scram.hpp"
#include "test/sqlstate_of.hpp"

using namespace hyrax;
using test::sqlstateOf;

namespace {

// RFC 7677, section 3: user "user", password "pencil".
const std::string kSalt = *scram::base64Decode("W22ZaJ0SNY7soEsUEjb6gQ==");
const std::string kServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
const char* kClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
const char* kClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";

scram::Verifier pencil() { return *scram::parseVerifier(scram::makeVerifier("pencil", kSalt, 4096)); }

}  // namespace

TEST_CASE("base64 round-trips and refuses what is not base64", "[scram]") {
  CHECK(scram::base64Encode("n,,") == "biws");
  CHECK(scram::base64Encode("") == "");
  CHECK(scram::base64Encode("ab") == "YWI=");
  for (const std::string& s : std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)})
    CHECK(scram::base64Decode(scram::base64Encode(s)) == s);
  CHECK_FALSE(scram::base64Decode("YWI").has_value());
  CHECK_FALSE(scram::base64Decode("Y*I=").has_value());
  CHECK_FALSE(scram::base64Decode("=YWI").has_value());
}

TEST_CASE("verifiers have PostgreSQL's form and never hold the password", "[scram]") {
  std::string v = scram::makeVerifier("pencil");
  CHECK(v.rfind("SCRAM-SHA-256$4096:", 0) == 0);
  CHECK(v.find("pencil") == std::string::npos);
  auto parsed = scram::parseVerifier(v);
  REQUIRE(parsed);
  CHECK(parsed->iterations == 4096);
  CHECK(parsed->salt.size() == 16);
  CHECK(parsed->storedKey.size() == 32);
  CHECK(scram::makeVerifier("pencil") != v);  // a new random salt each time
  CHECK_FALSE(scram::parseVerifier("md5abc").has_value());
  CHECK_FALSE(scram::parseVerifier("SCRAM-SHA-256$x:YWI=$YWI=:YWI=").has_value());
  CHECK_FALSE(scram::parseVerifier("SCRAM-SHA-256$4096:YWI=$YWI=:YWI=").has_value());  // keys too short
}

TEST_CASE("RFC 7677's example exchange gives its exact messages", "[scram]") {
  scram::ServerExchange server(pencil(), kServerNonce);
  CHECK(server.clientFirst(kClientFirst) ==
        "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
  CHECK(server.clientFinal(kClientFinal) == "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
  CHECK(server.succeeded());
  // Nothing more is accepted.
  CHECK(sqlstateOf([&] { server.clientFinal(kClientFinal); }) == "08P01");
}

TEST_CASE("a wrong password, an unknown role or a changed message fails", "[scram]") {
  {
    scram::ServerExchange server(*scram::parseVerifier(scram::makeVerifier("pencil2", kSalt, 4096)), kServerNonce);
    server.clientFirst(kClientFirst);
    CHECK(sqlstateOf([&] { server.clientFinal(kClientFinal); }) == "28P01");
    CHECK_FALSE(server.succeeded());
  }
  {
    // No verifier: the exchange looks the same until the proof, which fails.
    scram::ServerExchange server(std::nullopt, kServerNonce);
    std::string first = server.clientFirst(kClientFirst);
    CHECK(first.find(",s=") != std::string::npos);
    CHECK(first.find(",i=4096") != std::string::npos);
    CHECK(sqlstateOf([&] { server.clientFinal(kClientFinal); }) == "28P01");
  }
  {
    // Another nonce than the one agreed.
    scram::ServerExchange server(pencil(), kServerNonce);
    server.clientFirst(kClientFirst);
    std::string wrongNonce = kClientFinal;
    wrongNonce.replace(wrongNonce.find("$k0"), 3, "$k1");
    CHECK(sqlstateOf([&] { server.clientFinal(wrongNonce); }) == "08P01");
  }
  {
    // A flipped bit of the proof.
    scram::ServerExchange server(pencil(), kServerNonce);
    server.clientFirst(kClientFirst);
    std::string badProof = kClientFinal;
    badProof[badProof.size() - 3] = 'W';
    CHECK(sqlstateOf([&] { server.clientFinal(badProof); }) == "28P01");
  }
}

TEST_CASE("malformed SCRAM messages fail cleanly", "[scram]") {
  auto first = [](const std::string& m) {
    return sqlstateOf([&] { scram::ServerExchange(pencil(), kServerNonce).clientFirst(m); });
  };
  CHECK(first("p=tls-server-end-point,,n=user,r=abc") == "08P01");  // channel binding required
  CHECK(first("") == "08P01");
  CHECK(first("n,") == "08P01");
  CHECK(first("x,,n=user,r=abc") == "08P01");
  CHECK(first("n,,r=abc") == "08P01");
  CHECK(first("n,,n=user") == "08P01");
  CHECK(first("n,,n=user,r=") == "08P01");
  CHECK(first("n,,n=user,r=a,b") == "08P01");
  CHECK(first("n,a=admin,n=user,r=abc") == "0A000");
  CHECK(first("n,,n=user,r=abc,m=ext") == "0A000");
  CHECK(first("y,,n=user,r=abc") == "no error");  // the client could bind, we cannot: fine

  auto final = [](const std::string& m) {
    scram::ServerExchange server(pencil(), kServerNonce);
    server.clientFirst(kClientFirst);
    return sqlstateOf([&] { server.clientFinal(m); });
  };
  const std::string nonce = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
  CHECK(final("") == "08P01");
  CHECK(final("c=biws," + nonce) == "08P01");                          // no proof
  CHECK(final("c=eSws," + nonce + ",p=AAAA") == "08P01");              // "y,," is not what the client sent
  CHECK(final("c=biws," + nonce + ",p=***") == "08P01");               // proof not base64
  CHECK(final("c=biws," + nonce + ",p=YWI=") == "08P01");              // proof too short
  CHECK(final(nonce + ",c=biws,p=YWI=") == "08P01");                   // out of order
  CHECK(sqlstateOf([] { scram::ServerExchange(pencil()).clientFinal(kClientFinal); }) == "08P01");  // before client-first
}
