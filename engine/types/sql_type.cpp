#include "engine/types/sql_type.hpp"

namespace hyrax {

std::string SqlType::name() const {
  switch (id) {
    case TypeId::Null: return "NULL";
    case TypeId::Bool: return "BOOLEAN";
    case TypeId::Int16: return "SMALLINT";
    case TypeId::Int32: return "INTEGER";
    case TypeId::Int64: return "BIGINT";
    case TypeId::Decimal: return "DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
    case TypeId::Float32: return "REAL";
    case TypeId::Float64: return "DOUBLE PRECISION";
    case TypeId::Char: return "CHAR(" + std::to_string(length) + ")";
    case TypeId::Varchar: return length ? "VARCHAR(" + std::to_string(length) + ")" : "VARCHAR";
    case TypeId::Text: return "TEXT";
    case TypeId::Date: return "DATE";
    case TypeId::Timestamp: return "TIMESTAMP";
    case TypeId::Time: return "TIME";
    case TypeId::Interval: return "INTERVAL";
    case TypeId::Array: return elementType().name() + "[]";
  }
  return "?";
}

SqlType SqlType::array(TypeId element, uint16_t pgOid, bool nullable) {
  SqlType t{TypeId::Array, 0, 0, 0, nullable};
  t.element = element;
  t.arrayOid = pgOid ? pgOid
               : element == TypeId::Int16 ? 1005
               : element == TypeId::Int32 ? 1007
               : element == TypeId::Int64 ? 1016
                                          : 1009;
  return t;
}

SqlType SqlType::elementType() const {
  switch (element) {
    case TypeId::Int16: return int16();
    case TypeId::Int32: return int32();
    case TypeId::Int64: return int64();
    default: return text();
  }
}

}  // namespace hyrax
