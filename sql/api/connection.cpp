// Statement execution: parse, bind, optimize, compile, run; DDL directly on the catalog.
#include <chrono>
#include <cstring>

#include "codegen/translate/query_compiler.hpp"
#include "engine/catalog/catalog.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/txn/serial_executor.hpp"
#include "engine/txn/table_ops.hpp"
#include "engine/txn/undo_log.hpp"
#include "sql/api/copy.hpp"
#include "sql/api/ddl.hpp"
#include "sql/api/database.hpp"
#include "sql/api/table_writer.hpp"
#include "sql/optimizer/optimizer.hpp"
#include "sql/parser/parser.hpp"
#include "sql/semantic/binder.hpp"

namespace hyrax {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::vector<SqlType> outputTypes(const plan::QueryPlan& p) {
  std::vector<SqlType> types;
  for (auto* iu : p.output) types.push_back(iu->type);
  return types;
}

// Long-running queries get the full LLVM pipeline; short ones the quick one (compile time
// dominates them).
bool worthFullOptimization(const plan::Operator& op) {
  if (op.kind == plan::OpKind::TableScan && op.estimatedRows > 50'000) return true;
  for (auto& c : op.children)
    if (worthFullOptimization(*c)) return true;
  return false;
}

struct Execution {
  std::unique_ptr<codegen::CompiledQuery> compiled;
  std::unique_ptr<QueryContext> ctx;
};

Execution compileAndRun(const plan::QueryPlan& p, codegen::CompileOptions opts, const std::atomic<bool>* cancel,
                        PhaseTimes& times, bool run = true) {
  Execution ex;
  opts.fullOptimization = worthFullOptimization(*p.root);
  ex.compiled = codegen::compile(p, opts);
  times.codegen = ex.compiled->stats().codegenMs;
  times.optimize = ex.compiled->stats().optimizeMs;
  times.machineCode = ex.compiled->stats().machineCodeMs;
  ex.ctx = std::make_unique<QueryContext>(outputTypes(p), cancel);
  if (run) {
    auto t = Clock::now();
    ex.compiled->run(*ex.ctx);
    times.execute = msSince(t);
  }
  return ex;
}

// INSERT ... VALUES whose values are all constants after folding: no code to generate.
std::vector<std::unique_ptr<ResultChunk>> constantRows(const plan::QueryPlan& p) {
  std::vector<std::unique_ptr<ResultChunk>> chunks;
  auto& values = static_cast<const plan::Values&>(*p.root);
  std::vector<SqlType> types = outputTypes(p);
  for (auto& row : values.rows) {
    if (chunks.empty() || chunks.back()->rowCount() == ResultChunk::kCapacity)
      chunks.push_back(std::make_unique<ResultChunk>(types));
    ResultChunkView& v = chunks.back()->view();
    uint64_t r = v.count++;
    for (size_t c = 0; c < row.size(); ++c) {
      const Value& val = row[c]->value;
      const SqlType& t = types[c];
      char* dst = static_cast<char*>(v.columns[c]) + r * t.byteWidth();
      v.nulls[c][r] = val.isNull();
      if (val.isNull()) {
        std::memset(dst, 0, t.byteWidth());
      } else if (t.isString()) {
        StringRef s = StringRef::make(val.asString());
        std::memcpy(dst, &s, sizeof(s));
      } else if (t.isFloat()) {
        if (t.id == TypeId::Float32) {
          float f = static_cast<float>(val.asDouble());
          std::memcpy(dst, &f, 4);
        } else {
          double d = val.asDouble();
          std::memcpy(dst, &d, 8);
        }
      } else {
        int64_t x = val.asInt();
        std::memcpy(dst, &x, t.byteWidth());  // little-endian: the low bytes
      }
    }
  }
  return chunks;
}

bool allConstant(const plan::QueryPlan& p) {
  if (p.root->kind != plan::OpKind::Values) return false;
  for (auto& row : static_cast<const plan::Values&>(*p.root).rows)
    for (auto& e : row)
      if (e->kind != plan::ExprKind::Constant || !e->type.sameAs(e->value.type())) return false;
  return true;
}

QueryResult runSelect(const ast::Select& select, Catalog& catalog, const std::atomic<bool>* cancel, PhaseTimes& times) {
  auto t = Clock::now();
  plan::QueryPlan p;
  sql::Binder(catalog).bindSelect(select, p);
  sql::optimize(p);
  times.plan = msSince(t);
  Execution ex = compileAndRun(p, {}, cancel, times);
  std::vector<ResultColumn> cols;
  for (size_t i = 0; i < p.output.size(); ++i) cols.push_back({p.outputNames[i], p.output[i]->type});
  auto chunks = ex.ctx->takeResults();
  uint64_t n = 0;
  for (auto& c : chunks) n += c->rowCount();
  QueryResult r(std::move(cols), std::move(chunks), "SELECT " + std::to_string(n));
  r.keepAlive(std::shared_ptr<QueryContext>(std::move(ex.ctx)));
  r.keepAlive(std::shared_ptr<codegen::CompiledQuery>(std::move(ex.compiled)));  // its string constants
  r.times = times;
  return r;
}

QueryResult explainResult(const std::string& text, PhaseTimes times) {
  std::vector<SqlType> types{SqlType::text(false)};
  std::vector<std::unique_ptr<ResultChunk>> chunks;
  size_t start = 0;
  std::vector<std::string> lines;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  // Result rows point at their characters: keep the lines in the result's own arena chunk.
  auto ctx = std::make_shared<QueryContext>(types);
  for (auto& line : lines) {
    ResultChunkView* v = ctx->currentResult();
    if (v->count == v->capacity) v = (ctx->flushResult(), ctx->currentResult());
    char* buf = ctx->arena().allocate(line.size() + 1);
    std::memcpy(buf, line.data(), line.size());
    StringRef s = StringRef::make(buf, static_cast<uint32_t>(line.size()));
    std::memcpy(static_cast<char*>(v->columns[0]) + v->count * 16, &s, 16);
    v->nulls[0][v->count] = 0;
    ++v->count;
  }
  QueryResult r({{"QUERY PLAN", types[0]}}, ctx->takeResults(), "EXPLAIN");
  r.keepAlive(ctx);
  r.times = times;
  return r;
}

}  // namespace

Connection::Connection(Database& db) : db_(db), undo_(std::make_unique<UndoLog>()) {}

Connection::~Connection() {
  if (txn_ == TransactionState::Idle) return;
  try {
    db_.executor().run(this, [&] { endTransaction(false); });
  } catch (...) {  // a destructor does not throw; the executor is released either way
  }
}

std::vector<QueryResult> Connection::executeScript(std::string_view sql) {
  std::vector<QueryResult> results;
  for (auto& st : splitStatements(sql)) results.push_back(execute(st.text, SourcePos{st.line, st.column}));
  return results;
}

QueryResult Connection::execute(std::string_view sql) { return execute(sql, SourcePos{1, 1}); }

QueryResult Connection::execute(std::string_view sql, SourcePos origin) {
  cancel_.store(false);
  QueryResult r;
  db_.executor().run(this, [&] { r = run(sql, origin); });
  return r;
}

void Connection::endTransaction(bool commit) {
  if (commit) undo_->commit();
  else undo_->rollbackTo(0);
  txn_ = TransactionState::Idle;
  db_.executor().release(this);
}

QueryResult Connection::transactionControl(const ast::TransactionStmt& t) {
  using Op = ast::TransactionStmt::Op;
  QueryResult r;
  switch (t.op) {
    case Op::Begin:
      r = QueryResult({}, {}, "BEGIN");
      if (txn_ != TransactionState::Idle) {
        r.notices.push_back("there is already a transaction in progress");
        return r;
      }
      txn_ = TransactionState::InBlock;
      db_.executor().hold(this);
      return r;
    case Op::Commit:
    case Op::Rollback: {
      bool commit = t.op == Op::Commit && txn_ == TransactionState::InBlock;
      // COMMIT of a failed block rolls it back, and says so in its tag, as PostgreSQL does.
      r = QueryResult({}, {}, commit || (t.op == Op::Commit && txn_ == TransactionState::Idle) ? "COMMIT" : "ROLLBACK");
      if (txn_ == TransactionState::Idle) {
        r.notices.push_back("there is no transaction in progress");
        return r;
      }
      endTransaction(commit);
      return r;
    }
  }
  return r;
}

QueryResult Connection::run(std::string_view sql, SourcePos origin) {
  PhaseTimes times;
  auto t = Clock::now();
  ast::StatementPtr stmt = parseStatement(sql, origin);
  times.parse = msSince(t);
  if (stmt->kind == ast::StmtKind::Transaction) return transactionControl(static_cast<const ast::TransactionStmt&>(*stmt));
  if (txn_ == TransactionState::Failed)
    throw Error(sqlstate::InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block",
                stmt->pos);
  // Each statement is atomic: on an error everything it did is undone (and an open block fails).
  const size_t savepoint = undo_->savepoint();
  try {
    QueryResult r = dispatch(*stmt, times);
    if (txn_ == TransactionState::Idle) undo_->commit();
    return r;
  } catch (...) {
    undo_->rollbackTo(savepoint);
    if (txn_ == TransactionState::InBlock) txn_ = TransactionState::Failed;
    throw;
  }
}

QueryResult Connection::dispatch(const ast::Statement& stmtRef, PhaseTimes& times) {
  const ast::Statement* stmt = &stmtRef;
  Catalog& catalog = db_.catalog();
  UndoLog& undo = *undo_;
  auto t = Clock::now();

  switch (stmt->kind) {
    case ast::StmtKind::CreateTable:
      return sql::createTable(catalog, undo, static_cast<const ast::CreateTableStmt&>(*stmt));
    case ast::StmtKind::DropTable:
      return sql::dropObjects(catalog, undo, static_cast<const ast::DropTableStmt&>(*stmt));
    case ast::StmtKind::CreateView:
      return sql::createView(catalog, undo, static_cast<const ast::CreateViewStmt&>(*stmt));
    case ast::StmtKind::CreateIndex:
      return sql::createIndex(catalog, undo, static_cast<const ast::CreateIndexStmt&>(*stmt));
    case ast::StmtKind::Transaction:
      return transactionControl(static_cast<const ast::TransactionStmt&>(*stmt));
    case ast::StmtKind::Update: {
      sql::BoundUpdate u;
      sql::Binder(catalog).bindUpdate(static_cast<const ast::UpdateStmt&>(*stmt), u);
      sql::optimize(u.plan);
      times.plan = msSince(t);
      Execution ex = compileAndRun(u.plan, {}, &cancel_, times);
      auto e = Clock::now();
      uint64_t n = sql::updateRows(undo, *u.table, ex.ctx->takeResults(), u.columns);
      times.execute += msSince(e);
      QueryResult r({}, {}, "UPDATE " + std::to_string(n));
      r.times = times;
      return r;
    }
    case ast::StmtKind::Delete: {
      sql::BoundDelete d;
      sql::Binder(catalog).bindDelete(static_cast<const ast::DeleteStmt&>(*stmt), d);
      sql::optimize(d.plan);
      times.plan = msSince(t);
      Execution ex = compileAndRun(d.plan, {}, &cancel_, times);
      auto e = Clock::now();
      uint64_t n = sql::deleteRows(undo, *d.table, ex.ctx->takeResults());
      times.execute += msSince(e);
      QueryResult r({}, {}, "DELETE " + std::to_string(n));
      r.times = times;
      return r;
    }
    case ast::StmtKind::Analyze: {
      auto& a = static_cast<const ast::AnalyzeStmt&>(*stmt);
      std::vector<Table*> targets;
      if (!a.table.empty()) {
        Table* t = catalog.findTable(a.table);
        if (!t) throw Error(sqlstate::UndefinedTable, "relation \"" + a.table + "\" does not exist", a.tablePos);
        targets.push_back(t);
      } else {
        for (const Table* t : catalog.tables()) targets.push_back(catalog.findTable(t->name()));
      }
      for (Table* t : targets) t->setStatistics(gatherStatistics(*t));
      return QueryResult({}, {}, "ANALYZE");
    }
    case ast::StmtKind::Select:
      return runSelect(*static_cast<const ast::SelectStmt&>(*stmt).select, catalog, &cancel_, times);
    case ast::StmtKind::Copy: {
      CopyContext ctx{catalog, copyIn_, copyOut_,
                      [&](const ast::Select& sel) { return runSelect(sel, catalog, &cancel_, times); }, progress_,
                      [&](Table& table, uint64_t first) {
                        // Rows [first, end) were just loaded: CHECK constraints by a query over
                        // them, then keys and indexes.
                        if (!table.checks().empty()) {
                          try {
                            plan::QueryPlan check;
                            sql::Binder(catalog).bindCheckRows(table, first, check);
                            sql::optimize(check);
                            PhaseTimes ignored;
                            Execution ex = compileAndRun(check, {}, &cancel_, ignored);
                            for (auto& chunk : ex.ctx->takeResults())
                              for (uint64_t r = 0; r < chunk->rowCount(); ++r)
                                sql::requireChecks(table, *chunk, r, 1, chunk->get<uint64_t>(r, 0));
                          } catch (...) {
                            table.truncate(first);
                            throw;
                          }
                        }
                        txn::finishAppend(undo, table, first);
                      }};
      QueryResult r = executeCopy(static_cast<const ast::CopyStmt&>(*stmt), ctx);
      r.times = times;
      return r;
    }
    case ast::StmtKind::Insert: {
      t = Clock::now();
      sql::BoundInsert ins;
      sql::Binder(catalog).bindInsert(static_cast<const ast::InsertStmt&>(*stmt), ins);
      sql::optimize(ins.plan);
      times.plan = msSince(t);
      uint64_t n;
      if (allConstant(ins.plan)) {
        auto chunks = constantRows(ins.plan);
        auto e = Clock::now();
        n = sql::insertRows(undo, *ins.table, chunks, ins.columnOf);
        times.execute = msSince(e);
      } else {
        Execution ex = compileAndRun(ins.plan, {}, &cancel_, times);
        auto e = Clock::now();
        n = sql::insertRows(undo, *ins.table, ex.ctx->takeResults(), ins.columnOf);
        times.execute += msSince(e);
      }
      QueryResult r({}, {}, "INSERT 0 " + std::to_string(n));
      r.times = times;
      return r;
    }
    case ast::StmtKind::Explain: {
      auto& e = static_cast<const ast::ExplainStmt&>(*stmt);
      t = Clock::now();
      plan::QueryPlan p;
      sql::BoundInsert ins;
      sql::BoundUpdate upd;
      sql::BoundDelete del;
      plan::QueryPlan* target = &p;
      if (e.statement->kind == ast::StmtKind::Select) {
        sql::Binder(catalog).bindSelect(*static_cast<const ast::SelectStmt&>(*e.statement).select, p);
      } else if (e.statement->kind == ast::StmtKind::Insert) {
        if (e.analyze) throw Error(sqlstate::FeatureNotSupported, "EXPLAIN ANALYZE of INSERT is not supported yet", e.pos);
        sql::Binder(catalog).bindInsert(static_cast<const ast::InsertStmt&>(*e.statement), ins);
        target = &ins.plan;
      } else if (e.statement->kind == ast::StmtKind::Update || e.statement->kind == ast::StmtKind::Delete) {
        // The plan that finds the rows and computes their new values (EXPLAIN ANALYZE runs it
        // without changing anything).
        if (e.statement->kind == ast::StmtKind::Update)
          sql::Binder(catalog).bindUpdate(static_cast<const ast::UpdateStmt&>(*e.statement), upd);
        else
          sql::Binder(catalog).bindDelete(static_cast<const ast::DeleteStmt&>(*e.statement), del);
        target = e.statement->kind == ast::StmtKind::Update ? &upd.plan : &del.plan;
      } else {
        throw Error(sqlstate::FeatureNotSupported, "EXPLAIN supports SELECT, INSERT, UPDATE and DELETE", e.statement->pos);
      }
      sql::optimize(*target);
      times.plan = msSince(t);
      std::string text;
      if (e.llvm || e.asm_) {
        codegen::CompileOptions opts;
        opts.keepIR = e.llvm;
        opts.keepAssembly = e.asm_;
        Execution ex = compileAndRun(*target, opts, &cancel_, times, false);
        text = e.llvm ? ex.compiled->ir() : "";
        if (e.asm_) text += ex.compiled->assembly();
      } else if (e.analyze) {
        codegen::CompileOptions opts;
        opts.countRows = true;
        Execution ex = compileAndRun(*target, opts, &cancel_, times);
        uint64_t rows = 0;
        for (auto& c : ex.ctx->takeResults()) rows += c->rowCount();
        text = plan::explain(*target, &ex.ctx->operatorCounters());
        char buf[512];
        std::snprintf(buf, sizeof(buf),
                      "Result rows: %llu\nParse: %.3f ms\nPlan: %.3f ms\nCodegen: %.3f ms\nLLVM optimize: %.3f ms\n"
                      "Machine code: %.3f ms\nExecute: %.3f ms\nTotal: %.3f ms\n",
                      static_cast<unsigned long long>(rows), times.parse, times.plan, times.codegen, times.optimize,
                      times.machineCode, times.execute, times.total());
        text += buf;
      } else {
        text = plan::explain(*target);
      }
      return explainResult(text, times);
    }
  }
  throw Error(sqlstate::InternalError, "unknown statement");
}

}  // namespace hyrax
