#pragma once
// SQL types and their physical representation in storage, results and generated code.
//
//   BOOLEAN          uint8_t (0/1)
//   SMALLINT         int16_t
//   INTEGER          int32_t
//   BIGINT           int64_t
//   DECIMAL(p,s)     int64_t scaled by 10^s (p <= 18); intermediates 128-bit
//   REAL             float
//   DOUBLE PRECISION double
//   CHAR/VARCHAR/TEXT StringRef (16 bytes, see string_ref.hpp)
//   DATE             int32_t days since 1970-01-01
//   TIMESTAMP        int64_t microseconds since 1970-01-01 00:00:00 (timestamp.hpp says why 1970)
//   TIME             int64_t microseconds since midnight
//   INTERVAL         16 bytes: int64_t microseconds, int32_t days, int32_t months (interval.hpp)
//   ARRAY            StringRef holding the array's canonical text, PostgreSQL's output form
//                    ({1,2,NULL}, {a,"b c"}); one dimension, lower bound 1 (engine/types/array_text.hpp)
//   NULL (type of the NULL literal before it is given a type)
#include <cstdint>
#include <string>

namespace hyrax {

enum class TypeId : uint8_t { Null, Bool, Int16, Int32, Int64, Decimal, Float32, Float64, Char, Varchar, Text, Date, Timestamp, Time, Interval, Array };

struct SqlType {
  TypeId id = TypeId::Null;
  uint8_t precision = 0;  // DECIMAL only
  uint8_t scale = 0;      // DECIMAL only
  uint32_t length = 0;    // CHAR(n)/VARCHAR(n); 0 = unbounded
  bool nullable = true;
  // ARRAY only: the elements' type (SMALLINT, INTEGER, BIGINT or TEXT) and the array type's
  // PostgreSQL OID, which tells apart what has one element type here (int2vector 22 and _int2
  // 1005; oidvector 30, _oid 1028 and _int8 1016; _text 1009, _name 1003, _char 1002, _aclitem
  // 1034, _varchar 1015): what the server describes and pg_type lists.
  TypeId element = TypeId::Null;
  uint16_t arrayOid = 0;

  static constexpr uint8_t kMaxDecimalPrecision = 18;

  static SqlType null() { return {TypeId::Null}; }
  static SqlType boolean(bool nullable = true) { return {TypeId::Bool, 0, 0, 0, nullable}; }
  static SqlType int16(bool nullable = true) { return {TypeId::Int16, 0, 0, 0, nullable}; }
  static SqlType int32(bool nullable = true) { return {TypeId::Int32, 0, 0, 0, nullable}; }
  static SqlType int64(bool nullable = true) { return {TypeId::Int64, 0, 0, 0, nullable}; }
  static SqlType decimal(uint8_t p, uint8_t s, bool nullable = true) { return {TypeId::Decimal, p, s, 0, nullable}; }
  static SqlType float32(bool nullable = true) { return {TypeId::Float32, 0, 0, 0, nullable}; }
  static SqlType float64(bool nullable = true) { return {TypeId::Float64, 0, 0, 0, nullable}; }
  static SqlType charN(uint32_t n, bool nullable = true) { return {TypeId::Char, 0, 0, n, nullable}; }
  static SqlType varchar(uint32_t n, bool nullable = true) { return {TypeId::Varchar, 0, 0, n, nullable}; }
  static SqlType text(bool nullable = true) { return {TypeId::Text, 0, 0, 0, nullable}; }
  static SqlType date(bool nullable = true) { return {TypeId::Date, 0, 0, 0, nullable}; }
  static SqlType timestamp(bool nullable = true) { return {TypeId::Timestamp, 0, 0, 0, nullable}; }
  static SqlType time(bool nullable = true) { return {TypeId::Time, 0, 0, 0, nullable}; }
  static SqlType interval(bool nullable = true) { return {TypeId::Interval, 0, 0, 0, nullable}; }
  // An array of `element`; `pgOid` 0: the plain array type of the element (_int2, _int4, _int8, _text).
  static SqlType array(TypeId element, uint16_t pgOid = 0, bool nullable = true);

  SqlType withNullable(bool n) const {
    SqlType t = *this;
    t.nullable = n;
    return t;
  }

  bool isNull() const { return id == TypeId::Null; }
  bool isInteger() const { return id == TypeId::Int16 || id == TypeId::Int32 || id == TypeId::Int64; }
  bool isFloat() const { return id == TypeId::Float32 || id == TypeId::Float64; }
  bool isNumeric() const { return isInteger() || isFloat() || id == TypeId::Decimal; }
  bool isString() const { return id == TypeId::Char || id == TypeId::Varchar || id == TypeId::Text; }
  bool isArray() const { return id == TypeId::Array; }
  // Values held as a StringRef (in storage, result chunks, generated code): strings and arrays.
  bool isVarBytes() const { return isString() || isArray(); }
  // The type of one element of an array.
  SqlType elementType() const;
  bool isDateTime() const { return id == TypeId::Date || id == TypeId::Timestamp || id == TypeId::Time; }
  // Values of two 64-bit words in generated code (SqlValue::v and ::hi): strings and intervals.
  bool isTwoWords() const { return isVarBytes() || id == TypeId::Interval; }

  // Same type ignoring nullability.
  bool sameAs(const SqlType& o) const {
    return id == o.id && precision == o.precision && scale == o.scale && length == o.length && element == o.element &&
           arrayOid == o.arrayOid;
  }
  bool operator==(const SqlType& o) const { return sameAs(o) && nullable == o.nullable; }

  // Bytes one value takes in storage, result chunks and materialized rows. Inline: every value
  // access of the storage and the runtime computes it.
  uint32_t byteWidth() const {
    static constexpr uint8_t kWidths[] = {1, 1, 2, 4, 8, 8, 4, 8, 16, 16, 16, 4, 8, 8, 16, 16};
    static_assert(sizeof kWidths == static_cast<size_t>(TypeId::Array) + 1);
    return kWidths[static_cast<uint8_t>(id)];
  }
  // SQL spelling: "INTEGER", "DECIMAL(12,2)", "VARCHAR(25)".
  std::string name() const;
};

}  // namespace hyrax
