#pragma once
// Splits a script into statements at top-level ';' (outside quotes, dollar quotes and comments).
// Each piece keeps its offset so error positions refer to the whole script. A piece without a
// closing ';' at the end is returned with complete=false (the shell waits for more input).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hyrax {

struct StatementText {
  std::string text;
  uint32_t line = 1, column = 1;  // where it starts in the script
  bool complete = true;
};
std::vector<StatementText> splitStatements(std::string_view script);

}  // namespace hyrax
