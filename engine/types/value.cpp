#include "engine/types/value.hpp"

#include "engine/types/text_format.hpp"

namespace hyrax {

double Value::toDouble() const {
  if (type_.isFloat()) return f_;
  if (type_.id == TypeId::Decimal) return static_cast<double>(i_) / static_cast<double>(text::pow10(type_.scale));
  if (type_.isString()) return 0;
  return static_cast<double>(i_);
}

std::string Value::toString() const {
  if (null_) return "NULL";
  switch (type_.id) {
    case TypeId::Null: return "NULL";
    case TypeId::Bool: return i_ ? "true" : "false";
    case TypeId::Int16:
    case TypeId::Int32:
    case TypeId::Int64: return std::to_string(i_);
    case TypeId::Decimal: return text::formatDecimal(i_, type_.scale);
    case TypeId::Float32: return text::formatFloat(static_cast<float>(f_));
    case TypeId::Float64: return text::formatDouble(f_);
    case TypeId::Date: return text::formatDate(static_cast<int32_t>(i_));
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Text: return s_;
  }
  return "?";
}

}  // namespace hyrax
