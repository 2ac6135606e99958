#pragma once
// SQLSTATE and message of each HyraxRuntimeError code (runtime.hpp): hyrax_rt_error records them
// in the QueryContext, the constant folder raises them as an Error.
#include <cstdint>

namespace hyrax {

struct RuntimeErrorText {
  const char* sqlstate;
  const char* message;  // nullptr for an unknown code
};
RuntimeErrorText runtimeErrorText(int32_t code);

}  // namespace hyrax
