#include "sql/api/compiled_statement.hpp"

#include <cstring>

#include "engine/catalog/catalog.hpp"
#include "engine/runtime/thread_scope.hpp"
#include "engine/storage/table.hpp"
#include "engine/txn/undo_log.hpp"
#include "engine/types/string_ref.hpp"
#include "sql/api/table_writer.hpp"

namespace hyrax::sql {

namespace {

std::vector<SqlType> outputTypes(const plan::QueryPlan& p) {
  std::vector<SqlType> types;
  for (auto* iu : p.output) types.push_back(iu->type);
  return types;
}

// Long-running queries get the full LLVM pipeline; short ones the quick one (compile time
// dominates them). The full pipeline costs some 10-30 ms more; a scan of this many rows takes
// about as long again unoptimized, so beyond it the optimization pays for itself in one run.
constexpr double kFullOptimizationMinRows = 50'000;

bool scansMoreThan(const plan::Operator& op, double rows) {
  if (op.kind == plan::OpKind::TableScan && op.estimatedRows > rows) return true;
  for (auto& c : op.children)
    if (scansMoreThan(*c, rows)) return true;
  return false;
}

}  // namespace

bool readsBigTable(const plan::QueryPlan& p) { return scansMoreThan(*p.root, kFullOptimizationMinRows); }

Execution compileAndRun(const plan::QueryPlan& p, codegen::CompileOptions opts, const std::atomic<bool>* cancel,
                        PhaseTimes& times, bool run) {
  Execution ex;
  opts.fullOptimization = readsBigTable(p);
  const codegen::ExecutionPolicy* policy = ThreadScope<const codegen::ExecutionPolicy>::current();
  if (policy) opts.waitForOptimizedAfter = policy->switchAfterMorsels;
  switch (policy ? policy->tier : codegen::CompileTier::Auto) {
    case codegen::CompileTier::Auto: opts.adaptive = opts.optimizeWhenWorthIt = true; break;  // codegen: only a fully optimized one
    case codegen::CompileTier::Optimized: break;
    case codegen::CompileTier::Cheap: opts.cheapOnly = true; break;
    case codegen::CompileTier::Interpreted: opts.cheapOnly = opts.interpretOnly = true; break;
    case codegen::CompileTier::Adaptive:
      opts.fullOptimization = opts.adaptive = true;
      break;
  }
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

namespace {

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
      std::memset(dst, 0, t.byteWidth());
      if (!val.isNull()) val.encode(t, dst);
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

}  // namespace

namespace {

std::unique_ptr<CompiledStatement> compile(Catalog& catalog, PlannedStatement planned, PhaseTimes& times) {
  auto s = std::make_unique<CompiledStatement>();
  static_cast<PlannedStatement&>(*s) = std::move(planned);
  s->catalogVersion = catalog.version();
  if (s->returning) {
    PhaseTimes own;
    s->returningCode = compileAndRun(*s->returning, {}, nullptr, own, false).compiled;
    times.codegen += own.codegen;
    times.optimize += own.optimize;
    times.machineCode += own.machineCode;
  }
  if (s->kind == ast::StmtKind::Insert && allConstant(s->plan)) return s;
  // RETURNING reads the rows a write collected (a one-row writer keeps none).
  if (s->kind != ast::StmtKind::Select && !s->returning && (s->writer = oneRowWriter(*s))) s->plan.writer = s->writer.get();
  Execution ex = compileAndRun(s->plan, {}, nullptr, times, false);
  s->compiled = std::move(ex.compiled);
  return s;
}

}  // namespace

std::unique_ptr<CompiledStatement> compileStatement(Catalog& catalog, const ast::Statement& stmt,
                                                    std::vector<SqlType> parameterTypes, PhaseTimes& times) {
  return compile(catalog, planStatement(catalog, stmt, std::move(parameterTypes), times), times);
}

std::unique_ptr<CompiledStatement> compileQuery(Catalog& catalog, const ast::Select& query, PhaseTimes& times) {
  return compile(catalog, planQuery(catalog, query, times), times);
}

namespace {

Table* returnedTable(const CompiledStatement& s) { return s.returning ? s.returning->ownedTables[0].get() : nullptr; }

// Runs `code` (compiled from `p`) in the statement's transaction; its results are the context's.
std::shared_ptr<QueryContext> run(codegen::CompiledQuery& code, const plan::QueryPlan& p, UndoLog& undo,
                                  const std::vector<ValueSlot>& parameters, const std::atomic<bool>* cancel) {
  auto ctx = std::make_shared<QueryContext>(outputTypes(p), cancel);
  if (!parameters.empty()) ctx->parameters() = parameters;
  ctx->setUndo(&undo);
  if (undo.transactionTime()) ctx->setTransactionTime(undo.transactionTime());
  try {
    code.run(*ctx);
  } catch (Error& e) {
    e.withNoticesBefore(std::move(ctx->notices()));  // raised by the calls that went well before
    throw;
  }
  return ctx;
}

// Runs RETURNING's query over the rows the write gave its table: its result, with the write's tag.
QueryResult returnedRows(CompiledStatement& s, UndoLog& undo, const std::vector<ValueSlot>& parameters,
                         const std::atomic<bool>* cancel, std::string tag) {
  // On one thread: the rows come back in the order they were written, as PostgreSQL's do (clients
  // match an INSERT's VALUES rows with their RETURNING rows by position).
  const auto* policy = ThreadScope<const codegen::ExecutionPolicy>::current();
  codegen::ExecutionPolicy serial = policy ? *policy : codegen::ExecutionPolicy{};
  serial.threads = 1;
  ThreadScope<const codegen::ExecutionPolicy> oneThread(&serial);
  std::shared_ptr<QueryContext> ctx = run(*s.returningCode, *s.returning, undo, parameters, cancel);
  QueryResult r(s.resultColumns(), ctx->takeResults(), std::move(tag));
  r.notices = std::move(ctx->notices());
  r.keepAlive(ctx);
  r.keepAlive(s.returningCode);             // its string constants
  r.keepAlive(s.table->stringsKeeper());    // long strings of the rows, which stay in the table's heap
  return r;
}

}  // namespace

QueryResult runStatement(CompiledStatement& s, UndoLog& undo, const std::vector<ValueSlot>& parameters,
                         const std::atomic<bool>* cancel, PhaseTimes& times) {
  auto t = Clock::now();
  std::vector<std::unique_ptr<ResultChunk>> chunks;
  std::shared_ptr<QueryContext> ctx;
  if (s.compiled) {
    ctx = run(*s.compiled, s.plan, undo, parameters, cancel);
    chunks = ctx->takeResults();
  } else {
    chunks = constantRows(s.plan);
  }
  QueryResult r;
  switch (s.kind) {
    case ast::StmtKind::Select: {
      uint64_t n = 0;
      for (auto& c : chunks) n += c->rowCount();
      r = QueryResult(s.resultColumns(), std::move(chunks), "SELECT " + std::to_string(n));
      r.keepAlive(ctx);
      r.keepAlive(s.compiled);  // its string constants
      for (auto& t : s.plan.ownedTables) r.keepAlive(t);  // strings in tables the plan made (pg_class, read_json)
      if (s.plan.root)  // long strings in the tables it read, which a DROP may free before the result is read
        for (const Table* t : plan::tablesScanned(*s.plan.root)) r.keepAlive(t->stringsKeeper());
      break;
    }
    // A one-row write's plan applied its row itself (oneRowWriter); others' rows are applied here.
    // RETURNING's rows: those the write gave its table (the writer is then null).
    case ast::StmtKind::Insert: {
      const uint64_t before = s.table->rowCount();
      uint64_t n = s.writer ? ctx->rowsWritten() : insertRows(undo, *s.table, chunks, insertTargetsOf(s));
      r = QueryResult({}, {}, "INSERT 0 " + std::to_string(n));
      if (s.returning) {
        std::vector<uint64_t> rows(n);
        for (uint64_t i = 0; i < n; ++i) rows[i] = before + i;
        copyReturnedRows(*s.table, rows, *s.returning->ownedTables[0]);
      }
      break;
    }
    case ast::StmtKind::Update: {
      uint64_t n = s.writer ? ctx->rowsWritten()
                            : updateRows(undo, *s.table, chunks, updateBatchOf(s), returnedTable(s));
      r = QueryResult({}, {}, "UPDATE " + std::to_string(n));
      break;
    }
    case ast::StmtKind::Delete: {
      uint64_t n = s.writer ? ctx->rowsWritten() : deleteRows(undo, *s.table, chunks, returnedTable(s));
      r = QueryResult({}, {}, "DELETE " + std::to_string(n));
      break;
    }
    default: break;
  }
  if (s.returning) {
    std::vector<Notice> notices;  // the write's calls' first
    if (ctx) notices = std::move(ctx->notices());
    r = returnedRows(s, undo, parameters, cancel, r.tag());
    notices.insert(notices.end(), r.notices.begin(), r.notices.end());
    r.notices = std::move(notices);
    if (ctx) r.keepAlive(ctx);
    times.execute = msSince(t);
    r.times = times;
    return r;
  }
  times.execute = msSince(t);
  r.times = times;
  if (ctx) r.notices = std::move(ctx->notices());  // the stored functions' it called
  return r;
}

QueryResult runWithValues(CompiledStatement& s, UndoLog& undo, std::shared_ptr<std::vector<Value>> values,
                          const std::atomic<bool>* cancel, PhaseTimes& times) {
  const std::vector<SqlType>& types = s.plan.parameters;
  std::vector<ValueSlot> slots(std::max<size_t>(types.size(), 1), ValueSlot{});
  for (size_t i = 0; i < values->size(); ++i) {
    if ((*values)[i].isNull()) slots[i].null = 1;
    else (*values)[i].encode(types[i], slots[i].bytes());
  }
  QueryResult r = runStatement(s, undo, slots, cancel, times);
  r.keepAlive(std::move(values));
  return r;
}

}  // namespace hyrax::sql
