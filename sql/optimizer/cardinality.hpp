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
  // Distinct values of an expression over `rows` input rows (capped by them).
  double distinct(const plan::Expr& e, double rows) const;
  // Rows of an inner equi-join of inputs with l and r rows under `keys` and `residual`.
  double joinRows(double l, double r, const std::vector<plan::HashJoin::Key>& keys, const plan::Expr* residual) const;
  // Sets estimatedRows of the operator and everything below it.
  void estimate(plan::Operator& op);

 private:
  const ColumnStatistics* stats(const plan::Expr& e) const;  // for a plain column read
  std::unordered_map<const plan::IU*, const ColumnStatistics*> columns_;
  std::unordered_map<const plan::IU*, double> groupCounts_;  // IUs of GROUP BY outputs: their groups
};

}  // namespace hyrax::sql
