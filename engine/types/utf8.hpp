#pragma once
// Strings are UTF-8, and only valid UTF-8 gets in (SQL text and COPY input are checked, as
// PostgreSQL does with 22021): functions that count characters rely on it, and what is stored is
// what every client can read back.
#include <cstddef>
#include <string>
#include <string_view>

namespace hyrax {

// The byte offset of the first byte that does not start a valid UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing past U+10FFFF, no sequence cut short), or npos.
size_t invalidUtf8At(std::string_view s);

// PostgreSQL's message for it: invalid byte sequence for encoding "UTF8": 0xc3 0x28
std::string invalidUtf8Message(std::string_view s, size_t at);

}  // namespace hyrax
