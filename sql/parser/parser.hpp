#pragma once
// The recursive-descent SQL parser (expressions by precedence climbing).
#include <string_view>

#include "sql/parser/ast.hpp"

namespace hyrax {

// Parses exactly one statement (a trailing ';' is allowed). `origin` is where the text starts in
// a larger script, so positions in errors refer to the script. Errors: 42601 (syntax), 54001
// (nesting deeper than kMaxDepth), 22023 (bad type parameters).
ast::StatementPtr parseStatement(std::string_view sql, SourcePos origin = {1, 1});

inline constexpr int kMaxParseDepth = 200;

// `name` as a quoted identifier ("a""b"): read back as exactly that name, keyword or not.
std::string quotedIdentifier(const std::string& name);


}  // namespace hyrax
