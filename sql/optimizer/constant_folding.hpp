#pragma once
// Constant folding: subexpressions whose inputs are all constants are evaluated once at plan time
// (casts of literals such as DATE '1998-12-01' or '1995-03-15' compared with a DATE column,
// integer and decimal arithmetic, comparisons, three-valued logic). Anything it does not know
// how to evaluate is left for the generated code, which gives the same answer. Errors (division
// by zero, overflow, a malformed literal) are raised here with the expression's position, unless
// `deferErrors`: then the expression stays as it is, to fail when it runs.
#include "codegen/plan/expression.hpp"

namespace hyrax::sql {

plan::ExprPtr foldConstants(plan::ExprPtr e, bool deferErrors = false);

}  // namespace hyrax::sql
