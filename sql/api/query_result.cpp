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
  if (chunk->isNull(r, col)) return Value::null(t);
  Value v;
  switch (t.id) {
    case TypeId::Null: return Value::null(t);
    case TypeId::Bool: v = Value::boolean(chunk->get<uint8_t>(r, col) != 0); break;
    case TypeId::Int16: v = Value::int16(chunk->get<int16_t>(r, col)); break;
    case TypeId::Int32: v = Value::int32(chunk->get<int32_t>(r, col)); break;
    case TypeId::Int64: v = Value::int64(chunk->get<int64_t>(r, col)); break;
    case TypeId::Decimal: v = Value::decimal(chunk->get<int64_t>(r, col), t.precision, t.scale); break;
    case TypeId::Float32: v = Value::float32(chunk->get<float>(r, col)); break;
    case TypeId::Float64: v = Value::float64(chunk->get<double>(r, col)); break;
    case TypeId::Date: v = Value::date(chunk->get<int32_t>(r, col)); break;
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Text: {
      const auto* s = static_cast<const StringRef*>(chunk->at(r, col));
      v = Value::string(std::string(s->view()), t.withNullable(false));
      break;
    }
  }
  return v;
}

std::string QueryResult::text(uint64_t row, uint32_t col) const { return value(row, col).toString(); }

}  // namespace hyrax
