// Statement execution: parse, bind, optimize, compile, run; DDL directly on the catalog.
#include <chrono>
#include <cstring>

#include "codegen/translate/query_compiler.hpp"
#include "engine/catalog/catalog.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/types/string_ref.hpp"
#include "sql/api/copy.hpp"
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

Connection::Connection(Database& db) : db_(db) {}
Connection::~Connection() = default;

std::vector<QueryResult> Connection::executeScript(std::string_view sql) {
  std::vector<QueryResult> results;
  for (auto& st : splitStatements(sql)) results.push_back(execute(st.text, SourcePos{st.line, st.column}));
  return results;
}

QueryResult Connection::execute(std::string_view sql) { return execute(sql, SourcePos{1, 1}); }

QueryResult Connection::execute(std::string_view sql, SourcePos origin) {
  cancel_.store(false);
  PhaseTimes times;
  auto t = Clock::now();
  ast::StatementPtr stmt = parseStatement(sql, origin);
  times.parse = msSince(t);
  Catalog& catalog = db_.catalog();

  switch (stmt->kind) {
    case ast::StmtKind::CreateTable: {
      auto& c = static_cast<const ast::CreateTableStmt&>(*stmt);
      sql::TableDefinition def = sql::bindCreateTable(c);
      if (catalog.findTable(c.name) && c.ifNotExists) return QueryResult({}, {}, "CREATE TABLE");
      if (catalog.findTable(c.name))
        throw Error(sqlstate::DuplicateTable, "relation \"" + c.name + "\" already exists", c.pos);
      catalog.createTable(c.name, std::move(def.columns), std::move(def.primaryKey));
      return QueryResult({}, {}, "CREATE TABLE");
    }
    case ast::StmtKind::DropTable: {
      auto& d = static_cast<const ast::DropTableStmt&>(*stmt);
      auto exists = [&](const std::string& n) { return d.view ? catalog.findView(n) != nullptr : catalog.findTable(n) != nullptr; };
      // Check every name first: a failed DROP drops nothing.
      for (size_t i = 0; i < d.names.size(); ++i)
        if (!exists(d.names[i]) && !d.ifExists)
          throw Error(sqlstate::UndefinedTable, std::string(d.view ? "view" : "table") + " \"" + d.names[i] + "\" does not exist",
                      d.namePos[i]);
      for (auto& n : d.names) {
        if (!exists(n)) continue;
        if (d.view)
          catalog.dropView(n);
        else
          catalog.dropTable(n);
      }
      return QueryResult({}, {}, d.view ? "DROP VIEW" : "DROP TABLE");
    }
    case ast::StmtKind::CreateView: {
      auto& v = static_cast<const ast::CreateViewStmt&>(*stmt);
      if (catalog.findTable(v.name) || catalog.findView(v.name))
        throw Error(sqlstate::DuplicateTable, "relation \"" + v.name + "\" already exists", v.namePos);
      // Bound once now, so a view that could not be used is never created.
      plan::QueryPlan p;
      sql::Binder(catalog).bindSelect(*v.query, p);
      if (v.columns.size() > p.output.size())
        throw Error(sqlstate::InvalidColumnReference, "CREATE VIEW specifies more column names than columns", v.namePos);
      catalog.createView(v.name, {v.text, v.columns});
      return QueryResult({}, {}, "CREATE VIEW");
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
                      [&](const ast::Select& sel) { return runSelect(sel, catalog, &cancel_, times); }, progress_};
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
        n = sql::appendRows(*ins.table, chunks, ins.columnOf);
        times.execute = msSince(e);
      } else {
        Execution ex = compileAndRun(ins.plan, {}, &cancel_, times);
        auto e = Clock::now();
        n = sql::appendRows(*ins.table, ex.ctx->takeResults(), ins.columnOf);
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
      plan::QueryPlan* target = &p;
      if (e.statement->kind == ast::StmtKind::Select) {
        sql::Binder(catalog).bindSelect(*static_cast<const ast::SelectStmt&>(*e.statement).select, p);
      } else if (e.statement->kind == ast::StmtKind::Insert) {
        if (e.analyze) throw Error(sqlstate::FeatureNotSupported, "EXPLAIN ANALYZE of INSERT is not supported yet", e.pos);
        sql::Binder(catalog).bindInsert(static_cast<const ast::InsertStmt&>(*e.statement), ins);
        target = &ins.plan;
      } else {
        throw Error(sqlstate::FeatureNotSupported, "EXPLAIN supports SELECT and INSERT", e.statement->pos);
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
