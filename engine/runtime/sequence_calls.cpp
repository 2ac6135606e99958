#include "engine/runtime/sequence_calls.hpp"

#include "engine/runtime/runtime.hpp"
#include "engine/runtime/runtime_guard.hpp"

namespace hyrax {
namespace {

SequenceSession& session(const char* function, bool writes) {
  SequenceSession* s = SequenceSessionScope::current();
  if (!s) throw Error(sqlstate::FeatureNotSupported, std::string(function) + "() cannot be called here");
  if (writes && s->readOnly)
    throw Error(sqlstate::ReadOnlyTransaction, std::string("cannot execute ") + function + "() in a read-only transaction");
  s->used = true;
  return *s;
}

}  // namespace

}  // namespace hyrax

using namespace hyrax;

int32_t hyrax_rt_nextval(QueryContext* ctx, SequenceHandle* handle, int64_t* out) {
  return guarded(ctx, 1, [&] {
    session("nextval", true);
    *out = nextvalForSession(handle->sequence);
    return 0;
  });
}

int32_t hyrax_rt_currval(QueryContext* ctx, SequenceHandle* handle, int64_t* out) {
  return guarded(ctx, 1, [&] {
    SequenceSession& s = session("currval", false);
    auto it = s.last.find(handle->sequence);
    if (it == s.last.end())
      throw Error(sqlstate::ObjectNotInPrerequisiteState,
                  "currval of sequence \"" + handle->sequence->name + "\" is not yet defined in this session");
    *out = it->second;
    return 0;
  });
}

int32_t hyrax_rt_setval(QueryContext* ctx, SequenceHandle* handle, int64_t value, int32_t isCalled) {
  return guarded(ctx, 1, [&] {
    SequenceSession& s = session("setval", true);
    handle->sequence->set(value, isCalled != 0);
    if (isCalled) s.last[handle->sequence] = value;  // as PostgreSQL: currval then answers it
    return 0;
  });
}
