#pragma once
// Cardinality estimation from statistics (engine/storage/statistics.hpp): the number of rows
// each operator yields, what EXPLAIN shows and join ordering minimizes. Without statistics it
// falls back to fixed guesses (equality 10%, range 33%, ...).
#include <unordered_map>

#include "codegen/plan/operator.hpp"
#include "engine/storage/statistics.hpp"

namespace hyrax::sql {

class CardinalityModel {
 public:
  // Learns which table column each scanned IU is, for the whole plan.
  explicit CardinalityModel(plan::Operator& root);

  // Fraction of rows for which the condition holds.
  double selectivity(const plan::Expr& e) const;
  // ... for conditions that must all hold (a column's two bounds taken as one range).
  double selectivity(const std::vector<const plan::Expr*>& conjuncts) const;
  // Distinct values of an expression over `rows` input rows (capped by them).
  double distinct(const plan::Expr& e, double rows) const;
  // What the rows of a join are divided by, for equalities a[i] = b[i] between inputs of ra and
  // rb rows: the rows of a's table when a covers its primary key (a foreign-key join: each b row
  // finds its one partner, if the filters on a's table kept it), else the product of the larger
  // distinct counts, at most the larger input.
  double joinDivisor(const std::vector<const plan::Expr*>& a, double ra, const std::vector<const plan::Expr*>& b,
                     double rb) const;
  // Rows of an inner equi-join of inputs with l and r rows under `keys` and `residual`.
  double joinRows(double l, double r, const std::vector<plan::Join::Key>& keys, const plan::Expr* residual) const;
  // Sets estimatedRows of the operator and everything below it.
  void estimate(plan::Operator& op);

 private:
  const ColumnStatistics* stats(const plan::Expr& e) const;  // for a plain column read
  // A column compared with <, <=, > or >= to another value: the side it bounds and the share of
  // rows it keeps, `known` when statistics and a constant give it.
  struct Inequality {
    const plan::IU* column = nullptr;
    bool lower = false, known = false;
    bool constant = false;  // the other side reads no column: fixed while a scan runs
    double fraction = 0, notNull = 1;  // when known: of the non-NULL values, and their share
    double share() const;
  };
  bool inequality(const plan::Expr& e, Inequality& q) const;
  // The table rows when the expressions are columns of one scanned table covering its primary key.
  double uniqueTableRows(const std::vector<const plan::Expr*>& keys) const;
  std::unordered_map<const plan::IU*, const ColumnStatistics*> columns_;
  struct ScannedColumn {
    const plan::TableScan* scan;
    uint32_t index;
  };
  std::unordered_map<const plan::IU*, ScannedColumn> scanned_;
  std::unordered_map<const plan::IU*, double> groupCounts_;  // IUs of GROUP BY outputs: their groups
  // Columns a filter leaves few values of (`c = constant`: 1; `c IN (k constants)`: k), from the
  // filter up: operators are estimated bottom up, so those below it still see all the values.
  // TPC-H Q16's `p_size IN (8 sizes)`: its groups by (p_brand, p_type, p_size) estimated at
  // 100,017 (25 x 150 x 50, capped by the rows) for 18,314; at most 8 sizes gives 30,000.
  std::unordered_map<const plan::IU*, double> caps_;
  void capValues(const plan::Expr& predicate);
  double capped(const plan::IU* iu, double distinct) const;
  std::unordered_map<const plan::IU*, const plan::Expr*> computed_;  // IUs a Map computes: their expressions
  std::unordered_map<const plan::IU*, const plan::IU*> sources_;  // IUs of a CteScan: the WITH query's
  std::unordered_map<uint32_t, double> cteRows_;  // WITH queries computed once: their estimated rows
  double distinctValues(const plan::Expr& e, double rows, int depth) const;
  double distinctOf(const plan::IU* iu, double rows, int depth) const;
};

}  // namespace hyrax::sql
