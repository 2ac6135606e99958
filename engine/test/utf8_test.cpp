// The UTF-8 check every string that gets in passes (engine/types/utf8.hpp).
#include <catch2/catch.hpp>

#include <string>

#include "engine/types/utf8.hpp"

using namespace hyrax;

TEST_CASE("valid UTF-8 passes, and the first bad byte of anything else is found") {
  constexpr size_t ok = std::string_view::npos;
  for (const char* good : {"", "plain ascii", "h\xC3\xA9llo", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF",
                           "\xEF\xBF\xBF", "\xED\x9F\xBF", "\xC2\x80"}) {
    INFO(good);
    CHECK(invalidUtf8At(good) == ok);
  }
  struct Bad {
    std::string text;
    size_t at;
  };
  const Bad bad[] = {
      {"ab\xC3\x28", 2},          // a lead byte without its continuation
      {"\x80", 0},                // a lone continuation byte
      {"x\xC0\xAF", 1},           // overlong '/'
      {"\xC1\xBF", 0},            // overlong
      {"\xE0\x80\xAF", 0},        // overlong 3-byte
      {"\xF0\x80\x80\xAF", 0},    // overlong 4-byte
      {"\xED\xA0\x80", 0},        // a surrogate (U+D800)
      {"\xF4\x90\x80\x80", 0},    // past U+10FFFF
      {"\xF5\x80\x80\x80", 0},    // no such lead byte
      {"\xFF", 0},
      {"ok\xE2\x82", 2},          // cut short at the end
      {"\xE2\x28\xA1", 0},        // a bad third byte
      {std::string("a\0\xC3", 3), 2},
  };
  for (const Bad& b : bad) {
    INFO(b.text);
    CHECK(invalidUtf8At(b.text) == b.at);
  }
  CHECK(invalidUtf8Message("ab\xC3\x28", 2) == "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28");
  CHECK(invalidUtf8Message("\xFF", 0) == "invalid byte sequence for encoding \"UTF8\": 0xff");
}
