// Runtime functions for errors, cancellation, scans, results, hash tables and row buffers.
#include <algorithm>
#include <cmath>

#include "engine/index/index.hpp"
#include "engine/runtime/hash_table.hpp"
#include "engine/runtime/math_functions.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/runtime/row_buffer.hpp"
#include "engine/runtime/row_writer.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/runtime/runtime_errors.hpp"
#include "engine/runtime/runtime_guard.hpp"
#include "engine/storage/table.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"

using namespace hyrax;

extern "C" {

int32_t hyrax_rt_error(QueryContext* ctx, int32_t code) {
  RuntimeErrorText t = runtimeErrorText(code);
  if (t.message)
    ctx->setError(t.sqlstate, t.message);
  else
    ctx->setError(t.sqlstate, "runtime error " + std::to_string(code));
  return 1;
}

int32_t hyrax_rt_string_too_long(QueryContext* ctx, int32_t typeId, int32_t length) {
  SqlType t;
  t.id = static_cast<TypeId>(typeId);
  t.length = static_cast<uint32_t>(length);
  ctx->setError(sqlstate::StringTooLong, "value too long for type " + t.name());
  return 1;
}

int32_t hyrax_rt_check_cancel(QueryContext* ctx) {
  if (!ctx->cancelled()) return 0;
  return hyrax_rt_error(ctx, HYRAX_ERR_CANCELLED);
}

int32_t hyrax_rt_write_row(QueryContext* ctx, RowWriter* writer, const ValueSlot* row) {
  return guarded(ctx, 1, [&] {
    writer->write(*ctx, row);
    ctx->countWritten();
    return 0;
  });
}

int32_t hyrax_rt_date_part(int32_t days, int32_t field) {
  int32_t y;
  uint32_t m, d;
  text::civilFromDays(days, y, m, d);
  return field == 0 ? y : field == 1 ? static_cast<int32_t>(m) : static_cast<int32_t>(d);
}


double hyrax_rt_round_double(double x, int32_t digits) { return math::roundDouble(x, digits); }
double hyrax_rt_floor_double(double x, int32_t ceil) { return ceil ? std::ceil(x) : std::floor(x); }
int64_t hyrax_rt_decimal_floor(int64_t scaled, int32_t scale, int32_t ceil) {
  int64_t f = text::pow10(static_cast<unsigned>(scale));
  int64_t q = scaled / f, r = scaled % f;  // q truncates toward zero
  if (r != 0 && (ceil ? r > 0 : r < 0)) q += ceil ? 1 : -1;
  return q;
}
int32_t hyrax_rt_sqrt(QueryContext* ctx, double x, double* out) {
  if (x < 0) return hyrax_rt_error(ctx, HYRAX_ERR_NEGATIVE_SQRT);
  *out = std::sqrt(x);
  return 0;
}
double hyrax_rt_power(double x, double y) { return std::pow(x, y); }
int32_t hyrax_rt_current_date(QueryContext* ctx) { return text::dateOfTimestamp(ctx->transactionTime()); }

uint32_t hyrax_rt_table_chunks(Table* t) { return t->chunkCount(); }
uint32_t hyrax_rt_table_chunk_rows(Table* t, uint32_t chunk) { return t->chunkRows(chunk); }

uint64_t hyrax_rt_index_find(const Index* index, const uint8_t* probe) { return index->findFirst(probe); }
namespace {
uint64_t copyRows(QueryContext* ctx, const std::vector<uint64_t>& found, uint64_t** rows) {
  auto* out = reinterpret_cast<uint64_t*>(ctx->arena().allocate(found.size() * sizeof(uint64_t) + 8));
  std::copy(found.begin(), found.end(), out);
  *rows = out;
  return found.size();
}
// The rows an index call found, gathered here (its capacity kept between calls: an index
// nested-loop join makes one call per outer row) and then copied into the query's arena.
std::vector<uint64_t>& foundRows() {
  thread_local std::vector<uint64_t> found;
  found.clear();
  return found;
}
}  // namespace

uint64_t hyrax_rt_index_find_all(QueryContext* ctx, const Index* index, const uint8_t* probe, uint64_t** rows) {
  return guarded(ctx, UINT64_MAX, [&] {
    std::vector<uint64_t>& found = foundRows();
    index->forEachEqual(probe, [&](uint64_t r) { found.push_back(r); });
    return copyRows(ctx, found, rows);
  });
}
uint64_t hyrax_rt_index_range(QueryContext* ctx, const Index* index, const uint8_t* low, const uint8_t* high,
                              uint32_t columns, uint32_t flags, uint64_t limit, uint64_t** rows) {
  return guarded(ctx, UINT64_MAX, [&] {
    std::vector<uint64_t>& found = foundRows();
    if (limit == 0) return copyRows(ctx, found, rows);
    KeyBound lo{low, columns & 0xFFFF, (flags & 1) != 0}, hi{high, columns >> 16, (flags & 2) != 0};
    index->forEachInRange(lo, hi, (flags & 4) != 0, [&](uint64_t r) {
      found.push_back(r);
      return found.size() < limit;
    });
    return copyRows(ctx, found, rows);
  });
}

const ValueSlot* hyrax_rt_params(QueryContext* ctx) { return ctx->parameters().data(); }

ResultChunkView* hyrax_rt_result_view(QueryContext* ctx) {
  return guarded(ctx, static_cast<ResultChunkView*>(nullptr), [&] { return ctx->currentResult(); });
}
int32_t hyrax_rt_result_flush(QueryContext* ctx) {
  return guarded(ctx, 1, [&] {
    ctx->flushResult();
    return 0;
  });
}

HashTable* hyrax_rt_ht_create(QueryContext* ctx, uint32_t entrySize, uint64_t expected) {
  return guarded(ctx, static_cast<HashTable*>(nullptr), [&] { return ctx->newHashTable(entrySize, expected); });
}
void* hyrax_rt_ht_insert(QueryContext* ctx, HashTable* ht, uint64_t hash) {
  return guarded(ctx, static_cast<void*>(nullptr), [&] { return ht->insert(hash); });
}
uint64_t hyrax_rt_ht_count(HashTable* ht) { return ht->count(); }
void* hyrax_rt_ht_entry(HashTable* ht, uint64_t i) { return ht->entry(i); }
void* hyrax_rt_ht_entry_run(HashTable* ht, uint64_t i, uint64_t* run) {
  run[1] = ht->entrySize();
  return ht->entryRun(i, &run[0]);
}
void hyrax_rt_ht_note_null(HashTable* ht) { ht->noteNullKey(); }
int32_t hyrax_rt_ht_saw_null(HashTable* ht) { return ht->sawNullKey() ? 1 : 0; }

RowBuffer* hyrax_rt_buf_create(QueryContext* ctx, uint32_t rowSize) {
  return guarded(ctx, static_cast<RowBuffer*>(nullptr), [&] { return ctx->newRowBuffer(rowSize); });
}
void* hyrax_rt_buf_append(QueryContext* ctx, RowBuffer* b) {
  return guarded(ctx, static_cast<void*>(nullptr), [&] { return b->append(); });
}
uint64_t hyrax_rt_buf_count(RowBuffer* b) { return b->count(); }
void* hyrax_rt_buf_row(RowBuffer* b, uint64_t i) { return b->row(i); }
int32_t hyrax_rt_buf_sort(QueryContext* ctx, RowBuffer* b, int32_t (*cmp)(const void*, const void*),
                          const uint32_t* keys, int32_t count) {
  return guarded(ctx, 1, [&] {  // a stable sort allocates its merge buffer
    static_assert(sizeof(SortKeyColumn) == 4 * sizeof(uint32_t));
    std::vector<SortKeyColumn> columns(static_cast<size_t>(count));
    if (count > 0) std::memcpy(columns.data(), keys, columns.size() * sizeof(SortKeyColumn));
    const SortKeyEncoder encoder(columns.data(), static_cast<uint32_t>(columns.size()));
    b->sort(cmp, ctx->threads(), &encoder);
    return 0;
  });
}
void hyrax_rt_buf_keep_first(RowBuffer* b, uint64_t limit, int32_t (*cmp)(const void*, const void*)) {
  b->keepFirst(limit, cmp);  // only notes the limit
}
void hyrax_rt_buf_keep_per_partition(RowBuffer* b, int32_t (*same)(const void*, const void*), uint64_t offset,
                                     uint64_t limit, int64_t rankAt) {
  b->keepPerPartition(same, offset, limit, rankAt);
}
void hyrax_rt_buf_window_frames(RowBuffer* b, int32_t (*samePartition)(const void*, const void*),
                                int32_t (*samePeers)(const void*, const void*), int64_t at) {
  b->windowFrames(samePartition, samePeers, at);
}

}  // extern "C"
