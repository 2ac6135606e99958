#include "test/differential/generator.hpp"

#include <algorithm>
#include <cstdio>

namespace hyrax::differential {

namespace {

Sql both(const std::string& x) { return {x, x}; }
Sql operator+(const Sql& a, const Sql& b) { return {a.h + b.h, a.s + b.s}; }
Sql operator+(const Sql& a, const std::string& b) { return {a.h + b, a.s + b}; }
Sql operator+(const std::string& a, const Sql& b) { return {a + b.h, a + b.s}; }
Sql binary(const Sql& a, const std::string& op, const Sql& b) { return "(" + a + " " + op + " " + b + ")"; }
Sql join(const std::vector<Sql>& parts, const std::string& sep) {
  Sql r;
  for (size_t i = 0; i < parts.size(); ++i) r = i ? r + sep + parts[i] : parts[i];
  return r;
}

// ISO date of 2000-01-01 + `offset` days (proleptic Gregorian; Howard Hinnant's civil_from_days).
std::string isoDate(int offset) {
  long z = 10957 + offset + 719468;  // 10957: days from 1970-01-01 to 2000-01-01
  long era = (z >= 0 ? z : z - 146096) / 146097;
  long doe = z - era * 146097;
  long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long y = yoe + era * 400;
  long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  long mp = (5 * doy + 2) / 153;
  long d = doy - (153 * mp + 2) / 5 + 1;
  long m = mp < 10 ? mp + 3 : mp - 9;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04ld-%02ld-%02ld", y + (m <= 2), m, d);
  return buf;
}

const std::vector<std::string> kStrings = {"",  "a",  "b",  "ab", "ba", "abc", "a b", " a", "b ",
                                           "bb", "ca", "x", "aa", "bab"};
const std::vector<std::string> kPatterns = {"a%", "%a", "%b%", "_", "a_", "%", "_b%", "ab", "%a b%", ""};

std::string quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace

std::vector<Sql> Schema::statements() const {
  std::vector<Sql> out;
  for (auto& t : tables) {
    Sql create = both("CREATE TABLE " + t.name + " (");
    for (size_t i = 0; i < t.columns.size(); ++i) {
      auto& c = t.columns[i];
      const char* h = c.type == Type::Int ? "INTEGER" : c.type == Type::Text ? "VARCHAR(10)" : c.type == Type::Date ? "DATE" : "BOOLEAN";
      const char* s = c.type == Type::Int || c.type == Type::Bool ? "INTEGER" : "TEXT";
      create = create + (i ? ", " : "") + Sql{c.name + " " + h, c.name + " " + s};
    }
    out.push_back(create + ")");
    if (t.rows.empty()) continue;
    std::vector<Sql> rows;
    for (auto& r : t.rows) rows.push_back("(" + join(r, ", ") + ")");
    out.push_back("INSERT INTO " + t.name + " VALUES " + join(rows, ", "));
  }
  return out;
}

std::string Schema::script() const {
  std::string s;
  for (auto& st : statements()) s += st.h + ";\n";
  return s;
}

Schema generateSchema(Rng& rng) {
  Schema schema;
  int tables = rng.range(2, 4);
  for (int t = 0; t < tables; ++t) {
    Table table;
    table.name = "t";
    table.name += std::to_string(t);
    int columns = rng.range(2, 5);
    for (int c = 0; c < columns; ++c) {
      int r = rng.range(0, 99);
      Type type = c == 0 || r < 45 ? Type::Int : r < 70 ? Type::Text : r < 85 ? Type::Date : Type::Bool;
      std::string name = "c";
      table.columns.push_back({name.append(std::to_string(c)), type});
    }
    int rows = rng.chance(0.1) ? 0 : rng.range(1, 10);
    for (int i = 0; i < rows; ++i) {
      std::vector<Sql> row;
      for (auto& c : table.columns) {
        if (rng.chance(0.2)) {
          row.push_back(both("NULL"));
          continue;
        }
        switch (c.type) {
          case Type::Int: row.push_back(both(std::to_string(rng.chance(0.6) ? rng.range(-5, 5) : rng.range(-20, 20)))); break;
          case Type::Text: row.push_back(both(quote(rng.pick(kStrings)))); break;
          case Type::Date: {
            std::string d = quote(isoDate(rng.range(-40, 40)));
            row.push_back({"DATE " + d, d});
            break;
          }
          case Type::Bool: row.push_back(both(rng.chance(0.5) ? "TRUE" : "FALSE")); break;
        }
      }
      table.rows.push_back(std::move(row));
    }
    schema.tables.push_back(std::move(table));
  }
  return schema;
}

Type QueryGenerator::anyType(bool withBool) {
  int r = rng_.range(0, 99);
  if (r < 50) return Type::Int;
  if (r < 72) return Type::Text;
  if (r < 88 || !withBool) return Type::Date;
  return Type::Bool;
}

Sql QueryGenerator::literal(Type t) {
  switch (t) {
    case Type::Int: return both(std::to_string(rng_.range(-9, 9)));
    case Type::Text: return both(quote(rng_.pick(kStrings)));
    case Type::Date: {
      std::string d = quote(isoDate(rng_.range(-40, 40)));
      return {"DATE " + d, d};
    }
    case Type::Bool: return both(rng_.chance(0.5) ? "TRUE" : "FALSE");
  }
  return both("NULL");
}

Sql QueryGenerator::leaf(Type t, const Scope& sc) {
  std::vector<const ColRef*> cols;
  for (auto& c : sc.cols)
    if (c.type == t) cols.push_back(&c);
  if (!cols.empty() && rng_.chance(0.85)) {
    const ColRef* c = cols[static_cast<size_t>(rng_.range(0, static_cast<int>(cols.size()) - 1))];
    return both(c->alias + "." + c->name);
  }
  return literal(t);
}

Sql QueryGenerator::aggregate(Type t, const Scope& sc, bool allowDistinct) {
  Scope inner{sc.aggregated, false, {}};
  std::string distinct = allowDistinct && rng_.chance(0.25) ? "DISTINCT " : "";
  if (t == Type::Int) {
    switch (rng_.range(0, 4)) {
      case 0: return both("count(*)");
      case 1: return "count(" + distinct + expr(anyType(false), inner, 1) + ")";
      case 2: return "sum(" + distinct + expr(Type::Int, inner, 1) + ")";
      case 3: return "min(" + expr(Type::Int, inner, 1) + ")";
      default: return "max(" + distinct + expr(Type::Int, inner, 1) + ")";
    }
  }
  return (rng_.chance(0.5) ? "min(" : "max(") + expr(t, inner, 1) + ")";
}

Sql QueryGenerator::subquery(Type t, const Scope& outer, int depth) {
  const Table& table = rng_.pick(schema_.tables);
  std::string a = alias();
  Scope inner;
  inner.subqueries = depth > 2;
  for (auto& c : table.columns) inner.cols.push_back({a, c.name, c.type});
  std::vector<ColRef> own = inner.cols;
  for (auto& c : outer.cols) inner.cols.push_back(c);
  // Usually correlated: an equality between a column of the subquery and one of the outer query.
  std::vector<Sql> conjuncts;
  if (rng_.chance(0.7)) {
    const ColRef& o = rng_.pick(outer.cols);
    std::vector<const ColRef*> same;
    for (auto& c : own)
      if (c.type == o.type) same.push_back(&c);
    if (!same.empty()) {
      const ColRef* i = same[static_cast<size_t>(rng_.range(0, static_cast<int>(same.size()) - 1))];
      conjuncts.push_back(both("(" + i->alias + "." + i->name + " = " + o.alias + "." + o.name + ")"));
    }
  }
  if (conjuncts.empty() || rng_.chance(0.5)) conjuncts.push_back(predicate(inner, depth - 1));
  Sql where = " WHERE " + join(conjuncts, " AND ");
  Sql fromSql = both(" FROM " + table.name + " AS " + a);
  // Sometimes under ORDER BY ... LIMIT/OFFSET, whose rows' values the order determines.
  auto limited = [&](bool ordered) {
    std::string l = ordered ? " ORDER BY 1 NULLS FIRST" : "";
    l += " LIMIT " + std::to_string(rng_.range(ordered ? 1 : 0, 3));
    if (rng_.chance(0.4)) l += " OFFSET " + std::to_string(rng_.range(0, 2));
    return both(l);
  };
  Scope aggScope{inner.cols, false, inner.cols};
  if (t == Type::Bool) {
    if (rng_.chance(0.5)) {
      Sql head = rng_.chance(0.5) ? both("EXISTS (SELECT 1") : both("NOT EXISTS (SELECT 1");
      return head + fromSql + where + (rng_.chance(0.15) ? limited(false) : Sql{}) + ")";
    }
    Type kt = rng_.chance(0.6) ? Type::Int : anyType(false);
    Scope ownScope{own, false, {}};
    Sql probe = expr(kt, Scope{outer.cols, false, {}}, 1);
    Sql body = expr(kt, ownScope, 1) + fromSql + where;
    if (rng_.chance(0.2)) {
      body = body + limited(true);
    } else if (rng_.chance(0.15)) {
      // A set operation whose other side may output the outer query's columns as they are.
      static const std::vector<std::string> ops = {" UNION ", " UNION ALL ", " INTERSECT ", " EXCEPT "};
      const Table& other = rng_.pick(schema_.tables);
      std::string b = alias();
      bool withFrom = rng_.chance(0.7);
      Scope sideScope{outer.cols, false, {}};
      if (withFrom)
        for (auto& c : other.columns) sideScope.cols.push_back({b, c.name, c.type});
      body = body + rng_.pick(ops) + "SELECT " + expr(kt, sideScope, 1) +
             (withFrom ? both(" FROM " + other.name + " AS " + b) : Sql{});
    }
    return "(" + probe + (rng_.chance(0.5) ? " IN (SELECT " : " NOT IN (SELECT ") + body + "))";
  }
  // A scalar subquery: the first value in order (LIMIT 1), or an aggregate: one row at most.
  if (rng_.chance(0.2)) {
    Sql value = expr(t, Scope{inner.cols, false, {}}, 1);
    return "(SELECT " + value + fromSql + where + " ORDER BY 1 NULLS FIRST LIMIT 1" +
           (rng_.chance(0.4) ? " OFFSET " + std::to_string(rng_.range(1, 2)) : std::string()) + ")";
  }
  aggScope.cols = own;
  aggScope.aggregated = own;
  return "(SELECT " + aggregate(t, aggScope, true) + fromSql + where + ")";
}

Sql QueryGenerator::expr(Type t, const Scope& sc, int depth) {
  if (depth <= 0) return leaf(t, sc);
  bool sub = sc.subqueries && depth >= 2 && rng_.chance(0.08);
  if (sub) return subquery(t, sc, depth);
  if (!sc.aggregated.empty() && t != Type::Bool && rng_.chance(0.35)) return aggregate(t, sc, true);
  int d = depth - 1;
  switch (t) {
    case Type::Int:
      switch (rng_.range(0, 13)) {
        case 0: case 1: case 2: return leaf(t, sc);
        case 3: return binary(expr(t, sc, d), "+", expr(t, sc, d));
        case 4: return binary(expr(t, sc, d), "-", expr(t, sc, d));
        case 5: return binary(leaf(t, sc), "*", leaf(t, sc));  // leaves only: no overflow
        case 6: return binary(expr(t, sc, d), rng_.chance(0.5) ? "%" : "/", both(std::to_string(rng_.range(1, 5))));
        case 7: return rng_.chance(0.5) ? "abs(" + expr(t, sc, d) + ")" : "(- " + expr(t, sc, d) + ")";
        case 8: return "CASE WHEN " + predicate(sc, d) + " THEN " + expr(t, sc, d) + (rng_.chance(0.7) ? " ELSE " + expr(t, sc, d) : both("")) + " END";
        case 9: return (rng_.chance(0.5) ? "coalesce(" : "nullif(") + expr(t, sc, d) + ", " + expr(t, sc, d) + ")";
        case 10: {
          Sql s = expr(Type::Text, sc, d);
          return {"char_length(" + s.h + ")", "length(" + s.s + ")"};
        }
        case 11: {
          Sql needle = expr(Type::Text, sc, d), hay = expr(Type::Text, sc, d);
          return {"position(" + needle.h + " IN " + hay.h + ")", "instr(" + hay.s + ", " + needle.s + ")"};
        }
        default: {
          static const char* fields[][2] = {{"YEAR", "%Y"}, {"MONTH", "%m"}, {"DAY", "%d"}};
          auto& f = fields[rng_.range(0, 2)];
          Sql dt = expr(Type::Date, sc, d);
          return {"EXTRACT(" + std::string(f[0]) + " FROM " + dt.h + ")",
                  "CAST(strftime('" + std::string(f[1]) + "', " + dt.s + ") AS INTEGER)"};
        }
      }
    case Type::Text:
      switch (rng_.range(0, 8)) {
        case 0: case 1: case 2: return leaf(t, sc);
        case 3: return binary(expr(t, sc, d), "||", expr(t, sc, d));
        case 4: return (rng_.chance(0.5) ? "upper(" : "lower(") + expr(t, sc, d) + ")";
        case 5: {
          Sql s = expr(t, sc, d);
          std::string from = std::to_string(rng_.range(1, 3)), len = std::to_string(rng_.range(0, 3));
          return {"substring(" + s.h + " FROM " + from + " FOR " + len + ")", "substr(" + s.s + ", " + from + ", " + len + ")"};
        }
        case 6: return "trim(" + expr(t, sc, d) + ")";
        case 7: return "CASE WHEN " + predicate(sc, d) + " THEN " + expr(t, sc, d) + " ELSE " + expr(t, sc, d) + " END";
        default: return (rng_.chance(0.5) ? "coalesce(" : "nullif(") + expr(t, sc, d) + ", " + expr(t, sc, d) + ")";
      }
    case Type::Date:
      switch (rng_.range(0, 5)) {
        case 0: case 1: case 2: return leaf(t, sc);
        case 3: {
          int n = rng_.range(-30, 30);
          Sql dt = expr(t, sc, d);
          // date + interval is a TIMESTAMP (as in PostgreSQL): cast back to the DATE SQLite's date() gives.
          return {"CAST(" + dt.h + " + INTERVAL '" + std::to_string(n) + "' DAY AS DATE)",
                  "date(" + dt.s + ", '" + (n < 0 ? "-" : "+") + std::to_string(n < 0 ? -n : n) + " days')"};
        }
        case 4: return "CASE WHEN " + predicate(sc, d) + " THEN " + expr(t, sc, d) + " ELSE " + expr(t, sc, d) + " END";
        default: return "coalesce(" + expr(t, sc, d) + ", " + expr(t, sc, d) + ")";
      }
    case Type::Bool:
      switch (rng_.range(0, 12)) {
        case 0: return leaf(t, sc);
        case 1: case 2: case 3: {
          Type ct = anyType(true);
          static const std::vector<std::string> ops = {"=", "<>", "<", "<=", ">", ">="};
          std::string op = ct == Type::Bool ? (rng_.chance(0.5) ? "=" : "<>") : rng_.pick(ops);
          return binary(expr(ct, sc, d), op, expr(ct, sc, d));
        }
        case 4: return binary(predicate(sc, d), "AND", predicate(sc, d));
        case 5: return binary(predicate(sc, d), "OR", predicate(sc, d));
        case 6: return "(NOT " + predicate(sc, d) + ")";
        case 7: return "(" + expr(anyType(true), sc, d) + (rng_.chance(0.5) ? " IS NULL)" : " IS NOT NULL)");
        case 8: {
          Type ct = anyType(false);
          return "(" + expr(ct, sc, d) + (rng_.chance(0.8) ? " BETWEEN " : " NOT BETWEEN ") + expr(ct, sc, d) + " AND " + expr(ct, sc, d) + ")";
        }
        case 9: {
          Type ct = rng_.chance(0.6) ? Type::Int : Type::Text;
          std::vector<Sql> items;
          for (int i = rng_.range(1, 4); i > 0; --i) items.push_back(rng_.chance(0.7) ? literal(ct) : expr(ct, sc, d));
          return "(" + expr(ct, sc, d) + (rng_.chance(0.7) ? " IN (" : " NOT IN (") + join(items, ", ") + "))";
        }
        case 10: {
          // lower() on the left and lower-case patterns: SQLite's LIKE ignores case, hyrax's does not.
          return "(lower(" + expr(Type::Text, sc, d) + ")" + (rng_.chance(0.8) ? " LIKE " : " NOT LIKE ") + quote(rng_.pick(kPatterns)) + ")";
        }
        case 11: return "CASE WHEN " + predicate(sc, d) + " THEN " + predicate(sc, d) + " ELSE " + predicate(sc, d) + " END";
        default: return sc.subqueries && depth >= 2 ? subquery(t, sc, depth) : leaf(t, sc);
      }
  }
  return leaf(t, sc);
}

QueryGenerator::From QueryGenerator::from(int maxTables) {
  From f;
  int n = rng_.range(1, maxTables);
  for (int i = 0; i < n; ++i) {
    const Table& table = rng_.pick(schema_.tables);
    std::string a = alias();
    std::vector<ColRef> cols;
    for (auto& c : table.columns) cols.push_back({a, c.name, c.type});
    Sql item = both(table.name + " AS " + a);
    std::vector<std::string> merged;  // the names a USING or NATURAL join merges
    if (i == 0) {
      f.sql = item;
    } else {
      int r = rng_.range(0, 99);
      // USING (names) / NATURAL: only names that name one column so far, of the same type on
      // both sides (PostgreSQL's 42702 and 42883 otherwise); a merged name stays one column.
      std::vector<std::string> common;
      bool natural = true;
      for (auto& c : cols) {
        auto v = f.named.find(c.name);
        if (v == f.named.end()) continue;
        if (v->second.first == 1 && v->second.second == c.type) common.push_back(c.name);
        else natural = false;
      }
      if (r < 20) {
        f.sql = f.sql + " CROSS JOIN " + item;
      } else if (!common.empty() && rng_.chance(0.15)) {
        std::string kind = rng_.pick(std::vector<std::string>{" JOIN ", " LEFT JOIN ", " RIGHT JOIN ", " FULL JOIN "});
        if (natural && rng_.chance(0.3)) {
          f.sql = f.sql + " NATURAL" + kind + item;
          merged = common;
        } else {
          merged.clear();
          for (auto& n : common)
            if (merged.empty() || rng_.chance(0.3)) merged.push_back(n);
          std::string names;
          for (auto& n : merged) names += (names.empty() ? "" : ", ") + n;
          f.sql = f.sql + kind + item + " USING (" + names + ")";
        }
        if (i >= 2 && (kind == " RIGHT JOIN " || kind == " FULL JOIN ")) f.rightJoinAfterJoin = true;
      } else {
        const char* kind = r < 60 ? " JOIN " : r < 88 ? " LEFT JOIN " : r < 94 ? " RIGHT JOIN " : " FULL JOIN ";
        Scope on{f.cols, false, {}};
        for (auto& c : cols) on.cols.push_back(c);
        std::vector<Sql> conj;
        const ColRef& mine = rng_.pick(cols);
        std::vector<const ColRef*> same;
        for (auto& c : f.cols)
          if (c.type == mine.type) same.push_back(&c);
        if (!same.empty() && rng_.chance(0.85)) {
          const ColRef* o = same[static_cast<size_t>(rng_.range(0, static_cast<int>(same.size()) - 1))];
          conj.push_back(both(mine.alias + "." + mine.name + " = " + o->alias + "." + o->name));
        }
        if (conj.empty() || rng_.chance(0.3)) conj.push_back(predicate(on, 2));
        f.sql = f.sql + kind + item + " ON " + join(conj, " AND ");
        // SQLite 3.40 loses the rows a RIGHT or FULL join adds after a join (known_mismatches.md).
        if (i >= 2 && (std::string(kind) == " RIGHT JOIN " || std::string(kind) == " FULL JOIN ")) f.rightJoinAfterJoin = true;
      }
    }
    for (auto& c : cols) {
      f.cols.push_back(c);
      auto& v = f.named[c.name];
      bool one = std::find(merged.begin(), merged.end(), c.name) != merged.end();
      v = {one ? 1 : v.first + 1, c.type};
    }
  }
  return f;
}

Query QueryGenerator::generate() {
  Query q;
  int r = rng_.range(0, 99);
  q.kind = r < 35 ? Query::Kind::Plain : r < 45 ? Query::Kind::Distinct : r < 68 ? Query::Kind::Grouped
         : r < 85 ? Query::Kind::Aggregate : Query::Kind::SetOp;
  auto whereOf = [](const Sql& p) { return " WHERE " + p; };
  auto orderBy = [&](size_t columns, Sql& sql) {
    if (!rng_.chance(0.2)) return;
    std::vector<Sql> keys;
    for (size_t i = 1; i <= columns; ++i) keys.push_back(both(std::to_string(i) + " NULLS FIRST"));
    sql = sql + " ORDER BY " + join(keys, ", ");
    if (rng_.chance(0.6)) sql = sql + " LIMIT " + std::to_string(rng_.range(1, 5));
    q.ordered = true;
  };

  if (q.kind == Query::Kind::SetOp) {
    std::vector<Type> types;
    for (int i = rng_.range(1, 3); i > 0; --i) types.push_back(anyType(true));
    // A side, and in SQLite's spelling with its outputs named k1, k2 ... (for the ALL forms).
    auto side = [&]() {
      From f = from(2);
      if (f.rightJoinAfterJoin) q.sqlite = false;
      Scope sc{f.cols, true, {}};
      std::vector<Sql> items;
      std::string named;
      for (Type t : types) {
        items.push_back(expr(t, sc, 2));
        named += (named.empty() ? "" : ", ") + items.back().s + " AS k" + std::to_string(items.size());
      }
      Sql tail = " FROM " + f.sql;
      if (rng_.chance(0.6)) tail = tail + whereOf(predicate(sc, 3));
      return std::make_pair("SELECT " + join(items, ", ") + tail, "SELECT " + named + tail.s);
    };
    static const std::vector<std::string> ops = {" UNION ",     " UNION ALL ",     " INTERSECT ",
                                                 " EXCEPT ",    " INTERSECT ALL ", " EXCEPT ALL "};
    auto [l, lNamed] = side();
    std::string op = rng_.pick(ops);
    auto [r, rNamed] = side();
    q.sql = l + op + r;
    if (op == " INTERSECT ALL " || op == " EXCEPT ALL ") {
      // SQLite 3.40 has neither: the n-th copy of a row is the row and n, by row_number().
      std::string keys;
      for (size_t i = 1; i <= types.size(); ++i) keys += (i > 1 ? ", k" : "k") + std::to_string(i);
      auto ranked = [&](const std::string& named) {
        return "SELECT " + keys + ", row_number() OVER (PARTITION BY " + keys + ") FROM (" + named + ")";
      };
      q.sql.s = "SELECT " + keys + " FROM (" + ranked(lNamed) + (op == " INTERSECT ALL " ? " INTERSECT " : " EXCEPT ") +
                ranked(rNamed) + ")";
    }
    orderBy(types.size(), q.sql);
    return q;
  }

  From f = from(3);
  if (f.rightJoinAfterJoin) q.sqlite = false;
  Scope sc{f.cols, true, {}};
  Sql where;
  bool hasWhere = rng_.chance(0.7);
  if (hasWhere) where = predicate(sc, 3);
  Sql whereClause = hasWhere ? whereOf(where) : Sql{};
  Sql p = predicate(sc, 3);  // TLP's partitioning predicate
  auto partitions = [&](const Sql& head, const Sql& tail, const std::string& op) {
    Sql base = hasWhere ? "(" + where + ") AND " : Sql{};
    return head + " WHERE " + base + "(" + p + ")" + tail + op + head + " WHERE " + base + "(NOT (" + p + "))" + tail + op +
           head + " WHERE " + base + "((" + p + ") IS NULL)" + tail;
  };
  if (hasWhere) {
    q.norec = true;
    q.norecSql = "SELECT (SELECT count(*) FROM " + f.sql + " WHERE " + where + "), (SELECT sum(CASE WHEN " + where +
                 " THEN 1 ELSE 0 END) FROM " + f.sql + ")";
  }

  if (q.kind == Query::Kind::Plain || q.kind == Query::Kind::Distinct) {
    std::vector<Sql> items;
    for (int i = rng_.range(1, 4); i > 0; --i) items.push_back(expr(anyType(true), sc, rng_.range(0, 3)));
    Sql head = both(q.kind == Query::Kind::Distinct ? "SELECT DISTINCT " : "SELECT ") + join(items, ", ") + " FROM " + f.sql;
    q.tlpWhole = head + whereClause;
    q.sql = q.tlpWhole;
    q.tlpCombine = q.kind == Query::Kind::Distinct ? Query::Combine::Set : Query::Combine::Multiset;
    q.tlpParts = partitions(head, Sql{}, q.kind == Query::Kind::Distinct ? " UNION " : " UNION ALL ");
    orderBy(items.size(), q.sql);
    return q;
  }

  if (q.kind == Query::Kind::Grouped) {
    std::vector<ColRef> groups;
    for (int i = rng_.range(1, 2); i > 0; --i) groups.push_back(rng_.pick(f.cols));
    std::vector<Sql> items, keys;
    for (auto& g : groups) keys.push_back(both(g.alias + "." + g.name));
    items = keys;
    Scope aggScope{groups, false, f.cols};
    for (int i = rng_.range(1, 3); i > 0; --i) {
      if (rng_.chance(0.15)) {
        Scope inner{f.cols, false, {}};
        items.push_back("avg(" + expr(Type::Int, inner, 1) + ")");
      } else {
        items.push_back(aggregate(anyType(false), aggScope, true));
      }
    }
    Sql head = "SELECT " + join(items, ", ") + " FROM " + f.sql + whereClause + " GROUP BY " + join(keys, ", ");
    Sql having;
    bool hasHaving = rng_.chance(0.5);
    if (hasHaving) having = predicate(aggScope, 2);
    q.sql = head + (hasHaving ? " HAVING " + having : Sql{});
    Sql hp = predicate(aggScope, 2);
    Sql base = hasHaving ? "(" + having + ") AND " : Sql{};
    q.tlpWhole = q.sql;
    q.tlpParts = head + " HAVING " + base + "(" + hp + ") UNION ALL " + head + " HAVING " + base + "(NOT (" + hp + ")) UNION ALL " +
                 head + " HAVING " + base + "((" + hp + ") IS NULL)";
    q.tlpCombine = Query::Combine::Multiset;
    orderBy(items.size(), q.sql);
    return q;
  }

  // An ungrouped aggregate.
  std::vector<Sql> items;
  Scope aggScope{{}, false, f.cols};
  for (int i = rng_.range(1, 3); i > 0; --i) items.push_back(aggregate(anyType(false), aggScope, true));
  q.sql = "SELECT " + join(items, ", ") + " FROM " + f.sql + whereClause;
  // TLP over one aggregate whose partial results combine: count, sum, min, max.
  Scope inner{f.cols, false, {}};
  Sql arg = expr(Type::Int, inner, 1);
  Sql agg;
  switch (rng_.range(0, 3)) {
    case 0: agg = rng_.chance(0.5) ? both("count(*)") : "count(" + arg + ")"; q.tlpCombine = Query::Combine::Count; break;
    case 1: agg = "sum(" + arg + ")"; q.tlpCombine = Query::Combine::Sum; break;
    case 2: agg = "min(" + arg + ")"; q.tlpCombine = Query::Combine::Min; break;
    default: agg = "max(" + arg + ")"; q.tlpCombine = Query::Combine::Max; break;
  }
  Sql head = "SELECT " + agg + " FROM " + f.sql;
  q.tlpWhole = head + whereClause;
  q.tlpParts = partitions(head, Sql{}, " UNION ALL ");
  return q;
}

}  // namespace hyrax::differential
