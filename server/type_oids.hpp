#pragma once
// hyrax's SQL types as PostgreSQL's pg_type knows them: the OID, length and type modifier a
// RowDescription names for each column. A file of its own so the binary codecs (pg_types) and
// pg_catalog can use the same mapping.
#include <cstdint>

#include "engine/types/sql_type.hpp"

namespace hyrax::server {

namespace oid {
inline constexpr uint32_t Bool = 16, Int8 = 20, Int2 = 21, Int4 = 23, Text = 25, Float4 = 700, Float8 = 701,
                          Bpchar = 1042, Varchar = 1043, Date = 1082, Time = 1083, Timestamp = 1114,
                          Interval = 1186, Numeric = 1700, Unknown = 705;
}

struct PgTypeInfo {
  uint32_t oid;
  int16_t length;    // pg_type.typlen: bytes of a fixed-width value, -1 for variable width
  int32_t modifier;  // atttypmod: VARCHAR(n)/CHAR(n): n + 4; NUMERIC(p,s): (p << 16 | s) + 4; else -1
};

PgTypeInfo pgType(const SqlType& type);

}  // namespace hyrax::server
