#pragma once
// A single SQL value with its type, for constants, constant folding, result access and tests.
// Generated code never uses this; it works on the physical representations in sql_type.hpp.
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/types/sql_type.hpp"

namespace hyrax {

class Value {
 public:
  Value() = default;  // NULL of type Null
  static Value null(SqlType t) { Value v; v.type_ = t.withNullable(true); v.null_ = true; return v; }
  static Value boolean(bool b) { return integral(SqlType::boolean(false), b ? 1 : 0); }
  static Value int16(int16_t x) { return integral(SqlType::int16(false), x); }
  static Value int32(int32_t x) { return integral(SqlType::int32(false), x); }
  static Value int64(int64_t x) { return integral(SqlType::int64(false), x); }
  // `scaled` is the value times 10^scale.
  static Value decimal(int64_t scaled, uint8_t precision, uint8_t scale) {
    return integral(SqlType::decimal(precision, scale, false), scaled);
  }
  static Value date(int32_t days) { return integral(SqlType::date(false), days); }
  static Value timestamp(int64_t micros) { return integral(SqlType::timestamp(false), micros); }
  static Value time(int64_t micros) { return integral(SqlType::time(false), micros); }
  // An INTERVAL: microseconds as the integral payload, days and months as the second word
  // (text::Interval::high()).
  static Value interval(int64_t micros, uint64_t high) {
    Value v = integral(SqlType::interval(false), micros);
    v.hi_ = high;
    return v;
  }
  static Value float32(float f) { Value v; v.type_ = SqlType::float32(false); v.null_ = false; v.f_ = f; return v; }
  static Value float64(double f) { Value v; v.type_ = SqlType::float64(false); v.null_ = false; v.f_ = f; return v; }
  static Value string(std::string s, SqlType t = SqlType::text(false)) {
    Value v; v.type_ = t; v.null_ = false; v.s_ = std::move(s); return v;
  }

  const SqlType& type() const { return type_; }
  bool isNull() const { return null_; }

  // Integral payload: BOOLEAN (0/1), SMALLINT/INTEGER/BIGINT, DECIMAL (scaled), DATE (days),
  // TIMESTAMP and TIME (microseconds), INTERVAL's microseconds (its days and months: high()).
  int64_t asInt() const { return i_; }
  uint64_t high() const { return hi_; }
  bool asBool() const { return i_ != 0; }
  double asDouble() const { return f_; }  // REAL and DOUBLE PRECISION
  const std::string& asString() const { return s_; }

  // Value as a double whatever its numeric type (DECIMAL unscaled); for formatting and tests.
  double toDouble() const;
  // PostgreSQL's text output: 't'/'f', "12.50", "1998-12-01", shortest round-trip doubles; "NULL" for NULL.
  std::string toString() const;
  // A value from its physical representation (a table column, a result chunk): `p` points at
  // t.byteWidth() bytes; a string's characters are copied.
  static Value decode(const SqlType& t, const void* p);
  // The opposite: writes t.byteWidth() bytes (a non-NULL value already of type t). A string's
  // StringRef points at this Value's characters, so the Value must outlive it.
  void encode(const SqlType& t, void* dst) const;

 private:
  static Value integral(SqlType t, int64_t x) { Value v; v.type_ = t; v.null_ = false; v.i_ = x; return v; }

  SqlType type_ = SqlType::null();
  bool null_ = true;
  int64_t i_ = 0;
  uint64_t hi_ = 0;  // INTERVAL only
  double f_ = 0;
  std::string s_;
};

}  // namespace hyrax
