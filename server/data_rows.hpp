#pragma once
// A result's rows on the wire: RowDescription (names, type OIDs, each column's format) and
// DataRows straight from the result chunks, in text (appended in place) or binary format
// (pg_types), for a range of rows: the simple protocol sends them all, an Execute with a row
// limit sends a portal's rows in pieces.
#include <cstdint>
#include <vector>

#include "server/wire.hpp"
#include "sql/api/database.hpp"

namespace hyrax::server {

// A column's format code: 0 text, 1 binary. Bind gives none (all text), one (for every column)
// or one per column; 22023 for anything else.
std::vector<int16_t> columnFormats(const std::vector<int16_t>& codes, size_t columns);

void sendRowDescription(Wire& wire, const std::vector<ResultColumn>& columns, const std::vector<int16_t>& formats = {});
// Rows [from, from + count) of `result` (fewer at its end); formats as columnFormats() gives them
// (empty: text).
void sendDataRows(Wire& wire, const QueryResult& result, uint64_t from, uint64_t count,
                  const std::vector<int16_t>& formats = {});

}  // namespace hyrax::server
