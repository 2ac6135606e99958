#include "engine/runtime/runtime_errors.hpp"

#include "engine/runtime/runtime.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

RuntimeErrorText runtimeErrorText(int32_t code) {
  switch (code) {
    case HYRAX_ERR_DIVISION_BY_ZERO: return {sqlstate::DivisionByZero, "division by zero"};
    case HYRAX_ERR_OVERFLOW: return {sqlstate::NumericOutOfRange, "numeric value out of range"};
    case HYRAX_ERR_CANCELLED: return {sqlstate::QueryCanceled, "canceling statement due to user request"};
    case HYRAX_ERR_NULL_VIOLATION: return {sqlstate::NotNullViolation, "null value violates not-null constraint"};
    case HYRAX_ERR_SUBQUERY_ROWS:
      return {sqlstate::CardinalityViolation, "more than one row returned by a subquery used as an expression"};
    case HYRAX_ERR_NEGATIVE_SQRT: return {sqlstate::InvalidArgumentForPower, "cannot take square root of a negative number"};
    case HYRAX_ERR_DATE_RANGE: return {sqlstate::DatetimeOutOfRange, "date out of range"};
    case HYRAX_ERR_LENGTH_TOO_LARGE: return {sqlstate::ProgramLimitExceeded, "requested length too large"};
    case HYRAX_ERR_BAD_CHARACTER:
      return {sqlstate::ProgramLimitExceeded,
              "requested character not valid for encoding (chr of 0, a surrogate or a code point past 1114111)"};
    case HYRAX_ERR_FIELD_ZERO: return {sqlstate::InvalidParameter, "field position must not be zero"};
    case HYRAX_ERR_NEGATIVE_LIMIT: return {sqlstate::InvalidRowCount, "LIMIT must not be negative"};
    case HYRAX_ERR_NEGATIVE_OFFSET: return {sqlstate::InvalidOffsetCount, "OFFSET must not be negative"};
    case HYRAX_ERR_UNDERFLOW: return {sqlstate::NumericOutOfRange, "value out of range: underflow"};
    case HYRAX_ERR_SUBSTRING_LENGTH: return {sqlstate::SubstringError, "negative substring length not allowed"};
    case HYRAX_ERR_FLOAT_OVERFLOW: return {sqlstate::NumericOutOfRange, "value out of range: overflow"};
    case HYRAX_ERR_LOG_OF_ZERO: return {sqlstate::InvalidArgumentForLog, "cannot take logarithm of zero"};
    case HYRAX_ERR_LOG_OF_NEGATIVE: return {sqlstate::InvalidArgumentForLog, "cannot take logarithm of a negative number"};
    case HYRAX_ERR_NTILE_COUNT: return {sqlstate::InvalidNtileArgument, "argument of ntile must be greater than zero"};
    case HYRAX_ERR_NTH_VALUE: return {sqlstate::InvalidNthValueArgument, "argument of nth_value must be greater than zero"};
    default: return {sqlstate::InternalError, nullptr};
  }
}

}  // namespace hyrax
