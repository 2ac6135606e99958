#pragma once
// LIKE patterns made only of literal segments between '%'s ('%special%requests%', 'PROMO%',
// '%BRASS'), prepared once: code generation prepares a constant pattern when it compiles the
// query, so each row only searches (hyrax_rt_like_prepared); hyrax_rt_like prepares per call.
// Patterns with '_' or '\' escapes need the general matcher.
#include <string>
#include <string_view>

namespace hyrax {

// Appends the prepared form of `pattern` to `out`: false (nothing appended) when it needs the
// general matcher.
bool prepareLikePattern(std::string_view pattern, std::string& out);
// Whether `s` matches a pattern prepared by prepareLikePattern.
bool matchPreparedLike(std::string_view s, const char* prepared);

}  // namespace hyrax
