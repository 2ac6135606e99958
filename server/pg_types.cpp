// PostgreSQL's wire formats of hyrax's values (pg_types.hpp). The binary formats follow
// PostgreSQL's *send/*recv functions (src/backend/utils/adt): network byte order throughout.
#include "server/pg_types.hpp"

#include <bit>
#include <cstring>

#include "engine/load/table_loader.hpp"
#include "engine/types/array_text.hpp"
#include "engine/types/interval.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/utf8.hpp"
#include "engine/util/error.hpp"
#include "sql/semantic/system_catalog.hpp"

namespace hyrax::pg {

namespace {

// PostgreSQL's epoch for dates and timestamps is 2000-01-01, hyrax's 1970-01-01.
constexpr int32_t kEpochDays = 10957;
constexpr int64_t kEpochMicros = int64_t{kEpochDays} * 86'400'000'000;
// NUMERIC's sign word.
constexpr uint16_t kNumericPositive = 0x0000, kNumericNegative = 0x4000;
// A NUMERIC parameter without a modifier: hyrax's DECIMAL needs one; six places keep cents and
// the usual rates exact.
constexpr uint8_t kDefaultNumericScale = 6;

template <typename T>
void put(std::string& out, T x) {
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(x);
  for (int shift = (sizeof(T) - 1) * 8; shift >= 0; shift -= 8) out.push_back(static_cast<char>((u >> shift) & 0xff));
}

// Reads big-endian integers from a binary value, 22P03 past its end.
class Reader {
 public:
  Reader(std::string_view bytes, const SqlType& t) : bytes_(bytes), type_(t) {}
  template <typename T>
  T get() {
    if (bytes_.size() - at_ < sizeof(T)) malformed();
    std::make_unsigned_t<T> u = 0;
    for (size_t i = 0; i < sizeof(T); ++i) u = static_cast<std::make_unsigned_t<T>>(u << 8 | static_cast<uint8_t>(bytes_[at_ + i]));
    at_ += sizeof(T);
    return static_cast<T>(u);
  }
  void end() const {  // a value must use all its bytes
    if (at_ != bytes_.size()) malformed();
  }
  [[noreturn]] void malformed() const {
    throw Error(sqlstate::InvalidBinaryRepresentation, "incorrect binary data format in bind parameter of type " + type_.name());
  }

 private:
  std::string_view bytes_;
  const SqlType& type_;
  size_t at_ = 0;
};

void checkString(std::string_view s, const SqlType& t) {
  if (size_t bad = invalidUtf8At(s); bad != std::string_view::npos)
    throw Error(sqlstate::CharacterNotInRepertoire, invalidUtf8Message(s, bad));
  if (t.length && longerThanChars(s, t.length)) throw Error(sqlstate::StringTooLong, "value too long for type " + t.name());
}

// A DECIMAL's scaled value as NUMERIC's base-10000 digits.
std::string numericOut(int64_t scaled, uint8_t scale) {
  const bool negative = scaled < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(scaled) : static_cast<uint64_t>(scaled);
  std::string decimal = std::to_string(magnitude);
  if (decimal.size() <= scale) decimal.insert(0, scale + 1 - decimal.size(), '0');
  std::string whole = decimal.substr(0, decimal.size() - scale), fraction = decimal.substr(decimal.size() - scale);
  // Groups of four decimal digits on each side of the point, aligned on it.
  whole.insert(0, (4 - whole.size() % 4) % 4, '0');
  fraction.append((4 - fraction.size() % 4) % 4, '0');
  std::vector<int16_t> digits;
  for (size_t i = 0; i < whole.size(); i += 4) digits.push_back(static_cast<int16_t>(std::stoi(whole.substr(i, 4))));
  int weight = static_cast<int>(digits.size()) - 1;
  for (size_t i = 0; i < fraction.size(); i += 4) digits.push_back(static_cast<int16_t>(std::stoi(fraction.substr(i, 4))));
  // PostgreSQL's form has no leading or trailing zero digits (zero has none at all).
  size_t first = 0;
  while (first < digits.size() && digits[first] == 0) ++first, --weight;
  while (digits.size() > first && digits.back() == 0) digits.pop_back();
  digits.erase(digits.begin(), digits.begin() + static_cast<std::ptrdiff_t>(first));
  if (digits.empty()) weight = 0;
  std::string out;
  put<int16_t>(out, static_cast<int16_t>(digits.size()));
  put<int16_t>(out, static_cast<int16_t>(weight));
  put<uint16_t>(out, negative && !digits.empty() ? kNumericNegative : kNumericPositive);
  put<uint16_t>(out, scale);
  for (int16_t d : digits) put<int16_t>(out, d);
  return out;
}

// NUMERIC's digits as decimal text, which hyrax's DECIMAL parser rounds to the type's scale and
// checks against its precision.
Value numericIn(Reader& in, const SqlType& t) {
  const int16_t ndigits = in.get<int16_t>();
  const int16_t weight = in.get<int16_t>();
  const uint16_t sign = in.get<uint16_t>();
  const uint16_t dscale = in.get<uint16_t>();
  if (ndigits < 0 || dscale > 0x3fff) in.malformed();
  if (sign != kNumericPositive && sign != kNumericNegative) {
    if (sign == 0xC000 || sign == 0xD000 || sign == 0xF000)  // NaN, +/-Infinity
      throw Error(sqlstate::NumericOutOfRange, "cannot convert NaN or infinity to " + t.name());
    in.malformed();
  }
  std::vector<int16_t> digits;
  for (int i = 0; i < ndigits; ++i) {
    int16_t d = in.get<int16_t>();
    if (d < 0 || d > 9999) in.malformed();
    digits.push_back(d);
  }
  in.end();
  // Weight w: the first digit counts 10000^w. Digits beyond 19 decimal places before the point
  // overflow any DECIMAL(18); such values are refused before text is built for them.
  if (weight > 5 && !digits.empty()) throw Error(sqlstate::NumericOutOfRange, "numeric field overflow");
  std::string text = sign == kNumericNegative ? "-" : "";
  const int wholeGroups = weight + 1;
  auto group = [&](int i) {  // the 4 decimal digits of the group at position i (0 = first digit's)
    char buf[8];  // digits are 0..9999 (checked): four characters
    std::snprintf(buf, sizeof buf, "%04d", i >= 0 && i < ndigits ? digits[static_cast<size_t>(i)] : 0);
    return std::string(buf);
  };
  if (wholeGroups <= 0) text += "0";
  for (int i = 0; i < wholeGroups; ++i) text += group(i);
  text += ".";
  // Only the places that can matter: the type's scale and one more to round on (at most 20).
  std::string fraction;
  for (int i = wholeGroups; i < 0 && fraction.size() < 24; ++i) fraction += "0000";  // weight may be -32768
  for (int i = std::max(wholeGroups, 0); i < ndigits && fraction.size() < 24; ++i) fraction += group(i);
  text += fraction.empty() ? "0" : fraction.substr(0, 24);
  const uint8_t precision = t.precision ? t.precision : SqlType::kMaxDecimalPrecision;
  return Value::decimal(text::parseDecimal(text, precision, t.scale), precision, t.scale);
}

}  // namespace

// The OID, length and modifier come from pg_type's one table in sql (system_catalog.hpp), so a
// RowDescription and pg_catalog never disagree.
uint32_t typeOid(const SqlType& t) { return static_cast<uint32_t>(sql::pgTypeOid(t)); }

std::optional<SqlType> typeFromOid(uint32_t id) {
  switch (id) {
    case 0:
    case oid::Unknown: return std::nullopt;
    case oid::Bool: return SqlType::boolean();
    case oid::Int2: return SqlType::int16();
    case oid::Int4: return SqlType::int32();
    case oid::Int8: return SqlType::int64();
    case oid::Numeric: return SqlType::decimal(SqlType::kMaxDecimalPrecision, kDefaultNumericScale);
    case oid::Float4: return SqlType::float32();
    case oid::Float8: return SqlType::float64();
    case oid::Bpchar: return SqlType::text();  // a parameter's length is not given: any string
    case oid::Varchar: return SqlType::varchar(0);
    case oid::Text: return SqlType::text();
    case oid::Date: return SqlType::date();
    case oid::Timestamp: return SqlType::timestamp();
    case oid::Time: return SqlType::time();
    case oid::Interval: return SqlType::interval();
  }
  throw Error(sqlstate::FeatureNotSupported, "parameters of type OID " + std::to_string(id) + " are not supported");
}

int16_t typeSize(const SqlType& t) { return static_cast<int16_t>(sql::pgType(t.id).length); }

int32_t typeModifier(const SqlType& t) { return sql::pgTypeMod(t); }

std::string textOut(const Value& v) {
  switch (v.type().id) {
    case TypeId::Bool: return v.asBool() ? "t" : "f";
    case TypeId::Char: {  // stored without its padding (text_format.hpp: withoutCharPadding)
      std::string s = v.asString();
      size_t chars = 0;
      for (char c : s) chars += (static_cast<uint8_t>(c) & 0xc0) != 0x80;
      if (chars < v.type().length) s.append(v.type().length - chars, ' ');
      return s;
    }
    default: return v.toString();
  }
}

namespace {

// A DATE or TIMESTAMP (without time zone) given with a zone offset after its time or after a
// blank, as pgjdbc sends setDate ("2025-06-07 +00") and setTimestamp ("... 03:04:05.5+02"):
// PostgreSQL ignores the zone for these types, so does this. A date's own "-07" has no blank
// before it and stays.
std::string_view withoutZoneOffset(std::string_view text) {
  size_t sign = text.find_last_of("+-");
  if (sign == std::string_view::npos || text.find_first_of(" T") >= sign) return text;
  std::string_view zone = text.substr(sign + 1);
  if (zone.empty() || zone.size() > 8 || zone.find_first_not_of("0123456789:") != std::string_view::npos ||
      zone.front() == ':')
    return text;
  std::string_view rest = text.substr(0, sign);
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  return rest;
}

}  // namespace

Value textIn(std::string_view text, const SqlType& t) {
  if (t.id == TypeId::Date || t.id == TypeId::Timestamp) text = withoutZoneOffset(text);
  if (t.isString()) {  // as text, blanks kept (parseFieldValue's are a CHAR column's)
    checkString(t.id == TypeId::Char ? text::withoutCharPadding(text) : text, t);
    return Value::string(std::string(t.id == TypeId::Char ? text::withoutCharPadding(text) : text), t.withNullable(false));
  }
  alignas(16) unsigned char slot[16] = {};
  parseFieldValue(text, t, slot);  // COPY's parsing of each type: its errors and ranges
  return Value::decode(t.withNullable(false), slot);
}

namespace {

// array_send's format: dimensions (1, or 0 when empty), a NULL flag, the element type's OID, per
// dimension its length and lower bound (int2vector and oidvector: 0), then each element as its
// length (-1: NULL) and its own binary form.
std::string arrayBinaryOut(const Value& v) {
  const SqlType& t = v.type();
  int64_t elementOid = 0;
  for (auto& a : sql::pgArrayTypes())
    if (a.oid == t.arrayOid) elementOid = a.element;
  if (elementOid == 0 || elementOid == 1033)  // aclitem has no binary form in PostgreSQL either
    throw Error(sqlstate::FeatureNotSupported, "type " + std::to_string(t.arrayOid) + " has no binary format here");
  const text::ArrayElements elements = text::parseArray(v.asString());
  std::string out;
  put<int32_t>(out, elements.empty() ? 0 : 1);
  bool nulls = false;
  for (auto& e : elements) nulls = nulls || !e;
  put<int32_t>(out, nulls ? 1 : 0);
  put<uint32_t>(out, static_cast<uint32_t>(elementOid));
  if (!elements.empty()) {
    put<int32_t>(out, static_cast<int32_t>(elements.size()));
    put<int32_t>(out, text::isVectorType(t) ? 0 : 1);
  }
  for (auto& e : elements) {
    if (!e) {
      put<int32_t>(out, -1);
      continue;
    }
    std::string element;
    switch (elementOid) {
      case 21: put<int16_t>(element, static_cast<int16_t>(std::stoll(*e))); break;
      case 23: put<int32_t>(element, static_cast<int32_t>(std::stoll(*e))); break;
      case 20: put<int64_t>(element, std::stoll(*e)); break;
      case 26: put<uint32_t>(element, static_cast<uint32_t>(std::stoll(*e))); break;
      default: element = *e;  // text, varchar, name, "char": their bytes
    }
    put<int32_t>(out, static_cast<int32_t>(element.size()));
    out += element;
  }
  return out;
}

}  // namespace

std::string binaryOut(const Value& v) {
  std::string out;
  const SqlType& t = v.type();
  switch (t.id) {
    case TypeId::Array: return arrayBinaryOut(v);
    case TypeId::Null: break;
    case TypeId::Bool: out.push_back(v.asBool() ? 1 : 0); break;
    case TypeId::Int16: put<int16_t>(out, static_cast<int16_t>(v.asInt())); break;
    case TypeId::Int32: put<int32_t>(out, static_cast<int32_t>(v.asInt())); break;
    case TypeId::Int64: put<int64_t>(out, v.asInt()); break;
    case TypeId::Float32: put<uint32_t>(out, std::bit_cast<uint32_t>(static_cast<float>(v.asDouble()))); break;
    case TypeId::Float64: put<uint64_t>(out, std::bit_cast<uint64_t>(v.asDouble())); break;
    case TypeId::Decimal: return numericOut(v.asInt(), t.scale);
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Text: return textOut(v);
    case TypeId::Date: put<int32_t>(out, static_cast<int32_t>(v.asInt() - kEpochDays)); break;
    case TypeId::Timestamp: put<int64_t>(out, v.asInt() - kEpochMicros); break;
    case TypeId::Time: put<int64_t>(out, v.asInt()); break;
    case TypeId::Interval: {
      text::Interval iv = text::Interval::fromWords(v.asInt(), v.high());
      put<int64_t>(out, iv.micros);
      put<int32_t>(out, iv.days);
      put<int32_t>(out, iv.months);
      break;
    }
  }
  return out;
}

Value binaryIn(std::string_view bytes, const SqlType& type) {
  const SqlType t = type.withNullable(false);
  Reader in(bytes, t);
  Value v;
  switch (t.id) {
    case TypeId::Array: throw Error(sqlstate::FeatureNotSupported, "arrays in the binary format are not supported");
    case TypeId::Null: in.malformed();
    case TypeId::Bool: v = Value::boolean(in.get<uint8_t>() != 0); break;
    case TypeId::Int16: v = Value::int16(in.get<int16_t>()); break;
    case TypeId::Int32: v = Value::int32(in.get<int32_t>()); break;
    case TypeId::Int64: v = Value::int64(in.get<int64_t>()); break;
    case TypeId::Float32: v = Value::float32(std::bit_cast<float>(in.get<uint32_t>())); break;
    case TypeId::Float64: v = Value::float64(std::bit_cast<double>(in.get<uint64_t>())); break;
    case TypeId::Decimal: return numericIn(in, t);
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Text: {
      std::string_view s = t.id == TypeId::Char ? text::withoutCharPadding(bytes) : bytes;
      checkString(s, t);
      return Value::string(std::string(s), t);
    }
    case TypeId::Date: {
      int64_t days = int64_t{in.get<int32_t>()} + kEpochDays;
      if (!text::dateInRange(days)) throw Error(sqlstate::DatetimeOutOfRange, "date out of range");
      v = Value::date(static_cast<int32_t>(days));
      break;
    }
    case TypeId::Timestamp: {
      int64_t micros = in.get<int64_t>();
      // The dates of DATE's range (PostgreSQL's infinities, INT64_MIN/MAX, are beyond it).
      if (micros < int64_t{text::kMinDate - kEpochDays} * 86'400'000'000 ||
          micros >= (int64_t{text::kMaxDate - kEpochDays} + 1) * 86'400'000'000)
        throw Error(sqlstate::DatetimeOutOfRange, "timestamp out of range");
      v = Value::timestamp(micros + kEpochMicros);
      break;
    }
    case TypeId::Time: {
      int64_t micros = in.get<int64_t>();
      if (micros < 0 || micros > 86'400'000'000) throw Error(sqlstate::DatetimeOutOfRange, "time out of range");
      v = Value::time(micros);
      break;
    }
    case TypeId::Interval: {
      text::Interval iv;
      iv.micros = in.get<int64_t>();
      iv.days = in.get<int32_t>();
      iv.months = in.get<int32_t>();
      v = Value::interval(iv.micros, iv.high());
      break;
    }
  }
  in.end();
  return v;
}

}  // namespace hyrax::pg
