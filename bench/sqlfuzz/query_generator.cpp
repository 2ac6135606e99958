#include "bench/sqlfuzz/query_generator.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "bench/sqlfuzz/generator.hpp"

namespace hyrax::bench::sqlfuzz {

namespace gen {

namespace {

const char* kCompare[] = {"=", "<>", "<", "<=", ">", ">="};

}  // namespace

bool readsColumn(const std::string& sql) {
  for (size_t at = sql.find('x'); at != std::string::npos; at = sql.find('x', at + 1)) {
    size_t end = at + 1;
    while (end < sql.size() && std::isdigit(static_cast<unsigned char>(sql[end]))) ++end;
    if (end > at + 1 && end < sql.size() && sql[end] == '.' && (at == 0 || !std::isalnum(static_cast<unsigned char>(sql[at - 1]))))
      return true;
  }
  return false;
}

Query Generator::run() {
  Node with = Node::leaf("");
  if (rng_.chance(0.25)) {
    std::vector<Node> defs;
    for (int i = 0, n = static_cast<int>(rng_.range(1, 2)); i < n; ++i) {
      SelectOut s = select(1, nullptr, nullptr, false);
      if (feature(0.12)) {
        OnExtra on(*this);
        s = distinctOn();
      }
      Source cte{std::string("w") + std::to_string(i), {}, s.rows, -1};
      for (size_t c = 0; c < s.kinds.size(); ++c) cte.cols.push_back({std::string("c") + std::to_string(c), s.kinds[c]});
      defs.push_back(Node::of(cte.name + " AS ($)", {s.node}));
      ctes_.push_back(std::move(cte));
    }
    with = Node::of("WITH $ ", {Node::listOf(", ", std::move(defs))}, {Node::leaf("")});
  }
  double rows = 0;
  std::vector<Kind> kinds;
  std::vector<bool> variance;
  Node body = setChain(2, nullptr, nullptr, kinds, rows, &variance);
  Node order = Node::leaf("");
  bool big = rows > 3000;
  if (big ? rng_.chance(0.85) : rng_.chance(0.3)) {
    std::string keys;
    for (size_t i = 0; i < kinds.size(); ++i) {
      keys += i ? ", " : "";
      keys += std::to_string(i + 1);
      keys += rng_.chance(0.5) ? " ASC" : " DESC";
      keys += rng_.chance(0.5) ? " NULLS FIRST" : " NULLS LAST";
    }
    std::string limit = big || rng_.chance(0.5) ? std::string(" LIMIT ") + std::to_string(rng_.range(1, 60)) : "";
    if (!limit.empty() && rng_.chance(0.3)) limit += std::string(" OFFSET ") + std::to_string(rng_.range(0, 20));
    // Groups whose variances are equal but summed in other orders (or exact in PostgreSQL's
    // numeric) differ in the last digits, so such a key may order them either way (seed 546 query
    // 925); the comparison takes rows that close in either order (answer.cpp), but a LIMIT could
    // keep either of them. No LIMIT then (the draws are made all the same).
    if (std::find(variance.begin(), variance.end(), true) != variance.end()) limit.clear();
    order = Node::leaf(" ORDER BY " + keys + limit);
    if (!limit.empty()) order.orSimpler(Node::leaf(" ORDER BY " + keys));
    order.orSimpler(Node::leaf(""));
  }
  return Query{Node::of("$$$", {std::move(with), std::move(body), std::move(order)})};
}

// A SELECT, or a chain of UNION / INTERSECT / EXCEPT [ALL] of SELECTs of the same kinds.
// `variance`: the query's own output, where a lone SELECT may have variance columns (set there).
Node Generator::setChain(int depth, const std::vector<Kind>* want, const Scope* outer, std::vector<Kind>& kinds, double& rows,
                         std::vector<bool>* variance) {
  SelectOut first = select(depth, want, outer, false, variance != nullptr);
  kinds = first.kinds;
  rows = first.rows;
  Node chain = first.node;
  if (variance) *variance = first.variance;
  if (depth > 0 && rng_.chance(0.2)) {
    // A set operation compares its rows' values exactly, as a comparison would: no variance.
    chain = first.plain;
    if (variance) variance->assign(kinds.size(), false);
    for (int i = 0, n = static_cast<int>(rng_.range(1, 2)); i < n; ++i) {
      static const char* kOps[] = {"UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"};
      SelectOut next = select(depth - 1, &kinds, outer, false);
      rows += next.rows;
      Node left = chain;
      chain = Node::of("$ " + std::string(kOps[rng_.next() % 6]) + " $", {left, next.node}, {left, next.node});
    }
  }
  return chain;
}

// One SELECT. `want`: the kinds of its columns (a set operation's second side, a subquery's).
// `output`: the query's own output SELECT, the only one whose columns may be a variance (a
// derived table's or a CTE's would be read as operands: README, "Kept out on purpose").
SelectOut Generator::select(int depth, const std::vector<Kind>* want, const Scope* outer, bool outerLeaves, bool output) {
  Scope scope;
  scope.outer = outer;
  scope.outerLeaves = outerLeaves;
  Node from = fromClause(depth, scope, outer ? 1 : 3);
  Ctx row{&scope, nullptr, depth > 0};
  Node where = whereClause(row, depth, {});
  std::vector<Kind> kinds = want ? *want : std::vector<Kind>{};
  if (!want)
    for (int i = 0, n = static_cast<int>(rng_.range(1, 3)); i < n; ++i) kinds.push_back(randomKind());
  std::vector<Node> items, varianceItems(kinds.size());
  double rows = scope.rows * (where.render().empty() ? 1.0 : 0.4);
  const int mode = static_cast<int>(rng_.range(0, 99));
  std::string distinct;
  Node group = Node::leaf(""), having = Node::leaf("");
  if (mode < 30) {  // GROUP BY
    std::vector<GroupKey> keys;
    for (int i = 0, n = static_cast<int>(rng_.range(1, 3)); i < n; ++i) {
      Kind k = randomKind();
      Node e = rng_.chance(0.8) ? column(k, scope, false) : expr(k, Ctx{&scope, nullptr, false}, 1);
      if (!readsColumn(e.render())) continue;  // PostgreSQL reads a constant key as a position or refuses it
      keys.push_back({e, k});
    }
    if (keys.empty()) keys.push_back({Node::leaf(scope.rels[0].cols[0].ref), scope.rels[0].cols[0].kind});
    Ctx agg{&scope, &keys, false};
    for (size_t i = 0; i < kinds.size(); ++i) items.push_back(selectItem(kinds[i], agg, i, true, &varianceItems[i]));
    std::vector<Node> keyNodes;
    for (const GroupKey& k : keys) keyNodes.push_back(k.node);
    group = Node::of(" GROUP BY $", {Node::listOf(", ", keyNodes)});
    if (rng_.chance(0.4)) having = Node::of(" HAVING $", {pred(agg, 2)}, {Node::leaf("")});
    rows = std::min(rows, 500.0);
  } else if (mode < 45) {  // aggregates without GROUP BY: one row
    std::vector<GroupKey> none;
    Ctx agg{&scope, &none, false};
    for (size_t i = 0; i < kinds.size(); ++i) items.push_back(selectItem(kinds[i], agg, i, true, &varianceItems[i]));
    if (rng_.chance(0.15)) having = Node::of(" HAVING $", {pred(agg, 1)}, {Node::leaf("")});
    rows = 1;
  } else {
    for (size_t i = 0; i < kinds.size(); ++i) items.push_back(selectItem(kinds[i], row, i, false, nullptr));
    if (rng_.chance(0.2)) distinct = "DISTINCT ";
    if (!outer && feature(0.3)) {
      OnExtra on(*this);
      rowNumber(scope, kinds, items);
    }
  }
  auto make = [&](const std::vector<Node>& list) {
    return Node::of("SELECT " + distinct + "$ FROM $$$$", {Node::listOf(", ", list), from, where, group, having});
  };
  std::vector<Node> withVariance = items;
  std::vector<bool> variance(kinds.size());
  for (size_t i = 0; output && i < kinds.size(); ++i)
    if (!varianceItems[i].format.empty()) {
      withVariance[i] = varianceItems[i];
      variance[i] = true;
    }
  return {make(withVariance), kinds, std::max(rows, 1.0), make(items), variance};
}

// The item the first stream makes; where the second stream makes a variance instead, that item
// goes to `varianceItem` (made in every SELECT, so that the streams' draws stay the same, and
// used in the query's output SELECT only).
Node Generator::selectItem(Kind k, const Ctx& c, size_t i, bool aggregating, Node* varianceItem) {
  Node e = expr(k, c, 2);
  // avg's type differs between the engines (numeric, double), so it is only ever a whole output
  // column, compared by value, never an operand.
  if (aggregating && (k == Kind::Dec || k == Kind::Dbl) && rng_.chance(0.25)) {
    Node arg = k == Kind::Dbl ? expr(Kind::Dbl, Ctx{c.scope, nullptr, false}, 1)
                              : expr(rng_.chance(0.5) ? Kind::Int : Kind::Dec, Ctx{c.scope, nullptr, false}, 1);
    e = Node::of(rng_.chance(0.2) ? "avg(DISTINCT $)" : "avg($)", {arg});
  }
  if (aggregating && k == Kind::Dbl && feature(0.2)) {
    OnExtra on(*this);
    Node v = variance(c);
    if (varianceItem) *varianceItem = Node::of(std::string("$ AS c") + std::to_string(i), {v});
  }
  return Node::of(std::string("$ AS c") + std::to_string(i), {e});
}

Node Generator::whereClause(const Ctx& c, int depth, std::vector<Node> conjuncts) {
  for (int i = 0, n = static_cast<int>(rng_.range(0, 3)); i < n; ++i) conjuncts.push_back(pred(c, depth));
  if (conjuncts.empty()) return Node::leaf("");
  return Node::of(" WHERE $", {Node::listOf(" AND ", conjuncts)}, {Node::leaf("")});
}

// FROM: a relation and up to `maxJoins` joins, each along a reference (rN = tN.id), an equality
// of one kind, or any condition (or none: CROSS JOIN) where the inputs are small enough.
Node Generator::fromClause(int depth, Scope& scope, int maxJoins) {
  Node first = relation(depth, scope);
  scope.rows = scope.rels.back().rows;
  std::vector<Node> joins;
  for (int i = 0, n = static_cast<int>(rng_.range(0, maxJoins)); i < n; ++i) {
    Scope trial = scope;
    Node rel = relation(depth - 1, trial);
    const Rel& added = trial.rels.back();
    // Equalities that keep the join small: a reference to an id, or an id on either side. An id
    // counts only where its rows come once in the FROM so far: after `x6.id = x7.i1` each x6 row
    // may come many times (seed 580 query 477 of campaign 10 joined x8 by x6.id too, and the
    // skewed i1's heavy hitters met each other's rows). `Link` says which side may repeat.
    struct Link {
      std::string eq;
      double rows;
      bool scopeRepeats;  // a row of the FROM so far may meet several of `added`'s
      bool addedRepeats;  // a row of `added` may meet several of the FROM's
    };
    std::vector<Link> links;
    for (const Rel& r : scope.rels)
      for (const Col& a : r.cols)
        for (const Col& b : added.cols) {
          if (kindClass(a.kind) != kindClass(b.kind) || a.kind == Kind::Bool) continue;
          std::string eq = a.ref + " = " + b.ref;
          const bool aUnique = a.unique && !r.repeated;
          if (b.unique && (a.references == added.table || a.references < 0))
            links.push_back({eq, scope.rows, false, !aUnique});
          else if (aUnique && (b.references == r.table || b.references < 0))
            links.push_back({eq, std::max(scope.rows, added.rows), !b.unique, false});
          else if (scope.rows * added.rows <= 300000)
            links.push_back({eq, scope.rows * added.rows / 5, true, true});
        }
    // Prefer references: they are the joins real schemas have.
    std::vector<Link> refs;
    for (const auto& l : links)
      if (l.rows <= std::max(scope.rows, added.rows)) refs.push_back(l);
    const bool small = scope.rows * added.rows <= 20000;
    if (links.empty() && !small) continue;
    Ctx both{&trial, nullptr, false};
    static const char* kTypes[] = {" JOIN ", " LEFT JOIN ", " RIGHT JOIN ", " FULL JOIN "};
    const char* type = kTypes[rng_.next() % 4];
    Node join;
    double rows;
    bool scopeRepeats = true, addedRepeats = true;
    if (!links.empty() && (!small || rng_.chance(0.75))) {
      auto link = !refs.empty() && rng_.chance(0.8) ? rng_.pick(refs) : rng_.pick(links);
      rows = link.rows;
      scopeRepeats = link.scopeRepeats;
      addedRepeats = link.addedRepeats;
      Node on = Node::leaf(link.eq);
      // PostgreSQL's FULL JOIN takes only equalities that hash or merge.
      if (std::string(type) != " FULL JOIN " && rng_.chance(0.3)) on = Node::of("$ AND $", {on, pred(both, 1)}, {on});
      join = Node::of(std::string(type) + "$ ON $", {rel, on});
    } else if (rng_.chance(0.4)) {
      join = Node::of(" CROSS JOIN $", {rel});
      rows = scope.rows * added.rows;
    } else {
      if (std::string(type) == " FULL JOIN ") type = " LEFT JOIN ";
      join = Node::of(std::string(type) + "$ ON $", {rel, pred(both, 1)});
      rows = scope.rows * added.rows / 3;
    }
    if (rows > 300000) continue;
    if (scopeRepeats)
      for (size_t k = 0; k + 1 < trial.rels.size(); ++k) trial.rels[k].repeated = true;
    if (addedRepeats) trial.rels.back().repeated = true;
    scope = trial;
    scope.rows = std::max(rows, 1.0);
    joins.push_back(join);
  }
  return Node::of("$$", {first, Node::listOf("", joins, 0)});
}

// A table (the big one most often), a CTE, or a derived table, added to `scope`.
Node Generator::relation(int depth, Scope& scope) {
  const std::string alias = newAlias();
  Rel rel;
  Node node;
  const int r = static_cast<int>(rng_.range(0, 99));
  if (depth > 0 && r < 12) {
    double rows = 0;
    std::vector<Kind> kinds;
    Node q = setChain(depth - 1, nullptr, nullptr, kinds, rows);
    for (size_t c = 0; c < kinds.size(); ++c) rel.cols.push_back({alias + std::string(".c") + std::to_string(c), kinds[c]});
    rel.rows = rows;
    node = Node::of("($) AS " + alias, {q});
  } else {
    const Source& s = !ctes_.empty() && r < 30 ? rng_.pick(ctes_) : r < 55 ? tables_[0] : rng_.pick(tables_);
    for (const Col& c : s.cols) rel.cols.push_back({alias + "." + c.ref, c.kind, c.unique, c.references});
    rel.rows = s.rows;
    rel.table = s.table;
    node = Node::leaf(s.name + " AS " + alias);
  }
  if (depth > 0 && feature(0.05)) {  // in its place a DISTINCT ON query
    OnExtra on(*this);
    SelectOut s = distinctOn();
    rel = Rel{};
    for (size_t c = 0; c < s.kinds.size(); ++c) rel.cols.push_back({alias + std::string(".c") + std::to_string(c), s.kinds[c]});
    rel.rows = s.rows;
    node = Node::of("($) AS " + alias, {s.node});
  }
  scope.rels.push_back(std::move(rel));
  return node;
}

// A column of kind class `k` in the scope (or, where allowed, an enclosing one), or a NULL of
// that kind when there is none.
Node Generator::column(Kind k, const Scope& scope, bool outerToo) {
  std::vector<const Col*> found;
  for (const Scope* s = &scope; s; s = s->outerLeaves && outerToo ? s->outer : nullptr)
    for (const Rel& r : s->rels)
      for (const Col& c : r.cols)
        if (kindClass(c.kind) == kindClass(k)) found.push_back(&c);
  if (found.empty()) return Node::leaf(std::string("CAST(NULL AS ") + kindTypeName(k) + ")");
  return Node::leaf(found[rng_.next() % found.size()]->ref);
}

Node Generator::literal(Kind k) {
  if (rng_.chance(0.03)) return Node::leaf(std::string("CAST(NULL AS ") + kindTypeName(k) + ")");
  static const std::vector<int> kInts = {0, 1, 2, 3, 5, 7, 10, -1, -5, 42, 100, 1000};
  switch (k) {
    case Kind::Int: return Node::leaf(std::to_string(rng_.chance(0.5) ? rng_.pick(kInts) : rng_.skewed(50) - 5));
    case Kind::Big: {
      // 1000000007 and 2000000014 fit INTEGER, so both engines type them INTEGER, where `* 9` or
      // a sum overflows; PostgreSQL folds such a constant while planning, even where no row
      // evaluates it (22003 there only: seed 530 query 701, seed 501 query 32). They are BIGINTs.
      const int64_t v = rng_.chance(0.5) ? rng_.skewed(30) * 1000000007LL : rng_.skewed(50) - 5;
      return Node::leaf(v > 1000000 && v <= INT32_MAX ? "CAST(" + std::to_string(v) + " AS BIGINT)" : std::to_string(v));
    }
    case Kind::Dec: {
      int64_t v = rng_.chance(0.5) ? rng_.skewed(40) * 25 : rng_.range(-100000, 100000);
      std::string s = std::to_string(std::llabs(v) / 100) + std::string(".") + std::to_string(std::llabs(v) % 100 / 10) + std::to_string(std::llabs(v) % 10);
      return Node::leaf(v < 0 ? "-" + s : s);
    }
    case Kind::Dbl:
      return Node::leaf(std::string("CAST(") + std::to_string(rng_.skewed(40) - 4) + (rng_.chance(0.5) ? ".25" : ".5") + " AS DOUBLE PRECISION)");
    case Kind::Str: return Node::leaf("'" + poolText(static_cast<uint64_t>(rng_.skewed(30)), 6, false) + "'");
    case Kind::Chr: return Node::leaf("CAST('" + poolText(static_cast<uint64_t>(rng_.skewed(12)), 4, true) + "' AS CHAR(4))");
    case Kind::Date: return Node::leaf("DATE '" + isoDate(10957 + rng_.skewed(400) - 20) + "'");
    case Kind::Bool: return Node::leaf(rng_.chance(0.5) ? "TRUE" : "FALSE");
  }
  return Node::leaf("NULL");
}

Node Generator::leaf(Kind k, const Ctx& c) {
  if (c.keys) {
    std::vector<const GroupKey*> keys;
    for (const GroupKey& g : *c.keys)
      if (kindClass(g.kind) == kindClass(k)) keys.push_back(&g);
    if (!keys.empty() && rng_.chance(0.5)) return keys[rng_.next() % keys.size()]->node;
    if (rng_.chance(0.85)) return aggregate(k, c);
    return literal(k);
  }
  if (rng_.chance(0.8)) {
    Node col = column(k, *c.scope, true);
    if (col.render().rfind("CAST(NULL", 0) != 0) return col;
  }
  return literal(k);
}

// An aggregate of kind `k` over the rows of c's scope: one of the first generator's, or
// string_agg / array_agg in a total order, and sometimes with FILTER (WHERE ...).
Node Generator::aggregate(Kind k, const Ctx& c) {
  Node a = baseAggregate(k, c);
  if (k == Kind::Str && feature(0.25)) {
    OnExtra on(*this);
    a = orderedAggregate(c);
  }
  const std::string& f = a.format;
  const bool call = f.rfind("count(", 0) == 0 || f.rfind("sum(", 0) == 0 || f.rfind("min(", 0) == 0 ||
                    f.rfind("max(", 0) == 0 || f.rfind("CAST(sum(", 0) == 0 || f.rfind("string_agg(", 0) == 0;
  if (!call || !feature(0.15)) return a;
  OnExtra on(*this);
  // FILTER goes right after the aggregate's own parenthesis (inside a CAST around it).
  const size_t open = f.find('(', f.rfind("CAST(sum(", 0) == 0 ? 5 : 0);
  size_t close = open, level = 0;
  for (; close < f.size(); ++close) {
    if (f[close] == '(') ++level;
    if (f[close] == ')' && --level == 0) break;
  }
  Node filtered = a;
  filtered.format = f.substr(0, close + 1) + " FILTER (WHERE $)" + f.substr(close + 1);
  filtered.kids.push_back(pred(Ctx{c.scope, nullptr, false}, 1));
  filtered.simpler = {a};
  return filtered;
}

Node Generator::baseAggregate(Kind k, const Ctx& c) {
  Ctx row{c.scope, nullptr, false};
  const bool distinct = rng_.chance(0.15);
  const std::string d = distinct ? "DISTINCT " : "";
  switch (k) {
    case Kind::Int:
    case Kind::Big: {
      int r = static_cast<int>(rng_.range(0, 4));
      if (r == 0) return Node::leaf("count(*)");
      if (r == 1) return Node::of("count(" + d + "$)", {expr(randomKind(), row, 1)});
      // sum of a BIGINT is numeric in PostgreSQL: cast back, so that `/` stays integer division.
      if (r == 2) return Node::of("CAST(sum(" + d + "$) AS BIGINT)", {expr(Kind::Int, row, 1)});
      return Node::of(r == 3 ? "min($)" : "max($)", {expr(k, row, 1)});
    }
    case Kind::Dec:
    case Kind::Dbl:
      if (rng_.chance(0.5)) return Node::of("sum(" + d + "$)", {expr(k, row, 1)});
      [[fallthrough]];
    case Kind::Str:
    case Kind::Chr:
    case Kind::Date: return Node::of(rng_.chance(0.5) ? "min($)" : "max($)", {expr(k, row, 1)});
    case Kind::Bool: break;
  }
  return literal(k);
}

Node Generator::expr(Kind k, const Ctx& c, int depth) {
  Node e = baseExpr(k, c, depth);
  if (k == Kind::Bool || depth <= 0 || !feature(0.07)) return e;
  OnExtra on(*this);
  return newExpr(k, c, depth, e);
}

Node Generator::baseExpr(Kind k, const Ctx& c, int depth) {
  if (k == Kind::Bool) return rng_.chance(0.3) ? leaf(k, c) : pred(c, depth);
  if (depth <= 0 || rng_.chance(0.35)) return leaf(k, c);
  auto sub = [&](Kind kk) { return expr(kk, c, depth - 1); };
  const int r = static_cast<int>(rng_.range(0, 99));
  // Shared by every kind: CASE, COALESCE, NULLIF, a scalar subquery.
  if (r < 8) {
    Node a = sub(k), b = sub(k);
    return Node::of("CASE WHEN $ THEN $ ELSE $ END", {pred(c, depth - 1), a, b}, {a, b});
  }
  if (r < 13) {
    Node a = sub(k), b = sub(k);
    return Node::of("COALESCE($, $)", {a, b}, {a, b});
  }
  if (r < 15) {
    Node a = sub(k);
    return Node::of("NULLIF($, $)", {a, sub(k)}, {a});
  }
  if (r < 21 && c.subqueries && depth >= 2) return scalarSubquery(k, c, depth - 1);
  Node a = sub(k);
  switch (k) {
    case Kind::Int:
    case Kind::Big:
      if (r < 40) return Node::of(rng_.chance(0.5) ? "($ + $)" : "($ - $)", {a, sub(k)}, {a});
      if (r < 50) return Node::of(std::string("($ * ") + std::to_string(rng_.range(-3, 9)) + ")", {a}, {a});
      if (r < 58) return Node::of(std::string("($ / ") + std::to_string(rng_.pick(std::vector<int>{2, 3, 7, -4, 10})) + ")", {a}, {a});
      if (r < 64) return Node::of(std::string("($ % ") + std::to_string(rng_.range(2, 9)) + ")", {a}, {a});
      if (r < 70) return Node::of("abs($)", {a}, {a});
      if (r < 75) return Node::of("length($)", {sub(rng_.chance(0.7) ? Kind::Str : Kind::Chr)}, {literal(k)});
      // octet_length of a CHAR(n) counts its padding, each value its own (README, finding 6)
      if (r < 78) return Node::of("octet_length($)", {sub(rng_.chance(0.4) ? Kind::Str : Kind::Chr)}, {literal(k)});
      if (r < 84) return Node::of("CAST(EXTRACT(" + std::string(rng_.chance(0.5) ? "YEAR" : "DAY") + " FROM $) AS INTEGER)", {sub(Kind::Date)}, {literal(k)});
      if (r < 88) return Node::of("(- $)", {a}, {a});
      return a;
    case Kind::Dec:
      if (r < 45) return Node::of(rng_.chance(0.5) ? "($ + $)" : "($ - $)", {a, sub(k)}, {a});
      if (r < 55) return Node::of(std::string("($ * ") + std::to_string(rng_.range(-3, 9)) + ")", {a}, {a});
      if (r < 62) return Node::of("abs($)", {a}, {a});
      if (r < 70) return Node::of(std::string("round($, ") + std::to_string(rng_.range(0, 2)) + ")", {a}, {a});
      if (r < 80) return Node::of("CAST(($ % 1000000) AS DECIMAL(12,2))", {sub(Kind::Int)}, {literal(k)});
      return a;
    case Kind::Dbl:
      if (r < 45) return Node::of(rng_.chance(0.5) ? "($ + $)" : "($ - $)", {a, sub(k)}, {a});
      if (r < 55) return Node::of(std::string("($ * ") + std::to_string(rng_.range(-3, 9)) + ")", {a}, {a});
      if (r < 62) return Node::of("abs($)", {a}, {a});
      if (r < 75) return Node::of("CAST($ AS DOUBLE PRECISION)", {sub(Kind::Int)}, {literal(k)});
      return a;
    case Kind::Str:
      if (r < 35) return Node::of("($ || $)", {a, sub(k)}, {a});
      if (r < 45) return Node::of(rng_.chance(0.5) ? "upper($)" : "lower($)", {a}, {a});
      if (r < 55) return Node::of(std::string("substr($, ") + std::to_string(rng_.range(1, 3)) + std::string(", ") + std::to_string(rng_.range(0, 4)) + ")", {a}, {a});
      if (r < 60) return Node::of("replace($, 'a', 'Zz')", {a}, {a});
      if (r < 66) return Node::of("trim($)", {a}, {a});
      if (r < 71) return Node::of("CAST($ AS VARCHAR(30))", {sub(rng_.chance(0.5) ? Kind::Int : Kind::Chr)}, {literal(k)});
      // concat prints a CHAR(n) with its padding, || without (README, finding 6)
      if (r < 74) return Node::of("concat($, '|')", {sub(rng_.chance(0.3) ? Kind::Str : Kind::Chr)}, {literal(k)});
      return a;
    case Kind::Date:
      if (r < 50) return Node::of(std::string("($ + ") + std::to_string(rng_.range(-40, 40)) + ")", {a}, {a});
      return a;
    case Kind::Chr:
    case Kind::Bool: break;
  }
  return a;
}

Node Generator::pred(const Ctx& c, int depth) {
  Node p = basePred(c, depth);
  if (!feature(0.06)) return p;
  OnExtra on(*this);
  return newPred(c, depth, p);
}

Node Generator::basePred(const Ctx& c, int depth) {
  const int r = static_cast<int>(rng_.range(0, 99));
  if (depth > 0 && r < 14) {
    Node a = pred(c, depth - 1), b = pred(c, depth - 1);
    return Node::of(r < 8 ? "($ AND $)" : "($ OR $)", {a, b}, {a, b});
  }
  if (depth > 0 && r < 18) {
    Node a = pred(c, depth - 1);
    return Node::of("(NOT $)", {a}, {a});
  }
  if (depth > 0 && r < 26 && c.subqueries && !c.keys) return subqueryPredicate(c, depth);
  const int d = depth > 0 ? depth - 1 : 0;
  if (r < 30) {
    Node b = column(Kind::Bool, *c.scope, true);
    if (!c.keys && b.render().rfind("CAST(NULL", 0) != 0) return b;
  }
  Kind k = randomKind(false);
  Node a = expr(k, c, d);
  // A CHAR meets a VARCHAR as a CHAR (its blanks do not count), a TEXT as text (README, finding 6).
  if (r < 62 && k == Kind::Chr && rng_.chance(0.3))
    return Node::of("($ " + std::string(kCompare[rng_.next() % 6]) + " $)", {a, expr(Kind::Str, c, d)});
  if (r < 62) return Node::of("($ " + std::string(kCompare[rng_.next() % 6]) + " $)", {a, rng_.chance(0.6) ? literal(k) : expr(k, c, d)});
  if (r < 70) return Node::of(rng_.chance(0.8) ? "($ BETWEEN $ AND $)" : "($ NOT BETWEEN $ AND $)", {a, literal(k), literal(k)});
  if (r < 78) {
    std::vector<Node> items;
    for (int i = 0, n = static_cast<int>(rng_.range(1, 4)); i < n; ++i) items.push_back(literal(k));
    return Node::of(rng_.chance(0.7) ? "($ IN ($))" : "($ NOT IN ($))", {a, Node::listOf(", ", items)});
  }
  if (r < 88) {
    static const std::vector<std::string> kPatterns = {"a%", "%b%", "_a%", "%", "", "A_", "%_", "%z", "b", "%x%c%"};
    // On CHAR(n) too: its value is matched padded to n (README.md, "Findings" 1, fixed).
    Node s = expr(rng_.chance(0.7) ? Kind::Str : Kind::Chr, c, d);
    return Node::of(std::string(rng_.chance(0.8) ? "($ LIKE '" : "($ NOT LIKE '") + rng_.pick(kPatterns) + "')", {s});
  }
  return Node::of(rng_.chance(0.5) ? "($ IS NULL)" : "($ IS NOT NULL)", {a});
}

// The scope and FROM of a subquery of `c`, with (mostly) an equality correlating it, among
// `conjuncts`.
Node Generator::subqueryFrom(const Ctx& c, int depth, Scope& inner, std::vector<Node>& conjuncts) {
  inner.outer = c.scope;
  Node from = fromClause(depth - 1, inner, 1);
  inner.outerLeaves = c.scope->rows * inner.rows <= 1000000;
  if (rng_.chance(0.75)) {
    Kind k = randomKind(false);
    Node o = column(k, *c.scope, true), i = column(k, inner, false);
    if (o.render().rfind("CAST(NULL", 0) != 0 && i.render().rfind("CAST(NULL", 0) != 0)
      conjuncts.push_back(Node::of("$ = $", {i, o}));
  }
  return from;
}

Node Generator::subqueryPredicate(const Ctx& c, int depth) {
  Scope inner;
  std::vector<Node> conjuncts;
  Node from = subqueryFrom(c, depth, inner, conjuncts);
  Ctx ic{&inner, nullptr, depth > 1};
  Node where = whereClause(ic, depth - 1, conjuncts);
  if (rng_.chance(0.5))
    return Node::of(rng_.chance(0.6) ? "EXISTS (SELECT 1 FROM $$)" : "NOT EXISTS (SELECT 1 FROM $$)", {from, where});
  Kind k = randomKind(false);
  Node lhs = expr(k, c, depth - 1), item = expr(k, ic, 1);
  return Node::of(rng_.chance(0.6) ? "($ IN (SELECT $ FROM $$))" : "($ NOT IN (SELECT $ FROM $$))", {lhs, item, from, where});
}

// A subquery of one row and column: an aggregate, a lookup by a unique id, or the first value
// in a total order.
Node Generator::scalarSubquery(Kind k, const Ctx& c, int depth) {
  Scope inner;
  std::vector<Node> conjuncts;
  Node from = subqueryFrom(c, depth, inner, conjuncts);
  Ctx ic{&inner, nullptr, false};
  const int r = static_cast<int>(rng_.range(0, 99));
  if (r < 25) {  // by id: each outer row finds at most one row
    const Rel& rel = inner.rels.front();
    if (!rel.cols.empty() && rel.cols[0].unique && inner.rels.size() == 1) {
      Node key = expr(Kind::Int, c, 1);
      Node where = Node::of(" WHERE $", {Node::of(rel.cols[0].ref + " = $", {key})});
      return Node::of("(SELECT $ FROM $$)", {expr(k, ic, 1), from, where}, {literal(k)});
    }
  }
  Node where = whereClause(ic, depth - 1, conjuncts);
  if (r < 60)  // an aggregate at the top: one row whatever the WHERE keeps
    return Node::of("(SELECT $ FROM $$)", {aggregate(k, ic), from, where}, {literal(k)});
  return Node::of("(SELECT $ FROM $$ ORDER BY 1 " + std::string(rng_.chance(0.5) ? "ASC" : "DESC") + " NULLS FIRST LIMIT 1)",
                  {expr(k, ic, 1), from, where}, {literal(k)});
}

}  // namespace gen

Query generateQuery(const Schema& schema, uint64_t seed, uint64_t index) { return gen::Generator(schema, seed, index).run(); }

}  // namespace hyrax::bench::sqlfuzz
