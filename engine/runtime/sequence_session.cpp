// The session side of nextval, apart from the runtime's entry points (sequence_calls.cpp), so that
// COPY's loader uses it without the QueryContext (the fuzz targets build engine/load alone).
#include "engine/runtime/sequence_calls.hpp"

namespace hyrax {

int64_t nextvalForSession(const std::shared_ptr<Sequence>& sequence) {
  int64_t v = sequence->next();
  if (SequenceSession* s = SequenceSessionScope::current()) s->last[sequence] = v;
  return v;
}

}  // namespace hyrax
