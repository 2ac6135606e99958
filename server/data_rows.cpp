#include "server/data_rows.hpp"

#include "server/pg_types.hpp"
#include "server/protocol.hpp"
#include "server/text_values.hpp"

namespace hyrax::server {

std::vector<int16_t> columnFormats(const std::vector<int16_t>& codes, size_t columns) {
  for (int16_t c : codes)
    if (c != 0 && c != 1) throw Error(sqlstate::InvalidParameter, "unsupported format code: " + std::to_string(c));
  if (codes.empty()) return std::vector<int16_t>(columns, 0);
  if (codes.size() == 1) return std::vector<int16_t>(columns, codes[0]);
  if (codes.size() != columns)
    throw Error(wirestate::ProtocolViolation, "bind message has " + std::to_string(codes.size()) +
                                                  " result formats but query has " + std::to_string(columns) + " columns");
  return codes;
}

void sendRowDescription(Wire& wire, const std::vector<ResultColumn>& columns, const std::vector<int16_t>& formats) {
  wire.begin(backend::RowDescription);
  wire.putInt16(static_cast<int16_t>(columns.size()));
  for (size_t i = 0; i < columns.size(); ++i) {
    const SqlType& t = columns[i].type;
    wire.putCString(columns[i].name);
    wire.putInt32(0);  // not named as a table's column
    wire.putInt16(0);
    wire.putInt32(static_cast<int32_t>(pg::typeOid(t)));
    wire.putInt16(pg::typeSize(t));
    wire.putInt32(pg::typeModifier(t));
    wire.putInt16(formats.empty() ? 0 : formats[i]);
  }
  wire.end();
}

void sendDataRows(Wire& wire, const QueryResult& result, uint64_t from, uint64_t count,
                  const std::vector<int16_t>& formats) {
  const auto& columns = result.columns();
  std::string& out = wire.buffer();
  uint64_t start = 0;  // the first row of the chunk at hand
  for (auto& chunk : result.chunks()) {
    const uint64_t rows = chunk->rowCount();
    if (start + rows <= from) {
      start += rows;
      continue;
    }
    for (uint64_t row = from > start ? from - start : 0; row < rows && count > 0; ++row, --count) {
      wire.begin(backend::DataRow);
      wire.putInt16(static_cast<int16_t>(columns.size()));
      for (uint32_t col = 0; col < columns.size(); ++col) {
        if (chunk->isNull(row, col)) {
          wire.putInt32(-1);
          continue;
        }
        // Each value is appended in place and its length word filled in after it.
        const size_t lengthAt = out.size();
        wire.putInt32(0);
        if (!formats.empty() && formats[col] == 1)
          out += pg::binaryOut(result.value(start + row, col));
        else
          appendTextValue(out, *chunk, row, col, columns[col].type);
        auto n = static_cast<uint32_t>(out.size() - lengthAt - 4);
        for (int i = 0; i < 4; ++i) out[lengthAt + i] = static_cast<char>(n >> (24 - 8 * i));
      }
      wire.end();
    }
    if (count == 0) return;
    start += rows;
  }
}

}  // namespace hyrax::server
