// What generated code calls for TIMESTAMP, TIME and INTERVAL values: calendar arithmetic,
// interval comparison and hashing, EXTRACT, date_trunc, make_date/time/timestamp, justify_*, age,
// and the transaction's time (their casts through text are casts.cpp's).
// The calendar and the text forms are engine/types' (timestamp, interval, datetime_fields,
// calendar).
#include "engine/runtime/query_context.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/runtime/runtime_guard.hpp"
#include "engine/types/calendar.hpp"
#include "engine/types/datetime_fields.hpp"
#include "engine/types/interval.hpp"
#include "engine/types/timestamp.hpp"

using namespace hyrax;

namespace {

int32_t outOfRange(QueryContext* ctx, const char* type) {
  ctx->setError(sqlstate::DatetimeOutOfRange, std::string(type) + " out of range");
  return 1;
}

// A calendar function (calendar.hpp) that throws its error: status 0, or 1 with the error set.
template <typename F>
int32_t calendarCall(QueryContext* ctx, F&& work) {
  return guarded(ctx, int32_t{1}, [&] {
    work();
    return int32_t{0};
  });
}

void storeInterval(const text::Interval& iv, uint64_t* out) {
  out[0] = static_cast<uint64_t>(iv.micros);
  out[1] = iv.high();
}

}  // namespace

extern "C" {

int64_t hyrax_rt_transaction_time(QueryContext* ctx) { return ctx->transactionTime(); }

int32_t hyrax_rt_timestamp_add_interval(QueryContext* ctx, int64_t t, int64_t micros, uint64_t high, int32_t subtract,
                                        int64_t* out) {
  text::Interval iv = text::Interval::fromWords(micros, high);
  if (subtract && !text::negateInterval(iv, iv)) return outOfRange(ctx, "timestamp");
  if (!text::addIntervalToTimestamp(t, iv, *out)) return outOfRange(ctx, "timestamp");
  return 0;
}

int32_t hyrax_rt_interval_add(QueryContext* ctx, int64_t am, uint64_t ah, int64_t bm, uint64_t bh, int32_t subtract,
                              uint64_t* out) {
  text::Interval a = text::Interval::fromWords(am, ah), b = text::Interval::fromWords(bm, bh), r;
  if ((subtract && !text::negateInterval(b, b)) || !text::addIntervals(a, b, r)) return outOfRange(ctx, "interval");
  storeInterval(r, out);
  return 0;
}

int32_t hyrax_rt_interval_scale(QueryContext* ctx, int64_t micros, uint64_t high, double x, int32_t divide, uint64_t* out) {
  if (divide && x == 0) {
    ctx->setError(sqlstate::DivisionByZero, "division by zero");
    return 1;
  }
  text::Interval r;
  if (!text::scaleInterval(text::Interval::fromWords(micros, high), x, divide != 0, r)) return outOfRange(ctx, "interval");
  storeInterval(r, out);
  return 0;
}

int32_t hyrax_rt_interval_cmp(int64_t am, uint64_t ah, int64_t bm, uint64_t bh) {
  return text::compareIntervals(text::Interval::fromWords(am, ah), text::Interval::fromWords(bm, bh));
}

// Equal spans hash alike ('1 mon' and '30 days' are equal): the span's low and high words mixed.
uint64_t hyrax_rt_interval_hash(int64_t micros, uint64_t high) {
  text::Interval iv = text::Interval::fromWords(micros, high);
  Int128 span = text::intervalSpan(iv);
  Int128 q = span / (int64_t{1} << 62);
  uint64_t lo = static_cast<uint64_t>((span - q * (int64_t{1} << 62)).toInt64());
  uint64_t h = lo ^ (static_cast<uint64_t>(q.toInt64()) * 0x9E3779B97F4A7C15ULL);
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  return h ^ (h >> 33);
}

int64_t hyrax_rt_extract(int32_t typeId, int32_t field, int64_t bits, uint64_t high) {
  return text::extractField(static_cast<TypeId>(typeId), static_cast<DateTimeField>(field), bits, high);
}

int32_t hyrax_rt_date_trunc(QueryContext* ctx, int32_t typeId, int32_t field, int64_t bits, uint64_t high, uint64_t* out) {
  auto unit = static_cast<DateTimeField>(field);
  return calendarCall(ctx, [&] {
    if (static_cast<TypeId>(typeId) == TypeId::Interval)
      storeInterval(text::truncInterval(unit, text::Interval::fromWords(bits, high)), out);
    else
      out[0] = static_cast<uint64_t>(text::truncTimestamp(unit, bits));
  });
}

int32_t hyrax_rt_make_date(QueryContext* ctx, int32_t y, int32_t m, int32_t d, int32_t* out) {
  return calendarCall(ctx, [&] { *out = text::makeDate(y, m, d); });
}

int32_t hyrax_rt_make_time(QueryContext* ctx, int32_t h, int32_t m, double s, int64_t* out) {
  return calendarCall(ctx, [&] { *out = text::makeTime(h, m, s); });
}

int32_t hyrax_rt_make_timestamp(QueryContext* ctx, int32_t y, int32_t mo, int32_t d, int32_t h, int32_t mi, double s,
                                int64_t* out) {
  return calendarCall(ctx, [&] { *out = text::makeTimestamp(y, mo, d, h, mi, s); });
}

int32_t hyrax_rt_justify(QueryContext* ctx, int32_t how, int64_t micros, uint64_t high, uint64_t* out) {
  return calendarCall(
      ctx, [&] { storeInterval(text::justify(static_cast<text::Justify>(how), text::Interval::fromWords(micros, high)), out); });
}

int32_t hyrax_rt_age(QueryContext* ctx, int64_t t1, int64_t t2, uint64_t* out) {
  return calendarCall(ctx, [&] { storeInterval(text::age(t1, t2), out); });
}

}  // extern "C"
