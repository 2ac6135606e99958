#pragma once
// Constant folding for TIMESTAMP, TIME and INTERVAL (constant_folding.cpp calls these): casts,
// calendar arithmetic and functions, interval comparison, and a DATE column compared with a TIMESTAMP constant
// turned into a comparison of dates.
#include <optional>

#include "codegen/plan/expression.hpp"

namespace hyrax::sql {

// A cast of a non-NULL constant from or to a date/time type; nullopt when it is not one of those.
std::optional<Value> foldDateTimeCast(const Value& v, const SqlType& to);
// Arith on non-NULL constants whose type is TIMESTAMP or INTERVAL; nullopt when it is not one.
std::optional<Value> foldDateTimeArith(const plan::Expr& e, const Value& a, const Value& b);
// A call of constants to date_trunc, make_date/time/timestamp, justify_* or age, computed by the
// functions generated code calls (engine/types/calendar.hpp); NULL when an argument is; nullopt
// when `e` calls another function.
std::optional<Value> foldCalendarCall(const plan::Expr& e);
// -1/0/1 for two non-NULL INTERVAL constants.
int compareIntervalValues(const Value& a, const Value& b);
// `CAST(date_column AS TIMESTAMP) op TIMESTAMP constant` as `date_column op' DATE constant`, which
// holds for exactly the same rows (TPC-H's `l_shipdate <= date '1998-12-01' - interval '90' day`):
// scans, range lookups and statistics stay on the DATE column. nullptr when `e` is no such comparison.
plan::ExprPtr dateComparedWithTimestamp(plan::Expr& e);

}  // namespace hyrax::sql
