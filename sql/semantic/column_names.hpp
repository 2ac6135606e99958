#pragma once
// The name an unaliased select item gets, as PostgreSQL names it, so that clients that read
// columns by name (psycopg's dict rows, JDBC's getInt("count")) see the same names.
#include <string>

#include "sql/parser/ast.hpp"

namespace hyrax::sql {

// The column's name for a column; the function's for a call (TRIM as btrim, ltrim or rtrim);
// "case", "exists", "array"; a scalar subquery's own column name; a CAST keeps its operand's
// name when that is one of these, else takes the type's pg_type name ("int4", "numeric", "date"),
// as a typed literal (DATE '...') does; anything else "?column?".
std::string defaultColumnName(const ast::Expr& e);

}  // namespace hyrax::sql
