#pragma once
// nextval, currval and setval as generated code calls them. The sequence was resolved when the
// statement was planned (the code holds it, CodeConstants); what a session last got from each
// sequence (currval) and whether it may change one (not in a READ ONLY transaction) is the
// session's SequenceSession, installed for the thread like the RoutineCaller.
#include <cstdint>
#include <map>
#include <memory>

#include "engine/catalog/sequence.hpp"
#include "engine/runtime/thread_scope.hpp"

namespace hyrax {

// A call site's sequence, resolved at plan time and kept alive as long as the code.
struct SequenceHandle {
  std::shared_ptr<Sequence> sequence;
};

struct SequenceSession {
  std::map<std::shared_ptr<Sequence>, int64_t> last;  // currval's answers; keeps dropped ones apart
  bool readOnly = false;  // a READ ONLY transaction: nextval and setval are 25006
  // Set by any call: a snapshot worker, whose changes would be lost, then has the session run the
  // statement inline instead (and currval there would not see the session's values).
  bool used = false;
};
using SequenceSessionScope = ThreadScope<SequenceSession>;

// nextval: the sequence's next value, which the thread's session (if any) then answers currval
// with. Throws Error (2200H).
int64_t nextvalForSession(const std::shared_ptr<Sequence>& sequence);

}  // namespace hyrax
