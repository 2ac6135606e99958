#pragma once
// An information unit (IU): one column of values flowing between operators (a scanned column, a
// computed expression, an aggregate, a join key ...). Operators produce IUs; expressions read them.
// Code generation maps each IU to the SQL value currently in registers.
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_set>

#include "engine/types/sql_type.hpp"

namespace hyrax::plan {

struct IU {
  uint32_t id;
  SqlType type;
  std::string name;  // for EXPLAIN ("l_quantity", "sum", "expr3")
};

// Owns the IUs of one query plan; addresses stay stable.
class IUSet {
 public:
  IU* make(SqlType type, std::string name) {
    ius_.push_back(IU{static_cast<uint32_t>(ius_.size()), type, std::move(name)});
    return &ius_.back();
  }
  size_t size() const { return ius_.size(); }

 private:
  std::deque<IU> ius_;
};

// A set of IUs (what an operator produces, what a condition may read).
using IURefs = std::unordered_set<const IU*>;

}  // namespace hyrax::plan
