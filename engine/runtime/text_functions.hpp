#pragma once
// PostgreSQL's string functions that build a new string (repeat, reverse, initcap, translate,
// overlay, md5, to_hex, regexp_replace), once for both callers: the runtime function generated
// code calls (hyrax_rt_text_function in text_functions.cpp, which copies the result into the
// query's arena) and the constant folder, so a constant call folds to the value generated code
// gives. Strings are valid UTF-8 and counted in characters; errors are thrown as Error with
// PostgreSQL's SQLSTATE and message.
#include <cstdint>
#include <string>
#include <string_view>

namespace hyrax::textfn {

enum class TextFn : int32_t {
  Repeat,         // (s; n): s n times, '' for n <= 0
  Reverse,        // (s): its characters backwards
  Initcap,        // (s): each word's first letter upper case, the rest lower case
  Translate,      // (s, from, to): each character of `from` replaced by the one at its place in `to`,
                  // or dropped when `to` is shorter
  Overlay,        // (s, t; start, count): s's characters [start, start + count) replaced by t;
                  // count = kNoCount: t's length
  Md5,            // (s): its MD5 digest, 32 lower-case hex digits
  ToHex32,        // (; n): n as an INTEGER in hex (-1: ffffffff)
  ToHex64,        // (; n): n as a BIGINT in hex
  RegexpReplace,  // (s, pattern, replacement, flags): regex_match.hpp's regexReplace
};

inline constexpr int64_t kNoCount = INT64_MIN;  // overlay without FOR

// The arguments of a call: up to four strings and two integers, in the order TextFn lists them.
struct TextArgs {
  std::string_view s[4];
  int64_t n[2] = {0, 0};
};

// Writes the result to `out` (cleared first).
void textFunction(TextFn fn, const TextArgs& args, std::string& out);

}  // namespace hyrax::textfn
