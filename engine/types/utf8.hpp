#pragma once
// Strings are UTF-8, and only valid UTF-8 gets in (SQL text and COPY input are checked, as
// PostgreSQL does with 22021): functions that count characters rely on it, and what is stored is
// what every client can read back.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hyrax {

// The byte offset of the first byte that does not start a valid UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing past U+10FFFF, no sequence cut short), or npos.
size_t invalidUtf8At(std::string_view s);

// The characters of valid UTF-8 `s`: its bytes that are not continuation bytes (10xxxxxx).
size_t utf8Chars(std::string_view s);

// Whether `s` has more than `limit` characters: the length of a CHAR(n) or VARCHAR(n) is in
// characters, as SQL and PostgreSQL count it ('éé' fits a VARCHAR(2)). Within the limit in bytes
// it is within it in characters, so only a string longer in bytes is counted.
inline bool longerThanChars(std::string_view s, size_t limit) { return s.size() > limit && utf8Chars(s) > limit; }

// The bytes of the first `chars` characters of valid UTF-8 `s` (all of it when it has fewer).
size_t utf8Prefix(std::string_view s, size_t chars);

// The code point of the character at byte `i` of `s`, and its length in bytes in `len`; a byte
// that starts no valid sequence stands for itself (len 1).
uint32_t utf8DecodeAt(std::string_view s, size_t i, size_t& len);
// Writes code point `c` (at most U+10FFFF) UTF-8 encoded to `out` (room for 4 bytes); the bytes.
size_t utf8Encode(uint32_t c, char* out);

// UPPER / LOWER of valid UTF-8 `s`, character by character as PostgreSQL maps them in a UTF-8
// database with a libc locale (towupper/towlower of the C.UTF-8 locale: 'é' -> 'É', 'ß' stays);
// ASCII letters only if the C library has no C.UTF-8. The bytes may grow or shrink.
std::string utf8CaseMapped(std::string_view s, bool upper);
// INITCAP of valid UTF-8 `s`, as PostgreSQL's in such a database: a letter after a letter or digit
// (iswalnum) lower case, every other one upper case ('héllo wÖrld' -> 'Héllo Wörld').
std::string utf8Initcap(std::string_view s);

// PostgreSQL's message for it: invalid byte sequence for encoding "UTF8": 0xc3 0x28
std::string invalidUtf8Message(std::string_view s, size_t at);

}  // namespace hyrax
