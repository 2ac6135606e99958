// Ground truth from a throwaway PostgreSQL (bench/pg_server.hpp, on a Unix socket in a temp dir):
// it sends each value in binary and text format, and server/pg_types must produce the same bytes;
// the SCRAM verifier it stores for a password is the one sql/api/scram_verifier makes from the
// same salt. Skipped where PostgreSQL's server programs are not installed.
#include <catch2/catch.hpp>

#include <libpq-fe.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench/pg_server.hpp"
#include "engine/types/interval.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"
#include "server/pg_types.hpp"
#include "sql/api/scram_verifier.hpp"

using namespace hyrax;

namespace {

// The one value `SELECT expr` returns, in the given format (0 text, 1 binary), and its type OID.
std::pair<std::string, uint32_t> fetch(PGconn* conn, const std::string& expr, int format) {
  std::unique_ptr<PGresult, decltype(&PQclear)> r(
      PQexecParams(conn, ("SELECT " + expr).c_str(), 0, nullptr, nullptr, nullptr, nullptr, format), &PQclear);
  REQUIRE(PQresultStatus(r.get()) == PGRES_TUPLES_OK);
  return {std::string(PQgetvalue(r.get(), 0, 0), static_cast<size_t>(PQgetlength(r.get(), 0, 0))), PQftype(r.get(), 0)};
}

text::Interval interval(const char* s) { return text::parseInterval(s); }

}  // namespace

TEST_CASE("PostgreSQL 15 sends the bytes pg_types makes and stores the SCRAM verifier scram makes", "[pg_types][postgres]") {
  if (!bench::PgServer::available()) {
    WARN("PostgreSQL's server programs are not installed: skipped");
    return;
  }
  std::string dir = (std::filesystem::temp_directory_path() / ("hyrax_pg_types_" + std::to_string(getpid()))).string();
  bench::PgServer server(dir);
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(server.connectionString().c_str()), &PQfinish);
  REQUIRE(PQstatus(conn.get()) == CONNECTION_OK);

  PQclear(PQexec(conn.get(), "SET password_encryption = 'scram-sha-256'"));
  PQclear(PQexec(conn.get(), "CREATE ROLE pencil_user PASSWORD 'pencil'"));
  const std::string stored = fetch(conn.get(), "rolpassword FROM pg_authid WHERE rolname = 'pencil_user'", 0).first;
  auto verifier = scram::parseVerifier(stored);
  REQUIRE(verifier);
  CHECK(verifier->iterations == scram::kIterations);
  CHECK(verifier->salt.size() == scram::kSaltBytes);
  CHECK(scram::makeVerifier("pencil", verifier->salt, verifier->iterations) == stored);

  const text::Interval iv = interval("1 year 2 mons -3 days 04:05:06.7");
  const std::vector<std::pair<std::string, Value>> cases = {
      {"true", Value::boolean(true)},
      {"false", Value::boolean(false)},
      {"(-2)::int2", Value::int16(-2)},
      {"2147483647::int4", Value::int32(2147483647)},
      {"(-9223372036854775808)::int8", Value::int64(INT64_MIN)},
      {"1.5::float4", Value::float32(1.5f)},
      {"0.1::float8", Value::float64(0.1)},
      {"'-Infinity'::float8", Value::float64(-INFINITY)},
      {"12.34::numeric(4,2)", Value::decimal(1234, 4, 2)},
      {"(-0.0001)::numeric(5,4)", Value::decimal(-1, 5, 4)},
      {"0::numeric(5,2)", Value::decimal(0, 5, 2)},
      {"10000::numeric(10,0)", Value::decimal(10000, 10, 0)},
      {"123456789.5::numeric(12,1)", Value::decimal(1234567895, 12, 1)},
      {"(-999999999999999.999)::numeric(18,3)", Value::decimal(-999999999999999999, 18, 3)},
      {"0.50::numeric(3,2)", Value::decimal(50, 3, 2)},
      {"'héllo, wörld'::text", Value::string("héllo, wörld")},
      {"'ab'::varchar(5)", Value::string("ab", SqlType::varchar(5, false))},
      {"'ab'::char(4)", Value::string("ab", SqlType::charN(4, false))},
      {"'2024-02-29'::date", Value::date(text::daysFromCivil(2024, 2, 29))},
      {"'1901-01-01'::date", Value::date(text::daysFromCivil(1901, 1, 1))},
      {"'2024-02-29 12:34:56.5'::timestamp", Value::timestamp(text::parseTimestamp("2024-02-29 12:34:56.5"))},
      {"'1960-05-01 00:00:00.000001'::timestamp", Value::timestamp(text::parseTimestamp("1960-05-01 00:00:00.000001"))},
      {"'13:14:15.5'::time", Value::time(text::parseTime("13:14:15.5"))},
      {"'1 year 2 mons -3 days 04:05:06.7'::interval", Value::interval(iv.micros, iv.high())},
  };
  for (const auto& [expr, value] : cases) {
    INFO(expr);
    auto [binary, oid] = fetch(conn.get(), expr, 1);
    CHECK(oid == pg::typeOid(value.type()));
    CHECK(pg::binaryOut(value) == binary);
    CHECK(pg::binaryIn(binary, value.type()).toString() == value.toString());
    CHECK(pg::textOut(value) == fetch(conn.get(), expr, 0).first);
  }
}
