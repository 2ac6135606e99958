// Casts through text and decimal arithmetic that needs 128-bit intermediates. The text parsers
// and printers are engine/types/text_format's, the one implementation for the whole system.
#include <cmath>
#include <cstring>

#include "engine/runtime/query_context.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/runtime/runtime_guard.hpp"
#include "engine/types/int128.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/types/interval.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"

using namespace hyrax;

namespace {

template <typename F>
int32_t guarded(QueryContext* ctx, F f) {
  try {
    f();
    return 0;
  } catch (const Error& e) {
    ctx->setError(e.sqlstate().c_str(), e.message());
    return 1;
  }
}

std::string_view view(uint64_t lo, uint64_t hi, StringRef& holder) {
  holder = StringRef::fromHalves(lo, hi);
  return holder.view();
}

// Rounds n / d half away from zero.
Int128 roundDiv(Int128 n, Int128 d) {
  Int128 q = n / d, r = n % d;
  Int128 twice = (r.isNegative() ? -r : r) * 2;
  Int128 absd = d.isNegative() ? -d : d;
  if (twice >= absd) q = q + ((n.isNegative() != d.isNegative()) ? -1 : 1);
  return q;
}

int32_t overflow(QueryContext* ctx) {
  ctx->setError(sqlstate::NumericOutOfRange, "numeric value out of range");
  return 1;
}

}  // namespace

extern "C" {

int32_t hyrax_rt_cast_str_to_int(QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t typeId, int64_t* out) {
  StringRef h;
  return guarded(ctx, [&] { *out = text::parseInt(view(lo, hi, h), static_cast<TypeId>(typeId)); });
}

int32_t hyrax_rt_cast_str_to_decimal(QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t precision, int32_t scale,
                                     int64_t* out) {
  StringRef h;
  return guarded(ctx, [&] {
    *out = text::parseDecimal(view(lo, hi, h), static_cast<uint8_t>(precision), static_cast<uint8_t>(scale));
  });
}

int32_t hyrax_rt_cast_str_to_double(QueryContext* ctx, uint64_t lo, uint64_t hi, double* out) {
  StringRef h;
  return guarded(ctx, [&] { *out = text::parseDouble(view(lo, hi, h)); });
}

int32_t hyrax_rt_cast_str_to_date(QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t* out) {
  StringRef h;
  return guarded(ctx, [&] { *out = text::parseDate(view(lo, hi, h)); });
}

int32_t hyrax_rt_cast_str_to_bool(QueryContext* ctx, uint64_t lo, uint64_t hi, int8_t* out) {
  StringRef h;
  return guarded(ctx, [&] { *out = text::parseBool(view(lo, hi, h)) ? 1 : 0; });
}

int32_t hyrax_rt_cast_to_str(QueryContext* ctx, int32_t typeId, int32_t scale, int64_t bits, uint64_t* out) {
  std::string s;
  switch (static_cast<TypeId>(typeId)) {
    case TypeId::Bool: s = bits ? "true" : "false"; break;
    case TypeId::Decimal: s = text::formatDecimal(bits, static_cast<uint8_t>(scale)); break;
    case TypeId::Float32: {
      double d;
      std::memcpy(&d, &bits, 8);
      s = text::formatFloat(static_cast<float>(d));
      break;
    }
    case TypeId::Float64: {
      double d;
      std::memcpy(&d, &bits, 8);
      s = text::formatDouble(d);
      break;
    }
    case TypeId::Date: s = text::formatDate(static_cast<int32_t>(bits)); break;
    default: s = std::to_string(bits);
  }
  StringRef r;
  bool copied = guarded(ctx, false, [&] {
    r = ctx->arena().copy(s);
    return true;
  });
  if (!copied) return 1;
  out[0] = r.lo();
  out[1] = r.hi();
  return 0;
}

int32_t hyrax_rt_cast_str_to_timestamp(QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t time, int64_t* out) {
  StringRef h;
  return guarded(ctx, [&] { *out = time ? text::parseTime(view(lo, hi, h)) : text::parseTimestamp(view(lo, hi, h)); });
}

int32_t hyrax_rt_cast_str_to_interval(QueryContext* ctx, uint64_t lo, uint64_t hi, uint64_t* out) {
  StringRef h;
  return guarded(ctx, [&] {
    text::Interval iv = text::parseInterval(view(lo, hi, h));
    out[0] = static_cast<uint64_t>(iv.micros);
    out[1] = iv.high();
  });
}

int32_t hyrax_rt_datetime_to_str(QueryContext* ctx, int32_t typeId, int64_t bits, uint64_t high, uint64_t* out) {
  std::string s;
  switch (static_cast<TypeId>(typeId)) {
    case TypeId::Timestamp: s = text::formatTimestamp(bits); break;
    case TypeId::Time: s = text::formatTime(bits); break;
    default: s = text::formatInterval(text::Interval::fromWords(bits, high)); break;
  }
  StringRef r;
  if (!guarded(ctx, false, [&] {
        r = ctx->arena().copy(s);
        return true;
      }))
    return 1;
  out[0] = r.lo();
  out[1] = r.hi();
  return 0;
}

int32_t hyrax_rt_decimal_div(QueryContext* ctx, int64_t a, int32_t as, int64_t b, int32_t bs, int32_t rs, int64_t* out) {
  if (b == 0) {
    ctx->setError(sqlstate::DivisionByZero, "division by zero");
    return 1;
  }
  // (a/10^as) / (b/10^bs) * 10^rs = a * 10^(rs - as + bs) / b
  int shift = rs - as + bs;
  Int128 n = a, d = b;
  if (shift >= 0) {
    if (shift > 36) return overflow(ctx);
    for (int i = 0; i < shift; i += 18) n = n * text::pow10(static_cast<unsigned>(std::min(18, shift - i)));
  } else {
    for (int i = 0; i < -shift; i += 18) d = d * text::pow10(static_cast<unsigned>(std::min(18, -shift - i)));
  }
  Int128 q = roundDiv(n, d);
  if (!q.fitsInt64()) return overflow(ctx);
  *out = q.toInt64();
  return 0;
}

int32_t hyrax_rt_decimal_rescale(QueryContext* ctx, int64_t v, int32_t from, int32_t to, int32_t precision, int64_t* out) {
  Int128 r = v;
  if (to >= from)
    r = r * text::pow10(static_cast<unsigned>(to - from));
  else
    r = roundDiv(r, Int128(text::pow10(static_cast<unsigned>(from - to))));
  Int128 limit = precision >= 18 ? Int128(INT64_MAX) : Int128(text::pow10(static_cast<unsigned>(precision)));
  if (!r.fitsInt64() || r >= limit || -r >= limit) return overflow(ctx);
  *out = r.toInt64();
  return 0;
}

double hyrax_rt_decimal_to_double(int64_t scaled, int32_t scale) {
  return text::decimalToDouble(scaled, static_cast<uint8_t>(scale));
}

int32_t hyrax_rt_double_to_int(QueryContext* ctx, double d, int32_t scale, int32_t precision, int32_t decimalDigits,
                               int64_t* out) {
  if (decimalDigits > 0) {
    auto r = text::floatToDecimal(d, decimalDigits, static_cast<uint8_t>(precision), static_cast<uint8_t>(scale));
    if (!r) return overflow(ctx);
    *out = *r;
    return 0;
  }
  const double scaled = std::nearbyint(d * static_cast<double>(text::pow10(static_cast<unsigned>(scale))));  // (the default mode: to even)
  // 64-bit integers: [-2^63, 2^63) (both ends exact doubles); fewer digits: an open interval.
  bool wide = precision >= 18;
  double limit = wide ? 9.2233720368547758e18 : static_cast<double>(text::pow10(static_cast<unsigned>(precision)));
  if (!(scaled < limit && (scaled > -limit || (wide && scaled == -limit)))) return overflow(ctx);
  *out = static_cast<int64_t>(scaled);
  return 0;
}

}  // extern "C"
