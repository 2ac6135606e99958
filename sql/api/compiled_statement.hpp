#pragma once
// A SELECT, INSERT, UPDATE or DELETE planned (statement_planner.hpp) and compiled to machine code
// once, then run as often as wanted with new parameter values: every such statement goes through
// here, a prepared one (PREPARE / EXECUTE) just keeps it.
#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

#include "codegen/plan/operator.hpp"
#include "codegen/translate/query_compiler.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/runtime/row_writer.hpp"
#include "sql/api/database.hpp"
#include "sql/api/statement_planner.hpp"
#include "sql/parser/ast.hpp"

namespace hyrax {
class Catalog;
class UndoLog;
}  // namespace hyrax

namespace hyrax::txn {
struct UpdateBatch;
}

namespace hyrax::sql {

struct CompiledStatement : PlannedStatement {
  std::shared_ptr<codegen::CompiledQuery> compiled;  // null for INSERT of constant VALUES (results may
                                                     // point at its string constants)
  uint64_t catalogVersion = 0;    // the catalog it was compiled against (Catalog::version)
  std::chrono::steady_clock::time_point compiledAt = std::chrono::steady_clock::now();
  std::shared_ptr<const struct InsertTargets> insertTargets;  // INSERT: made on its first run
  std::shared_ptr<const txn::UpdateBatch> updateBatch;         // UPDATE: made on its first run
  std::unique_ptr<RowWriter> writer;  // a one-row write's (table_writer.hpp: oneRowWriter); plan.writer
  std::shared_ptr<codegen::CompiledQuery> returningCode;  // RETURNING's query (`returning`), if any
};

// Plans (planStatement) and compiles `stmt`; `parameterTypes` are declared types of $1, $2 ...
// (the rest are inferred). Fills parse-free phase times.
std::unique_ptr<CompiledStatement> compileStatement(Catalog& catalog, const ast::Statement& stmt,
                                                    std::vector<SqlType> parameterTypes, PhaseTimes& times);

// The same for a query standing alone (COPY (query) TO).
std::unique_ptr<CompiledStatement> compileQuery(Catalog& catalog, const ast::Select& query, PhaseTimes& times);

// Runs it: a SELECT returns rows; the others change their table (logged in `undo`) and return the
// count. `parameters` holds a value slot per parameter (QueryContext::parameters).
QueryResult runStatement(CompiledStatement& s, UndoLog& undo, const std::vector<ValueSlot>& parameters,
                         const std::atomic<bool>* cancel, PhaseTimes& times);

// runStatement with parameter values already of the parameters' types (EXECUTE's, the extended
// query protocol's; NULL Values for NULL); the result keeps them (its strings may be theirs).
QueryResult runWithValues(CompiledStatement& s, UndoLog& undo, std::shared_ptr<std::vector<Value>> values,
                          const std::atomic<bool>* cancel, PhaseTimes& times);

// Whether a plan scans a table of more than 50,000 rows (estimated): it then runs long enough
// that the full LLVM pipeline pays for itself, and a prepared query runs on a snapshot.
bool readsBigTable(const plan::QueryPlan& p);

// Compiles a plan (the full LLVM pipeline when it reads big tables) and, if `run`, runs it.
struct Execution {
  std::unique_ptr<codegen::CompiledQuery> compiled;
  std::unique_ptr<QueryContext> ctx;
};
Execution compileAndRun(const plan::QueryPlan& p, codegen::CompileOptions opts, const std::atomic<bool>* cancel,
                        PhaseTimes& times, bool run = true);

}  // namespace hyrax::sql
