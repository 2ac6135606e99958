#pragma once
// EXTRACT(field FROM x) and date_part('field', x) over DATE, TIMESTAMP, TIME and INTERVAL: which
// fields each type has, and their values. One implementation for the runtime (per row) and
// constant folding.
#include <cstdint>
#include <string_view>

#include "engine/types/sql_type.hpp"

namespace hyrax {

enum class DateTimeField : uint8_t {
  Year, Month, Day, Hour, Minute, Second, Millisecond, Microsecond, Dow, IsoDow, Doy, Epoch, Quarter, Week,
  Decade, Century, Millennium,
  IsoYear,  // the ISO 8601 year its week (WEEK) belongs to: 2021-01-03 is in 2020's week 53
  Julian    // the Julian Day: days since 4714-11-24 BC (1970-01-01 is day 2440588); of a DATE only here
};

namespace text {

// The field a name means ("year", "years", "yrs", "dow", "epoch", ... PostgreSQL's spellings);
// false when there is none.
bool dateTimeFieldNamed(std::string_view name, DateTimeField& out);
const char* dateTimeFieldName(DateTimeField f);  // "YEAR", "DOW", ... (EXPLAIN)
// PostgreSQL's name of DATE, TIME, TIMESTAMP or INTERVAL in its messages ("timestamp without
// time zone").
const char* dateTimeTypeName(TypeId type);
// Whether `type` has the field (PostgreSQL: no HOUR of a DATE, no DOW of an INTERVAL).
bool hasDateTimeField(TypeId type, DateTimeField f);
// The value's digits after the decimal point: SECOND and EPOCH have microseconds (6) but a
// DATE's EPOCH has none, MILLISECOND 3; the rest are whole numbers (0).
int extractScale(TypeId type, DateTimeField f);
// The field of a value (`bits` its payload, `high` an INTERVAL's days and months), scaled by
// 10^extractScale.
int64_t extractField(TypeId type, DateTimeField f, int64_t bits, uint64_t high);

}  // namespace text
}  // namespace hyrax
