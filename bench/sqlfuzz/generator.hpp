#pragma once
// The query generator's state and pieces (query_generator.hpp is its interface), shared by the
// files that define them: query_generator.cpp the first generator's SQL, added_sql.cpp the SQL
// added after campaign 4 (README, "What it generates").
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/sqlfuzz/query_generator.hpp"
#include "bench/sqlfuzz/random.hpp"

namespace hyrax::bench::sqlfuzz::gen {

struct Col {
  std::string ref;  // qualified: "x3.i1"
  Kind kind;
  bool unique = false;  // unique within its relation (an id)
  int references = -1;  // the base table whose ids it holds
};

struct Rel {
  std::vector<Col> cols;
  double rows = 1;
  int table = -1;  // the base table it is, or -1 (a CTE or derived table)
  // Its rows may come more than once in its scope's FROM (a join met one of them with several
  // rows), so its unique columns are no longer unique there.
  bool repeated = false;
};

// The relations a SELECT's expressions may read, and the enclosing query's for a subquery.
struct Scope {
  std::vector<Rel> rels;
  double rows = 1;  // estimated rows of its FROM
  const Scope* outer = nullptr;
  // Expressions may read `outer`'s columns anywhere (not only in the correlation equality): only
  // where a dependent join over the outer values stays small.
  bool outerLeaves = false;
};

struct GroupKey {
  Node node;
  Kind kind;
};

// Where an expression is made: its scope and, in an aggregating SELECT's list or HAVING, the
// grouping keys (the only columns it may name outside an aggregate).
struct Ctx {
  const Scope* scope;
  const std::vector<GroupKey>* keys = nullptr;
  bool subqueries = true;
};

// A relation a FROM may name: a table, or a CTE of this query.
struct Source {
  std::string name;
  std::vector<Col> cols;  // unqualified names
  double rows;
  int table;
};

struct SelectOut {
  Node node;
  std::vector<Kind> kinds;
  double rows;
  // The query's own output SELECT only (Generator::select's `output`): `node` without its
  // variance items (the first stream's items in their place), and which columns are one.
  Node plain;
  std::vector<bool> variance;
};

// Whether generated SQL names a column (every alias is x<number>).
bool readsColumn(const std::string& sql);

class Generator {
 public:
  Generator(const Schema& schema, uint64_t seed, uint64_t index) : rng_(seed, index), extra_(seed, ~index), schema_(schema) {
    for (size_t t = 0; t < schema.tables.size(); ++t) {
      const TableDef& def = schema.tables[t];
      Source s{def.name, {}, static_cast<double>(def.rows), static_cast<int>(t)};
      for (const ColumnDef& c : def.columns) s.cols.push_back({c.name, c.kind, c.unique, c.references});
      tables_.push_back(std::move(s));
    }
  }

  Query run();

 private:
  // Two streams: rng_ makes the query as generators before the features of campaign 5 made it;
  // extra_ decides where such a feature replaces a piece and makes that piece (README, "What it
  // generates"), so a query none of them touches is the one the seed made before.
  Rng rng_, extra_;
  bool onExtra_ = false;  // rng_ and extra_ swapped: the piece being made is a new feature's
  const Schema& schema_;

  bool feature(double p) { return (onExtra_ ? rng_ : extra_).chance(p); }
  // While alive, every draw (rng_) comes from the second stream.
  struct OnExtra {
    Generator& g;
    const bool was;
    explicit OnExtra(Generator& gen) : g(gen), was(gen.onExtra_) {
      if (!was) std::swap(g.rng_, g.extra_);
      g.onExtra_ = true;
    }
    ~OnExtra() {
      if (!was) std::swap(g.rng_, g.extra_);
      g.onExtra_ = was;
    }
    OnExtra(const OnExtra&) = delete;
    OnExtra& operator=(const OnExtra&) = delete;
  };
  std::vector<Source> tables_, ctes_;
  int aliases_ = 0;

  std::string newAlias() { return std::string("x") + std::to_string(aliases_++); }
  Kind randomKind(bool withBool = true) {
    for (;;) {
      Kind k = kAllKinds[rng_.next() % std::size(kAllKinds)];
      if (withBool || k != Kind::Bool) return k;
    }
  }

  // ---- The first generator's SQL (query_generator.cpp) ----
  Node setChain(int depth, const std::vector<Kind>* want, const Scope* outer, std::vector<Kind>& kinds, double& rows,
                std::vector<bool>* variance = nullptr);
  SelectOut select(int depth, const std::vector<Kind>* want, const Scope* outer, bool outerLeaves, bool output = false);
  Node selectItem(Kind k, const Ctx& c, size_t i, bool aggregating, Node* varianceItem);
  Node whereClause(const Ctx& c, int depth, std::vector<Node> conjuncts);
  Node fromClause(int depth, Scope& scope, int maxJoins);
  Node relation(int depth, Scope& scope);
  Node column(Kind k, const Scope& scope, bool outerToo);
  Node literal(Kind k);
  Node leaf(Kind k, const Ctx& c);
  Node aggregate(Kind k, const Ctx& c);
  Node baseAggregate(Kind k, const Ctx& c);
  Node expr(Kind k, const Ctx& c, int depth);
  Node baseExpr(Kind k, const Ctx& c, int depth);
  Node pred(const Ctx& c, int depth);
  Node basePred(const Ctx& c, int depth);
  Node subqueryFrom(const Ctx& c, int depth, Scope& inner, std::vector<Node>& conjuncts);
  Node subqueryPredicate(const Ctx& c, int depth);
  Node scalarSubquery(Kind k, const Ctx& c, int depth);

  // ---- The SQL added after campaign 4 (added_sql.cpp), each piece made from the second stream (OnExtra) ----
  static bool uniqueIds(const Scope& scope);
  std::string direction();
  void rowNumber(const Scope& scope, const std::vector<Kind>& kinds, std::vector<Node>& items);
  SelectOut distinctOn();
  Node orderedAggregate(const Ctx& c);
  Node variance(const Ctx& c);
  Node greatestLeast(Kind k, const Ctx& c, int depth, const Node& e);
  Node caseForm(Kind k, const Ctx& c, int depth, const Node& e);
  Node newExpr(Kind k, const Ctx& c, int depth, const Node& e);
  Node newPred(const Ctx& c, int depth, const Node& p);
};

}  // namespace hyrax::bench::sqlfuzz::gen
