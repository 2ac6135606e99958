#include <algorithm>

#include "engine/types/string_ref.hpp"
#include "engine/types/text_format.hpp"
#include "sql/api/database.hpp"

namespace hyrax {

QueryResult::QueryResult(std::vector<ResultColumn> columns, std::vector<std::unique_ptr<ResultChunk>> chunks,
                         std::string tag)
    : columns_(std::move(columns)), chunks_(std::move(chunks)), tag_(std::move(tag)) {
  for (auto& c : chunks_) {
    chunkStarts_.push_back(rowCount_);
    rowCount_ += c->rowCount();
  }
}

std::pair<const ResultChunk*, uint64_t> QueryResult::locate(uint64_t row) const {
  if (row >= rowCount_) throw Error(sqlstate::InvalidParameter, "row index out of range");
  auto it = std::upper_bound(chunkStarts_.begin(), chunkStarts_.end(), row);
  size_t i = static_cast<size_t>(it - chunkStarts_.begin()) - 1;
  return {chunks_[i].get(), row - chunkStarts_[i]};
}

bool QueryResult::isNull(uint64_t row, uint32_t col) const {
  auto [chunk, r] = locate(row);
  return chunk->isNull(r, col);
}

Value QueryResult::value(uint64_t row, uint32_t col) const {
  auto [chunk, r] = locate(row);
  const SqlType& t = columns_[col].type;
  return chunk->isNull(r, col) ? Value::null(t) : Value::decode(t, chunk->at(r, col));
}

std::string QueryResult::text(uint64_t row, uint32_t col) const { return value(row, col).toString(); }

}  // namespace hyrax
