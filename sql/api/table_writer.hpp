#pragma once
// Appends a query's result rows to a table (INSERT). Values arrive already converted to the
// column types; here they are checked against the constraints (NOT NULL, CHAR/VARCHAR length).
// All or nothing: on any error the table is truncated back to its previous row count.
#include <memory>
#include <vector>

#include "engine/runtime/result_chunk.hpp"

namespace hyrax {
class Table;
}

namespace hyrax::sql {

// `columnOf[i]` is the table column that result column i goes to; columns not listed get NULL.
uint64_t appendRows(Table& table, const std::vector<std::unique_ptr<ResultChunk>>& chunks,
                    const std::vector<uint32_t>& columnOf);

}  // namespace hyrax::sql
