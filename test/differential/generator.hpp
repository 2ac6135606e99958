#pragma once
// The differential query generator: random schemas with NULL-rich data and random queries over
// them, each rendered twice, in hyrax's SQL and in SQLite's, using only expressions whose answer
// is the same in both (see README.md beside this file for what is left out and why).
// Everything comes from a seeded PRNG: a schema from (seed, batch), a query from (seed, number).
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace hyrax::differential {

// One piece of SQL in both dialects.
struct Sql {
  std::string h;  // hyrax (PostgreSQL's spelling)
  std::string s;  // SQLite
};

enum class Type : uint8_t { Int, Text, Date, Bool };

class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  // Seeded from two numbers (seed and a query or batch number), so any one is reproducible alone.
  Rng(uint64_t seed, uint64_t stream) : gen_(mix(seed * 0x9E3779B97F4A7C15ull + stream)) {}
  int range(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen_); }  // [lo, hi]
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(gen_) < p; }
  template <typename T>
  const T& pick(const std::vector<T>& v) { return v[static_cast<size_t>(range(0, static_cast<int>(v.size()) - 1))]; }

 private:
  static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  std::mt19937_64 gen_;
};

struct Column {
  std::string name;
  Type type;
};
struct Table {
  std::string name;
  std::vector<Column> columns;
  std::vector<std::vector<Sql>> rows;  // literals (NULL spelled NULL)
};
struct Schema {
  std::vector<Table> tables;
  // CREATE TABLE + INSERT statements, one per element.
  std::vector<Sql> statements() const;
  // The same as one script of hyrax SQL (for a report).
  std::string script() const;
};

Schema generateSchema(Rng& rng);

// A generated query and the statements its oracles run.
struct Query {
  enum class Kind : uint8_t { Plain, Distinct, Grouped, Aggregate, SetOp };
  Kind kind = Kind::Plain;
  Sql sql;               // the query itself (compared with SQLite)
  bool ordered = false;  // its ORDER BY determines the order of every row
  // Whether SQLite's answer is trusted: SQLite 3.40 loses the rows of a RIGHT JOIN that follows
  // a join whose ON is constant FALSE, so a RIGHT JOIN after another join is left to TLP/NoREC.
  bool sqlite = true;
  // TLP: `tlpWhole` and `tlpParts` (the three partitions by p, p IS FALSE, p IS NULL) give the same
  // rows (as multisets; as sets when tlpCombine is Set); for an ungrouped aggregate tlpParts
  // returns one row per partition, combined by tlpCombine.
  enum class Combine : uint8_t { None, Multiset, Set, Count, Sum, Min, Max };
  Combine tlpCombine = Combine::None;
  Sql tlpWhole, tlpParts;
  // NoREC: one row of two counts that must be equal: count(*) WHERE p and sum(CASE WHEN p ...).
  bool norec = false;
  Sql norecSql;
};

class QueryGenerator {
 public:
  QueryGenerator(const Schema& schema, Rng& rng) : schema_(schema), rng_(rng) {}
  Query generate();

  struct ColRef {
    std::string alias, name;
    Type type;
  };
  struct Scope {
    std::vector<ColRef> cols;        // visible columns (current FROM and the outer ones)
    bool subqueries = true;          // may nest subqueries
    std::vector<ColRef> aggregated;  // non-empty: aggregates over these are allowed (HAVING)
  };

 private:
  struct From {
    Sql sql;
    std::vector<ColRef> cols;
    bool rightJoinAfterJoin = false;  // see Query::sqlite
    std::map<std::string, std::pair<int, Type>> named;  // column name: how many unmerged, type
  };
  From from(int maxTables);
  Sql expr(Type t, const Scope& sc, int depth);
  Sql leaf(Type t, const Scope& sc);
  Sql literal(Type t);
  Sql predicate(const Scope& sc, int depth) { return expr(Type::Bool, sc, depth); }
  Sql subquery(Type t, const Scope& outer, int depth);
  Sql aggregate(Type t, const Scope& sc, bool allowDistinct);
  std::string alias() {
    std::string a = "x";  // (not "x" + to_string: GCC 12's bogus -Wrestrict, PR 105329)
    return a.append(std::to_string(nextAlias_++));
  }
  Type anyType(bool withBool);

  const Schema& schema_;
  Rng& rng_;
  int nextAlias_ = 0;
};

}  // namespace hyrax::differential
