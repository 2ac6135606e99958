#include "server/text_values.hpp"

#include <charconv>

#include "engine/types/array_text.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/types/value.hpp"

namespace hyrax::server {

namespace {

void appendInteger(std::string& out, int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

size_t utf8Characters(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

void appendTextValue(std::string& out, const ResultChunk& chunk, uint64_t row, uint32_t col, const SqlType& type) {
  const void* p = chunk.at(row, col);
  switch (type.id) {
    case TypeId::Bool: out.push_back(*static_cast<const uint8_t*>(p) ? 't' : 'f'); return;
    case TypeId::Int16: appendInteger(out, chunk.get<int16_t>(row, col)); return;
    case TypeId::Int32: appendInteger(out, chunk.get<int32_t>(row, col)); return;
    case TypeId::Int64: appendInteger(out, chunk.get<int64_t>(row, col)); return;
    case TypeId::Array: {  // held as its text
      std::string_view s = static_cast<const StringRef*>(p)->view();
      if (text::isVectorType(type)) out.append(text::vectorText(s));
      else out.append(s);
      return;
    }
    case TypeId::Varchar:
    case TypeId::Text: out.append(static_cast<const StringRef*>(p)->view()); return;
    case TypeId::Char: {
      std::string_view s = static_cast<const StringRef*>(p)->view();
      out.append(s);
      for (size_t n = utf8Characters(s); n < type.length; ++n) out.push_back(' ');
      return;
    }
    default: out.append(Value::decode(type, p).toString());
  }
}

}  // namespace hyrax::server
