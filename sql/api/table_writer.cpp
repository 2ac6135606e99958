#include "sql/api/table_writer.hpp"

#include "engine/storage/table.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/util/error.hpp"

namespace hyrax::sql {

uint64_t appendRows(Table& table, const std::vector<std::unique_ptr<ResultChunk>>& chunks,
                    const std::vector<uint32_t>& columnOf) {
  const auto& cols = table.columns();
  std::vector<int> sourceOf(cols.size(), -1);
  for (size_t i = 0; i < columnOf.size(); ++i) sourceOf[columnOf[i]] = static_cast<int>(i);
  for (size_t c = 0; c < cols.size(); ++c)
    if (sourceOf[c] < 0 && !cols[c].type.nullable)
      throw Error(sqlstate::NotNullViolation, "null value in column \"" + cols[c].name + "\" of relation \"" +
                                                  table.name() + "\" violates not-null constraint");

  const uint64_t before = table.rowCount();
  uint64_t added = 0;
  try {
    for (auto& chunk : chunks) {
      for (uint64_t r = 0; r < chunk->rowCount(); ++r) {
        // Check the whole row before reserving it.
        for (size_t c = 0; c < cols.size(); ++c) {
          int src = sourceOf[c];
          bool isNull = src < 0 || chunk->isNull(r, static_cast<uint32_t>(src));
          if (isNull && !cols[c].type.nullable)
            throw Error(sqlstate::NotNullViolation, "null value in column \"" + cols[c].name + "\" of relation \"" +
                                                        table.name() + "\" violates not-null constraint");
          if (!isNull && cols[c].type.isString() && cols[c].type.length) {
            auto* s = static_cast<const StringRef*>(chunk->at(r, static_cast<uint32_t>(src)));
            if (s->len > cols[c].type.length)
              throw Error(sqlstate::StringTooLong, "value too long for type " + cols[c].type.name());
          }
        }
        uint64_t row = table.beginRow();
        for (size_t c = 0; c < cols.size(); ++c) {
          int src = sourceOf[c];
          bool isNull = src < 0 || chunk->isNull(r, static_cast<uint32_t>(src));
          static const uint64_t zero[2] = {0, 0};
          table.setValue(row, static_cast<uint32_t>(c), isNull ? zero : chunk->at(r, static_cast<uint32_t>(src)), isNull);
        }
        ++added;
      }
    }
  } catch (...) {
    table.truncate(before);
    throw;
  }
  return added;
}

}  // namespace hyrax::sql
