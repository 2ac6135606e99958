#pragma once
// A compiled stored procedure or function as the compiler (procedure_compiler.cpp) leaves it and
// a call (procedure.cpp) runs it: its plans and its body, compiled together into one module, and
// the steps of its control flow between them, from which the body was generated (the call answers
// the steps the body hands back by their number). Internal to sql/api.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sql/api/compiled_statement.hpp"
#include "sql/api/procedure.hpp"

namespace hyrax::sql {

constexpr uint32_t kNone = UINT32_MAX;

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
    Raise,         // RAISE `source` with argument texts in `slots` (RAISE;: what block `target`'s handler caught)
    CallProcedure, // CALL procedure `callee` with the arguments in `slots`
    TryBegin,      // enter the protected part of block `target` (Procedure::tries): an undo savepoint
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
  std::shared_ptr<RoutineHandle> callee;  // CallProcedure
};

struct Procedure {
  std::shared_ptr<ast::CreateFunctionStmt> def;
  uint64_t catalogVersion = 0;
  std::vector<SqlType> slotTypes;  // parameters first, then variables, FOUND, loop variables, temporaries
  std::vector<ValueSlot> nullSlots;  // one per slot (at least one), each NULL: a call's start
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
  // The body compiled into one function with its plans (codegen's compileProgram).
  int32_t (*body)(QueryContext*, void**, uint64_t, uint64_t) = nullptr;
  std::shared_ptr<jit::CompiledModule> bodyCode;
  // The context of the last call, reused by the next one (calls run one at a time on the executor
  // thread) unless a result still holds it.
  std::shared_ptr<QueryContext> spareContext;
  const char* what() const { return def->procedure ? "procedure" : "function"; }
};

// Binds and compiles a body (at CREATE, and again when the catalog version moved).
std::unique_ptr<Procedure> compileProcedure(Catalog& catalog, const Routines& routines,
                                            std::shared_ptr<ast::CreateFunctionStmt> def, PhaseTimes& times);

}  // namespace hyrax::sql
