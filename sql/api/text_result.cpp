#include "sql/api/text_result.hpp"

#include <cstring>
#include <memory>

#include "engine/runtime/query_context.hpp"
#include "engine/types/string_ref.hpp"

namespace hyrax::sql {

QueryResult textResult(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows,
                       std::string tag) {
  std::vector<SqlType> types(columns.size(), SqlType::text(false));
  // Result rows point at their characters: they live in the context's arena, kept with the result.
  auto ctx = std::make_shared<QueryContext>(types);
  for (auto& row : rows) {
    ResultChunkView* v = ctx->currentResult();
    if (v->count == v->capacity) v = (ctx->flushResult(), ctx->currentResult());
    for (size_t c = 0; c < columns.size(); ++c) {
      StringRef s = ctx->arena().copy(row[c]);
      std::memcpy(static_cast<char*>(v->columns[c]) + v->count * sizeof(StringRef), &s, sizeof(StringRef));
      v->nulls[c][v->count] = 0;
    }
    ++v->count;
  }
  std::vector<ResultColumn> out;
  for (size_t c = 0; c < columns.size(); ++c) out.push_back({columns[c], types[c]});
  QueryResult r(std::move(out), ctx->takeResults(), std::move(tag));
  r.keepAlive(ctx);
  return r;
}

}  // namespace hyrax::sql
