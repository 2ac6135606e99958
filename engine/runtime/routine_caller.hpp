#pragma once
// Stored functions called from generated code (SELECT f(x) FROM t). The engine knows nothing of
// them: the session running a statement installs a RoutineCaller for its thread (all statements
// run on the executor thread, one at a time), and hyrax_rt_call_routine hands each call to it.
#include <cstdint>

#include "engine/runtime/value_slot.hpp"

#include "engine/runtime/thread_scope.hpp"

namespace hyrax {

class QueryContext;

class RoutineCaller {
 public:
  virtual ~RoutineCaller() = default;
  // Runs function `name` with `count` arguments (already of the parameters' types) and writes its
  // value to `out` (a string's characters in ctx's arena). Throws Error on failure.
  virtual void call(QueryContext& ctx, const char* name, const ValueSlot* args, uint32_t count, ValueSlot* out) = 0;
};

// The caller of the current thread's statement (RoutineCallerScope::current(), or nullptr); set
// for a scope by the session.
using RoutineCallerScope = ThreadScope<RoutineCaller>;

}  // namespace hyrax
