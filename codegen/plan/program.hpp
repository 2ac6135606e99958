#pragma once
// A stored procedure body's control flow as codegen compiles it into one function with the body's
// plans (sql/api/procedure_compiler.cpp builds it from its steps, one program step per step, so
// step numbers and jump targets agree). Variables are the plans' parameter slots: 24 bytes each,
// the value first, its NULL byte at 16.
#include <cstdint>
#include <vector>

namespace hyrax::plan {

struct ProgramStep {
  enum class Op : uint8_t {
    Run,         // run plan `plan`; with `host`, the host then finishes it (a write's rows)
    Branch,      // decide `test` on slot `slot` (Plan: run `plan` into it first); when it is
                 // (TRUE == jumpIfTrue), jump to `target`
    Jump,        // to `target` (backwards: a cancel check first)
    RangeCheck,  // the integer loop variable `slot` past its bound (slot + 1): to `target`;
                 // a NULL one: the host raises the error
    RangeStep,   // `slot` += 1 (-1 when `reverse`); past INTEGER's range: to `target`
    Host,        // the host runs it: next, jump to `target`, or stop (RETURN, FOR rows, RAISE, CALL)
    TryBegin,    // enter block `slot` of Program::tries: an undo savepoint first
    TryEnd,      // leave it normally
  } op = Op::Host;
  enum class Test : uint8_t { Plan, IsTrue, IsFalse, IsNull, IsNotNull } test = Test::Plan;
  uint32_t plan = UINT32_MAX;
  uint32_t target = 0;
  uint32_t slot = 0;
  bool jumpIfTrue = false;
  bool reverse = false;
  bool host = false;
  // A SELECT's FOUND: cleared before the plan runs (the plan sets it on a row), and when it stays
  // clear the INTO slots become NULL. -1: not a SELECT.
  int32_t foundSlot = -1;
  std::vector<uint32_t> into;
  const void* resultTypes = nullptr;  // the plan's std::vector<SqlType>, for the context's reset
};

// A block with an EXCEPTION section: a failure in the steps between its TryBegin (`begin`) and
// TryEnd (`end`) goes to the host, which undoes the block's writes and names the handler step
// (one of `handlers`) to go on at, or leaves the error to the enclosing block, if any, or the caller.
struct ProgramTry {
  uint32_t begin = 0, end = 0;
  std::vector<uint32_t> handlers;
};

struct Program {
  std::vector<ProgramStep> steps;
  std::vector<ProgramTry> tries;  // nested blocks come after the blocks around them
};

}  // namespace hyrax::plan
