#include "engine/types/sql_type.hpp"

namespace hyrax {

uint32_t SqlType::byteWidth() const {
  switch (id) {
    case TypeId::Null:
    case TypeId::Bool: return 1;
    case TypeId::Int16: return 2;
    case TypeId::Int32:
    case TypeId::Float32:
    case TypeId::Date: return 4;
    case TypeId::Int64:
    case TypeId::Decimal:
    case TypeId::Float64: return 8;
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Text: return 16;
  }
  return 8;
}

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
  }
  return "?";
}

}  // namespace hyrax
