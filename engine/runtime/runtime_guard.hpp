#pragma once
// Runtime functions that allocate (hash tables, row buffers, result chunks, the string arena) are
// called from generated code, which nothing may unwind through: they run their work through
// guarded(), which turns an Error (53200 past the statement's memory_limit) or std::bad_alloc into
// the context's error and returns `failed` (null, a non-zero status, or UINT64_MAX), on which the
// generated code leaves through its error exit.
#include <exception>
#include <new>

#include "engine/runtime/query_context.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

template <typename R, typename F>
R guarded(QueryContext* ctx, R failed, F&& work) noexcept {
  try {
    return work();
  } catch (const Error& e) {
    ctx->setError(e);
  } catch (const std::bad_alloc&) {
    ctx->setError(sqlstate::OutOfMemory, kOutOfMemoryMessage);
  } catch (const std::exception& e) {
    ctx->setError(sqlstate::InternalError, e.what());
  }
  return failed;
}

}  // namespace hyrax
