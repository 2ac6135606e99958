#pragma once
// Internal to codegen/translate: a stored procedure body's control flow (plan::Program) as one
// generated function that calls its plans' init and pipeline functions directly (query_compiler
// generates those in the same module first).
#include <string>
#include <vector>

#include "codegen/ir/codegen.hpp"
#include "codegen/plan/program.hpp"

namespace hyrax::codegen {

struct PlanFunctions {
  std::string init;  // empty: nothing to initialize
  std::vector<std::string> pipelines;
  uint32_t stateSlots = 1;
};

// Generates `i32 name(ctx, state, begin, end)`: 0 when the body ended, 1 when it failed (the
// query context or the program host holds the error). `state`, `begin` and `end` are unused.
void generateProgram(CodeGen& cg, const plan::Program& program, const std::vector<PlanFunctions>& plans,
                     const std::string& name);

}  // namespace hyrax::codegen
