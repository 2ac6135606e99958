#pragma once
// A stored procedure's body compiled into one generated function (codegen/translate/
// program_compiler.cpp) runs its plans and its plain control flow itself; the steps it cannot do
// in generated code (applying a write's rows, a FOR loop's rows, RAISE, CALL, RETURN) it hands
// back to the C++ side that runs the call, through hyrax_rt_program_host, and so are failures
// inside a block with an EXCEPTION section (hyrax_rt_program_catch). The engine knows nothing
// of procedures: the call installs itself as the thread's ProgramHost for the body's run.
#include <cstdint>

#include "engine/runtime/thread_scope.hpp"

namespace hyrax {

class ProgramHost {
 public:
  virtual ~ProgramHost() = default;
  // Runs step `step` of the body. Returns kNext, kJump (to the step's target), kStop (the body
  // ends: RETURN) or kFailed (an error, which the host keeps and rethrows after the body). Never
  // throws: it unwinds no generated code.
  enum : int32_t { kNext = 0, kJump = 1, kStop = 2, kFailed = 3 };
  virtual int32_t step(uint32_t step) noexcept = 0;
  // The body failed inside block `block` with an EXCEPTION section (the error is the host's, from
  // a step, or the query context's): undo the writes after `savepoint`, and return the step of
  // the block's handler that catches the error (the error is then cleared), or -1 when none does
  // (the error stays, for an enclosing block or the caller). Never throws.
  virtual int32_t catchError(uint32_t block, uint64_t savepoint) noexcept = 0;
};

// Installs a host for the calling thread for a scope (nested calls install theirs in turn).
using ProgramHostScope = ThreadScope<ProgramHost>;

}  // namespace hyrax
