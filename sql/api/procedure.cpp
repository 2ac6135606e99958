#include "sql/api/procedure.hpp"

#include <cstring>
#include <optional>

#include "codegen/translate/query_compiler.hpp"
#include "engine/catalog/catalog.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/txn/undo_log.hpp"
#include "sql/api/compiled_statement.hpp"
#include "sql/api/table_writer.hpp"
#include "sql/optimizer/constant_folding.hpp"
#include "sql/optimizer/optimizer.hpp"
#include "sql/semantic/binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

namespace {

constexpr uint32_t kNone = UINT32_MAX;
constexpr size_t kSlot = 24;  // a parameter slot: the value, its NULL byte at 16

// One step of a body's program. Plans (`stmt`) are indexes into Procedure::statements.
struct Step {
  enum class Op : uint8_t {
    Run,           // run plan `stmt` (a statement, or an expression into slots)
    Branch,        // run condition plan `stmt` into `slot`; jump to `target` when it is (TRUE == jumpIfTrue)
    Jump,          // to `target`
    ForQueryOpen,  // run query `stmt`, keep its rows as open loop `loop`
    ForQueryNext,  // next row of `loop` into `slots`; none left: jump to `target`
    ForQueryClose, // drop the rows of `loop`; FOUND tells whether it had any
    RangeCheck,    // integer loop variable `slot` past its bound (slot + 1): jump to `target`
    RangeStep,     // `slot` += 1 (or -1 when `reverse`); past INTEGER's range: jump to `target`
    Return,        // leave (a function's value is in Procedure::returnSlot)
    Raise,         // RAISE `source` with argument texts in `slots`
    CallProcedure, // CALL procedure `callee` with the arguments in `slots`
    TryBegin,      // enter the protected part of block `target` (Procedure::tries)
    TryEnd,        // leave it normally
  } op;
  Step(Op o) : op(o) {}  // NOLINT: implicit, so emit({Op::Jump}) reads as the step it is
  uint32_t stmt = kNone;
  uint32_t target = 0;
  uint32_t slot = 0;
  uint32_t loop = 0;
  bool jumpIfTrue = false;
  bool reverse = false;
  // Branch: how the condition is decided. Plan: run `stmt` into `slot`. The others test variable
  // `slot` directly, without a plan (IF NOT FOUND, IF v IS NULL): TRUE, FALSE, NULL, not NULL.
  enum class Test : uint8_t { Plan, IsTrue, IsFalse, IsNull, IsNotNull } test = Test::Plan;
  std::vector<uint32_t> slots;
  const ast::PlStmt* source = nullptr;
  std::string callee;
};

}  // namespace

struct Procedure {
  std::shared_ptr<ast::CreateFunctionStmt> def;
  uint64_t catalogVersion = 0;
  std::vector<SqlType> slotTypes;  // parameters first, then variables, FOUND, loop variables, temporaries
  std::vector<Step> steps;
  std::vector<std::unique_ptr<CompiledStatement>> statements;
  std::vector<std::vector<SqlType>> resultTypes;  // of each statement that returns rows, else empty
  uint32_t loops = 0;
  uint32_t foundSlot = 0, returnSlot = kNone;
  // Blocks with an EXCEPTION section: the steps they protect [begin, end) and their handlers,
  // each the conditions it catches (a SQLSTATE, a class of two characters, "others") and the step
  // it starts at; SQLSTATE and SQLERRM are set in two slots for the handler.
  struct TryBlock {
    uint32_t begin = 0, end = 0;
    std::vector<std::pair<std::vector<std::string>, uint32_t>> handlers;
    uint32_t sqlstateSlot = 0, sqlerrmSlot = 0;
  };
  std::vector<TryBlock> tries;
  // The context of the last call, reused by the next one (calls run one at a time on the executor
  // thread) unless a result still holds it.
  std::shared_ptr<QueryContext> spareContext;
  const char* what() const { return def->procedure ? "procedure" : "function"; }
};

namespace {

// ---- compiling a body ----

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

    std::vector<const plan::QueryPlan*> plans;
    bool big = false;
    for (auto& s : p_->statements) plans.push_back(&s->plan);
    for (auto& s : p_->statements) big |= s->plan.root->estimatedRows > 50'000;
    codegen::CompileOptions opts;
    opts.fullOptimization = big;
    auto compiled = codegen::compileAll(plans, opts);
    for (size_t i = 0; i < compiled.size(); ++i) p_->statements[i]->compiled = std::move(compiled[i]);
    if (!compiled.empty()) {
      auto& st = p_->statements[0]->compiled->stats();
      times.codegen = st.codegenMs;
      times.optimize = st.optimizeMs;
      times.machineCode = st.machineCodeMs;
    }
    p_->slotTypes = types_;
    return std::move(p_);
  }

 private:
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
        if (s.level == "reraise" && handlerDepth_ == 0)
          throw Error("0Z002", "RAISE without parameters cannot be used outside an exception handler", s.pos);
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
        st->plan = std::move(w.plan);
        st->table = w.table;
        st->columns = std::move(w.columns);
        run.stmt = addStatement(std::move(st), true);
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
        ++handlerDepth_;
        block(s.blocks[h + 1]);
        --handlerDepth_;
        outs.push_back(emit({Step::Op::Jump}));
      }
      names_[state] = names_[message] = "";
      patch(outs, here());
    }
    for (size_t i = scope; i < names_.size(); ++i) names_[i] = "";
  }

  // CALL p(args): the arguments go into slots of the parameters' types (the procedure must exist
  // now), and the call finds the procedure by name when it runs.
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
    st.callee = c.name;
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
  int handlerDepth_ = 0;    // handlers around them (RAISE; is allowed there)
};

// ---- running a body ----

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

class Call {
 public:
  Call(Procedure& p, Routines& routines, Catalog& catalog, UndoLog& undo, const std::atomic<bool>* cancel)
      : p_(p), routines_(routines), catalog_(catalog), undo_(undo), cancel_(cancel), ctx_(std::move(p.spareContext)),
        loops_(p.loops) {
    if (ctx_)
      ctx_->resetForCall(cancel);
    else
      ctx_ = std::make_shared<QueryContext>(std::vector<SqlType>{}, cancel);
  }
  ~Call() {
    loops_.clear();
    if (ctx_.use_count() == 1) p_.spareContext = std::move(ctx_);
  }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  // Runs the body with `args` (already of the parameters' types); returns the notices raised.
  void run(const std::vector<Value>& args) {
    auto& slots = ctx_->parameters();
    slots.assign(kSlot * std::max<size_t>(p_.slotTypes.size(), 1), 0);
    for (size_t i = 0; i < p_.slotTypes.size(); ++i) slots[kSlot * i + 16] = 1;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].isNull()) continue;
      args[i].encode(p_.slotTypes[i], slot(static_cast<uint32_t>(i)));
      slots[kSlot * i + 16] = 0;
    }
    setBool(p_.foundSlot, false);
    size_t pc = 0;
    const auto& steps = p_.steps;
    while (pc < steps.size()) {
      try {
        step(steps[pc], pc);
      } catch (const Error& e) {
        if (!handle(e, pc)) throw;
      }
    }
  }

  bool returned() const { return returned_; }
  std::vector<QueryResult::Notice>& notices() { return notices_; }
  std::shared_ptr<QueryContext> context() { return ctx_; }
  uint8_t* slot(uint32_t i) { return ctx_->parameters().data() + kSlot * i; }

 private:
  // A jump leaves the protected parts it jumps out of (EXIT from a block inside a loop).
  void jumpTo(size_t& pc, uint32_t target) {
    while (!tries_.empty() && (target < p_.tries[tries_.back().index].begin || target >= p_.tries[tries_.back().index].end))
      tries_.pop_back();
    pc = target;
  }

  // An error inside a protected part: its writes since the block began are undone and the first
  // handler that catches it runs, with SQLSTATE and SQLERRM set; else the next enclosing block
  // tries. False: nothing catches it (a cancel never is).
  bool handle(const Error& e, size_t& pc) {
    std::string state = e.sqlstate();
    if (state == sqlstate::QueryCanceled) return false;
    while (!tries_.empty()) {
      ActiveTry t = tries_.back();
      tries_.pop_back();
      undo_.rollbackTo(t.savepoint);
      const Procedure::TryBlock& block = p_.tries[t.index];
      for (auto& [conditions, target] : block.handlers)
        for (const std::string& c : conditions)
          if (c == "others" || c == state || (c.size() == 2 && state.compare(0, 2, c) == 0)) {
            setText(block.sqlstateSlot, state);
            setText(block.sqlerrmSlot, e.message());
            handled_ = e;
            pc = target;
            return true;
          }
    }
    return false;
  }

  void setText(uint32_t s, const std::string& text) {
    char* chars = ctx_->arena().allocate(text.size() + 1);
    std::memcpy(chars, text.data(), text.size());
    StringRef r = StringRef::make(chars, static_cast<uint32_t>(text.size()));
    std::memcpy(slot(s), static_cast<const void*>(&r), sizeof r);
    slot(s)[16] = 0;
  }

  void step(const Step& s, size_t& pc) {
    const auto& steps = p_.steps;
    {
      switch (s.op) {
        case Step::Op::Run:
          runPlan(s.stmt);
          ++pc;
          break;
        case Step::Op::Branch: {
          bool holds = false;
          const uint8_t* v = slot(s.slot);
          switch (s.test) {
            case Step::Test::Plan: runPlan(s.stmt); holds = isTrue(s.slot); break;
            case Step::Test::IsTrue: holds = isTrue(s.slot); break;
            case Step::Test::IsFalse: holds = !v[16] && !v[0]; break;
            case Step::Test::IsNull: holds = v[16] != 0; break;
            case Step::Test::IsNotNull: holds = v[16] == 0; break;
          }
          if (holds == s.jumpIfTrue) jumpTo(pc, s.target);
          else ++pc;
          break;
        }
        case Step::Op::Jump:
          if (s.target <= pc && cancel_ && cancel_->load(std::memory_order_relaxed))
            throw Error(sqlstate::QueryCanceled, "canceling statement due to user request");
          jumpTo(pc, s.target);
          break;
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
            std::memcpy(slot(s.slots[c]), static_cast<const char*>(v.columns[c]) + l.row * width, width);
            slot(s.slots[c])[16] = v.nulls[c][l.row];
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
        case Step::Op::RangeCheck: {
          if (slot(s.slot)[16] || slot(s.slot + 1)[16])
            throw Error("22004", std::string(slot(s.slot)[16] ? "lower" : "upper") + " bound of FOR loop cannot be null");
          int32_t i = int32At(s.slot), bound = int32At(s.slot + 1);
          pc = (s.reverse ? i < bound : i > bound) ? s.target : pc + 1;
          break;
        }
        case Step::Op::RangeStep: {
          int64_t i = int64_t{int32At(s.slot)} + (s.reverse ? -1 : 1);
          if (i > INT32_MAX || i < INT32_MIN) {
            pc = s.target;
            break;
          }
          int32_t v = static_cast<int32_t>(i);
          std::memcpy(slot(s.slot), &v, sizeof v);
          ++pc;
          break;
        }
        case Step::Op::Return: pc = steps.size(), returned_ = true; break;
        case Step::Op::Raise:
          if (s.stmt != kNone) runPlan(s.stmt);
          raise(s);
          ++pc;
          break;
        case Step::Op::CallProcedure: {
          std::vector<Value> args;
          for (uint32_t sl : s.slots)
            args.push_back(slot(sl)[16] ? Value::null(p_.slotTypes[sl]) : Value::decode(p_.slotTypes[sl], slot(sl)));
          QueryResult r;
          {
            NestedCall nested;
            r = routines_.call(catalog_, undo_, s.callee, args, cancel_);
          }
          for (auto& n : r.notices) notices_.push_back(std::move(n));
          ++pc;
          break;
        }
        case Step::Op::TryBegin:
          tries_.push_back({s.target, undo_.savepoint()});
          ++pc;
          break;
        case Step::Op::TryEnd:
          tries_.pop_back();
          ++pc;
          break;
      }
    }
  }

  void runPlan(uint32_t i) {
    CompiledStatement& st = *p_.statements[i];
    ctx_->reset(p_.resultTypes[i]);
    if (st.plan.foundSlot >= 0) setBool(p_.foundSlot, false);
    st.compiled->run(*ctx_);
    if (st.plan.foundSlot >= 0 && !isTrue(p_.foundSlot))
      for (uint32_t s : st.plan.into) slot(s)[16] = 1;  // SELECT INTO found no row: NULL
    if (st.kind != ast::StmtKind::Insert && st.kind != ast::StmtKind::Update && st.kind != ast::StmtKind::Delete)
      return;  // a FOR loop's query: its rows stay for ForQueryOpen
    uint64_t n = 0;
    std::vector<std::unique_ptr<ResultChunk>>& rows = rows_;
    ctx_->takeResults(rows);
    switch (st.kind) {
      case ast::StmtKind::Insert: n = insertRows(undo_, *st.table, rows, st.columns); break;
      case ast::StmtKind::Update: n = updateRows(undo_, *st.table, rows, st.columns); break;
      default: n = deleteRows(undo_, *st.table, rows); break;
    }
    ctx_->recycle(rows);
    setBool(p_.foundSlot, n > 0);
  }

  void raise(const Step& s) {
    const ast::PlStmt& r = *s.source;
    if (r.level == "reraise") throw *handled_;  // the compiler allows it only inside a handler
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
        msg += slot(sl)[16] ? "<NULL>" : Value::decode(p_.slotTypes[sl], slot(sl)).toString();
      }
    }
    if (r.level == "exception") throw Error(r.errcode.empty() ? sqlstate::RaiseException : r.errcode.c_str(), msg);
    if (r.level == "log" || r.level == "debug") return;  // server-side levels: not sent to the client
    std::string severity = r.level;
    for (auto& ch : severity) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    notices_.push_back({severity, msg});
  }

  bool isTrue(uint32_t s) { return !slot(s)[16] && slot(s)[0]; }
  void setBool(uint32_t s, bool v) {
    slot(s)[0] = v;
    slot(s)[16] = 0;
  }
  int32_t int32At(uint32_t s) {
    int32_t v;
    std::memcpy(&v, slot(s), sizeof v);
    return v;
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
  struct ActiveTry {
    uint32_t index;    // into Procedure::tries
    size_t savepoint;  // of the undo log when the block began
  };
  std::vector<ActiveTry> tries_;
  std::optional<Error> handled_;  // the error the most recently entered handler caught (RAISE;)
  std::vector<std::unique_ptr<ResultChunk>> rows_;  // a write's rows, the buffer kept between statements
  std::vector<QueryResult::Notice> notices_;
  bool returned_ = false;
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
  std::shared_ptr<Procedure> p = ProcedureCompiler(catalog, *this, def).compile(times);
  std::shared_ptr<Procedure> before = it == routines_.end() ? nullptr : it->second;
  routines_[def->name] = p;
  catalog.bump();  // plans that call a function bound its signature
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

std::shared_ptr<const ast::CreateFunctionStmt> Routines::definition(const std::string& name) const {
  auto it = routines_.find(name);
  return it == routines_.end() ? nullptr : it->second->def;
}

std::shared_ptr<Procedure> Routines::find(const std::string& name, SourcePos pos) const {
  auto it = routines_.find(name);
  if (it == routines_.end()) throw Error(sqlstate::UndefinedFunction, "procedure " + name + " does not exist", pos);
  return it->second;
}

QueryResult Routines::call(Catalog& catalog, UndoLog& undo, const ast::CallStmt& stmt, const std::atomic<bool>* cancel,
                           PhaseTimes& times) {
  auto t = Clock::now();
  std::shared_ptr<Procedure> p = find(stmt.name, stmt.namePos);
  const auto& def = *p->def;
  if (def.procedure == stmt.function)
    throw Error("42809", stmt.name + " is " + (def.procedure ? "a procedure" : "not a procedure"), stmt.namePos)
        .withDetail(def.procedure ? "To call a procedure, use CALL." : "To call a function, use SELECT.");
  if (stmt.args.size() != def.params.size())
    throw Error(sqlstate::UndefinedFunction, std::string(p->what()) + " " + stmt.name + " takes " +
                                                 std::to_string(def.params.size()) + " arguments, not " +
                                                 std::to_string(stmt.args.size()),
                stmt.namePos);
  std::vector<SqlType> types;
  for (auto& prm : def.params) types.push_back(prm.type);
  std::vector<Value> args = Binder(catalog).bindConstants(stmt.args, types);
  times.plan = msSince(t);
  QueryResult r = call(catalog, undo, stmt.name, args, cancel);
  times.execute = r.times.execute;
  r.times = times;
  return r;
}

QueryResult Routines::call(Catalog& catalog, UndoLog& undo, const std::string& name, const std::vector<Value>& args,
                           const std::atomic<bool>* cancel) {
  auto it = routines_.find(name);
  if (it == routines_.end()) throw Error(sqlstate::UndefinedFunction, "procedure " + name + " does not exist");
  std::shared_ptr<Procedure> p = it->second;
  if (p->catalogVersion != catalog.version()) {  // the schema changed: bind and compile again
    PhaseTimes ignored;
    p = ProcedureCompiler(catalog, *this, p->def).compile(ignored);
    it->second = p;
  }
  if (args.size() != p->def->params.size())
    throw Error(sqlstate::UndefinedFunction, std::string(p->what()) + " " + name + " takes " +
                                                 std::to_string(p->def->params.size()) + " arguments");
  auto t = Clock::now();
  // A value of another type converts as a CALL's constant argument would. A function's arguments
  // are kept with its result (it may return one of them, a string).
  auto fits = [&](size_t i) {
    const Value& v = args[i];
    const SqlType& to = p->slotTypes[i];
    return v.isNull() || v.type().sameAs(to.withNullable(false)) || v.type().sameAs(to);
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
      std::memcpy(v.columns[0], c.slot(p->returnSlot), type.byteWidth());
      v.nulls[0][0] = c.slot(p->returnSlot)[16];
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

void SessionRoutines::call(QueryContext& ctx, const char* name, const uint8_t* args, uint32_t count, uint8_t* out) {
  std::shared_ptr<const ast::CreateFunctionStmt> def = routines_.definition(name);
  if (!def || def->procedure || def->params.size() != count)
    throw Error(sqlstate::UndefinedFunction, std::string("function ") + name + " does not exist");
  std::vector<Value> values;
  for (uint32_t i = 0; i < count; ++i) {
    const SqlType& t = def->params[i].type;
    const uint8_t* slot = args + kSlot * i;
    values.push_back(slot[16] ? Value::null(t) : Value::decode(t, slot));
  }
  QueryResult r;
  {
    NestedCall nested;
    r = routines_.call(catalog_, undo_, name, values, cancel_);
  }
  std::memset(out, 0, kSlot);
  if (r.rowCount() == 0 || r.columns().empty() || r.isNull(0, 0) || def->returns.isNull()) {
    out[16] = 1;
    return;
  }
  Value v = r.value(0, 0);
  if (def->returns.isString()) {  // the characters move into the query's arena, which outlives the row
    std::string s = v.asString();
    char* chars = ctx.arena().allocate(s.size() + 1);
    std::memcpy(chars, s.data(), s.size());
    StringRef ref = StringRef::make(chars, static_cast<uint32_t>(s.size()));
    std::memcpy(out, static_cast<const void*>(&ref), sizeof ref);
  } else {
    v.encode(def->returns, out);
  }
}

}  // namespace hyrax::sql
