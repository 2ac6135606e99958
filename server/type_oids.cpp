#include "server/type_oids.hpp"

namespace hyrax::server {

PgTypeInfo pgType(const SqlType& t) {
  // PostgreSQL's VARHDRSZ: type modifiers of length-limited types count the 4-byte header.
  constexpr int32_t kHeader = 4;
  switch (t.id) {
    case TypeId::Bool: return {oid::Bool, 1, -1};
    case TypeId::Int16: return {oid::Int2, 2, -1};
    case TypeId::Int32: return {oid::Int4, 4, -1};
    case TypeId::Int64: return {oid::Int8, 8, -1};
    case TypeId::Decimal: return {oid::Numeric, -1, ((int32_t{t.precision} << 16) | t.scale) + kHeader};
    case TypeId::Float32: return {oid::Float4, 4, -1};
    case TypeId::Float64: return {oid::Float8, 8, -1};
    case TypeId::Char: return {oid::Bpchar, -1, t.length ? static_cast<int32_t>(t.length) + kHeader : -1};
    case TypeId::Varchar: return {oid::Varchar, -1, t.length ? static_cast<int32_t>(t.length) + kHeader : -1};
    case TypeId::Text: return {oid::Text, -1, -1};
    case TypeId::Date: return {oid::Date, 4, -1};
    case TypeId::Time: return {oid::Time, 8, -1};
    case TypeId::Timestamp: return {oid::Timestamp, 8, -1};
    case TypeId::Interval: return {oid::Interval, 16, -1};
    // SELECT NULL: PostgreSQL resolves an untyped literal in a select list to text.
    case TypeId::Null: return {oid::Text, -1, -1};
  }
  return {oid::Text, -1, -1};
}

}  // namespace hyrax::server
