// PostgreSQL's wire formats (server/pg_types.hpp): the exact bytes PostgreSQL sends for known
// values, round trips of every type, and malformed input refused with 22P03, never a crash.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>

#include "engine/types/interval.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"
#include "engine/util/error.hpp"
#include "server/pg_types.hpp"
#include "test/sqlstate_of.hpp"

using namespace hyrax;
using test::sqlstateOf;

namespace {

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(static_cast<char>(x));
  return s;
}

Value roundTrip(const Value& v) { return pg::binaryIn(pg::binaryOut(v), v.type()); }

}  // namespace

TEST_CASE("type OIDs, sizes and modifiers are PostgreSQL's", "[pg_types]") {
  CHECK(pg::typeOid(SqlType::boolean()) == 16);
  CHECK(pg::typeOid(SqlType::int16()) == 21);
  CHECK(pg::typeOid(SqlType::int32()) == 23);
  CHECK(pg::typeOid(SqlType::int64()) == 20);
  CHECK(pg::typeOid(SqlType::decimal(8, 2)) == 1700);
  CHECK(pg::typeOid(SqlType::float64()) == 701);
  CHECK(pg::typeOid(SqlType::varchar(10)) == 1043);
  CHECK(pg::typeOid(SqlType::charN(3)) == 1042);
  CHECK(pg::typeOid(SqlType::timestamp()) == 1114);
  CHECK(pg::typeOid(SqlType::interval()) == 1186);
  CHECK(pg::typeModifier(SqlType::decimal(8, 2)) == (8 << 16 | 2) + 4);
  CHECK(pg::typeModifier(SqlType::varchar(10)) == 14);
  CHECK(pg::typeModifier(SqlType::text()) == -1);
  CHECK(pg::typeSize(SqlType::int64()) == 8);
  CHECK(pg::typeSize(SqlType::text()) == -1);
  // Parse's OIDs: 0 leaves the type to inference; unknown ones are refused.
  CHECK_FALSE(pg::typeFromOid(0).has_value());
  CHECK(pg::typeFromOid(23)->id == TypeId::Int32);
  CHECK(pg::typeFromOid(1700)->id == TypeId::Decimal);
  for (auto t : {SqlType::boolean(), SqlType::int16(), SqlType::int32(), SqlType::int64(), SqlType::float32(),
                 SqlType::float64(), SqlType::text(), SqlType::date(), SqlType::timestamp(), SqlType::time(),
                 SqlType::interval()})
    CHECK(pg::typeFromOid(pg::typeOid(t))->id == t.id);
  CHECK(sqlstateOf([] { pg::typeFromOid(3802); }) == "0A000");  // jsonb
}

TEST_CASE("text format out is PostgreSQL's wire text", "[pg_types]") {
  CHECK(pg::textOut(Value::boolean(true)) == "t");
  CHECK(pg::textOut(Value::boolean(false)) == "f");
  CHECK(pg::textOut(Value::decimal(1250, 6, 2)) == "12.50");
  CHECK(pg::textOut(Value::float64(0.1)) == "0.1");
  CHECK(pg::textOut(Value::float64(INFINITY)) == "Infinity");
  CHECK(pg::textOut(Value::string("ab", SqlType::charN(4, false))) == "ab  ");  // bpchar is padded
  CHECK(pg::textOut(Value::date(text::daysFromCivil(1998, 12, 1))) == "1998-12-01");
  CHECK(pg::textOut(Value::timestamp(text::parseTimestamp("2024-02-29 12:34:56.5"))) == "2024-02-29 12:34:56.5");
}

TEST_CASE("text format in uses hyrax's parsing and its errors", "[pg_types]") {
  CHECK(pg::textIn("42", SqlType::int32()).asInt() == 42);
  CHECK(pg::textIn("t", SqlType::boolean()).asBool());
  CHECK_FALSE(pg::textIn("false", SqlType::boolean()).asBool());
  CHECK(pg::textIn("12.345", SqlType::decimal(8, 2)).asInt() == 1235);  // rounded to the scale
  CHECK(pg::textIn("2020-02-29", SqlType::date()).asInt() == text::daysFromCivil(2020, 2, 29));
  CHECK(pg::textIn(" x ", SqlType::text()).asString() == " x ");  // text keeps its blanks
  // A zone offset on a DATE or TIMESTAMP is ignored, as PostgreSQL does (pgjdbc's setDate and
  // setTimestamp send one); a date's own "-29" is not an offset.
  CHECK(pg::textIn("2020-02-29 +00", SqlType::date()).asInt() == text::daysFromCivil(2020, 2, 29));
  CHECK(pg::textIn("2020-02-29 03:04:05.5+02", SqlType::timestamp()).asInt() ==
        pg::textIn("2020-02-29 03:04:05.5", SqlType::timestamp()).asInt());
  CHECK(pg::textIn("2020-02-29 03:04:05-08:30", SqlType::timestamp()).asInt() ==
        pg::textIn("2020-02-29 03:04:05", SqlType::timestamp()).asInt());
  CHECK(sqlstateOf([] { pg::textIn("2020-02-29 03:04:05+x", SqlType::timestamp()); }).substr(0, 2) == "22");
  CHECK(pg::textIn("ab  ", SqlType::charN(4)).asString() == "ab");
  CHECK(sqlstateOf([] { pg::textIn("4x", SqlType::int32()); }) == "22P02");
  CHECK(sqlstateOf([] { pg::textIn("99999", SqlType::int16()); }) == "22003");
  CHECK(sqlstateOf([] { pg::textIn("maybe", SqlType::boolean()); }) == "22P02");
  CHECK(sqlstateOf([] { pg::textIn("abcd", SqlType::varchar(3)); }) == "22001");
  CHECK(sqlstateOf([] { pg::textIn("\xff", SqlType::text()); }) == "22021");
  CHECK(sqlstateOf([] { pg::textIn("2020-13-01", SqlType::date()); }).substr(0, 3) == "220");
}

TEST_CASE("binary format out has PostgreSQL's exact bytes", "[pg_types]") {
  CHECK(pg::binaryOut(Value::boolean(true)) == bytes({1}));
  CHECK(pg::binaryOut(Value::int16(-2)) == bytes({0xff, 0xfe}));
  CHECK(pg::binaryOut(Value::int32(1)) == bytes({0, 0, 0, 1}));
  CHECK(pg::binaryOut(Value::int64(-2)) == bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}));
  CHECK(pg::binaryOut(Value::float64(1.5)) == bytes({0x3f, 0xf8, 0, 0, 0, 0, 0, 0}));
  CHECK(pg::binaryOut(Value::float32(1.5f)) == bytes({0x3f, 0xc0, 0, 0}));
  CHECK(pg::binaryOut(Value::string("héllo")) == "héllo");
  CHECK(pg::binaryOut(Value::string("ab", SqlType::charN(3, false))) == "ab ");
  // DATE: days since 2000-01-01; TIMESTAMP: microseconds since then.
  CHECK(pg::binaryOut(Value::date(text::daysFromCivil(2000, 1, 1))) == bytes({0, 0, 0, 0}));
  CHECK(pg::binaryOut(Value::date(text::daysFromCivil(1999, 12, 31))) == bytes({0xff, 0xff, 0xff, 0xff}));
  CHECK(pg::binaryOut(Value::timestamp(text::parseTimestamp("2000-01-01 00:00:01"))) ==
        bytes({0, 0, 0, 0, 0, 0x0f, 0x42, 0x40}));
  CHECK(pg::binaryOut(Value::time(1'000'000)) == bytes({0, 0, 0, 0, 0, 0x0f, 0x42, 0x40}));
  // INTERVAL '1 mon 2 days 00:00:03': microseconds, days, months.
  text::Interval iv = text::parseInterval("1 mon 2 days 3 seconds");
  CHECK(pg::binaryOut(Value::interval(iv.micros, iv.high())) ==
        bytes({0, 0, 0, 0, 0, 0x2d, 0xc6, 0xc0, 0, 0, 0, 2, 0, 0, 0, 1}));
}

TEST_CASE("NUMERIC's binary form: base-10000 digits, weight, sign, display scale", "[pg_types]") {
  // 12.34: ndigits 2, weight 0, sign 0, dscale 2, digits 12, 3400.
  CHECK(pg::binaryOut(Value::decimal(1234, 4, 2)) == bytes({0, 2, 0, 0, 0, 0, 0, 2, 0, 12, 0x0d, 0x48}));
  // 0.00: no digits, the display scale kept.
  CHECK(pg::binaryOut(Value::decimal(0, 5, 2)) == bytes({0, 0, 0, 0, 0, 0, 0, 2}));
  // -0.0001: weight -1, negative.
  CHECK(pg::binaryOut(Value::decimal(-1, 5, 4)) == bytes({0, 1, 0xff, 0xff, 0x40, 0, 0, 4, 0, 1}));
  // 10000: one digit of weight 1 (trailing zero digits dropped).
  CHECK(pg::binaryOut(Value::decimal(10000, 10, 0)) == bytes({0, 1, 0, 1, 0, 0, 0, 0, 0, 1}));
  // 123456789.5: digits 1, 2345, 6789, 5000, weight 2.
  CHECK(pg::binaryOut(Value::decimal(1234567895, 12, 1)) ==
        bytes({0, 4, 0, 2, 0, 0, 0, 1, 0, 1, 0x09, 0x29, 0x1a, 0x85, 0x13, 0x88}));
  // The largest magnitude a DECIMAL(18) has, both signs (INT64_MIN's magnitude is no problem).
  for (int64_t x : {INT64_C(999999999999999999), INT64_C(-999999999999999999)}) {
    Value v = Value::decimal(x, 18, 3);
    CHECK(roundTrip(v).asInt() == x);
  }
  // INT64_MIN (no DECIMAL(18) value, but the scaled integer's extreme) has 19 digits: 922 3372 0368 5477 5808.
  CHECK(pg::binaryOut(Value::decimal(INT64_MIN, 18, 0)) ==
        bytes({0, 5, 0, 4, 0x40, 0, 0, 0, 0x03, 0x9a, 0x0d, 0x2c, 0x01, 0x70, 0x15, 0x65, 0x16, 0xb0}));

  // In: rounded to the parameter's scale, checked against its precision.
  SqlType d52 = SqlType::decimal(5, 2);
  CHECK(pg::binaryIn(bytes({0, 2, 0, 0, 0, 0, 0, 3, 0, 1, 0x09, 0x2e}), d52).asInt() == 124);  // 1.2350 -> 1.24
  CHECK(pg::binaryIn(bytes({0, 1, 0xff, 0xfe, 0x40, 0, 0, 8, 0, 5}), d52).asInt() == 0);      // -0.00000005
  CHECK(sqlstateOf([&] { pg::binaryIn(bytes({0, 1, 0, 1, 0, 0, 0, 0, 0, 1}), d52); }) == "22003");  // 10000
  CHECK(sqlstateOf([&] { pg::binaryIn(bytes({0, 1, 0x7f, 0, 0, 0, 0, 0, 0, 1}), d52); }) == "22003");  // huge weight
  CHECK(sqlstateOf([&] { pg::binaryIn(bytes({0, 0, 0, 0, 0xc0, 0, 0, 0}), d52); }) == "22003");  // NaN
  CHECK(pg::binaryIn(bytes({0, 1, 0x80, 0, 0, 0, 0, 0, 0, 1}), d52).asInt() == 0);  // 10000^-32768: zero
}

TEST_CASE("binary values round-trip through every type", "[pg_types]") {
  for (const Value& v :
       {Value::boolean(true), Value::boolean(false), Value::int16(-32768), Value::int32(2147483647),
        Value::int64(INT64_MIN), Value::float32(-0.25f), Value::float64(1e300), Value::decimal(-123456, 9, 3),
        Value::string("x, y"), Value::string("abc", SqlType::varchar(3, false)), Value::string("ab", SqlType::charN(5, false)),
        Value::date(text::kMinDate), Value::date(text::kMaxDate), Value::timestamp(text::parseTimestamp("1970-01-01 00:00:00")),
        Value::timestamp(text::parseTimestamp("9999-12-31 23:59:59.999999")), Value::time(86'399'999'999),
        Value::interval(-5, text::Interval{0, -3, 14}.high())}) {
    INFO(v.toString());
    Value back = roundTrip(v);
    CHECK(back.type().sameAs(v.type()));
    CHECK(back.toString() == v.toString());
  }
  CHECK(std::isnan(roundTrip(Value::float64(NAN)).asDouble()));
}

TEST_CASE("malformed binary input is 22P03 (or out of range), never a crash", "[pg_types]") {
  CHECK(sqlstateOf([] { pg::binaryIn(bytes({0, 0, 1}), SqlType::int32()); }) == "22P03");
  CHECK(sqlstateOf([] { pg::binaryIn(bytes({0, 0, 0, 0, 1}), SqlType::int32()); }) == "22P03");
  CHECK(sqlstateOf([] { pg::binaryIn("", SqlType::boolean()); }) == "22P03");
  CHECK(sqlstateOf([] { pg::binaryIn(bytes({0, 1}), SqlType::int64()); }) == "22P03");
  CHECK(sqlstateOf([] { pg::binaryIn(bytes({0, 0, 0, 0}), SqlType::float64()); }) == "22P03");
  CHECK(sqlstateOf([] { pg::binaryIn(bytes({0, 0, 0, 0, 0, 0, 0, 0}), SqlType::interval()); }) == "22P03");
  SqlType d = SqlType::decimal(10, 2);
  CHECK(sqlstateOf([&] { pg::binaryIn(bytes({0, 2, 0, 0}), d); }) == "22P03");                          // header cut
  CHECK(sqlstateOf([&] { pg::binaryIn(bytes({0, 3, 0, 0, 0, 0, 0, 2, 0, 1}), d); }) == "22P03");        // digits missing
  CHECK(sqlstateOf([&] { pg::binaryIn(bytes({0, 1, 0, 0, 0, 0, 0, 2, 0, 1, 0}), d); }) == "22P03");     // a byte too many
  CHECK(sqlstateOf([&] { pg::binaryIn(bytes({0, 1, 0, 0, 0, 0, 0, 2, 0x27, 0x10}), d); }) == "22P03");  // digit 10000
  CHECK(sqlstateOf([&] { pg::binaryIn(bytes({0xff, 0xff, 0, 0, 0, 0, 0, 2}), d); }) == "22P03");        // ndigits -1
  CHECK(sqlstateOf([&] { pg::binaryIn(bytes({0, 0, 0, 0, 0x12, 0x34, 0, 2}), d); }) == "22P03");        // bad sign
  // PostgreSQL's infinities are outside DATE's and TIMESTAMP's range.
  CHECK(sqlstateOf([] { pg::binaryIn(bytes({0x7f, 0xff, 0xff, 0xff}), SqlType::date()); }) == "22008");
  CHECK(sqlstateOf([] { pg::binaryIn(bytes({0x80, 0, 0, 0, 0, 0, 0, 0}), SqlType::timestamp()); }) == "22008");
  CHECK(sqlstateOf([] { pg::binaryIn(bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}), SqlType::time()); }) == "22008");
  CHECK(sqlstateOf([] { pg::binaryIn("\xc3", SqlType::text()); }) == "22021");
  CHECK(sqlstateOf([] { pg::binaryIn("abcd", SqlType::varchar(3)); }) == "22001");
  // Every prefix of a good value is refused cleanly.
  std::string good = pg::binaryOut(Value::decimal(1234567895, 12, 1));
  for (size_t n = 0; n < good.size(); ++n) CHECK(sqlstateOf([&] { pg::binaryIn(good.substr(0, n), SqlType::decimal(12, 1)); }) == "22P03");
}
