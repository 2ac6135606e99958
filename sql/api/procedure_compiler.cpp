// Compiling a stored procedure's body: every statement, condition, assignment and RAISE argument
// list becomes a plan, all compiled into one module; the control flow becomes steps between them.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "codegen/translate/query_compiler.hpp"
#include "engine/catalog/catalog.hpp"
#include "engine/util/stack_depth.hpp"
#include "sql/api/procedure_program.hpp"
#include "sql/api/table_writer.hpp"
#include "sql/optimizer/optimizer.hpp"
#include "sql/semantic/binder.hpp"

namespace hyrax::sql {

namespace {

class ProcedureCompiler {
 public:
  ProcedureCompiler(Catalog& catalog, const Routines& routines, std::shared_ptr<ast::CreateFunctionStmt> def)
      : catalog_(catalog), routines_(routines) {
    p_ = std::make_unique<Procedure>();
    p_->def = std::move(def);
    p_->catalogVersion = catalog.version();
  }

  std::unique_ptr<Procedure> compile(PhaseTimes& times) {
    auto t = Clock::now();
    ast::CreateFunctionStmt& f = *p_->def;
    for (auto& prm : f.params) {
      requireUnique(prm.name, prm.pos);
      newSlot(prm.name, prm.type);
    }
    p_->foundSlot = newSlot("found", SqlType::boolean());
    if (!f.procedure && !f.returns.isNull()) p_->returnSlot = newSlot("", f.returns);
    for (auto& v : f.declarations) {
      requireUnique(v.name, v.pos);
      uint32_t slot = newSlot("", v.type);  // visible after its own initializer
      if (v.init) emitExpressions({&v.init}, {slot}, v.init->pos);
      names_[slot] = v.name;
    }
    block(f.body);
    times.plan = msSince(t);

    prefetchUpdatedColumns();
    std::vector<const plan::QueryPlan*> plans;
    for (auto& s : p_->statements) plans.push_back(&s->plan);
    // The full pass pipeline and code generator, whatever the statements' sizes: a procedure is
    // compiled once and called many times (TPC-C's New-Order: ~70 ms more once, 6% fewer
    // instructions and ~5% more transactions/s for ever after).
    codegen::CompileOptions opts;
    opts.fullOptimization = true;
    plan::Program program = bodyProgram();
    codegen::CompiledProgram out = codegen::compileProgram(plans, &program, opts);
    auto& compiled = out.plans;
    p_->body = out.body;
    p_->bodyCode = std::move(out.module);
    for (size_t i = 0; i < compiled.size(); ++i) p_->statements[i]->compiled = std::move(compiled[i]);
    if (!compiled.empty()) {
      auto& st = p_->statements[0]->compiled->stats();
      times.codegen = st.codegenMs;
      times.optimize = st.optimizeMs;
      times.machineCode = st.machineCodeMs;
    }
    p_->slotTypes = types_;
    p_->nullSlots.assign(std::max<size_t>(types_.size(), 1), ValueSlot{});
    for (size_t i = 0; i < types_.size(); ++i) p_->nullSlots[i].null = 1;
    return std::move(p_);
  }

 private:
  // The steps as codegen's program, one for one (so the host is asked by step number).
  plan::Program bodyProgram() {
    using Op = plan::ProgramStep::Op;
    plan::Program program;
    auto withPlan = [&](plan::ProgramStep& ps, uint32_t stmt) {
      const CompiledStatement& st = *p_->statements[stmt];
      ps.plan = stmt;
      ps.foundSlot = st.plan.foundSlot;
      ps.into = st.plan.into;
      ps.resultTypes = &p_->resultTypes[stmt];
      ps.host = (st.kind == ast::StmtKind::Insert || st.kind == ast::StmtKind::Update || st.kind == ast::StmtKind::Delete) &&
                !st.writer;
    };
    for (const Step& s : p_->steps) {
      plan::ProgramStep ps;  // the host's unless the switch below says otherwise
      ps.target = s.target;
      ps.slot = s.slot;
      ps.reverse = s.reverse;
      ps.jumpIfTrue = s.jumpIfTrue;
      switch (s.op) {
        case Step::Op::Run: ps.op = Op::Run; withPlan(ps, s.stmt); break;
        case Step::Op::Branch:
          ps.op = Op::Branch;
          static_assert(static_cast<int>(Step::Test::IsNotNull) == static_cast<int>(plan::ProgramStep::Test::IsNotNull));
          ps.test = static_cast<plan::ProgramStep::Test>(s.test);  // the same tests, in the same order
          if (s.test == Step::Test::Plan) withPlan(ps, s.stmt);
          break;
        case Step::Op::Jump: ps.op = Op::Jump; break;
        case Step::Op::RangeCheck: ps.op = Op::RangeCheck; break;
        case Step::Op::RangeStep: ps.op = Op::RangeStep; break;
        case Step::Op::TryBegin: ps.op = Op::TryBegin; ps.slot = s.target; break;
        case Step::Op::TryEnd: ps.op = Op::TryEnd; break;
        default: break;  // the host's: FOR query rows, RETURN, RAISE, CALL
      }
      program.steps.push_back(std::move(ps));
    }
    for (const Procedure::TryBlock& t : p_->tries) {
      plan::ProgramTry& pt = program.tries.emplace_back();
      pt.begin = t.begin;
      pt.end = t.end;
      for (auto& h : t.handlers) pt.handlers.push_back(h.second);
    }
    return program;
  }

  // Read, then update: a body that UPDATEs rows of a table (New-Order's stock, Payment's
  // customer) usually read the row first. Each point lookup of that table prefetches the columns
  // the UPDATEs read or set, so they are in cache when the UPDATE comes (one table column is a
  // cache line of its own, a miss per column otherwise).
  void prefetchUpdatedColumns() {
    constexpr size_t kMaxPrefetch = 8;
    auto forEachScan = [](plan::Operator& root, auto&& fn) {
      std::vector<plan::Operator*> todo{&root};
      while (!todo.empty()) {
        plan::Operator* op = todo.back();
        todo.pop_back();
        if (op->kind == plan::OpKind::TableScan) fn(static_cast<plan::TableScan&>(*op));
        for (auto& c : op->children) todo.push_back(c.get());
      }
    };
    std::map<const Table*, std::set<uint32_t>> updated;
    for (auto& st : p_->statements) {
      if (st->kind != ast::StmtKind::Update || !st->table) continue;
      std::set<uint32_t>& cols = updated[st->table];
      cols.insert(st->columns.begin(), st->columns.end());
      forEachScan(*st->plan.root, [&](plan::TableScan& s) {
        if (s.table != st->table) return;
        for (auto& c : s.columns)
          if (c.index != plan::TableScan::kRowNumber) cols.insert(c.index);
      });
    }
    if (updated.empty()) return;
    for (auto& st : p_->statements)
      forEachScan(*st->plan.root, [&](plan::TableScan& s) {
        auto it = updated.find(s.table);
        if (it == updated.end() || !s.index || !s.pointLookup()) return;
        for (uint32_t c : it->second) {
          bool loaded = std::any_of(s.columns.begin(), s.columns.end(), [&](auto& own) { return own.index == c; });
          if (!loaded && s.prefetch.size() < kMaxPrefetch) s.prefetch.push_back(c);
        }
      });
  }

  void requireUnique(const std::string& name, SourcePos pos) {
    for (auto& n : names_)
      if (n == name) throw Error("42P13", "variable \"" + name + "\" is declared more than once", pos);
  }

  uint32_t newSlot(const std::string& name, SqlType type) {
    types_.push_back(type.withNullable(true));
    names_.push_back(name);
    return static_cast<uint32_t>(types_.size() - 1);
  }

  uint32_t slotOf(const std::string& name, SourcePos pos) {
    for (size_t i = names_.size(); i-- > 0;)
      if (names_[i] == name) return static_cast<uint32_t>(i);
    throw Error(sqlstate::SyntaxError, "\"" + name + "\" is not a known variable", pos);
  }

  uint32_t emit(Step s) {
    p_->steps.push_back(std::move(s));
    return static_cast<uint32_t>(p_->steps.size() - 1);
  }
  uint32_t here() const { return static_cast<uint32_t>(p_->steps.size()); }

  // A new plan that sees the variables declared so far.
  std::unique_ptr<CompiledStatement> newStatement(ast::StmtKind kind) {
    auto s = std::make_unique<CompiledStatement>();
    s->kind = kind;
    s->catalogVersion = catalog_.version();
    s->plan.parameters = types_;
    s->plan.parameterNames = names_;
    return s;
  }

  uint32_t addStatement(std::unique_ptr<CompiledStatement> s, bool returnsRows) {
    s->plan.deferConstantErrors = true;
    optimize(s->plan);
    std::vector<SqlType> types;
    if (returnsRows)
      for (auto* iu : s->plan.output) types.push_back(iu->type);
    p_->resultTypes.push_back(std::move(types));
    p_->statements.push_back(std::move(s));
    return static_cast<uint32_t>(p_->statements.size() - 1);
  }

  // SELECT e1, e2 ... INTO slots (assignments, conditions, bounds, RAISE arguments). The
  // expressions are lent to a SELECT for binding and given back: the definition is bound again
  // when the schema changes.
  uint32_t expressions(const std::vector<ast::ExprPtr*>& exprs, const std::vector<uint32_t>& slots, SourcePos pos) {
    ast::Select sel;
    sel.pos = pos;
    std::vector<ColumnDef> targets;
    for (size_t i = 0; i < exprs.size(); ++i) {
      sel.items.push_back({std::move(*exprs[i]), "", (*exprs[i] ? (*exprs[i])->pos : pos)});
      targets.push_back(ColumnDef{names_[slots[i]].empty() ? "?column?" : names_[slots[i]], types_[slots[i]]});
    }
    auto giveBack = [&] {
      for (size_t i = 0; i < exprs.size(); ++i) *exprs[i] = std::move(sel.items[i].expr);
    };
    auto s = newStatement(ast::StmtKind::Select);
    try {
      Binder(catalog_).bindSelectInto(sel, targets, s->plan);
    } catch (...) {
      giveBack();
      throw;
    }
    giveBack();
    s->plan.into = slots;
    return addStatement(std::move(s), false);
  }
  void emitExpressions(const std::vector<ast::ExprPtr*>& exprs, const std::vector<uint32_t>& slots, SourcePos pos) {
    Step st{Step::Op::Run};
    st.stmt = expressions(exprs, slots, pos);
    emit(std::move(st));
  }
  // A condition into the shared BOOLEAN temporary; the branch's target is patched by the caller.
  // A condition that only tests a variable (v, NOT v for a BOOLEAN; v IS [NOT] NULL) is decided
  // without a plan.
  uint32_t branch(ast::ExprPtr& cond, bool jumpIfTrue) {
    Step st{Step::Op::Branch};
    st.jumpIfTrue = jumpIfTrue;
    const ast::Expr& c = *cond;
    auto variable = [&](const ast::Expr& e) -> std::optional<uint32_t> {
      if (e.kind != ast::ExprKind::Column || !e.table.empty() || e.name.empty()) return std::nullopt;
      for (size_t i = names_.size(); i-- > 0;)
        if (names_[i] == e.name) return static_cast<uint32_t>(i);
      return std::nullopt;
    };
    auto boolean = [&](std::optional<uint32_t> v) { return v && types_[*v].id == TypeId::Bool ? v : std::nullopt; };
    std::optional<uint32_t> v;
    if ((v = boolean(variable(c)))) {
      st.test = Step::Test::IsTrue;
    } else if (c.kind == ast::ExprKind::Unary && c.op == "NOT" && (v = boolean(variable(*c.args[0])))) {
      st.test = Step::Test::IsFalse;
    } else if (c.kind == ast::ExprKind::IsNull && (v = variable(*c.args[0]))) {
      st.test = c.negated ? Step::Test::IsNotNull : Step::Test::IsNull;
    }
    if (v) {
      st.slot = *v;
      return emit(std::move(st));
    }
    if (conditionSlot_ == kNone) conditionSlot_ = newSlot("", SqlType::boolean());
    st.stmt = expressions({&cond}, {conditionSlot_}, cond->pos);
    st.slot = conditionSlot_;
    return emit(std::move(st));
  }

  struct Loop {
    std::vector<uint32_t> exits, continues;  // jumps to patch
  };

  // Consecutive assignments none of which reads a variable an earlier one sets run as one
  // statement (SELECT e1, e2 ... INTO a, b ...): New-Order's three CASE assignments per item
  // become one. Not inside an EXCEPTION block, whose handler could see a half-done group.
  void block(ast::PlBlock& b) {
    using K = ast::PlStmt::Kind;
    for (size_t i = 0; i < b.size(); ++i) {
      size_t j = i + 1;
      if (b[i]->kind == K::Assign && protectedDepth_ == 0) {
        std::vector<std::string> targets{b[i]->target};
        while (j < b.size() && b[j]->kind == K::Assign &&
               std::find(targets.begin(), targets.end(), b[j]->target) == targets.end() && !readsAny(*b[j]->expr, targets)) {
          targets.push_back(b[j]->target);
          ++j;
        }
      }
      if (j == i + 1) {
        statement(*b[i]);
        continue;
      }
      std::vector<ast::ExprPtr*> exprs;
      std::vector<uint32_t> slots;
      for (size_t k = i; k < j; ++k) {
        slots.push_back(slotOf(b[k]->target, b[k]->targetPos));
        exprs.push_back(&b[k]->expr);
      }
      emitExpressions(exprs, slots, b[i]->pos);
      i = j - 1;
    }
  }

  // Whether `e` may read one of the variables (any subquery counts as reading them all).
  static bool readsAny(const ast::Expr& e, const std::vector<std::string>& names) {
    checkStackDepth();
    if (e.subquery) return true;
    if (e.kind == ast::ExprKind::Column && e.table.empty() &&
        std::find(names.begin(), names.end(), e.name) != names.end())
      return true;
    for (auto& a : e.args)
      if (a && readsAny(*a, names)) return true;
    return false;
  }

  void loopBody(ast::PlStmt& s, Loop& loop) {
    loops_.push_back(&loop);
    block(s.blocks[0]);
    loops_.pop_back();
  }
  void patch(const std::vector<uint32_t>& jumps, uint32_t target) {
    for (uint32_t j : jumps) p_->steps[j].target = target;
  }

  void statement(ast::PlStmt& s) {
    using K = ast::PlStmt::Kind;
    switch (s.kind) {
      case K::Null: return;
      case K::Sql: return sqlStatement(s);
      case K::Assign: {
        uint32_t slot = slotOf(s.target, s.targetPos);
        emitExpressions({&s.expr}, {slot}, s.pos);
        return;
      }
      case K::If: {
        std::vector<uint32_t> toEnd;
        for (size_t i = 0; i < s.conditions.size(); ++i) {
          uint32_t b = branch(s.conditions[i], false);
          block(s.blocks[i]);
          if (i + 1 < s.blocks.size()) toEnd.push_back(emit({Step::Op::Jump}));
          p_->steps[b].target = here();
        }
        if (s.blocks.size() > s.conditions.size()) block(s.blocks.back());
        patch(toEnd, here());
        return;
      }
      case K::While:
      case K::Loop: {
        Loop loop;
        uint32_t top = here();
        if (s.kind == K::While) loop.exits.push_back(branch(s.conditions[0], false));
        loopBody(s, loop);
        Step back{Step::Op::Jump};
        back.target = top;
        emit(std::move(back));
        patch(loop.continues, top);
        patch(loop.exits, here());
        return;
      }
      case K::ForRange: {
        Loop loop;
        uint32_t var = newSlot("", SqlType::int32());
        uint32_t bound = newSlot("", SqlType::int32());
        emitExpressions({&s.expr, &s.expr2}, {var, bound}, s.pos);
        names_[var] = s.target;
        Step check{Step::Op::RangeCheck};
        check.slot = var;
        check.reverse = s.reverse;
        check.source = &s;
        uint32_t top = emit(std::move(check));
        loop.exits.push_back(top);
        loopBody(s, loop);
        Step step{Step::Op::RangeStep};
        step.slot = var;
        step.reverse = s.reverse;
        uint32_t stepAt = emit(std::move(step));
        loop.exits.push_back(stepAt);
        Step back{Step::Op::Jump};
        back.target = top;
        emit(std::move(back));
        patch(loop.continues, stepAt);
        patch(loop.exits, here());
        names_[var].clear();
        return;
      }
      case K::ForQuery: {
        Loop loop;
        auto q = newStatement(ast::StmtKind::Select);
        Binder(catalog_).bindSelect(*s.query, q->plan);
        if (!s.query->into.empty())
          throw Error(sqlstate::SyntaxError, "INTO is not allowed in a FOR loop's query", s.query->intoPos[0]);
        std::vector<uint32_t> fields;
        for (size_t i = 0; i < q->plan.output.size(); ++i)
          fields.push_back(newSlot(s.target + "." + q->plan.outputNames[i], q->plan.output[i]->type));
        uint32_t loopIndex = p_->loops++;
        Step open{Step::Op::ForQueryOpen};
        open.stmt = addStatement(std::move(q), true);
        open.loop = loopIndex;
        emit(std::move(open));
        Step next{Step::Op::ForQueryNext};
        next.loop = loopIndex;
        next.slots = fields;
        uint32_t top = emit(std::move(next));
        loop.exits.push_back(top);
        loopBody(s, loop);
        Step back{Step::Op::Jump};
        back.target = top;
        emit(std::move(back));
        patch(loop.continues, top);
        Step close{Step::Op::ForQueryClose};
        close.loop = loopIndex;
        patch(loop.exits, emit(std::move(close)));
        for (uint32_t f : fields) names_[f].clear();
        return;
      }
      case K::Exit:
      case K::Continue: {
        if (loops_.empty())
          throw Error(sqlstate::SyntaxError, std::string(s.kind == K::Exit ? "EXIT" : "CONTINUE") + " cannot be used outside a loop",
                      s.pos);
        uint32_t j = s.expr ? branch(s.expr, true) : emit({Step::Op::Jump});
        (s.kind == K::Exit ? loops_.back()->exits : loops_.back()->continues).push_back(j);
        return;
      }
      case K::Return: {
        const ast::CreateFunctionStmt& f = *p_->def;
        if (s.expr) {
          if (f.procedure) throw Error(sqlstate::DatatypeMismatch, "RETURN cannot have a parameter in a procedure", s.expr->pos);
          if (p_->returnSlot == kNone)
            throw Error(sqlstate::DatatypeMismatch, "RETURN cannot have a parameter in function returning void", s.expr->pos);
          emitExpressions({&s.expr}, {p_->returnSlot}, s.pos);
        } else if (p_->returnSlot != kNone) {
          throw Error(sqlstate::SyntaxError, "missing expression at or near \";\"", s.pos);
        }
        emit({Step::Op::Return});
        return;
      }
      case K::Block: return blockStatement(s);
      case K::Raise: {
        Step r{Step::Op::Raise};
        r.source = &s;
        if (s.level == "reraise") {
          if (handlers_.empty())
            throw Error("0Z002", "RAISE without parameters cannot be used outside an exception handler", s.pos);
          r.target = handlers_.back();  // the block whose handler caught the error to raise again
        }
        std::vector<ast::ExprPtr*> args;
        for (auto& a : s.args) {
          args.push_back(&a);
          r.slots.push_back(newSlot("", SqlType::text()));
        }
        if (!args.empty()) r.stmt = expressions(args, r.slots, s.pos);
        emit(std::move(r));
        return;
      }
    }
  }

  void sqlStatement(ast::PlStmt& s) {
    Binder binder(catalog_);
    Step run{Step::Op::Run};
    switch (s.sql->kind) {
      case ast::StmtKind::Select: {
        const ast::Select& sel = *static_cast<const ast::SelectStmt&>(*s.sql).select;
        auto st = newStatement(ast::StmtKind::Select);
        if (sel.into.empty()) {
          if (!s.perform)
            throw Error(sqlstate::SyntaxError, "query has no destination for result data", s.pos)
                .withDetail("Use PERFORM to run a query and drop its result, or SELECT ... INTO.");
          binder.bindSelect(sel, st->plan);
        } else {
          std::vector<ColumnDef> targets;
          for (size_t i = 0; i < sel.into.size(); ++i) {
            uint32_t slot = slotOf(sel.into[i], sel.intoPos[i]);
            st->plan.into.push_back(slot);
            targets.push_back({sel.into[i], types_[slot]});
          }
          binder.bindSelectInto(sel, targets, st->plan);
        }
        st->plan.foundSlot = static_cast<int32_t>(p_->foundSlot);
        run.stmt = addStatement(std::move(st), false);
        break;
      }
      case ast::StmtKind::Insert:
      case ast::StmtKind::Update:
      case ast::StmtKind::Delete: {
        auto st = newStatement(s.sql->kind);
        BoundWrite w;
        w.plan.parameters = std::move(st->plan.parameters);
        w.plan.parameterNames = std::move(st->plan.parameterNames);
        if (s.sql->kind == ast::StmtKind::Insert) binder.bindInsert(static_cast<const ast::InsertStmt&>(*s.sql), w);
        else if (s.sql->kind == ast::StmtKind::Update) binder.bindUpdate(static_cast<const ast::UpdateStmt&>(*s.sql), w);
        else binder.bindDelete(static_cast<const ast::DeleteStmt&>(*s.sql), w);
        if (w.returning)  // (RETURNING ... INTO would need the rows back from the host)
          throw Error(sqlstate::FeatureNotSupported, "RETURNING in a routine's INSERT, UPDATE or DELETE is not supported", s.pos);
        st->plan = std::move(w.plan);
        st->table = w.table;
        st->columns = std::move(w.columns);
        run.stmt = addStatement(std::move(st), true);
        if (CompiledStatement& added = *p_->statements[run.stmt]; (added.writer = oneRowWriter(added))) {
          added.plan.writer = added.writer.get();
          added.plan.foundSlot = static_cast<int32_t>(p_->foundSlot);  // set by the plan on its row
        }
        break;
      }
      case ast::StmtKind::Call: return callStatement(static_cast<ast::CallStmt&>(*s.sql));
      default: throw Error(sqlstate::FeatureNotSupported, "this statement is not supported in a procedure", s.pos);
    }
    emit(std::move(run));
  }

  // [DECLARE ...] BEGIN ... [EXCEPTION ...] END: the variables are set on each entry (to their
  // initializer or NULL) and go out of scope after END. With handlers, TryBegin/TryEnd bracket the
  // protected steps; the handlers follow, each ending with a jump past the block.
  void blockStatement(ast::PlStmt& s) {
    size_t scope = names_.size();
    std::vector<std::string> declared;
    for (auto& v : s.declarations) {
      if (std::find(declared.begin(), declared.end(), v.name) != declared.end())
        throw Error("42P13", "variable \"" + v.name + "\" is declared more than once", v.pos);
      declared.push_back(v.name);
      uint32_t slot = newSlot("", v.type);
      if (!v.init) v.init = std::make_unique<ast::Expr>(ast::ExprKind::Null, v.pos);
      emitExpressions({&v.init}, {slot}, v.pos);
      names_[slot] = v.name;
    }
    if (s.handlers.empty()) {
      block(s.blocks[0]);
    } else {
      auto index = static_cast<uint32_t>(p_->tries.size());
      p_->tries.emplace_back();
      Step begin{Step::Op::TryBegin};
      begin.target = index;
      p_->tries[index].begin = emit(std::move(begin));
      ++protectedDepth_;
      block(s.blocks[0]);
      --protectedDepth_;
      p_->tries[index].end = emit({Step::Op::TryEnd});
      std::vector<uint32_t> outs{emit({Step::Op::Jump})};
      uint32_t state = newSlot("sqlstate", SqlType::text()), message = newSlot("sqlerrm", SqlType::text());
      p_->tries[index].sqlstateSlot = state;
      p_->tries[index].sqlerrmSlot = message;
      for (size_t h = 0; h < s.handlers.size(); ++h) {
        p_->tries[index].handlers.push_back({s.handlers[h].conditions, here()});
        handlers_.push_back(index);
        block(s.blocks[h + 1]);
        handlers_.pop_back();
        outs.push_back(emit({Step::Op::Jump}));
      }
      names_[state] = names_[message] = "";
      patch(outs, here());
    }
    for (size_t i = scope; i < names_.size(); ++i) names_[i] = "";
  }

  // CALL p(args): the arguments go into slots of the parameters' types (the procedure must exist
  // now), and the call resolves the procedure by name on its first run (routine_caller.hpp).
  void callStatement(ast::CallStmt& c) {
    std::shared_ptr<const ast::CreateFunctionStmt> callee = routines_.definition(c.name);
    if (!callee) throw Error(sqlstate::UndefinedFunction, "procedure " + c.name + " does not exist", c.namePos);
    if (!callee->procedure)
      throw Error("42809", c.name + " is not a procedure", c.namePos).withDetail("To call a function, use SELECT.");
    if (c.args.size() != callee->params.size())
      throw Error(sqlstate::UndefinedFunction, "procedure " + c.name + " takes " + std::to_string(callee->params.size()) +
                                                   " arguments, not " + std::to_string(c.args.size()),
                  c.namePos);
    Step st{Step::Op::CallProcedure};
    st.callee = std::make_shared<RoutineHandle>(c.name);
    std::vector<ast::ExprPtr*> args;
    for (size_t i = 0; i < c.args.size(); ++i) {
      st.slots.push_back(newSlot("", callee->params[i].type));
      args.push_back(&c.args[i]);
    }
    if (!args.empty()) emitExpressions(args, st.slots, c.pos);
    emit(std::move(st));
  }

  Catalog& catalog_;
  const Routines& routines_;
  std::unique_ptr<Procedure> p_;
  std::vector<SqlType> types_;
  std::vector<std::string> names_;  // "" for hidden slots
  std::vector<Loop*> loops_;
  uint32_t conditionSlot_ = kNone;
  int protectedDepth_ = 0;  // EXCEPTION blocks around the statements being compiled
  std::vector<uint32_t> handlers_;  // the blocks whose handlers are around them (RAISE; is allowed there)
};

}  // namespace

std::unique_ptr<Procedure> compileProcedure(Catalog& catalog, const Routines& routines,
                                            std::shared_ptr<ast::CreateFunctionStmt> def, PhaseTimes& times) {
  return ProcedureCompiler(catalog, routines, std::move(def)).compile(times);
}

}  // namespace hyrax::sql
