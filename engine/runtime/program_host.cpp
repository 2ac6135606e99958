#include "engine/runtime/program_host.hpp"

#include <vector>

#include "engine/runtime/query_context.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/txn/undo_log.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

int32_t hyrax_rt_program_host(QueryContext* ctx, uint32_t step) {
  ProgramHost* current = ProgramHostScope::current();
  if (!current) {
    ctx->setError(sqlstate::InternalError, "a procedure body ran without its host");
    return ProgramHost::kFailed;
  }
  return current->step(step);
}

void hyrax_rt_program_reset(QueryContext* ctx, const void* resultTypes) {
  ctx->reset(*static_cast<const std::vector<SqlType>*>(resultTypes));
}

uint64_t hyrax_rt_program_savepoint(QueryContext* ctx) { return ctx->undo().savepoint(); }

int32_t hyrax_rt_program_catch(QueryContext* /*ctx*/, uint32_t block, uint64_t savepoint) {
  ProgramHost* current = ProgramHostScope::current();
  return current ? current->catchError(block, savepoint) : -1;
}
