// Freeing the AST without recursion along chains. A chain of one operator is parsed by a loop
// into a left-deep tree as deep as the chain is long (a + b + c ..., a UNION b UNION c ...), and
// the parser does not bound its length, so the default destructors, one frame per level, would
// overflow the stack on a long enough statement. These take the children out into a list first:
// each node then dies with no deep children. (What they hold otherwise, subqueries in an
// expression, expressions in a query, is real nesting, bounded by the parser's depth limit.)
#include "sql/parser/ast.hpp"

#include "engine/util/iterative_teardown.hpp"

namespace hyrax::ast {

Expr::~Expr() { destroyChildrenIteratively(args); }

Select::~Select() {
  if (!left && !right) return;
  std::vector<std::unique_ptr<Select>> pending;
  pending.push_back(std::move(left));
  pending.push_back(std::move(right));
  while (!pending.empty()) {
    std::unique_ptr<Select> s = std::move(pending.back());
    pending.pop_back();
    if (!s) continue;
    pending.push_back(std::move(s->left));
    pending.push_back(std::move(s->right));
  }
}

}  // namespace hyrax::ast
