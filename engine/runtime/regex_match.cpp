// The regex operators' runtime (regex_match.hpp has the dialect and its limits).
#include "engine/runtime/regex_match.hpp"

// The automaton's size bounds the executor's recursion (it follows chains of empty transitions
// depth first): 10,000 states keep it within a megabyte or so, well inside the 8 MB stacks of
// the parallel workers. libstdc++'s own limit is 100,000; no other file instantiates wregex.
#define _GLIBCXX_REGEX_STATE_LIMIT 10000
#include <locale>
#include <regex>
#include <stdexcept>
#include <string>

#include "engine/runtime/query_context.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/types/utf8.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

namespace {

// UTF-8 to code points (wchar_t is 32 bits on Linux, x86 and ARM alike), so that "." and bracket
// expressions see characters; a byte that starts no valid sequence stands for itself.
std::wstring codePoints(std::string_view s) {
  std::wstring out;
  out.reserve(s.size());
  for (size_t i = 0, len = 0; i < s.size(); i += len) out.push_back(static_cast<wchar_t>(utf8DecodeAt(s, i, len)));
  return out;
}

// The pattern compiled; the last one per thread is kept, so a constant pattern is compiled once.
const std::wregex& compiled(std::string_view pattern, bool caseInsensitive) {
  struct Compiled {
    std::string pattern;
    bool caseInsensitive = false;
    bool valid = false;
    std::wregex re;
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
    // The C.UTF-8 locale's character classes and case mapping, as PostgreSQL's in a UTF-8
    // database: ~* matches 'É' to 'é', [[:alpha:]] takes 'é' (the "C" locale knows ASCII only).
    static const std::locale unicode = [] {
      try {
        return std::locale("C.UTF-8");
      } catch (const std::runtime_error&) {
        return std::locale::classic();
      }
    }();
    try {
      const std::wstring p = codePoints(pattern);
      last.re = std::wregex();
      last.re.imbue(unicode);
      last.re.assign(p.begin(), p.end(), flags);
    } catch (const std::regex_error& e) {
      if (e.code() == std::regex_constants::error_space)
        throw Error("2201B", "invalid regular expression: regular expression is too complex (more than " +
                                 std::to_string(_GLIBCXX_REGEX_STATE_LIMIT) + " states)");
      throw Error("2201B", "invalid regular expression: " + std::string(e.what()));
    }
    last.pattern = std::string(pattern);
    last.caseInsensitive = caseInsensitive;
    last.valid = true;
  }
  return last.re;
}

[[noreturn]] void tooComplex(const std::regex_error& e) {  // error_complexity / error_stack while matching
  throw Error(sqlstate::ProgramLimitExceeded, "regular expression match too complex: " + std::string(e.what()));
}

void appendCodePoints(std::wstring::const_iterator b, std::wstring::const_iterator e, std::string& out) {
  char bytes[4];
  for (; b != e; ++b) out.append(bytes, utf8Encode(static_cast<uint32_t>(*b), bytes));
}

}  // namespace

bool regexMatches(std::string_view s, std::string_view pattern, bool caseInsensitive) {
  const std::wregex& re = compiled(pattern, caseInsensitive);
  try {
    const std::wstring text = codePoints(s);
    return std::regex_search(text.begin(), text.end(), re);
  } catch (const std::regex_error& e) {
    tooComplex(e);
  }
}

void regexReplace(std::string_view s, std::string_view pattern, std::string_view replacement, std::string_view flags,
                  std::string& out) {
  bool global = false, caseInsensitive = false;
  for (char f : flags) {
    if (f == 'g') global = true;
    else if (f == 'i' || f == 'c') caseInsensitive = f == 'i';
    else if (std::string_view("bemnpqstwx").find(f) != std::string_view::npos)
      throw Error(sqlstate::FeatureNotSupported, std::string("regular expression option \"") + f + "\" is not supported");
    else
      throw Error("22023", "invalid regular expression option: \"" + std::string(1, f) + "\"");
  }
  const std::wregex& re = compiled(pattern, caseInsensitive);
  try {
    const std::wstring text = codePoints(s);
    auto done = text.cbegin();  // the end of the last match: what is before it is written
    for (std::wsregex_iterator m(text.begin(), text.end(), re), end; m != end; ++m) {
      appendCodePoints(done, (*m)[0].first, out);
      for (size_t i = 0; i < replacement.size(); ++i) {
        const char c = replacement[i];
        const char next = i + 1 < replacement.size() ? replacement[i + 1] : '\0';
        if (c != '\\' || !(next == '&' || next == '\\' || (next >= '1' && next <= '9'))) {
          out.push_back(c);
          continue;
        }
        ++i;
        if (next == '\\') {
          out.push_back('\\');
          continue;
        }
        const size_t group = next == '&' ? 0 : static_cast<size_t>(next - '0');
        if (group < m->size() && (*m)[group].matched) appendCodePoints((*m)[group].first, (*m)[group].second, out);
      }
      done = (*m)[0].second;
      if (!global) break;
    }
    appendCodePoints(done, text.cend(), out);
  } catch (const std::regex_error& e) {
    tooComplex(e);
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
