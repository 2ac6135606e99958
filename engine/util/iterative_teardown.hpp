#pragma once
// Freeing a tree whose nodes own their children in a vector `args` (the AST's and the plan's
// expressions) without one stack frame per level: a chain of one operator (a + b + c ...) is a
// left-deep tree as deep as it is long, and the default destructors would recurse that deep. A
// node's destructor calls this: the children are taken out into a list, and each node popped
// from it gives up its own children before it dies.
#include <memory>
#include <vector>

namespace hyrax {

template <typename Node>
void destroyChildrenIteratively(std::vector<std::unique_ptr<Node>>& args) {
  bool deep = false;
  for (auto& a : args) deep = deep || (a && !a->args.empty());
  if (!deep) return;  // leaves only: the default destruction is one level
  std::vector<std::unique_ptr<Node>> pending = std::move(args);
  while (!pending.empty()) {
    std::unique_ptr<Node> n = std::move(pending.back());
    pending.pop_back();
    if (!n) continue;
    for (auto& a : n->args) pending.push_back(std::move(a));
    n->args.clear();
  }
}

}  // namespace hyrax
