#pragma once
// Runtime functions that allocate (hash tables, row buffers, result chunks, the string arena) are
// called from generated code, which nothing may unwind through: they run their work through
// guarded(), which turns an Error (53200 past the statement's memory_limit) or std::bad_alloc into
// the context's error and returns `failed` (null, a non-zero status, or UINT64_MAX), on which the
// generated code leaves through its error exit.
#include <cstring>
#include <exception>
#include <new>
#include <string_view>

#include "engine/runtime/query_context.hpp"
#include "engine/types/string_ref.hpp"
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

// Copies `v` (at most 4 GB) into the query's arena and writes its StringRef halves to out[0..1]:
// 0, or 1 with the error set.
inline int32_t arenaString(QueryContext* ctx, std::string_view v, uint64_t* out) noexcept {
  char* buf = guarded(ctx, static_cast<char*>(nullptr), [&] { return ctx->arena().allocate(v.empty() ? 1 : v.size()); });
  if (!buf) return 1;
  std::memcpy(buf, v.data(), v.size());
  StringRef r = StringRef::make(buf, static_cast<uint32_t>(v.size()));
  out[0] = r.lo();
  out[1] = r.hi();
  return 0;
}

}  // namespace hyrax
