#pragma once
// A generated query as a tree of text pieces, so that a failing query can be shrunk: each node
// knows simpler nodes that may stand in for it (an AND by one of its operands, a WHERE by
// nothing, a CASE by one of its arms), and a list node (select items, conjuncts, joins, GROUP BY
// keys) may lose any item. The shrinker (shrink.cpp) tries those replacements and keeps each one
// after which the query still fails the same way.
#include <string>
#include <vector>

namespace hyrax::bench::sqlfuzz {

struct Node {
  // Text with '$' where each kid goes, in order ("$ AND $"); a leaf has no '$'.
  std::string format;
  std::vector<Node> kids;
  // Replacements the shrinker tries for this node, simplest first.
  std::vector<Node> simpler;
  // A list: kids separated by `format`'s text (", ", " AND "); the shrinker drops kids while at
  // least `minKids` stay.
  bool list = false;
  size_t minKids = 1;

  static Node leaf(std::string text) { return Node{std::move(text), {}, {}, false, 1}; }
  static Node of(std::string format, std::vector<Node> kids, std::vector<Node> simpler = {}) {
    return Node{std::move(format), std::move(kids), std::move(simpler), false, 1};
  }
  static Node listOf(std::string separator, std::vector<Node> items, size_t minKids = 1) {
    return Node{std::move(separator), std::move(items), {}, true, minKids};
  }
  // Adds an alternative the shrinker may try instead of this node; returns *this.
  Node& orSimpler(Node n) {
    simpler.push_back(std::move(n));
    return *this;
  }

  std::string render() const;
};

// Every way to make the tree one step simpler (one node replaced, or one list item dropped), in
// preorder, so that the replacements of big subtrees come first.
std::vector<Node> simplifications(const Node& root);

}  // namespace hyrax::bench::sqlfuzz
