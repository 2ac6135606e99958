#pragma once
// Test helper: the SQLSTATE of the hyrax::Error a call throws, "no error" if it returns.
#include <functional>
#include <string>

#include "engine/util/error.hpp"

namespace hyrax::test {

inline std::string sqlstateOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.sqlstate();
  }
  return "no error";
}

}  // namespace hyrax::test
