#pragma once
// Values in PostgreSQL's wire formats: the type OIDs a RowDescription and ParameterDescription
// name, text format out (DataRow) and in (Bind), binary format out and in. Pure functions, no I/O.
// Errors are hyrax::Error with PostgreSQL's SQLSTATEs: 22P02 (bad text), 22P03 (malformed binary
// value: wrong length, bad numeric header), 22003/22008 (out of range), 22001, 22021.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/types/sql_type.hpp"
#include "engine/types/value.hpp"

namespace hyrax::pg {

// PostgreSQL's type OIDs (pg_type.oid, fixed since 7.x) of the types hyrax has.
namespace oid {
inline constexpr uint32_t Bool = 16, Int8 = 20, Int2 = 21, Int4 = 23, Text = 25, Float4 = 700, Float8 = 701,
                          Unknown = 705, Bpchar = 1042, Varchar = 1043, Date = 1082, Time = 1083, Timestamp = 1114,
                          Interval = 1186, Numeric = 1700;
}

// The OID of a hyrax type (NULL's type: unknown, 705).
uint32_t typeOid(const SqlType& t);
// The hyrax type of an OID in Parse's parameter types; nullopt for 0 (unspecified: inferred) and
// unknown; 0A000 for a type hyrax does not have. NUMERIC without a modifier becomes DECIMAL(18,6).
std::optional<SqlType> typeFromOid(uint32_t oid);
// RowDescription's type size (-1: variable) and type modifier (-1: none; VARCHAR(n), CHAR(n):
// n + 4; NUMERIC(p,s): (p << 16 | s) + 4).
int16_t typeSize(const SqlType& t);
int32_t typeModifier(const SqlType& t);

// Text format: PostgreSQL's output ('t'/'f' for booleans, CHAR(n) blank-padded to n) and input
// (hyrax's own parsing of each type's text, as COPY and CAST read it). Not for NULL values.
std::string textOut(const Value& v);
Value textIn(std::string_view text, const SqlType& t);

// Binary format (PostgreSQL's send/recv functions): big-endian integers and IEEE floats, NUMERIC
// as base-10000 digits, DATE as days and TIMESTAMP as microseconds since 2000-01-01, TIME as
// microseconds of the day, INTERVAL as microseconds, days, months. Not for NULL values.
std::string binaryOut(const Value& v);
Value binaryIn(std::string_view bytes, const SqlType& t);

}  // namespace hyrax::pg
