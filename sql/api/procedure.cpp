// Stored routines: creating, dropping and calling them, and running a compiled body
// (procedure_program.hpp; procedure_compiler.cpp compiles it).
#include "sql/api/procedure.hpp"

#include <cstring>
#include <exception>
#include <optional>

#include "engine/catalog/catalog.hpp"
#include "engine/runtime/program_host.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/txn/undo_log.hpp"
#include "sql/api/compiled_statement.hpp"
#include "sql/api/procedure_program.hpp"
#include "sql/api/table_writer.hpp"
#include "sql/optimizer/constant_folding.hpp"
#include "sql/semantic/binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

namespace {

// Calls nested deeper than this fail (54001) instead of exhausting the stack.
constexpr int kMaxCallDepth = 100;
thread_local int callDepth = 0;

// Held while a routine runs inside another (CALL, or a function in a query).
struct NestedCall {
  NestedCall() {
    if (callDepth >= kMaxCallDepth)
      throw Error("54001", "stack depth limit exceeded")
          .withDetail("Routines call each other more than " + std::to_string(kMaxCallDepth) + " deep.");
    ++callDepth;
  }
  ~NestedCall() { --callDepth; }
  NestedCall(const NestedCall&) = delete;
  NestedCall& operator=(const NestedCall&) = delete;
};

class Call final : public ProgramHost {
 public:
  Call(Procedure& p, Routines& routines, Catalog& catalog, UndoLog& undo, const std::atomic<bool>* cancel)
      : p_(p), routines_(routines), catalog_(catalog), undo_(undo), cancel_(cancel), ctx_(std::move(p.spareContext)),
        loops_(p.loops) {
    if (ctx_)
      ctx_->resetForCall(cancel);
    else
      ctx_ = std::make_shared<QueryContext>(std::vector<SqlType>{}, cancel);
    ctx_->setUndo(&undo_);  // for the writes whose plans hand their row to the table (RowWriter)
    if (undo_.transactionTime()) ctx_->setTransactionTime(undo_.transactionTime());  // now() in the body
  }
  ~Call() override {
    loops_.clear();
    if (ctx_.use_count() == 1) p_.spareContext = std::move(ctx_);
  }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  // Runs the body with `args` (already of the parameters' types); returns the notices raised.
  void run(const std::vector<Value>& args) {
    ctx_->parameters() = p_.nullSlots;  // every variable NULL (one copy, into the kept capacity)
    auto& slots = ctx_->parameters();
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].isNull()) continue;
      args[i].encode(p_.slotTypes[i], slot(static_cast<uint32_t>(i)).bytes());
      slots[i].null = 0;
    }
    setBool(p_.foundSlot, false);
    handled_.assign(p_.tries.size(), std::nullopt);
    ProgramHostScope scope(this);  // the body asks step() and catchError() below for what it leaves to C++
    if (p_.body(ctx_.get(), nullptr, 0, 0) != 0) {
      try {
        if (error_) std::rethrow_exception(error_);
        if (ctx_->failed()) throw ctx_->error();
        throw Error(sqlstate::InternalError, std::string("the ") + p_.what() + "'s compiled body failed without an error");
      } catch (Error& e) {
        // The client gets them before the error: the body's, then those of the functions the
        // failed statement called before it failed.
        for (auto& n : ctx_->notices()) notices_.push_back(std::move(n));
        ctx_->notices().clear();
        e.withNoticesBefore(std::move(notices_));
        throw;
      }
    }
  }

  // ProgramHost: a step the compiled body hands over. A Run step's plan has run (a write's rows
  // are left to apply); the others are RangeCheck's NULL bound, FOR-query rows, RETURN, RAISE and
  // CALL, and where exec() leaves pc says what the body does next.
  int32_t step(uint32_t i) noexcept override {
    try {
      const Step& s = p_.steps[i];
      if (s.op == Step::Op::Run) {
        applyWrite(s.stmt);
        return kNext;
      }
      size_t pc = i;
      exec(s, pc);
      if (pc >= p_.steps.size()) return kStop;
      return pc == i + 1 ? kNext : kJump;
    } catch (...) {
      error_ = std::current_exception();
      return kFailed;
    }
  }

  // ProgramHost: an error inside block `block`'s protected part. Its writes since the block began
  // are undone and the first handler that catches it runs, with SQLSTATE and SQLERRM set; -1
  // leaves it to the enclosing block (the body asks that one next) or the caller. A cancel, and
  // anything but an Error, is never caught.
  int32_t catchError(uint32_t block, uint64_t savepoint) noexcept override {
    try {
      std::optional<Error> e;
      if (error_) {
        try {
          std::rethrow_exception(error_);
        } catch (const Error& thrown) {
          e = thrown;
        } catch (...) {
          return -1;
        }
      } else if (ctx_->failed()) {
        e = ctx_->error();
      } else {
        return -1;
      }
      const std::string& state = e->sqlstate();
      if (state == sqlstate::QueryCanceled) return -1;
      undo_.rollbackTo(savepoint);
      const Procedure::TryBlock& t = p_.tries[block];
      for (auto& [conditions, target] : t.handlers)
        for (const std::string& c : conditions)
          if (c == "others" || c == state || (c.size() == 2 && state.compare(0, 2, c) == 0)) {
            setText(t.sqlstateSlot, state);
            setText(t.sqlerrmSlot, e->message());
            // What the failed part raised before the error was raised all the same.
            for (Notice& n : e->takeNotices()) notices_.push_back(std::move(n));
            handled_[block] = std::move(e);
            error_ = nullptr;
            ctx_->clearError();
            return static_cast<int32_t>(target);
          }
      return -1;
    } catch (...) {  // undoing failed: the error stays, and the caller's statement undoes the rest
      return -1;
    }
  }

  bool returned() const { return returned_; }
  std::vector<QueryResult::Notice>& notices() { return notices_; }
  std::shared_ptr<QueryContext> context() { return ctx_; }
  ValueSlot& slot(uint32_t i) { return ctx_->parameters()[i]; }

 private:
  void setText(uint32_t s, const std::string& text) {
    StringRef r = ctx_->arena().copy(text);
    std::memcpy(slot(s).bytes(), static_cast<const void*>(&r), sizeof r);
    slot(s).null = 0;
  }

  // The steps the body hands over whole (Run is answered in step()); pc moves past it or to
  // where the body goes on.
  void exec(const Step& s, size_t& pc) {
    switch (s.op) {
      case Step::Op::ForQueryOpen: {
        runPlan(s.stmt);
        OpenLoop& l = loops_[s.loop];
        l.chunks = ctx_->takeResults();
        l.chunk = 0;
        l.row = 0;
        l.any = false;
        ++pc;
        break;
      }
      case Step::Op::ForQueryNext: {
        OpenLoop& l = loops_[s.loop];
        while (l.chunk < l.chunks.size() && l.row >= l.chunks[l.chunk]->rowCount()) ++l.chunk, l.row = 0;
        if (l.chunk == l.chunks.size()) {
          pc = s.target;
          break;
        }
        const ResultChunkView& v = l.chunks[l.chunk]->view();
        for (size_t c = 0; c < s.slots.size(); ++c) {
          uint32_t width = p_.slotTypes[s.slots[c]].byteWidth();
          std::memcpy(slot(s.slots[c]).bytes(), static_cast<const char*>(v.columns[c]) + l.row * width, width);
          slot(s.slots[c]).null = v.nulls[c][l.row];
        }
        ++l.row;
        l.any = true;
        ++pc;
        break;
      }
      case Step::Op::ForQueryClose:
        setBool(p_.foundSlot, loops_[s.loop].any);
        ctx_->recycle(loops_[s.loop].chunks);
        ++pc;
        break;
      case Step::Op::RangeCheck:  // the body asks only about a NULL bound
        throw Error("22004", std::string(slot(s.slot).null ? "lower" : "upper") + " bound of FOR loop cannot be null");
      case Step::Op::Return: pc = p_.steps.size(), returned_ = true; break;
      case Step::Op::Raise:
        if (s.stmt != kNone) runPlan(s.stmt);
        raise(s);
        ++pc;
        break;
      case Step::Op::CallProcedure: {
        std::vector<Value> args;
        for (uint32_t sl : s.slots)
          args.push_back(slot(sl).null ? Value::null(p_.slotTypes[sl]) : Value::decode(p_.slotTypes[sl], slot(sl).bytes()));
        std::shared_ptr<Procedure> callee = routines_.resolve(catalog_, *s.callee);
        if (!callee) throw Error(sqlstate::UndefinedFunction, "procedure " + s.callee->name + " does not exist");
        QueryResult r;
        {
          NestedCall nested;
          r = routines_.run(catalog_, undo_, callee, args, cancel_);
        }
        for (auto& n : r.notices) notices_.push_back(std::move(n));
        ++pc;
        break;
      }
      default:
        throw Error(sqlstate::InternalError, "step " + std::to_string(pc) + " of the body was handed to its host");
    }
  }

  void runPlan(uint32_t i) {
    CompiledStatement& st = *p_.statements[i];
    ctx_->reset(p_.resultTypes[i]);
    if (st.plan.foundSlot >= 0) setBool(p_.foundSlot, false);
    st.compiled->run(*ctx_);
    for (auto& n : ctx_->notices()) notices_.push_back(std::move(n));  // of functions the statement called
    ctx_->notices().clear();
    if (st.plan.foundSlot >= 0 && !isTrue(p_.foundSlot))
      for (uint32_t s : st.plan.into) slot(s).null = 1;  // SELECT INTO found no row: NULL
    applyWrite(i);
  }

  // A write's rows, made by its plan, applied to its table; FOUND tells whether there were any.
  // A one-row write's plan did both itself (table_writer.hpp's oneRowWriter). Other statements
  // have nothing to apply (a FOR loop's query leaves its rows for ForQueryOpen).
  void applyWrite(uint32_t i) {
    CompiledStatement& st = *p_.statements[i];
    if (st.kind != ast::StmtKind::Insert && st.kind != ast::StmtKind::Update && st.kind != ast::StmtKind::Delete)
      return;
    if (st.writer) return;  // its plan wrote its row and set FOUND
    uint64_t n = 0;
    std::vector<std::unique_ptr<ResultChunk>>& rows = rows_;
    ctx_->takeResults(rows);
    switch (st.kind) {
      case ast::StmtKind::Insert: n = insertRows(undo_, *st.table, rows, insertTargetsOf(st)); break;
      case ast::StmtKind::Update: n = updateRows(undo_, *st.table, rows, updateBatchOf(st)); break;
      default: n = deleteRows(undo_, *st.table, rows); break;
    }
    ctx_->recycle(rows);
    setBool(p_.foundSlot, n > 0);
  }

  void raise(const Step& s) {
    const ast::PlStmt& r = *s.source;
    if (r.level == "reraise") throw *handled_[s.target];  // the compiler allows it only inside a handler
    std::string msg;
    size_t arg = 0;
    for (size_t k = 0; k < r.format.size(); ++k) {
      char c = r.format[k];
      if (c != '%') {
        msg += c;
      } else if (k + 1 < r.format.size() && r.format[k + 1] == '%') {
        msg += '%';
        ++k;
      } else {
        uint32_t sl = s.slots[arg++];
        msg += slot(sl).null ? "<NULL>" : Value::decode(p_.slotTypes[sl], slot(sl).bytes()).toString();
      }
    }
    if (r.level == "exception") throw Error(r.errcode.empty() ? sqlstate::RaiseException : r.errcode.c_str(), msg);
    if (r.level == "log" || r.level == "debug") return;  // server-side levels: not sent to the client
    std::string severity = r.level;
    for (auto& ch : severity) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    notices_.push_back({severity, msg});
  }

  bool isTrue(uint32_t s) { return !slot(s).null && slot(s).bytes()[0]; }
  void setBool(uint32_t s, bool v) {
    slot(s).bytes()[0] = v;
    slot(s).null = 0;
  }

  struct OpenLoop {
    std::vector<std::unique_ptr<ResultChunk>> chunks;
    size_t chunk = 0;
    uint64_t row = 0;
    bool any = false;
  };
  Procedure& p_;
  Routines& routines_;
  Catalog& catalog_;
  UndoLog& undo_;
  const std::atomic<bool>* cancel_;
  std::shared_ptr<QueryContext> ctx_;
  std::vector<OpenLoop> loops_;
  std::vector<std::optional<Error>> handled_;  // per block: the error its handler caught (RAISE;)
  std::vector<std::unique_ptr<ResultChunk>> rows_;  // a write's rows, the buffer kept between statements
  std::vector<QueryResult::Notice> notices_;
  bool returned_ = false;
  std::exception_ptr error_;  // what a step the compiled body handed over threw
};

std::string signature(const ast::CreateFunctionStmt& f) {
  std::string s = f.name + "(";
  for (size_t i = 0; i < f.params.size(); ++i) s += (i ? ", " : "") + f.params[i].type.name();
  return s + ")";
}

}  // namespace

Routines::Routines() = default;
Routines::~Routines() = default;

QueryResult Routines::create(Catalog& catalog, UndoLog& undo, std::unique_ptr<ast::CreateFunctionStmt> stmt,
                             PhaseTimes& times) {
  std::shared_ptr<ast::CreateFunctionStmt> def = std::move(stmt);
  const char* what = def->procedure ? "PROCEDURE" : "FUNCTION";
  auto it = routines_.find(def->name);
  if (it != routines_.end()) {
    if (!def->orReplace)
      throw Error(sqlstate::DuplicateFunction,
                  std::string(def->procedure ? "procedure " : "function ") + signature(*it->second->def) + " already exists",
                  def->namePos);
    if (it->second->def->procedure != def->procedure)
      throw Error("42809", "cannot change routine kind", def->namePos)
          .withDetail("\"" + def->name + "\" is a " + it->second->what() + ".");
  }
  std::shared_ptr<Procedure> p = compileProcedure(catalog, *this, def, times);
  std::shared_ptr<Procedure> before = it == routines_.end() ? nullptr : it->second;
  routines_[def->name] = p;
  catalog.routineOid(def->name);  // its pg_proc OID, in the order of creation
  catalog.bump();  // plans that call a function bound its signature
  p->catalogVersion = catalog.version();  // its own bump: compiled against all there is, no recompile at the first call
  undo.logAction([this, &catalog, name = def->name, before] {
    if (before) routines_[name] = before;
    else routines_.erase(name);
    catalog.bump();
  });
  QueryResult r({}, {}, std::string("CREATE ") + what);
  r.times = times;
  return r;
}

QueryResult Routines::drop(Catalog& catalog, UndoLog& undo, const ast::DropTableStmt& stmt) {
  bool procedure = stmt.object == ast::ObjectKind::Procedure;
  const char* what = procedure ? "procedure" : "function";
  QueryResult r({}, {}, procedure ? "DROP PROCEDURE" : "DROP FUNCTION");
  for (size_t i = 0; i < stmt.names.size(); ++i) {
    auto it = routines_.find(stmt.names[i]);
    if (it == routines_.end()) {
      if (!stmt.ifExists) throw Error(sqlstate::UndefinedFunction, std::string(what) + " " + stmt.names[i] + " does not exist", stmt.namePos[i]);
      r.notices.push_back({"NOTICE", std::string(what) + " " + stmt.names[i] + " does not exist, skipping"});
      continue;
    }
    if (it->second->def->procedure != procedure)
      throw Error("42809", stmt.names[i] + " is not a " + what, stmt.namePos[i]);
    std::shared_ptr<Procedure> before = it->second;
    routines_.erase(it);
    catalog.bump();
    undo.logAction([this, &catalog, name = stmt.names[i], before] {
      routines_[name] = before;
      catalog.bump();
    });
  }
  return r;
}

std::vector<std::string> Routines::names() const {
  std::vector<std::string> out;
  for (auto& [name, p] : routines_) out.push_back(name);
  return out;
}

std::shared_ptr<const ast::CreateFunctionStmt> Routines::definition(const std::string& name) const {
  auto it = routines_.find(name);
  return it == routines_.end() ? nullptr : it->second->def;
}

std::shared_ptr<Procedure> Routines::find(const std::string& name, SourcePos pos) const {
  auto it = routines_.find(name);
  if (it == routines_.end()) throw Error(sqlstate::UndefinedFunction, "procedure " + name + " does not exist", pos);
  return it->second;
}

void Routines::checkCall(const ast::CallStmt& stmt, const ast::CreateFunctionStmt& def) {
  if (def.procedure == stmt.function)
    throw Error("42809", stmt.name + " is " + (def.procedure ? "a procedure" : "not a procedure"), stmt.namePos)
        .withDetail(def.procedure ? "To call a procedure, use CALL." : "To call a function, use SELECT.");
  if (stmt.args.size() != def.params.size())
    throw Error(sqlstate::UndefinedFunction, std::string(def.procedure ? "procedure " : "function ") + stmt.name + " takes " +
                                                 std::to_string(def.params.size()) + " arguments, not " +
                                                 std::to_string(stmt.args.size()),
                stmt.namePos);
}

QueryResult Routines::call(Catalog& catalog, UndoLog& undo, const ast::CallStmt& stmt, const std::atomic<bool>* cancel,
                           PhaseTimes& times) {
  auto t = Clock::now();
  std::shared_ptr<Procedure> p = find(stmt.name, stmt.namePos);
  const auto& def = *p->def;
  checkCall(stmt, def);
  std::vector<SqlType> types;
  for (auto& prm : def.params) types.push_back(prm.type);
  std::vector<Value> args = Binder(catalog).bindConstants(stmt.args, types);
  times.plan = msSince(t);
  QueryResult r = call(catalog, undo, stmt.name, args, cancel);
  times.execute = r.times.execute;
  r.times = times;
  return r;
}

std::shared_ptr<Procedure> Routines::current(Catalog& catalog, const std::string& name) {
  auto it = routines_.find(name);
  if (it == routines_.end()) return nullptr;
  if (it->second->catalogVersion != catalog.version()) {  // the schema changed: bind and compile again
    PhaseTimes ignored;
    it->second = compileProcedure(catalog, *this, it->second->def, ignored);
  }
  return it->second;
}

std::shared_ptr<Procedure> Routines::resolve(Catalog& catalog, RoutineHandle& handle) {
  std::shared_ptr<Procedure> p = std::static_pointer_cast<Procedure>(handle.resolved.lock());
  if (!p || handle.version != catalog.version()) {
    p = current(catalog, handle.name);
    handle.resolved = p;
    handle.version = catalog.version();
  }
  return p;
}

QueryResult Routines::call(Catalog& catalog, UndoLog& undo, const std::string& name, const std::vector<Value>& args,
                           const std::atomic<bool>* cancel) {
  std::shared_ptr<Procedure> p = current(catalog, name);
  if (!p) throw Error(sqlstate::UndefinedFunction, "procedure " + name + " does not exist");
  return run(catalog, undo, p, args, cancel);
}

QueryResult Routines::run(Catalog& catalog, UndoLog& undo, const std::shared_ptr<Procedure>& p,
                          const std::vector<Value>& args, const std::atomic<bool>* cancel) {
  const std::string& name = p->def->name;
  if (args.size() != p->def->params.size())
    throw Error(sqlstate::UndefinedFunction, std::string(p->what()) + " " + name + " takes " +
                                                 std::to_string(p->def->params.size()) + " arguments");
  auto t = Clock::now();
  // A value of another type converts as a CALL's constant argument would. A function's arguments
  // are kept with its result (it may return one of them, a string).
  auto fits = [&](size_t i) {
    const Value& v = args[i];
    const SqlType& to = p->slotTypes[i];
    return v.isNull() || v.type().sameAs(to);  // (sameAs ignores nullability)
  };
  bool convert = false;
  for (size_t i = 0; i < args.size(); ++i) convert = convert || !fits(i);
  std::shared_ptr<std::vector<Value>> kept;
  if (convert || !p->def->procedure) kept = std::make_shared<std::vector<Value>>(args);
  for (size_t i = 0; i < args.size() && convert; ++i) {
    const SqlType& to = p->slotTypes[i];
    Value& v = (*kept)[i];
    if (fits(i)) continue;
    if (!castable(v.type(), to))
      throw Error(sqlstate::DatatypeMismatch, "argument " + std::to_string(i + 1) + " of " + name + " is of type " +
                                                  v.type().name() + ", not " + to.name());
    plan::ExprPtr e = foldConstants(castTo(plan::Expr::constant(v), to));
    if (e->kind != plan::ExprKind::Constant)
      throw Error(sqlstate::FeatureNotSupported, "argument " + std::to_string(i + 1) + " of " + name + " cannot be converted to " + to.name());
    v = e->value;
  }
  Call c(*p, *this, catalog, undo, cancel);
  c.run(kept ? *kept : args);
  QueryResult r;
  if (p->def->procedure) {
    r = QueryResult({}, {}, "CALL");
  } else {
    if (p->returnSlot != kNone && !c.returned())
      throw Error(sqlstate::FunctionNoReturn, "control reached end of function without RETURN");
    SqlType type = p->returnSlot == kNone ? SqlType::null() : p->slotTypes[p->returnSlot];
    std::vector<std::unique_ptr<ResultChunk>> chunks;
    chunks.push_back(std::make_unique<ResultChunk>(std::vector<SqlType>{type}, 1));
    ResultChunkView& v = chunks[0]->view();
    v.count = 1;
    if (p->returnSlot == kNone) {
      v.nulls[0][0] = 1;
    } else {
      std::memcpy(v.columns[0], c.slot(p->returnSlot).bytes(), type.byteWidth());
      v.nulls[0][0] = c.slot(p->returnSlot).null;
      if (type.isVarBytes() && !v.nulls[0][0]) {
        // A long string may live in a table's heap (SELECT ... INTO), which a DROP TABLE may free
        // before the result is read: its characters move into the call's arena, kept below.
        auto* ref = static_cast<StringRef*>(v.columns[0]);
        if (!ref->isInline()) *ref = c.context()->arena().copy(std::string_view(ref->data(), ref->len));
      }
    }
    r = QueryResult({{name, type}}, std::move(chunks), "SELECT 1");
    r.keepAlive(c.context());  // a string value may live in the call's arena
    r.keepAlive(p);            // or be a string constant of its code
    r.keepAlive(kept);         // or an argument
  }
  r.notices = std::move(c.notices());
  r.times.execute = msSince(t);
  return r;
}

void SessionRoutines::call(QueryContext& ctx, RoutineHandle& routine, const ValueSlot* args, uint32_t count, ValueSlot* out) {
  std::shared_ptr<Procedure> p = routines_.resolve(catalog_, routine);
  if (!p || p->def->procedure || p->def->params.size() != count)
    throw Error(sqlstate::UndefinedFunction, "function " + routine.name + " does not exist");
  const ast::CreateFunctionStmt& def = *p->def;
  std::vector<Value> values;
  for (uint32_t i = 0; i < count; ++i) {
    const SqlType& t = def.params[i].type;
    values.push_back(args[i].null ? Value::null(t) : Value::decode(t, args[i].bytes()));
  }
  QueryResult r;
  {
    NestedCall nested;
    r = routines_.run(catalog_, undo_, p, values, cancel_);
  }
  for (auto& n : r.notices) ctx.notices().push_back(std::move(n));  // the calling statement's now
  *out = ValueSlot{};
  if (r.rowCount() == 0 || r.columns().empty() || r.isNull(0, 0) || def.returns.isNull()) {
    out->null = 1;
    return;
  }
  Value v = r.value(0, 0);
  if (def.returns.isVarBytes()) {  // the characters move into the query's arena, which outlives the row
    StringRef ref = ctx.arena().copy(v.asString());
    std::memcpy(out->bytes(), static_cast<const void*>(&ref), sizeof ref);
  } else {
    v.encode(def.returns, out->bytes());
  }
}

}  // namespace hyrax::sql
