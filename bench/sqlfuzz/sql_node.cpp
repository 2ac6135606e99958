#include "bench/sqlfuzz/sql_node.hpp"

namespace hyrax::bench::sqlfuzz {

std::string Node::render() const {
  std::string out;
  if (list) {
    for (size_t i = 0; i < kids.size(); ++i) {
      if (i) out += format;
      out += kids[i].render();
    }
    return out;
  }
  size_t kid = 0;
  for (char c : format) {
    if (c == '$' && kid < kids.size())
      out += kids[kid++].render();
    else
      out += c;
  }
  return out;
}

namespace {

// Appends to `out` a copy of the tree for each simplification of the node `at` points to (the
// copy's node at the same place replaced); `at` is a node inside `copyRoot`.
void collect(Node& copyRoot, Node& at, std::vector<Node>& out) {
  // A copy: assigning an alternative to `at` replaces `at.simpler`, which it is part of.
  const std::vector<Node> alternatives = at.simpler;
  for (const Node& alt : alternatives) {
    Node saved = at;
    at = alt;
    out.push_back(copyRoot);
    at = saved;
  }
  if (at.list && at.kids.size() > at.minKids)
    for (size_t i = 0; i < at.kids.size(); ++i) {
      Node saved = at;
      at.kids.erase(at.kids.begin() + static_cast<long>(i));
      out.push_back(copyRoot);
      at = saved;
    }
  for (Node& kid : at.kids) collect(copyRoot, kid, out);
}

}  // namespace

std::vector<Node> simplifications(const Node& root) {
  std::vector<Node> out;
  Node copy = root;
  collect(copy, copy, out);
  return out;
}

}  // namespace hyrax::bench::sqlfuzz
