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
  }
  return "?";
}

}  // namespace hyrax
