#pragma once
// Stored functions called from generated code (SELECT f(x) FROM t). The engine knows nothing of
// them: the session running a statement installs a RoutineCaller for its thread (all statements
// run on the executor thread, one at a time), and hyrax_rt_call_routine hands each call to it.
#include <cstdint>
#include <memory>
#include <string>

#include "engine/runtime/value_slot.hpp"

#include "engine/runtime/thread_scope.hpp"

namespace hyrax {

class QueryContext;

// A stored function as compiled code calls it: one per call site, made when the query compiles
// and kept with its code. The caller resolves the name on the first call and again only when
// the catalog's version moved (creating, replacing or dropping a routine moves it), so a call
// per row looks nothing up by name, and never runs a routine that was dropped or replaced.
struct RoutineHandle {
  explicit RoutineHandle(std::string n) : name(std::move(n)) {}
  const std::string name;
  // The caller's: what `name` resolved to (empty: not yet), weak so that a routine calling itself
  // does not keep itself alive; and the catalog version it was resolved at.
  std::weak_ptr<void> resolved;
  uint64_t version = 0;
};

class RoutineCaller {
 public:
  virtual ~RoutineCaller() = default;
  // Runs function `routine` with `count` arguments (already of the parameters' types) and writes
  // its value to `out` (a string's characters in ctx's arena). Throws Error on failure.
  virtual void call(QueryContext& ctx, RoutineHandle& routine, const ValueSlot* args, uint32_t count, ValueSlot* out) = 0;
};

// The caller of the current thread's statement (RoutineCallerScope::current(), or nullptr); set
// for a scope by the session.
using RoutineCallerScope = ThreadScope<RoutineCaller>;

}  // namespace hyrax
