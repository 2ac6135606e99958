#pragma once
// Whether two ASTs say the same thing word for word (positions aside).
#include "sql/parser/ast.hpp"

namespace hyrax::ast {

bool sameAst(const Expr& a, const Expr& b);
bool sameAst(const Select& a, const Select& b);

}  // namespace hyrax::ast
