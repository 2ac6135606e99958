#pragma once
// POSIX regular expression matches: `s ~ pattern` (and ~*, !~, !~*), true when the pattern
// matches anywhere in s, as PostgreSQL's operators are.
//
// Dialect: POSIX extended regular expressions (ERE) as std::regex implements them
// (std::regex::extended), run by libstdc++'s breadth-first executor (__polynomial), whose stack
// depth depends on the pattern and not on the string, so a long string cannot exhaust the stack.
// PostgreSQL's own dialect is ARE, a superset of ERE: what ERE lacks here is ARE's escapes (\d \w
// \s \m \y and their kin), non-greedy quantifiers (*? +?), back references, lookahead and
// embedded options ((?i)); those are 2201B (an escape such as \d) or read as ERE reads them.
// Bracket expressions with classes ([[:alpha:]]) work. Strings and patterns are matched as code
// points (UTF-8 decoded), so "." is one character; classes and ~* case-folding know ASCII only
// (the "C" locale's rules).
#include <string>
#include <string_view>

namespace hyrax {

inline constexpr size_t kMaxRegexPatternBytes = 1000;  // longer patterns are 54000 (the compiler recurses)
// A pattern whose automaton passes 10,000 states ((a?){5000}) is 2201B "too complex": the
// executor's recursion grows with it (regex_match.cpp).

// Throws Error 2201B for a malformed pattern, 54000 for one longer than kMaxRegexPatternBytes.
// Keeps the last pattern compiled per thread, so a constant pattern is compiled once per query.
bool regexMatches(std::string_view s, std::string_view pattern, bool caseInsensitive);

// PostgreSQL's regexp_replace(s, pattern, replacement, flags) into `out`: the first match (every
// one with flag g) replaced by `replacement`, in which \1 .. \9 are the parenthesized
// subexpressions' matches ('' for one that does not exist or did not take part), \& the whole
// match and \\ a backslash; any other backslash stands for itself. Flags: g, i (case-insensitive,
// as ~*) and c (case-sensitive), the last of i and c winning; PostgreSQL's others are 0A000 here,
// anything else 22023. Errors of the pattern as regexMatches'.
void regexReplace(std::string_view s, std::string_view pattern, std::string_view replacement, std::string_view flags,
                  std::string& out);

}  // namespace hyrax
