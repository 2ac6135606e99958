#include "engine/types/value.hpp"

#include "engine/types/array_text.hpp"
#include "engine/types/interval.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"

#include <cstring>

namespace hyrax {

double Value::toDouble() const {
  if (type_.isFloat()) return f_;
  if (type_.id == TypeId::Decimal) return text::decimalToDouble(i_, type_.scale);
  if (type_.isVarBytes()) return 0;
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
    case TypeId::Timestamp: return text::formatTimestamp(i_);
    case TypeId::Time: return text::formatTime(i_);
    case TypeId::Interval: return text::formatInterval(text::Interval::fromWords(i_, hi_));
    case TypeId::Char:
    case TypeId::Array: return text::isVectorType(type_) ? text::vectorText(s_) : s_;  // its canonical text
    case TypeId::Varchar:
    case TypeId::Text: return s_;
  }
  return "?";
}

}  // namespace hyrax

namespace hyrax {

void Value::encode(const SqlType& t, void* dst) const {
  auto store = [&](auto x) { std::memcpy(dst, &x, sizeof(x)); };
  switch (t.id) {
    case TypeId::Null: break;
    case TypeId::Bool: store(static_cast<uint8_t>(asBool())); break;
    case TypeId::Int16: store(static_cast<int16_t>(asInt())); break;
    case TypeId::Int32:
    case TypeId::Date: store(static_cast<int32_t>(asInt())); break;
    case TypeId::Int64:
    case TypeId::Decimal:
    case TypeId::Timestamp:
    case TypeId::Time: store(asInt()); break;
    case TypeId::Interval: store(text::Interval::fromWords(i_, hi_)); break;
    case TypeId::Float32: store(static_cast<float>(asDouble())); break;
    case TypeId::Float64: store(asDouble()); break;
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Array:
    case TypeId::Text: store(StringRef::make(asString())); break;
  }
}

Value Value::decode(const SqlType& t, const void* p) {
  auto load = [&](auto x) {
    std::memcpy(&x, p, sizeof(x));
    return x;
  };
  switch (t.id) {
    case TypeId::Null: return Value::null(t);
    case TypeId::Bool: return Value::boolean(load(uint8_t{}) != 0);
    case TypeId::Int16: return Value::int16(load(int16_t{}));
    case TypeId::Int32: return Value::int32(load(int32_t{}));
    case TypeId::Int64: return Value::int64(load(int64_t{}));
    case TypeId::Decimal: return Value::decimal(load(int64_t{}), t.precision, t.scale);
    case TypeId::Float32: return Value::float32(load(float{}));
    case TypeId::Float64: return Value::float64(load(double{}));
    case TypeId::Date: return Value::date(load(int32_t{}));
    case TypeId::Timestamp: return Value::timestamp(load(int64_t{}));
    case TypeId::Time: return Value::time(load(int64_t{}));
    case TypeId::Interval: {
      auto iv = load(text::Interval{});
      return Value::interval(iv.micros, iv.high());
    }
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Array:
    case TypeId::Text: {
      StringRef s;
      std::memcpy(static_cast<void*>(&s), p, sizeof(s));
      return Value::string(std::string(s.view()), t.withNullable(false));
    }
  }
  return Value::null(t);
}

}  // namespace hyrax
