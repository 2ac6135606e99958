#include "server/error_response.hpp"

#include <string>

#include "server/protocol.hpp"

namespace hyrax::server {

namespace {

// One field: its code byte and a NUL-terminated string. A NUL inside the text would end the
// field early, so such bytes are dropped.
void putField(Wire& wire, char code, std::string_view text) {
  wire.buffer().push_back(code);
  for (char c : text)
    if (c != '\0') wire.buffer().push_back(c);
  wire.buffer().push_back('\0');
}

}  // namespace

uint32_t characterPosition(std::string_view text, SourcePos pos) {
  if (!pos.known()) return 0;
  size_t i = 0;
  for (uint32_t line = 1; line < pos.line; ++line) {
    i = text.find('\n', i);
    if (i == std::string_view::npos) return 0;
    ++i;
  }
  size_t byte = i + pos.column - 1;  // the lexer counts columns in bytes
  if (byte > text.size()) return 0;
  uint32_t chars = 0;
  for (size_t k = 0; k < byte; ++k) chars += (static_cast<unsigned char>(text[k]) & 0xC0) != 0x80;
  return chars + 1;
}

void sendError(Wire& wire, const Error& error, Severity severity, std::string_view query) {
  const char* s = severity == Severity::Fatal ? "FATAL" : "ERROR";
  wire.begin(backend::ErrorResponse);
  putField(wire, 'S', s);
  putField(wire, 'V', s);  // the same word, never translated
  putField(wire, 'C', error.sqlstate().size() == 5 ? error.sqlstate() : std::string("XX000"));
  putField(wire, 'M', error.message());
  if (!error.detail().empty()) putField(wire, 'D', error.detail());
  if (uint32_t p = characterPosition(query, error.pos())) putField(wire, 'P', std::to_string(p));
  wire.buffer().push_back('\0');
  wire.end();
}

void sendNotice(Wire& wire, const Notice& notice) {
  wire.begin(backend::NoticeResponse);
  putField(wire, 'S', notice.severity);
  putField(wire, 'V', notice.severity);
  if (!notice.sqlstate.empty()) putField(wire, 'C', notice.sqlstate);
  else putField(wire, 'C', notice.severity == "WARNING" ? "01000" : "00000");  // warning, successful completion
  putField(wire, 'M', notice.message);
  wire.buffer().push_back('\0');
  wire.end();
}

}  // namespace hyrax::server
