#include "engine/runtime/routine_caller.hpp"

#include <exception>

#include "engine/runtime/query_context.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/txn/table_ops.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

// Errors become the query's error and a status, as every runtime function reports them: they
// never unwind through generated code.
int32_t hyrax_rt_call_routine(QueryContext* ctx, RoutineHandle* routine, const ValueSlot* args, uint32_t count,
                              ValueSlot* out) {
  try {
    RoutineCaller* caller = RoutineCallerScope::current();
    if (!caller) throw Error(sqlstate::FeatureNotSupported, "function " + routine->name + " cannot be called here");
    txn::QueryRowsPinned pinned;  // the calling query holds row numbers: no DELETE may move rows
    caller->call(*ctx, *routine, args, count, out);
    return 0;
  } catch (const Error& e) {
    ctx->setError(e);
  } catch (const std::exception& e) {
    ctx->setError(sqlstate::InternalError, e.what());
  }
  return 1;
}
