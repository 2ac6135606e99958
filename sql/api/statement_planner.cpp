#include "sql/api/statement_planner.hpp"

#include "sql/optimizer/optimizer.hpp"
#include "sql/semantic/binder.hpp"

namespace hyrax::sql {

namespace {

PlannedStatement plan(Catalog& catalog, const ast::Statement* stmt, const ast::Select* query,
                      std::vector<SqlType> parameterTypes, PhaseTimes& times) {
  auto start = Clock::now();
  PlannedStatement s;
  s.kind = query ? ast::StmtKind::Select : stmt->kind;
  Binder binder(catalog);
  switch (s.kind) {
    case ast::StmtKind::Select:
      s.plan.parameters = std::move(parameterTypes);
      binder.bindSelect(query ? *query : *static_cast<const ast::SelectStmt&>(*stmt).select, s.plan);
      break;
    case ast::StmtKind::Insert:
    case ast::StmtKind::Update:
    case ast::StmtKind::Delete: {
      BoundWrite w;
      w.plan.parameters = std::move(parameterTypes);
      if (s.kind == ast::StmtKind::Insert) binder.bindInsert(static_cast<const ast::InsertStmt&>(*stmt), w);
      else if (s.kind == ast::StmtKind::Update) binder.bindUpdate(static_cast<const ast::UpdateStmt&>(*stmt), w);
      else binder.bindDelete(static_cast<const ast::DeleteStmt&>(*stmt), w);
      s.plan = std::move(w.plan);
      s.table = w.table;
      s.columns = std::move(w.columns);
      s.returning = std::move(w.returning);
      if (s.returning) optimize(*s.returning);
      break;
    }
    default:
      throw Error(sqlstate::FeatureNotSupported, "only SELECT, INSERT, UPDATE and DELETE have a plan", stmt->pos);
  }
  optimize(s.plan);
  times.plan = msSince(start);
  return s;
}

}  // namespace

std::vector<ResultColumn> PlannedStatement::resultColumns() const {
  const plan::QueryPlan* rows = kind == ast::StmtKind::Select ? &plan : returning.get();
  std::vector<ResultColumn> cols;
  if (rows)
    for (size_t i = 0; i < rows->output.size(); ++i) cols.push_back({rows->outputNames[i], rows->output[i]->type});
  return cols;
}

PlannedStatement planStatement(Catalog& catalog, const ast::Statement& stmt, std::vector<SqlType> parameterTypes,
                               PhaseTimes& times) {
  return plan(catalog, &stmt, nullptr, std::move(parameterTypes), times);
}

PlannedStatement planQuery(Catalog& catalog, const ast::Select& query, PhaseTimes& times) {
  return plan(catalog, nullptr, &query, {}, times);
}

}  // namespace hyrax::sql
