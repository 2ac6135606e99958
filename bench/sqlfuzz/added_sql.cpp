// The SQL added after campaign 4 (README, "What it generates"): window functions, DISTINCT ON,
// ordered string_agg / array_agg, variance and standard deviation, GREATEST / LEAST, the CASE
// forms, and the functions and predicates of campaign 5. Each piece is made from the second
// random stream (Generator::OnExtra), so the first stream's queries stay what they were.
#include <algorithm>

#include "bench/sqlfuzz/generator.hpp"

namespace hyrax::bench::sqlfuzz::gen {

// Ties in an ORDER BY that ends with every relation's unique id cannot change which row comes
// first; without such ids (a derived table, t3) there is no total order to give.
bool Generator::uniqueIds(const Scope& scope) {
  for (const Rel& r : scope.rels)
    if (r.cols.empty() || !r.cols[0].unique) return false;
  return true;
}

std::string Generator::direction() {
  return std::string(rng_.chance(0.5) ? " ASC" : " DESC") + (rng_.chance(0.5) ? " NULLS FIRST" : " NULLS LAST");
}

// A window function for an integer select item. Those whose value depends on the order within
// peers (row_number, ntile, lag, lead, first_value and last_value, ROWS frames) get ORDER BY
// ..., the ids, where the ids make the order total in each partition; those decided by peers
// alone (rank, dense_rank, aggregates over RANGE frames) take any ORDER BY.
void Generator::rowNumber(const Scope& scope, const std::vector<Kind>& kinds, std::vector<Node>& items) {
  std::vector<size_t> ints;
  for (size_t i = 0; i < kinds.size(); ++i)
    if (kindClass(kinds[i]) == Kind::Int) ints.push_back(i);
  if (ints.empty()) return;
  const size_t at = rng_.pick(ints);
  Ctx row{&scope, nullptr, false};
  const bool total = uniqueIds(scope);
  static const char* const kByPeers[] = {"rank()", "dense_rank()", "count(*)", "count($)", "min($)", "max($)",
                                         "sum($ % 1000)"};
  static const char* const kRangeFrames[] = {"", "", " RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
                                             " RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"};
  static const char* const kByOrder[] = {"row_number()", "ntile(3)", "lag($, 1, 0)", "lead($, 2, -1)", "first_value($)",
                                         "last_value($)", "sum($ % 1000)", "max($)"};
  static const char* const kRowsFrames[] = {" ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING", " ROWS 2 PRECEDING",
                                            " ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
                                            " ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING"};
  const bool byOrder = total && rng_.chance(0.6);
  const size_t f = rng_.next() % (byOrder ? std::size(kByOrder) : std::size(kByPeers));
  const std::string call = byOrder ? kByOrder[f] : kByPeers[f];
  auto startsWith = [&](const char* prefix) { return call.rfind(prefix, 0) == 0; };
  const bool framed = startsWith("count") || startsWith("min") || startsWith("max") || startsWith("sum") ||
                      startsWith("first_value") || startsWith("last_value");  // a frame changes its value
  std::string frame;
  if (framed) frame = byOrder ? kRowsFrames[rng_.next() % std::size(kRowsFrames)] : kRangeFrames[rng_.next() % std::size(kRangeFrames)];
  std::vector<Node> parts, keys;
  for (int i = 0, n = static_cast<int>(rng_.range(0, 2)); i < n; ++i) parts.push_back(expr(randomKind(), row, 1));
  for (int i = 0, n = static_cast<int>(rng_.range(byOrder ? 0 : 1, 2)); i < n; ++i)
    keys.push_back(Node::of("$" + direction(), {expr(randomKind(false), row, 1)}));
  if (byOrder)
    for (const Rel& r : scope.rels) keys.push_back(Node::leaf(r.cols[0].ref + (rng_.chance(0.5) ? " ASC" : " DESC")));
  // The shrinker keeps every ORDER BY key: without the ids the order would not be total.
  const size_t all = keys.size();
  Node over = parts.empty() ? Node::of("ORDER BY $" + frame, {Node::listOf(", ", keys, all)})
                            : Node::of("PARTITION BY $ ORDER BY $" + frame, {Node::listOf(", ", parts), Node::listOf(", ", keys, all)});
  Node old = items[at];
  std::vector<Node> args;
  if (call.find('$') != std::string::npos) args.push_back(expr(Kind::Int, row, 1));
  args.push_back(over);
  items[at] = Node::of(call + " OVER ($) AS c" + std::to_string(at), args, {old});
}

// A SELECT DISTINCT ON (keys) over a table with unique ids, its ORDER BY the keys, maybe other
// expressions, then the id: the row each partition keeps is decided.
SelectOut Generator::distinctOn() {
  std::vector<const Source*> keyed;
  for (const Source& t : tables_)
    if (!t.cols.empty() && t.cols[0].unique) keyed.push_back(&t);
  const Source& t = *keyed[rng_.next() % keyed.size()];
  Scope scope;
  const std::string alias = newAlias();
  Rel rel;
  for (const Col& c : t.cols) rel.cols.push_back({alias + "." + c.ref, c.kind, c.unique, c.references});
  rel.rows = static_cast<double>(t.rows);
  rel.table = t.table;
  scope.rels.push_back(rel);
  scope.rows = rel.rows;
  Ctx row{&scope, nullptr, false};
  Node where = whereClause(row, 1, {});
  // PostgreSQL reads an integer constant there as a position and refuses other constants
  // (42601; hyrax sorts by them): each key names a column, the id if need be.
  auto key = [&](Kind k) {
    Node e = expr(k, row, 1);
    return readsColumn(e.render()) ? e : Node::leaf(rel.cols[0].ref);
  };
  std::vector<Node> keys, order, items;
  for (int i = 0, n = static_cast<int>(rng_.range(1, 2)); i < n; ++i) {
    keys.push_back(key(randomKind()));
    order.push_back(Node::of("$" + direction(), {keys.back()}));
  }
  if (rng_.chance(0.5)) order.push_back(Node::of("$" + direction(), {key(randomKind(false))}));
  order.push_back(Node::leaf(rel.cols[0].ref + (rng_.chance(0.5) ? " ASC" : " DESC")));
  std::vector<Kind> kinds;
  for (int i = 0, n = static_cast<int>(rng_.range(1, 3)); i < n; ++i) {
    kinds.push_back(randomKind());
    items.push_back(Node::of("$ AS c" + std::to_string(i), {expr(kinds.back(), row, 1)}));
  }
  Node node = Node::of("SELECT DISTINCT ON ($) $ FROM " + t.name + " AS " + alias + "$ ORDER BY $",
                       {Node::listOf(", ", keys), Node::listOf(", ", items), where, Node::listOf(", ", order, order.size())});
  return {node, kinds, rel.rows};
}

// string_agg ordered by the aggregated value last (ties are equal values, so the text is
// decided), or array_agg likewise, as text.
Node Generator::orderedAggregate(const Ctx& c) {
  Ctx row{c.scope, nullptr, false};
  static const std::vector<std::string> kSeparators = {"','", "''", "' | '"};
  if (rng_.chance(0.7)) {
    Node v = expr(rng_.chance(0.8) ? Kind::Str : Kind::Chr, row, 1);
    const std::string sep = rng_.pick(kSeparators);
    if (rng_.chance(0.15)) return Node::of("string_agg(DISTINCT $, " + sep + " ORDER BY $" + direction() + ")", {v, v});
    std::vector<Node> keys;
    if (rng_.chance(0.4)) keys.push_back(Node::of("$" + direction(), {expr(randomKind(false), row, 1)}));
    keys.push_back(Node::of("$" + direction(), {v}));
    return Node::of("string_agg($, " + sep + " ORDER BY $)", {v, Node::listOf(", ", keys, keys.size())});
  }
  // hyrax's arrays hold integers and strings only (0A000 otherwise); a CHAR is text there and
  // bpchar in PostgreSQL's array, printed with its blanks, so it is left out.
  static const Kind kElements[] = {Kind::Int, Kind::Big, Kind::Str};
  Node v = expr(kElements[rng_.next() % std::size(kElements)], row, 1);
  // A bare quoted literal is of unknown type in PostgreSQL, where array_agg('x') is ambiguous
  // (42725; text here): seed 504, query 222.
  if (v.render().rfind("'", 0) == 0) v = Node::of("CAST($ AS VARCHAR(20))", {v});
  return Node::of("array_to_string(array_agg($ ORDER BY $" + direction() + "), ',', '*')", {v, v});
}

// A whole output column (its type differs: numeric in PostgreSQL for integers and DECIMALs,
// double precision in hyrax; compared by value): the sample or population variance or
// standard deviation.
Node Generator::variance(const Ctx& c) {
  static const std::vector<std::string> kFunctions = {"variance", "var_samp", "var_pop", "stddev", "stddev_samp", "stddev_pop"};
  static const Kind kArgs[] = {Kind::Dbl, Kind::Dbl, Kind::Int, Kind::Big, Kind::Dec};
  Node arg = expr(kArgs[rng_.next() % std::size(kArgs)], Ctx{c.scope, nullptr, false}, 1);
  std::string call = rng_.pick(kFunctions) + (rng_.chance(0.1) ? "(DISTINCT $)" : "($)");
  if (rng_.chance(0.2)) return Node::of(call + " FILTER (WHERE $)", {arg, pred(Ctx{c.scope, nullptr, false}, 1)});
  return Node::of(call, {arg});
}

Node Generator::greatestLeast(Kind k, const Ctx& c, int depth, const Node& e) {
  std::vector<Node> args = {e, expr(k, c, depth - 1)};
  if (rng_.chance(0.3)) args.push_back(rng_.chance(0.5) ? literal(k) : expr(k, c, depth - 1));
  return Node::of(std::string(rng_.chance(0.5) ? "GREATEST($)" : "LEAST($)"), {Node::listOf(", ", args, 2)}, {e});
}

// CASE operand WHEN value THEN ... [ELSE ...] END, or a searched CASE without ELSE.
Node Generator::caseForm(Kind k, const Ctx& c, int depth, const Node& e) {
  if (rng_.chance(0.3)) return Node::of("CASE WHEN $ THEN $ END", {pred(c, depth - 1), e}, {e});
  Kind ok = randomKind(false);
  Node operand = expr(ok, c, depth - 1);
  std::vector<Node> arms;
  for (int i = 0, n = static_cast<int>(rng_.range(1, 3)); i < n; ++i)
    arms.push_back(Node::of("WHEN $ THEN $", {literal(ok), i == 0 ? e : expr(k, c, depth - 1)}));
  if (rng_.chance(0.6)) arms.push_back(Node::of("ELSE $", {expr(k, c, depth - 1)}));
  return Node::of("CASE $ $ END", {operand, Node::listOf(" ", arms)}, {e});
}

// The functions and forms added after campaign 4, of kind `k`, `e` (the expression the first
// stream made here) among their operands and standing in for them when shrinking.
Node Generator::newExpr(Kind k, const Ctx& c, int depth, const Node& e) {
  const int r = static_cast<int>(rng_.range(0, 99));
  if (r < 15) return greatestLeast(k, c, depth, e);
  if (r < 30) return caseForm(k, c, depth, e);
  auto sub = [&](Kind kk) { return expr(kk, c, depth - 1); };
  auto num = [&](int lo, int hi) { return std::to_string(rng_.range(lo, hi)); };
  static const std::vector<std::string> kUnits = {"MONTH", "DOW", "DOY", "QUARTER", "WEEK", "ISODOW", "ISOYEAR", "DECADE", "CENTURY"};
  switch (k) {
    case Kind::Int:
      if (r < 50) return Node::of("($ - $)", {sub(Kind::Date), sub(Kind::Date)}, {e});
      if (r < 80) return Node::of("CAST(EXTRACT(" + rng_.pick(kUnits) + " FROM $) AS INTEGER)", {sub(Kind::Date)}, {e});
      return Node::of("strpos($, $)", {sub(Kind::Str), literal(Kind::Str)}, {e});
    case Kind::Big:
      if (r < 60) return Node::of("CAST(EXTRACT(EPOCH FROM $) AS BIGINT)", {sub(Kind::Date)}, {e});
      return e;
    case Kind::Dbl:
      if (r < 70) return Node::of("date_part('" + std::string(rng_.chance(0.5) ? "month" : "dow") + "', $)", {sub(Kind::Date)}, {e});
      return e;
    case Kind::Date: {
      static const std::vector<std::string> kTrunc = {"week", "month", "quarter", "year", "decade"};
      if (r < 50) return Node::of("CAST(date_trunc('" + rng_.pick(kTrunc) + "', $) AS DATE)", {e}, {e});
      if (r < 70) return Node::of("($ - " + num(-40, 40) + ")", {e}, {e});
      return Node::of("CAST(($ + INTERVAL '" + num(1, 14) + (rng_.chance(0.5) ? " months'" : " days'") + ") AS DATE)", {e}, {e});
    }
    case Kind::Str: {
      Node a = rng_.chance(0.8) ? e : sub(Kind::Chr);
      static const std::vector<std::string> kRegex = {"a", "^a", "b$", "[ab]+", "a.c", "(ab|ba)", "x?z", "^$", "[^ab ]", "_%", "[[:upper:]]"};
      static const std::vector<std::string> kFills = {"'x'", "'ab'", "' '"};
      switch (r % 14) {
        case 0: return Node::of("concat_ws('" + std::string(rng_.chance(0.5) ? "," : "") + "', $, $)", {a, sub(rng_.chance(0.7) ? Kind::Str : Kind::Int)}, {e});
        case 1: return Node::of("repeat($, " + num(0, 3) + ")", {a}, {e});
        case 2: return Node::of("reverse($)", {a}, {e});
        case 3: return Node::of("initcap($)", {a}, {e});
        case 4: return Node::of("translate($, 'a_b', 'Z.')", {a}, {e});
        case 5:
          if (rng_.chance(0.5)) return Node::of("overlay($ PLACING $ FROM " + num(1, 4) + " FOR " + num(0, 3) + ")", {a, sub(Kind::Str)}, {e});
          return Node::of("overlay($ PLACING $ FROM " + num(1, 4) + ")", {a, sub(Kind::Str)}, {e});
        case 6: return Node::of("md5($)", {a}, {e});
        case 7: return Node::of("to_hex($)", {sub(rng_.chance(0.5) ? Kind::Int : Kind::Big)}, {e});
        case 8:
          return Node::of("regexp_replace($, '" + rng_.pick(kRegex) + "', '" + std::string(rng_.chance(0.5) ? "<\\&>" : "Q") + "'" +
                              (rng_.chance(0.5) ? ", 'g')" : ")"),
                          {a}, {e});
        case 9: return Node::of(std::string(rng_.chance(0.5) ? "left" : "right") + "($, " + num(-2, 4) + ")", {a}, {e});
        case 10: return Node::of(std::string(rng_.chance(0.5) ? "lpad" : "rpad") + "($, " + num(0, 8) + ", " + rng_.pick(kFills) + ")", {a}, {e});
        case 11: {
          // Field 0 is an error (22023), which PostgreSQL meets folding a constant call that
          // hyrax never evaluates (seed 504, query 713).
          static const std::vector<std::string> kFields = {"-2", "-1", "1", "2", "3"};
          return Node::of("split_part($, '" + std::string(rng_.chance(0.5) ? "a" : " ") + "', " + rng_.pick(kFields) + ")", {a}, {e});
        }
        case 12: return Node::of("CAST($ AS VARCHAR(20))", {sub(Kind::Date)}, {e});
        default: return Node::of("regexp_replace($, '(a)(b)', '\\2\\1', 'g')", {a}, {e});
      }
    }
    case Kind::Dec:
    case Kind::Chr:
    case Kind::Bool: break;
  }
  return greatestLeast(k, c, depth, e);
}

// The predicates added after campaign 4; `p` (the first stream's) stands in when shrinking.
Node Generator::newPred(const Ctx& c, int depth, const Node& p) {
  const int d = depth > 0 ? depth - 1 : 0;
  const int r = static_cast<int>(rng_.range(0, 99));
  Node s = expr(rng_.chance(0.8) ? Kind::Str : Kind::Chr, c, d);
  if (r < 20) {
    static const std::vector<std::string> kRegex = {"a", "^a", "b$", "[ab]+", "a.c", "(ab|ba)", "x?z", "^$", "[^ab ]", "_", "%", "[[:alpha:]]{3}"};
    const std::string pat = "'" + rng_.pick(kRegex) + "'";
    static const std::vector<std::string> kForms = {"regexp_like($, P)", "regexp_like($, P, 'i')", "($ ~ P)", "($ ~* P)", "($ !~ P)"};
    std::string form = rng_.pick(kForms);
    form.replace(form.find('P'), 1, pat);
    return Node::of(form, {s}, {p});
  }
  if (r < 38) {
    static const std::vector<std::string> kSimilar = {"%a%", "(a|b)%", "_", "%(x|z)", "[ab]*", "a_%", "%", "", "b{2}%", "%[ %]%"};
    return Node::of(std::string(rng_.chance(0.75) ? "($ SIMILAR TO '" : "($ NOT SIMILAR TO '") + rng_.pick(kSimilar) + "')", {s}, {p});
  }
  if (r < 50) return Node::of("starts_with($, $)", {s, rng_.chance(0.7) ? literal(Kind::Str) : expr(Kind::Str, c, d)}, {p});
  if (r < 58) {
    static const std::vector<std::string> kPatterns = {"a%", "%B%", "_A%", "%", "", "a_"};
    return Node::of(std::string(rng_.chance(0.8) ? "($ ILIKE '" : "($ NOT ILIKE '") + rng_.pick(kPatterns) + "')", {s}, {p});
  }
  if (r < 78) {
    auto end = [&]() {
      if (rng_.chance(0.3)) return Node::leaf("INTERVAL '" + std::to_string(rng_.range(0, 60)) + " days'");
      return rng_.chance(0.5) ? literal(Kind::Date) : expr(Kind::Date, c, d);
    };
    return Node::of("(($, $) OVERLAPS ($, $))", {expr(Kind::Date, c, d), end(), rng_.chance(0.5) ? literal(Kind::Date) : expr(Kind::Date, c, d), end()}, {p});
  }
  Kind k = randomKind(false);
  return Node::of(std::string(rng_.chance(0.5) ? "($ IS DISTINCT FROM $)" : "($ IS NOT DISTINCT FROM $)"),
                  {expr(k, c, d), rng_.chance(0.5) ? literal(k) : expr(k, c, d)}, {p});
}

}  // namespace hyrax::bench::sqlfuzz::gen
