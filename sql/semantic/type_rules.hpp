#pragma once
// SQL's typing rules, in one place: which type two operands meet at, what an operator returns,
// and the casts the binder inserts so that codegen sees operands of one type.
#include <optional>

#include "codegen/plan/expression.hpp"

namespace hyrax::sql {

// The type both operands of a comparison / CASE arm / IN list are converted to, or nothing.
std::optional<SqlType> commonType(const SqlType& a, const SqlType& b);

// Wraps `e` in a Cast to `to` unless it already has that type (nullability is kept).
plan::ExprPtr castTo(plan::ExprPtr e, const SqlType& to);

// The argument of min / max: PostgreSQL has min(text) and max(text) but none of varchar, so a
// VARCHAR argument becomes TEXT, and so does the result (against a CHAR it then compares as
// text, trailing blanks counting: `CAST('_' AS CHAR(4)) <> max(v)` is true where max(v) is '_ ').
plan::ExprPtr minMaxArgument(plan::ExprPtr e);

// Can a value of `from` be CAST to `to`?
bool castable(const SqlType& from, const SqlType& to);

// Typed constructors. They coerce the operands (a string literal meeting a date or number is
// read as one, like PostgreSQL's unknown-typed literals) and throw Error 42883 when the operator
// does not apply to the operand types.
plan::ExprPtr makeArith(plan::ArithOp op, plan::ExprPtr a, plan::ExprPtr b, SourcePos pos);
plan::ExprPtr makeCompare(plan::CmpOp op, plan::ExprPtr a, plan::ExprPtr b, SourcePos pos);
plan::ExprPtr makeLogic(plan::ExprKind kind, std::vector<plan::ExprPtr> args, SourcePos pos);  // And/Or/Not
plan::ExprPtr makeNegate(plan::ExprPtr a, SourcePos pos);
plan::ExprPtr makeConcat(plan::ExprPtr a, plan::ExprPtr b, SourcePos pos);
plan::ExprPtr makeLike(plan::ExprPtr a, plan::ExprPtr pattern, bool negated, SourcePos pos);
// a LIKE pattern ESCAPE escape (nullptr: the default, '\'). The escape must be a constant
// (0A000); another escape character than '\' needs a constant pattern too (0A000), which is
// rewritten into the default form. A constant pattern ending with the escape character is 22025.
// ILIKE (caseInsensitive): the same of both sides in lower case, as PostgreSQL folds them.
// a [NOT] SIMILAR TO pattern [ESCAPE e]: a regex match (makeRegexMatch) with the pattern turned
// into an anchored POSIX ERE as PostgreSQL's similar_to_escape does (% .*, _ ., the escape
// character quoting the next one, \ . ^ $ literal); pattern and escape must be constants (0A000).
plan::ExprPtr makeSimilarTo(plan::ExprPtr a, plan::ExprPtr pattern, plan::ExprPtr escape, bool negated, SourcePos pos);
plan::ExprPtr makeLike(plan::ExprPtr a, plan::ExprPtr pattern, plan::ExprPtr escape, bool negated, SourcePos pos,
                       bool caseInsensitive = false);
// a ~ pattern, a ~* pattern (caseInsensitive), !~ and !~* (negated): POSIX regex matches.
plan::ExprPtr makeRegexMatch(plan::ExprPtr a, plan::ExprPtr pattern, bool caseInsensitive, bool negated, SourcePos pos);
// `e` as TEXT as PostgreSQL prints it: a CHAR(n) value with its trailing blanks (hyrax keeps
// none), each value of a CASE/COALESCE of CHARs padded to its own length (LIKE, concat,
// octet_length see them); any other string as it is.
plan::ExprPtr asPaddedText(plan::ExprPtr e);
// `e` as TEXT as a function's text parameter takes it: a CHAR(n) value without trailing blanks,
// also where an operator on it later pads (regexp_like(char, ...) against char ~ ...).
plan::ExprPtr asUnpaddedText(plan::ExprPtr e);
plan::ExprPtr makeIsNull(plan::ExprPtr a, bool negated, SourcePos pos);
// a IS [NOT] DISTINCT FROM b: NULL equal to NULL, never unknown (a CASE over IS NULL and the comparison)
plan::ExprPtr makeIsDistinct(plan::ExprPtr a, plan::ExprPtr b, bool notDistinct, SourcePos pos);
plan::ExprPtr makeInList(plan::ExprPtr a, std::vector<plan::ExprPtr> list, bool negated, SourcePos pos);
// args: when, then, when, then, ..., [else]
plan::ExprPtr makeCase(std::vector<plan::ExprPtr> args, bool hasElse, SourcePos pos);
plan::ExprPtr makeCast(plan::ExprPtr a, const SqlType& to, SourcePos pos);
// Arithmetic on TIMESTAMP and INTERVAL values (datetime_rules.cpp): nullptr when neither operand
// is one, else the expression or 42883. The operands are moved from only when it applies.
plan::ExprPtr makeDateTimeArith(plan::ArithOp op, plan::ExprPtr& a, plan::ExprPtr& b, SourcePos pos);

// Arrays (array_rules in type_rules.cpp). The element type of an array of `t`'s values (SMALLINT,
// INTEGER, BIGINT; any string type: TEXT), 0A000 for others. An array value of elements `element`
// (text cast to an array's type, or `{}`); an untyped NULL as that type.
TypeId arrayElementOf(const SqlType& t, SourcePos pos);
plan::ExprPtr makeArrayCall(plan::ScalarFunc f, SqlType type, std::vector<plan::ExprPtr> args, SourcePos pos);
// a || b where either is an array: array || array (a string literal read as the other's array
// type), array || element, element || array; nullptr when neither is an array.
plan::ExprPtr makeArrayConcat(plan::ExprPtr& a, plan::ExprPtr& b, SourcePos pos);

// A Call of the scalar function `f` whose result, of type `result`, is NULL when any argument is.
plan::ExprPtr makeScalarCall(plan::ScalarFunc f, SqlType result, std::vector<plan::ExprPtr> args, SourcePos pos);
// 42883 "function name(types) does not exist".
[[noreturn]] void noSuchFunction(const std::string& name, const std::vector<plan::ExprPtr>& args, SourcePos pos);

// A condition (WHERE, ON, HAVING, CASE WHEN) must be boolean: 42804 otherwise.
void requireBoolean(const plan::Expr& e, const char* clause);

}  // namespace hyrax::sql
