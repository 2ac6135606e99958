#include "engine/catalog/sequence.hpp"

#include "engine/util/error.hpp"

namespace hyrax {

int64_t Sequence::next() {
  if (!called) {
    called = true;
    return last;
  }
  int64_t v;
  // An overflow of int64 is past the bound too.
  bool past = __builtin_add_overflow(last, increment, &v) || v > maxValue || v < minValue;
  if (past) {
    if (!cycle) {
      bool up = increment > 0;
      throw Error(sqlstate::SequenceGeneratorLimitExceeded,
                  std::string("nextval: reached ") + (up ? "maximum" : "minimum") + " value of sequence \"" + name +
                      "\" (" + std::to_string(up ? maxValue : minValue) + ")");
    }
    v = increment > 0 ? minValue : maxValue;
  }
  last = v;
  return v;
}

void Sequence::set(int64_t value, bool isCalled) {
  if (value < minValue || value > maxValue)
    throw Error(sqlstate::NumericOutOfRange, "setval: value " + std::to_string(value) + " is out of bounds for sequence \"" +
                                                 name + "\" (" + std::to_string(minValue) + ".." + std::to_string(maxValue) + ")");
  last = value;
  called = isCalled;
}

Sequence makeSequence(std::string name, const SequenceOptions& o) {
  if (o.increment == 0) throw Error(sqlstate::InvalidParameter, "INCREMENT must not be zero");
  Sequence s;
  s.name = std::move(name);
  s.increment = o.increment;
  bool up = o.increment > 0;
  s.minValue = o.hasMin ? o.minValue : up ? 1 : INT64_MIN;
  s.maxValue = o.hasMax ? o.maxValue : up ? INT64_MAX : -1;
  if (s.minValue >= s.maxValue)
    throw Error(sqlstate::InvalidParameter, "MINVALUE (" + std::to_string(s.minValue) + ") must be less than MAXVALUE (" +
                                                std::to_string(s.maxValue) + ")");
  s.last = o.hasStart ? o.start : up ? s.minValue : s.maxValue;
  if (s.last < s.minValue)
    throw Error(sqlstate::InvalidParameter, "START value (" + std::to_string(s.last) + ") cannot be less than MINVALUE (" +
                                                std::to_string(s.minValue) + ")");
  if (s.last > s.maxValue)
    throw Error(sqlstate::InvalidParameter, "START value (" + std::to_string(s.last) + ") cannot be greater than MAXVALUE (" +
                                                std::to_string(s.maxValue) + ")");
  s.cycle = o.cycle;
  return s;
}

}  // namespace hyrax
