#pragma once
// CREATE SEQUENCE's object: a counter with PostgreSQL's bounds, step and CYCLE. Not transactional
// (as in PostgreSQL): nextval is never undone, so a ROLLBACK leaves a gap. What a session last got
// from it (currval) is the session's (SequenceSession, engine/runtime/sequence_calls.hpp).
#include <cstdint>
#include <string>

namespace hyrax {

struct Sequence {
  std::string name;
  int64_t increment = 1;
  int64_t minValue = 1;
  int64_t maxValue = INT64_MAX;
  bool cycle = false;
  // PostgreSQL's last_value and is_called: the next nextval returns `last` when !called, else
  // the step after it.
  int64_t last = 1;
  bool called = false;

  int64_t next();  // 2200H past a bound without CYCLE
  // setval: 22003 outside [minValue, maxValue].
  void set(int64_t value, bool isCalled);
};

// The options of CREATE SEQUENCE as written (unset: PostgreSQL's defaults, which depend on the
// sign of the increment); a checked sequence or 22023.
struct SequenceOptions {
  int64_t increment = 1;
  bool hasStart = false, hasMin = false, hasMax = false;
  int64_t start = 0, minValue = 0, maxValue = 0;
  bool cycle = false;
};
Sequence makeSequence(std::string name, const SequenceOptions& o);

}  // namespace hyrax
