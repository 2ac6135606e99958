#pragma once
// The one way a SELECT, INSERT, UPDATE or DELETE becomes a physical plan: bound (sql/semantic),
// rewritten (sql/optimizer) and physically planned (physical_planner.cpp). Execution
// (compiled_statement.cpp), EXPLAIN and EXPLAIN ANALYZE all take their plan from here, so what
// EXPLAIN shows is what runs.
#include <chrono>
#include <cstdint>
#include <vector>

#include "codegen/plan/operator.hpp"
#include "sql/api/database.hpp"
#include "sql/parser/ast.hpp"

namespace hyrax {
class Catalog;
class Table;
}  // namespace hyrax

namespace hyrax::sql {

using Clock = std::chrono::steady_clock;
inline double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct PlannedStatement {
  ast::StmtKind kind = ast::StmtKind::Select;
  plan::QueryPlan plan;           // plan.parameters: the type of each $n
  Table* table = nullptr;         // INSERT, UPDATE, DELETE
  std::vector<uint32_t> columns;  // INSERT: the column of each output; UPDATE: the SET columns
  // A write's RETURNING: a query over the rows it wrote (sql/semantic/binder.hpp, BoundWrite),
  // which run after it; null without RETURNING.
  std::unique_ptr<plan::QueryPlan> returning;

  // The columns of the rows it returns: a SELECT's, a write's RETURNING's; empty for others.
  std::vector<ResultColumn> resultColumns() const;
};

// Plans `stmt` (one of the four kinds above; 0A000 for others); `parameterTypes` are declared
// types of $1, $2 ... (the rest are inferred). Sets times.plan.
PlannedStatement planStatement(Catalog& catalog, const ast::Statement& stmt, std::vector<SqlType> parameterTypes,
                               PhaseTimes& times);
// The same for a query standing alone (COPY (query) TO).
PlannedStatement planQuery(Catalog& catalog, const ast::Select& query, PhaseTimes& times);

}  // namespace hyrax::sql
