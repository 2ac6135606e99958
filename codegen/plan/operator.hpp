#pragma once
// Plan operators. sql/'s binder builds a logical plan of them (joins are logical `Join`s: what to
// join, not how), the optimizer rewrites it, and its physical planner replaces each Join by a
// HashJoin or an IndexJoin: the physical plan, codegen's input. codegen/translate turns each
// operator of it into a translator with produce()/consume(); it refuses a Join.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/plan/expression.hpp"

namespace hyrax {
class Table;
class Index;
class RowWriter;
}

namespace hyrax::plan {

enum class OpKind : uint8_t { TableScan, Values, Filter, Map, Join, HashJoin, IndexJoin, Aggregate, Sort, Limit, UnionAll, Expand,
                              CteScan, With };

struct Operator {
  OpKind kind;
  uint32_t id = 0;           // numbered by the planner, for EXPLAIN ANALYZE counters
  double estimatedRows = 0;  // the optimizer's cardinality estimate
  std::vector<std::unique_ptr<Operator>> children;

  explicit Operator(OpKind k) : kind(k) {}
  virtual ~Operator() = default;
  // IUs this operator's output rows carry.
  virtual std::vector<const IU*> produced() const = 0;
  IURefs producedSet() const {
    auto v = produced();
    return {v.begin(), v.end()};
  }
  Operator* child(size_t i = 0) const { return children[i].get(); }
};
using OperatorPtr = std::unique_ptr<Operator>;

struct TableScan : Operator {
  Table* table = nullptr;
  std::string alias;
  // A column of this index is the row's number in the table (BIGINT): UPDATE and DELETE read it
  // to know which rows to change.
  static constexpr uint32_t kRowNumber = ~uint32_t{0};
  struct Column {
    uint32_t index;  // column index in the table, or kRowNumber
    const IU* iu;
  };
  std::vector<Column> columns;  // only the columns the query reads
  // Set by the optimizer when an index finds the rows. `lookupKey` fixes the index's first columns
  // (one expression each, evaluated before the rows are read: constants, parameters, or an
  // IndexJoin's outer columns; integers out of the column's range find nothing). When it fixes
  // them all, a point lookup; otherwise, on an ordered index, a range scan of the keys starting
  // with them, bounded on the next index column by `low` and `high` where they are set, in key
  // order. `indexConditions` are the conjuncts the index answers, kept for estimates and EXPLAIN.
  const Index* index = nullptr;
  std::vector<ExprPtr> lookupKey;
  struct Bound {
    ExprPtr value;  // null: unbounded
    bool inclusive = true;
  };
  Bound low, high;
  // A range is read in key order (`reverse`: descending) when an ORDER BY relies on it, and only
  // its first `limit` rows when that is all a LIMIT or a MIN/MAX of the next index column needs.
  bool reverse = false;
  uint64_t limit = UINT64_MAX;
  std::vector<ExprPtr> indexConditions;
  // Columns (table indexes) of a row found by a point lookup that later statements will use: a
  // stored procedure's UPDATE of the row it just read. Generated code prefetches them as it finds
  // the row, so their cache misses overlap this statement's instead of stalling the next one.
  std::vector<uint32_t> prefetch;
  bool pointLookup() const;
  TableScan() : Operator(OpKind::TableScan) {}
  std::vector<const IU*> produced() const override;
};

// Constant rows (VALUES, SELECT without FROM).
struct Values : Operator {
  std::vector<const IU*> columns;
  std::vector<std::vector<ExprPtr>> rows;
  Values() : Operator(OpKind::Values) {}
  std::vector<const IU*> produced() const override { return columns; }
};

struct Filter : Operator {
  ExprPtr predicate;
  Filter() : Operator(OpKind::Filter) {}
  std::vector<const IU*> produced() const override { return child()->produced(); }
};

// Adds computed IUs to each row.
struct Map : Operator {
  struct Computed {
    const IU* iu;
    ExprPtr expr;
  };
  std::vector<Computed> computed;
  Map() : Operator(OpKind::Map) {}
  std::vector<const IU*> produced() const override;
};

// One row per value of a set-returning function of each input row, the input row's IUs kept:
// unnest(array) (one row per element, in order; none for NULL or {}) or generate_series(start,
// stop) (BIGINT start..stop by 1). A table function in FROM is an Expand over one empty row; one
// whose arguments read an outer query's columns gets the correlation domain as its input from
// the dependent join, as a Map would (so `ARRAY(SELECT f(x) FROM unnest(t.a) x)` needs nothing more).
struct Expand : Operator {
  enum class Function : uint8_t { Unnest, GenerateSeries } function = Function::Unnest;
  std::vector<ExprPtr> args;
  const IU* iu = nullptr;  // the value
  const IU* ordinality = nullptr;  // unnest: the element's place, 1, 2 ... (INTEGER), when asked for
  Expand() : Operator(OpKind::Expand) {}
  std::vector<const IU*> produced() const override;
};

// The join kinds. A logical Join is Inner, LeftOuter, FullOuter, Semi, Anti or Mark; the Right
// ones are a HashJoin's only. A HashJoin of any but Inner and the Right kinds preserves its probe
// side (children[1]): each probe row leaves the join once (Semi, Anti, Mark) or at least once
// (LeftOuter, FullOuter).
enum class JoinKind : uint8_t {
  Inner,
  LeftOuter,  // unmatched preserved rows get NULL columns of the other side (the `outerColumns`)
  FullOuter,  // also the other side's unmatched rows, with NULL columns of the preserved side
  Semi,       // preserved rows with a match (EXISTS, IN)
  Anti,       // those without one (NOT EXISTS)
  Mark,       // every preserved row, with `mark` := whether it matched, in three-valued logic: TRUE
              // if the condition is TRUE for some row of the other side, else NULL if it is NULL
              // for some, else FALSE
  RightSemi,  // Semi and Anti with the sides swapped, preserving the build side: the probe marks
  RightAnti,  // the entries it matches, then a scan of the hash table emits the marked (unmarked)
              // ones. The physical planner uses them when the preserved side is much the smaller.
  RightOuter,  // LeftOuter with the sides swapped, for the same reason: the build side is preserved;
               // probe rows leave with their matches (marking them), then the scan of the hash table
               // emits the unmarked build rows with NULL probe columns (`outerColumns` map those).
};
const char* toString(JoinKind k);

// What a join is besides its inputs and its equality keys, the same for a logical Join and the
// HashJoin the physical planner makes of it.
struct JoinBase : Operator {
  ExprPtr residual;  // further join condition (beyond the keys), may be null
  JoinKind kind = JoinKind::Inner;
  // LeftOuter: each IU of the side that may have no match that the query reads above the join,
  // and the nullable IU the join outputs for it (NULL for unmatched rows). FullOuter: the same for
  // both sides.
  struct OuterColumn {
    const IU* inner;
    const IU* outer;
  };
  std::vector<OuterColumn> outerColumns;
  const IU* mark = nullptr;  // Mark: BOOLEAN, nullable unless markCondition can only be TRUE/FALSE
  // Mark of x IN / op ANY (S): the comparison (x = s), in three-valued logic. A row of S counts
  // only where keys and residual (the subquery's correlation: its WHERE) are TRUE; among those,
  // the mark is TRUE if markCondition is TRUE for one, else NULL if it is NULL for one, else FALSE.
  // (A residual that is NULL leaves the row out of the subquery: it cannot make the mark NULL.)
  // Null for EXISTS, and once the optimizer has merged a comparison that cannot be NULL.
  ExprPtr markCondition;
  // LeftOuter for a scalar subquery: a second match for one preserved row is an error (21000).
  bool singleMatch = false;

 protected:
  using Operator::Operator;
};

// Logical join, the binder's and the optimizer's: children[0] is the left input, children[1] the
// right; LeftOuter, Semi, Anti and Mark preserve the left one (the outer query's rows for a
// subquery), FullOuter both. `keys` (equalities between the two inputs, which predicate pushdown
// finds) and `residual` together are the join condition. The physical planner
// (sql/optimizer/physical_planner.cpp) replaces every Join by a HashJoin or an IndexJoin.
struct Join : JoinBase {
  struct Key {
    ExprPtr left, right;  // same type on both sides
  };
  std::vector<Key> keys;
  Join() : JoinBase(OpKind::Join) {}
  std::vector<const IU*> produced() const override;
};

// Equi-join: builds a hash table on children[0] (build side), probes with children[1]; `keys`
// and `residual` together are the join condition.
struct HashJoin : JoinBase {
  struct Key {
    ExprPtr build, probe;  // same type on both sides
  };
  std::vector<Key> keys;
  // Mark of x IN (S) without correlation (its one key is the comparison x = s): NULL keys follow
  // the comparison's three-valued logic. The build side notes that it met a NULL s (not inserted);
  // a probe with x NULL gets NULL when S has rows, FALSE when S is empty; an x without a match gets
  // NULL when S held a NULL, else FALSE. (A mark condition left as such is tried on every row.)
  bool nullAwareKey = false;
  // The estimated share of probe rows whose keys some build row has (the physical planner's, from
  // the keys' distinct values), or -1 when not estimated. For the Right kinds the join's own
  // estimate counts build rows, so this is what tells whether a scan below is worth narrowing to
  // the rows the built table may hold (HashJoinTranslator::filterKeys).
  double probeMatchShare = -1;
  HashJoin() : JoinBase(OpKind::HashJoin) {}
  std::vector<const IU*> produced() const override;
};

// Index nested-loop join (inner): for each row of children[0], the TableScan children[1] reads the
// rows its index finds for the key computed from that row (its lookupKey reads children[0]'s
// IUs); `residual`, when set, filters the pairs. The physical planner picks it over a hash join
// when few outer rows would otherwise make a join scan a large table.
struct IndexJoin : Operator {
  ExprPtr residual;
  IndexJoin() : Operator(OpKind::IndexJoin) {}
  std::vector<const IU*> produced() const override;
};

struct SortKey {
  ExprPtr expr;
  bool descending = false;
  bool nullsFirst = false;  // SQL default: NULLS LAST for ASC, NULLS FIRST for DESC (planner sets it)
};

enum class AggFunc : uint8_t { CountStar, Count, Sum, Avg, Min, Max, ArrayAgg, VarSamp, VarPop, StddevSamp, StddevPop };
const char* toString(AggFunc f);
// var_samp, var_pop, stddev_samp, stddev_pop: computed in double precision by Welford's update
// (count, mean and the sum of squared deviations; Chan's formula merges two threads' states), so
// values far from zero with a small spread keep their digits.
inline bool isVariance(AggFunc f) { return f >= AggFunc::VarSamp; }
// The result type of an aggregate over `arg` (the binder and the code generator both use it):
// count -> BIGINT NOT NULL; sum(integer) -> BIGINT, sum(DECIMAL(p,s)) -> DECIMAL(18,s), sum(float)
// -> DOUBLE; avg(integer) -> DECIMAL(18,6), avg(DECIMAL(p,s)) -> DECIMAL(18,max(s,6)), avg(float)
// -> DOUBLE; min/max -> the argument's type; array_agg -> an array of the argument's type (its
// elements in input order, NULLs kept); variances and standard deviations -> DOUBLE (NULL below two
// values for the _samp ones). All but count are NULL on empty input.
SqlType aggregateResultType(AggFunc f, const SqlType& arg);

// Hash aggregation (also DISTINCT: groups without aggregates). Without group keys it yields
// exactly one row, even for empty input.
struct Aggregate : Operator {
  struct Group {
    const IU* iu;  // output
    ExprPtr expr;
  };
  struct Agg {
    AggFunc func;
    ExprPtr arg;  // null for count(*)
    const IU* iu; // output
    bool distinct = false;  // f(DISTINCT arg): the binder rewrites it into two aggregations
    // array_agg under string_agg: NULLs are left out (and counted out: none left gives NULL).
    bool skipNulls = false;
  };
  std::vector<Group> groups;
  std::vector<Agg> aggregates;
  // agg(x ORDER BY ...): the input is to come in this order (array_agg appends in input order).
  // Kept here through the binder's rewrites (unnesting puts joins under an aggregation); the
  // optimizer's first step puts a Sort by these keys right under it (sortAggregateInputs).
  std::vector<SortKey> inputOrder;
  Aggregate() : Operator(OpKind::Aggregate) {}
  std::vector<const IU*> produced() const override;
};

// A window function's value for each row of its partition, as PostgreSQL defines them. A frame
// (aggregates, first_value, last_value, nth_value) runs from its start to its end: the
// partition's ends, the current row (RANGE: its first or last peer), or n rows before or after
// it (ROWS only). Without ORDER BY all rows of a partition are peers.
enum class WindowFunc : uint8_t {
  RowNumber, Rank, DenseRank, PercentRank, CumeDist, Ntile,  // by position; ntile's arg: the count
  Lag, Lead,                                      // args: value, offset (BIGINT), default
  FirstValue, LastValue, NthValue,                // args: value (and nth_value's n, BIGINT)
  Aggregate                                       // `aggregate` over the frame; args: its argument
};
const char* toString(WindowFunc f);
struct WindowBound {
  enum class Kind : uint8_t { UnboundedPreceding, Preceding, CurrentRow, Following, UnboundedFollowing };
  Kind kind = Kind::UnboundedPreceding;
  int64_t offset = 0;  // Preceding, Following: rows
};
struct WindowCall {
  WindowFunc func = WindowFunc::Rank;
  AggFunc aggregate = AggFunc::CountStar;  // CountStar, Count, Sum, Avg, Min, Max
  bool rows = false;                       // ROWS (else RANGE: CURRENT ROW means its peers)
  WindowBound start{WindowBound::Kind::UnboundedPreceding}, end{WindowBound::Kind::CurrentRow};
  std::vector<ExprPtr> args;  // columns of the Sort's input
  const IU* iu = nullptr;     // the value
};

struct Sort : Operator {
  std::vector<SortKey> keys;
  // Set under a LIMIT (limit + offset): only that many first rows are kept as rows come (top-k).
  uint64_t limit = UINT64_MAX;
  // A LIMIT per partition (a correlated subquery's ORDER BY ... LIMIT, unnested: one partition per
  // outer value): the first `partitionKeys` keys split the sorted rows, and of each partition the
  // rows from `partitionOffset` on, at most `partitionLimit` of them, go on.
  size_t partitionKeys = 0;
  uint64_t partitionOffset = 0, partitionLimit = UINT64_MAX;
  // With partitionKeys: also each row's place in its partition, 0, 1, 2 ... (a BIGINT; INTERSECT
  // ALL and EXCEPT ALL match the n-th copy of a row with the other side's n-th).
  const IU* rank = nullptr;
  // Window functions over this Sort's order: its first partitionKeys keys are PARTITION BY (at
  // least one, a constant without PARTITION BY), the rest ORDER BY; rows equal on every key are
  // peers. Each call gives every row a value (codegen/translate/sort.cpp's window pass).
  std::vector<WindowCall> windows;
  Sort() : Operator(OpKind::Sort) {}
  // Only puts rows in order: none dropped (top-k, per partition: DISTINCT ON, unnested LIMITs),
  // nothing computed (ranks, window functions). Only such a Sort may go where order does not
  // matter (under IN, EXISTS, a scalar subquery's aggregate).
  bool onlyOrders() const { return limit == UINT64_MAX && partitionKeys == 0 && !rank && windows.empty(); }
  std::vector<const IU*> produced() const override {
    auto p = child()->produced();
    if (rank) p.push_back(rank);
    for (auto& w : windows) p.push_back(w.iu);
    return p;
  }
};

struct Limit : Operator {
  uint64_t limit = UINT64_MAX;  // UINT64_MAX = no limit
  uint64_t offset = 0;
  // LIMIT $1 / OFFSET $2 of a prepared statement: BIGINT expressions of its parameters, evaluated
  // when the query runs (NULL: no limit, no offset; negative: 2201W, 2201X), in place of the
  // constants above (which then stay "none": the rewrites that use a limit leave these alone).
  ExprPtr limitExpr, offsetExpr;
  bool runTimeCount() const { return limitExpr || offsetExpr; }
  Limit() : Operator(OpKind::Limit) {}
  std::vector<const IU*> produced() const override { return child()->produced(); }
};

// The rows of every child, one after another (UNION ALL; UNION, INTERSECT and EXCEPT aggregate
// over it). Output column i is inputs[c][i] of child c.
struct UnionAll : Operator {
  std::vector<const IU*> columns;
  std::vector<std::vector<const IU*>> inputs;  // per child, same types as `columns`
  UnionAll() : Operator(OpKind::UnionAll) {}
  std::vector<const IU*> produced() const override { return columns; }
};

// A read of a WITH query that is computed once for all its references (see With): its rows are
// the WITH query's, its columns fresh IUs of this reference, each standing for one of the WITH
// query's output IUs (`source`). The binder makes one per reference; the optimizer inlines a WITH
// query read once (sql/optimizer/common_tables.cpp) and keeps only the columns read above.
struct CteScan : Operator {
  uint32_t cte = 0;  // CommonTable::id
  std::string name, alias;
  struct Column {
    const IU* source;  // the WITH query's output
    const IU* iu;      // this reference's
  };
  std::vector<Column> columns;
  CteScan() : Operator(OpKind::CteScan) {}
  std::vector<const IU*> produced() const override;
};

// WITH queries computed once: children[i] (i < ctes.size()) is WITH query ctes[i], whose rows are
// kept, only its `columns` (those some reference reads), in a buffer that every CteScan of it
// reads; they run in this order (one read by another comes first). The last child is the query,
// whose rows are the With's. The optimizer puts it at the plan's root.
struct With : Operator {
  struct Definition {
    uint32_t id;
    std::string name;
    std::vector<const IU*> columns;
  };
  std::vector<Definition> ctes;
  With() : Operator(OpKind::With) {}
  std::vector<const IU*> produced() const override { return children.back()->produced(); }
};

// A WITH query as the binder leaves it for the optimizer: bound once, read by CteScans.
struct CommonTable {
  uint32_t id;
  std::string name;
  OperatorPtr root;
  std::vector<const IU*> columns;  // its outputs, in order (one IU may come twice)
};

// A query ready for code generation: the operator tree and the IUs of the result, in order.
struct QueryPlan {
  // Types of the parameters $1, $2 ... (prepared statements): declared, or inferred by the binder
  // from where each is used; TypeId::Null while unknown.
  std::vector<SqlType> parameters;
  // Names by which the SQL text may refer to a parameter (a stored procedure's variables and
  // parameters, "rec.col" for a FOR loop's row; "" for none): a name no column in scope has.
  std::vector<std::string> parameterNames;
  // SELECT ... INTO (stored procedures): the first row's output i goes to parameter slot into[i]
  // instead of a result, and the BOOLEAN slot `foundSlot` (if any) is set TRUE when a row came.
  std::vector<uint32_t> into;
  int32_t foundSlot = -1;
  // A stored procedure's statement is planned at CREATE but may never run: an error in folding a
  // constant (1 / 0 on a path not taken) is left for the generated code to raise when it runs.
  bool deferConstantErrors = false;
  // A write of at most one row: the sink hands each output row to this writer
  // (engine/runtime/row_writer.hpp) instead of a result chunk, then sets `foundSlot` if any.
  RowWriter* writer = nullptr;
  IUSet ius;
  // Tables that are no catalog's, made while binding (read_json's): they live as long as the plan.
  std::vector<std::shared_ptr<Table>> ownedTables;
  // WITH queries the binder bound once for all their references (CteScans of them), in the order
  // they were bound (one before those that read it); the optimizer empties it: a With at the root
  // for those read more than once, the others inlined or dropped.
  std::vector<CommonTable> commonTables;
  OperatorPtr root;
  std::vector<const IU*> output;
  std::vector<std::string> outputNames;
  uint32_t operatorCount = 0;
};

// Calls `fn` on each expression the operator itself holds (not those of its children).
void forEachExpr(Operator& op, const std::function<void(ExprPtr&)>& fn);

// The tables the plan reads (its TableScans', index lookups included), each once, in pre-order.
std::vector<Table*> tablesScanned(const Operator& root);

// Numbers operators (Operator::id) in pre-order; returns the count.
uint32_t numberOperators(Operator& root);

// EXPLAIN text: one operator a line, indented, with estimates (and actual rows when given).
std::string explain(const QueryPlan& plan, const std::vector<uint64_t>* actualRows = nullptr);

}  // namespace hyrax::plan
