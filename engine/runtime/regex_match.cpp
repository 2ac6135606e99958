// The regex operators' runtime (regex_match.hpp has the dialect and its limits).
#include "engine/runtime/regex_match.hpp"

#include <regex>
#include <string>

#include "engine/runtime/query_context.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

bool regexMatches(std::string_view s, std::string_view pattern, bool caseInsensitive) {
  struct Compiled {
    std::string pattern;
    bool caseInsensitive = false;
    bool valid = false;
    std::regex re;
  };
  thread_local Compiled last;
  if (!last.valid || last.pattern != pattern || last.caseInsensitive != caseInsensitive) {
    if (pattern.size() > kMaxRegexPatternBytes)
      throw Error(sqlstate::ProgramLimitExceeded,
                  "regular expression is too long (" + std::to_string(pattern.size()) + " bytes; at most " +
                      std::to_string(kMaxRegexPatternBytes) + ")");
    last.valid = false;
    auto flags = std::regex::extended | std::regex_constants::__polynomial;
    if (caseInsensitive) flags |= std::regex::icase;
    try {
      last.re = std::regex(pattern.begin(), pattern.end(), flags);
    } catch (const std::regex_error& e) {
      throw Error("2201B", "invalid regular expression: " + std::string(e.what()));
    }
    last.pattern = std::string(pattern);
    last.caseInsensitive = caseInsensitive;
    last.valid = true;
  }
  try {
    return std::regex_search(s.begin(), s.end(), last.re);
  } catch (const std::regex_error& e) {  // error_complexity / error_stack while matching
    throw Error(sqlstate::ProgramLimitExceeded, "regular expression match too complex: " + std::string(e.what()));
  }
}

}  // namespace hyrax

using namespace hyrax;

int32_t hyrax_rt_regex_match(QueryContext* ctx, uint64_t slo, uint64_t shi, uint64_t plo, uint64_t phi,
                             int32_t caseInsensitive, int8_t* out) {
  try {
    *out = regexMatches(StringRef::fromHalves(slo, shi).view(), StringRef::fromHalves(plo, phi).view(),
                        caseInsensitive != 0);
    return 0;
  } catch (const Error& e) {
    ctx->setError(e);
    return 1;
  } catch (const std::bad_alloc&) {
    ctx->setError(sqlstate::OutOfMemory, "out of memory compiling a regular expression");
    return 1;
  }
}
