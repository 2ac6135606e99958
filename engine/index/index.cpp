#include "engine/index/index.hpp"

#include "engine/util/error.hpp"

namespace hyrax {

void Index::forEachInRange(const KeyBound&, const KeyBound&, bool, const std::function<bool(uint64_t)>&) const {
  // The optimizer asks only ordered indexes for ranges.
  throw Error(sqlstate::InternalError, "index \"" + name_ + "\" has no order");
}

}  // namespace hyrax
