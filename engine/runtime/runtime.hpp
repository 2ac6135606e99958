#pragma once
// Precompiled functions called by generated code. Every one is extern "C" and listed once in
// runtime/function_table.cpp, from which codegen declares them and the JIT resolves them.
//
// ABI rules (the same on x86-64 and 32-bit ARM): arguments and results are only int8/int32/int64,
// double and pointers; a string travels as two uint64_t halves (see string_ref.hpp); a function
// that can fail records the error in the QueryContext and returns a non-zero int32 status (or
// nullptr), and the generated code then returns from its pipeline with that status.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace hyrax {
class QueryContext;
class HashTable;
class RowBuffer;
class Table;
class Index;
class RowWriter;
struct ResultChunkView;
struct ValueSlot;
struct RoutineHandle;
struct SequenceHandle;
}  // namespace hyrax

// Runtime error codes passed to hyrax_rt_error (generated code knows these numbers).
enum HyraxRuntimeError : int32_t {
  HYRAX_ERR_DIVISION_BY_ZERO = 1,   // 22012
  HYRAX_ERR_OVERFLOW = 2,           // 22003 numeric value out of range
  // 3 was 22001, now hyrax_rt_string_too_long (the message names the type)
  HYRAX_ERR_CANCELLED = 4,          // 57014
  HYRAX_ERR_NULL_VIOLATION = 5,     // 23502
  HYRAX_ERR_SUBQUERY_ROWS = 6,      // 21000 a scalar subquery yielded more than one row
  HYRAX_ERR_SUBSTRING_LENGTH = 7,   // 22011 negative substring length
  HYRAX_ERR_NEGATIVE_SQRT = 8,      // 2201F square root of a negative number
  HYRAX_ERR_DATE_RANGE = 9,         // 22008 date arithmetic left 0001-01-01 .. 9999-12-31
  HYRAX_ERR_LENGTH_TOO_LARGE = 10,  // 54000 a string function asked for more than 1 GB
  HYRAX_ERR_BAD_CHARACTER = 11,     // 54000 chr() of 0, a surrogate or past U+10FFFF
  HYRAX_ERR_FIELD_ZERO = 12,        // 22023 split_part's field position 0
  HYRAX_ERR_NEGATIVE_LIMIT = 13,    // 2201W LIMIT $1 of a negative value
  HYRAX_ERR_NEGATIVE_OFFSET = 14,   // 2201X OFFSET $1 likewise
  HYRAX_ERR_UNDERFLOW = 15,         // 22003 a float product or quotient of non-zero operands became 0
  HYRAX_ERR_FLOAT_OVERFLOW = 16,    // 22003 a float function's result of a finite argument is infinite
  HYRAX_ERR_LOG_OF_ZERO = 17,       // 2201E ln, log of 0
  HYRAX_ERR_LOG_OF_NEGATIVE = 18,   // 2201E ln, log of a negative number
  HYRAX_ERR_NTILE_COUNT = 19,       // 22014 ntile's bucket count not above zero
  HYRAX_ERR_NTH_VALUE = 20,         // 22016 nth_value's position not above zero
};

extern "C" {

// ---- errors and cancellation ----
// Records the error for `code` and returns 1 (the status the pipeline then returns).
int32_t hyrax_rt_error(hyrax::QueryContext* ctx, int32_t code);
// 22001 for a string longer than CHAR(n)/VARCHAR(n) allows, naming the type (hyrax_rt_fit_string's
// error; generated code calls that one).
int32_t hyrax_rt_string_too_long(hyrax::QueryContext* ctx, int32_t typeId, int32_t length);
// A string headed for a CHAR(n)/VARCHAR(n) (text::fitString): an explicit CAST cuts it to n
// characters, an assignment only its trailing blanks (22001 when others would go). Into out[0..1]
// (a part of the string); 0, or 1 with the error set.
int32_t hyrax_rt_fit_string(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t typeId, int32_t length,
                            int32_t explicitCast, uint64_t* out);
// 0 normally; records 57014 and returns 1 when the statement was cancelled (Ctrl-C).
int32_t hyrax_rt_check_cancel(hyrax::QueryContext* ctx);

// ---- table scans: chunk by chunk (columns found inline: Table::chunkBases) ----
uint32_t hyrax_rt_table_chunks(hyrax::Table* t);
uint32_t hyrax_rt_table_chunk_rows(hyrax::Table* t, uint32_t chunk);
// Selection vectors (scan_selection.cpp): the positions i in [first, last) of a chunk's column
// (`width` bytes per value: 2, 4 or 8, signed) with lo <= column[i] <= hi and, when `nulls` is
// given (the chunk's NULL bitmap of the column), not NULL, written in order to sel; their count.
uint32_t hyrax_rt_select_range(const void* column, const uint8_t* nulls, uint32_t width, uint32_t first, uint32_t last,
                               int64_t lo, int64_t hi, uint32_t* sel);
// Keeps of sel[0, count) the positions whose value lies in [lo, hi] (and is not NULL), in order.
uint32_t hyrax_rt_refine_range(const void* column, const uint8_t* nulls, uint32_t width, uint32_t* sel, uint32_t count,
                               int64_t lo, int64_t hi);
// The same for a column equal to one of `count` values: integers (a column of `width` bytes,
// values sorted when there are more than 16) or strings (StringRefs, a column of them).
uint32_t hyrax_rt_select_values(const void* column, const uint8_t* nulls, uint32_t width, const int64_t* values, uint32_t count,
                                uint32_t first, uint32_t last, uint32_t* sel);
uint32_t hyrax_rt_refine_values(const void* column, const uint8_t* nulls, uint32_t width, const int64_t* values, uint32_t count,
                                uint32_t* sel, uint32_t kept);
uint32_t hyrax_rt_select_strings(const void* column, const uint8_t* nulls, const void* values, uint32_t count, uint32_t first,
                                 uint32_t last, uint32_t* sel);
uint32_t hyrax_rt_refine_strings(const void* column, const uint8_t* nulls, const void* values, uint32_t count, uint32_t* sel,
                                 uint32_t kept);
// The same for a string column that matches (or, `negated`, does not match) a LIKE pattern
// prepared by prepareLikePattern (like_pattern.hpp); NULLs out either way.
uint32_t hyrax_rt_select_like(const void* column, const uint8_t* nulls, const char* prepared, uint32_t negated, uint32_t first,
                              uint32_t last, uint32_t* sel);
uint32_t hyrax_rt_refine_like(const void* column, const uint8_t* nulls, const char* prepared, uint32_t negated, uint32_t* sel,
                              uint32_t kept);
// The same for two columns of the row compared, both stored as signed integers of the same width
// (shape & 0xff bytes: 2, 4 or 8; the same type, DECIMALs of one scale) and both not NULL: a[i]
// op b[i], op = shape >> 8, one of HyraxCompare (> and >= are < and <= with a and b swapped).
enum HyraxCompare : uint32_t { HYRAX_COMPARE_EQ = 0, HYRAX_COMPARE_NE = 1, HYRAX_COMPARE_LT = 2, HYRAX_COMPARE_LE = 3 };
uint32_t hyrax_rt_select_compare(const void* a, const uint8_t* aNulls, const void* b, const uint8_t* bNulls, uint32_t shape,
                                 uint32_t first, uint32_t last, uint32_t* sel);
uint32_t hyrax_rt_refine_compare(const void* a, const uint8_t* aNulls, const void* b, const uint8_t* bNulls, uint32_t shape,
                                 uint32_t* sel, uint32_t kept);
// The same for an integer column whose value a join's built hash table may hold (its key filter,
// HashTable::buildKeyFilter: a few false positives, never a false negative; NULLs out): the rows a join that drops
// probe rows without a match would drop, skipped before the generated code sees them.
uint32_t hyrax_rt_select_joined(const hyrax::HashTable* table, const void* column, const uint8_t* nulls, uint32_t width,
                                uint32_t first, uint32_t last, uint32_t* sel);
uint32_t hyrax_rt_refine_joined(const hyrax::HashTable* table, const void* column, const uint8_t* nulls, uint32_t width,
                                uint32_t* sel, uint32_t kept);
// The same for two integer key columns (a join on two keys): columns = {a, a's NULLs, b, b's
// NULLs} (NULL bitmaps may be null), widths = a's | b's << 8; the keys hashed and combined as
// generated code does (hashInteger, combineHashes), a NULL in either and the row is out.
uint32_t hyrax_rt_select_joined2(const hyrax::HashTable* table, const void* const* columns, uint32_t widths, uint32_t first,
                                 uint32_t last, uint32_t* sel);
uint32_t hyrax_rt_refine_joined2(const hyrax::HashTable* table, const void* const* columns, uint32_t widths, uint32_t* sel,
                                 uint32_t kept);

// ---- index lookups (engine/index): the probe key is laid out as IndexKey describes ----
// The first row with that key, or ~0 (a unique index has at most one).
uint64_t hyrax_rt_index_find(const hyrax::Index* index, const uint8_t* probe);
// All rows with that key: their count (UINT64_MAX after recording an error: memory); `*rows`
// points at them (in the query's arena).
uint64_t hyrax_rt_index_find_all(hyrax::QueryContext* ctx, const hyrax::Index* index, const uint8_t* probe, uint64_t** rows);
// Ordered indexes: the rows whose key lies between two probes, in key order, into *rows (the
// query's arena); returns their number. `columns` holds the low probe's key columns in its low 16
// bits and the high probe's in the high 16 (0: unbounded); `flags` bit 0: low inclusive, bit 1:
// high inclusive, bit 2: descending order. At most `limit` rows.
uint64_t hyrax_rt_index_range(hyrax::QueryContext* ctx, const hyrax::Index* index, const uint8_t* low,
                              const uint8_t* high, uint32_t columns, uint32_t flags, uint64_t limit, uint64_t** rows);

// ---- stored functions (engine/runtime/routine_caller.hpp): 0, or 1 after recording the error ----
int32_t hyrax_rt_call_routine(hyrax::QueryContext* ctx, hyrax::RoutineHandle* routine, const hyrax::ValueSlot* args,
                              uint32_t count, hyrax::ValueSlot* out);

// ---- sequences (engine/runtime/sequence_calls.hpp): 0, or 1 after recording the error ----
int32_t hyrax_rt_nextval(hyrax::QueryContext* ctx, hyrax::SequenceHandle* sequence, int64_t* out);
int32_t hyrax_rt_currval(hyrax::QueryContext* ctx, hyrax::SequenceHandle* sequence, int64_t* out);
int32_t hyrax_rt_setval(hyrax::QueryContext* ctx, hyrax::SequenceHandle* sequence, int64_t value, int32_t isCalled);

// ---- parameters of prepared statements and procedure variables (value_slot.hpp) ----
const hyrax::ValueSlot* hyrax_rt_params(hyrax::QueryContext* ctx);
// A compiled procedure body's steps that need the C++ side (program_host.hpp), and the context's
// reset before each of its plans (`resultTypes`: the plan's std::vector<SqlType>).
int32_t hyrax_rt_program_host(hyrax::QueryContext* ctx, uint32_t step);
void hyrax_rt_program_reset(hyrax::QueryContext* ctx, const void* resultTypes);
// Entering a body's block with an EXCEPTION section: the undo log's savepoint (ctx->undo()).
uint64_t hyrax_rt_program_savepoint(hyrax::QueryContext* ctx);
// A failure inside that block (`block`: Program::tries): the host undoes the writes since
// `savepoint` and returns the step of the handler that catches the error, or -1 (not caught here).
int32_t hyrax_rt_program_catch(hyrax::QueryContext* ctx, uint32_t block, uint64_t savepoint);

// ---- a write statement's one row (row_writer.hpp): 0, or 1 after recording the error ----
int32_t hyrax_rt_write_row(hyrax::QueryContext* ctx, hyrax::RowWriter* writer, const hyrax::ValueSlot* row);

// ---- results ----
hyrax::ResultChunkView* hyrax_rt_result_view(hyrax::QueryContext* ctx);
// The view's chunk is full: hand it over and make the view point at a fresh, empty chunk.
int32_t hyrax_rt_result_flush(hyrax::QueryContext* ctx);  // 0, or 1 after recording the error

// ---- hash tables (joins, aggregation, DISTINCT) ----
// Entries are `entrySize` bytes, stable in memory: a HashEntryHeader {next, hash}, then the
// payload, laid out by the generated code. Inserting never moves entries; the bucket array grows
// by rehashing stored hashes. Lookups are inlined by the generated code: a HashTable starts with
// a HashDirectory {buckets, shift}; the chain of hash h starts at the entry in the low 48 bits of
// buckets[(h * kHashBucketMultiplier) >> shift], unless that bucket's tag bit hashTag(h) is
// clear: then no entry of the chain has hash h (hash_table.hpp).
// Functions that allocate return null (or a non-zero status, or UINT64_MAX for a row count) after
// recording the error: past the statement's memory_limit (53200), out of memory.
hyrax::HashTable* hyrax_rt_ht_create(hyrax::QueryContext* ctx, uint32_t entrySize, uint64_t expectedEntries);
void* hyrax_rt_ht_insert(hyrax::QueryContext* ctx, hyrax::HashTable* ht, uint64_t hash);  // new zeroed entry, chained in
uint64_t hyrax_rt_ht_count(hyrax::HashTable* ht);
void* hyrax_rt_ht_entry(hyrax::HashTable* ht, uint64_t i);      // i-th inserted entry
// Entry i (i < count), with run[0] the entries from it on that lie contiguously (at least 1) and
// run[1] their stride: loops over entries call it once per block.
void* hyrax_rt_ht_entry_run(hyrax::HashTable* ht, uint64_t i, uint64_t* run);
void hyrax_rt_ht_note_null(hyrax::HashTable* ht);                // a NULL-aware mark join's build met a NULL key
int32_t hyrax_rt_ht_saw_null(hyrax::HashTable* ht);              // ... whether it did

// ---- row buffers (sort, materialisation) ----
hyrax::RowBuffer* hyrax_rt_buf_create(hyrax::QueryContext* ctx, uint32_t rowSize);
void* hyrax_rt_buf_append(hyrax::QueryContext* ctx, hyrax::RowBuffer* b);  // zeroed row
uint64_t hyrax_rt_buf_count(hyrax::RowBuffer* b);
void* hyrax_rt_buf_row(hyrax::RowBuffer* b, uint64_t i);  // i-th row in the current order
// Stable sort by a generated comparator (negative/zero/positive, like memcmp).
// `keys`: `count` SortKeyColumns (row_sort.hpp), the ORDER BY keys as the comparator orders them.
int32_t hyrax_rt_buf_sort(hyrax::QueryContext* ctx, hyrax::RowBuffer* b, int32_t (*cmp)(const void*, const void*),
                          const uint32_t* keys, int32_t count);
// ORDER BY ... LIMIT: only the first `limit` rows in cmp's order are wanted (top-k, row_buffer.hpp).
void hyrax_rt_buf_keep_first(hyrax::RowBuffer* b, uint64_t limit, int32_t (*cmp)(const void*, const void*));
// After the sort: a LIMIT/OFFSET per partition of rows `same` calls equal (RowBuffer::keepPerPartition).
void hyrax_rt_buf_keep_per_partition(hyrax::RowBuffer* b, int32_t (*same)(const void*, const void*), uint64_t offset,
                                     uint64_t limit, int64_t rankAt);
// After the sort: each row's partition and peer bounds for window functions (RowBuffer::windowFrames).
void hyrax_rt_buf_window_frames(hyrax::RowBuffer* b, int32_t (*samePartition)(const void*, const void*),
                                int32_t (*samePeers)(const void*, const void*), int64_t at);

// ---- dates ----
int32_t hyrax_rt_date_part(int32_t days, int32_t field);  // field: 0 year, 1 month, 2 day

// ---- hashing ----
uint64_t hyrax_rt_hash_string(uint64_t lo, uint64_t hi);

// ---- strings ----
// Full comparison for strings whose first 8 bytes (length+prefix) did not decide it.
int32_t hyrax_rt_str_cmp(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi);
int8_t hyrax_rt_str_eq(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi);
// SQL LIKE with '%' and '_' (and '\' escaping the next pattern character).
int8_t hyrax_rt_like(uint64_t slo, uint64_t shi, uint64_t plo, uint64_t phi);
// LIKE with a constant pattern prepared at compile time (like_pattern.hpp).
int8_t hyrax_rt_like_prepared(uint64_t slo, uint64_t shi, const char* prepared);
// Strings made at run time live in the query's arena; results come back through out[0..1].
int32_t hyrax_rt_str_concat(hyrax::QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi,
                            uint64_t* out);  // 0, or 1 after recording the error (memory)

// ---- casts that go through text or need 128-bit arithmetic; status 0 = ok ----
// Scalar string functions (plan::ScalarFunc); results that are new strings live in the arena.
int32_t hyrax_rt_substring(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, int64_t start, int64_t count,
                           uint64_t* out);  // count < 0 and !hasCount: to the end
int32_t hyrax_rt_str_case(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t upper, uint64_t* out);
int32_t hyrax_rt_char_length(uint64_t lo, uint64_t hi);
int32_t hyrax_rt_ascii(uint64_t lo, uint64_t hi);  // the first code point, 0 for ''
// Numeric functions (ROUND, FLOOR, CEIL, SQRT, POWER; the others of math_functions.hpp below).
double hyrax_rt_round_double(double x, int32_t digits);
double hyrax_rt_floor_double(double x, int32_t ceil);
int64_t hyrax_rt_decimal_floor(int64_t scaled, int32_t scale, int32_t ceil);  // -> scale 0
int32_t hyrax_rt_sqrt(hyrax::QueryContext* ctx, double x, double* out);
double hyrax_rt_power(double x, double y);
// exp, ln, log, log(b, x), cbrt (math::FloatFn `fn`; y only for log(b, x)), trunc(x, digits),
// round/trunc of a DECIMAL or integer to `digits` places, div, gcd and lcm
// (engine/runtime/math_functions.hpp says how each fails); status 0, or 1 with the error set.
int32_t hyrax_rt_float_fn(hyrax::QueryContext* ctx, int32_t fn, double x, double y, double* out);
double hyrax_rt_trunc_double(double x, int32_t digits);
int32_t hyrax_rt_round_scaled(hyrax::QueryContext* ctx, int64_t x, int32_t scale, int32_t digits, int32_t truncate,
                              int64_t maxAbs, int64_t* out);
int32_t hyrax_rt_div_truncated(hyrax::QueryContext* ctx, int64_t a, int64_t b, int64_t* out);
int32_t hyrax_rt_gcd(hyrax::QueryContext* ctx, int64_t a, int64_t b, int32_t lcm, int64_t maxAbs, int64_t* out);
int32_t hyrax_rt_current_date(hyrax::QueryContext* ctx);  // the transaction's day (UTC), days since 1970-01-01
// ---- TIMESTAMP, TIME, INTERVAL (datetime_functions.cpp); an interval is (micros, high) as in
// text::Interval; statuses 0 = ok, 1 = the error is set ----
int64_t hyrax_rt_transaction_time(hyrax::QueryContext* ctx);  // CURRENT_TIMESTAMP, µs since 1970 (UTC)
int32_t hyrax_rt_cast_str_to_timestamp(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t time, int64_t* out);
int32_t hyrax_rt_cast_str_to_interval(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, uint64_t* out);
int32_t hyrax_rt_datetime_to_str(hyrax::QueryContext* ctx, int32_t typeId, int64_t bits, uint64_t high, uint64_t* out);
int32_t hyrax_rt_timestamp_add_interval(hyrax::QueryContext* ctx, int64_t t, int64_t micros, uint64_t high,
                                        int32_t subtract, int64_t* out);
int32_t hyrax_rt_interval_add(hyrax::QueryContext* ctx, int64_t am, uint64_t ah, int64_t bm, uint64_t bh,
                              int32_t subtract, uint64_t* out);
int32_t hyrax_rt_interval_scale(hyrax::QueryContext* ctx, int64_t micros, uint64_t high, double x, int32_t divide,
                                uint64_t* out);  // interval * x or / x
int32_t hyrax_rt_interval_cmp(int64_t am, uint64_t ah, int64_t bm, uint64_t bh);  // -1, 0, 1 by span
uint64_t hyrax_rt_interval_hash(int64_t micros, uint64_t high);
int64_t hyrax_rt_extract(int32_t typeId, int32_t field, int64_t bits, uint64_t high);  // text::extractField
// date_trunc, make_date/time/timestamp, justify_*, age (engine/types/calendar.hpp says how each
// fails). date_trunc of a TIMESTAMP writes out[0], of an INTERVAL (typeId) both words.
int32_t hyrax_rt_date_trunc(hyrax::QueryContext* ctx, int32_t typeId, int32_t field, int64_t bits, uint64_t high,
                            uint64_t* out);
int32_t hyrax_rt_make_date(hyrax::QueryContext* ctx, int32_t y, int32_t m, int32_t d, int32_t* out);
int32_t hyrax_rt_make_time(hyrax::QueryContext* ctx, int32_t h, int32_t m, double s, int64_t* out);
int32_t hyrax_rt_make_timestamp(hyrax::QueryContext* ctx, int32_t y, int32_t mo, int32_t d, int32_t h, int32_t mi,
                                double s, int64_t* out);
int32_t hyrax_rt_justify(hyrax::QueryContext* ctx, int32_t how, int64_t micros, uint64_t high, uint64_t* out);
int32_t hyrax_rt_age(hyrax::QueryContext* ctx, int64_t t1, int64_t t2, uint64_t* out);
int32_t hyrax_rt_position(uint64_t nlo, uint64_t nhi, uint64_t lo, uint64_t hi);
// current_setting(name [, missing_ok]) into *out (string_functions.cpp); *isNull 1 for a missing
// name when missingOk. 0, or 1 with the error set (42704).
int32_t hyrax_rt_current_setting(hyrax::QueryContext* ctx, uint64_t nlo, uint64_t nhi, int32_t missingOk, uint64_t* out,
                                 int8_t* isNull);
// s ~ pattern (caseInsensitive 1: ~*) into *out (1 or 0): 0, or 1 with the error set (2201B for a
// malformed pattern). The dialect: engine/runtime/regex_match.hpp.
int32_t hyrax_rt_regex_match(hyrax::QueryContext* ctx, uint64_t slo, uint64_t shi, uint64_t plo, uint64_t phi,
                             int32_t caseInsensitive, int8_t* out);
void hyrax_rt_trim(uint64_t lo, uint64_t hi, uint64_t clo, uint64_t chi, int32_t leading, int32_t trailing, uint64_t* out);
// replace(s, from, to); lpad / rpad(s, length, fill) (`left` 1: lpad). 0, or 1 with the error set.
int32_t hyrax_rt_replace(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, uint64_t flo, uint64_t fhi, uint64_t tlo,
                         uint64_t thi, uint64_t* out);
int32_t hyrax_rt_pad(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, int64_t length, uint64_t flo, uint64_t fhi,
                     int32_t left, uint64_t* out);
// split_part(s, delimiter, n); chr(code). 0, or 1 with the error set.
int32_t hyrax_rt_split_part(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, uint64_t dlo, uint64_t dhi, int64_t n,
                            uint64_t* out);
int32_t hyrax_rt_chr(hyrax::QueryContext* ctx, int64_t code, uint64_t* out);
// repeat, reverse, initcap, translate, overlay, md5, to_hex, regexp_replace: textfn::TextFn `fn`
// (text_functions.hpp) of args[0..7], four strings as StringRef halves (unused ones empty), and
// args[8..9], two integers (unused ones 0), into *out (the query's arena). 0, or 1 with the error set.
int32_t hyrax_rt_text_function(hyrax::QueryContext* ctx, int32_t fn, uint64_t* args, uint64_t* out);
// starts_with(s, prefix): 1 or 0.
int32_t hyrax_rt_starts_with(uint64_t lo, uint64_t hi, uint64_t plo, uint64_t phi);
int32_t hyrax_rt_cast_str_to_int(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t typeId, int64_t* out);
int32_t hyrax_rt_cast_str_to_decimal(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t precision,
                                     int32_t scale, int64_t* out);
int32_t hyrax_rt_cast_str_to_double(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, double* out);
int32_t hyrax_rt_cast_str_to_date(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t* out);
int32_t hyrax_rt_cast_str_to_bool(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, int8_t* out);
// Arrays (array_functions.cpp; an array is its canonical text, engine/types/array_text.hpp). Each
// returns 0, or 1 with the error set; results are in the query's arena. elementType is a
// hyrax::TypeId; cmp is plan::CmpOp's order (= <> < <= > >=).
// text -> array of elementType, made canonical (22P02, 22003; 0A000 for more than one dimension).
int32_t hyrax_rt_array_in(hyrax::QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t elementType, uint64_t* out);
// array_append / array_prepend: the element's canonical text (or NULL) added at the end or the front;
// a NULL array is taken as empty. flags: kArrayNull | kElementNull | kPrepend.
enum : int32_t { kArrayNull = 1, kElementNull = 2, kPrepend = 4 };
int32_t hyrax_rt_array_append(hyrax::QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t elo, uint64_t ehi,
                              int32_t flags, uint64_t* out);
// array_agg's own steps on its group's state, which nothing else reads until the aggregation ends:
// the array's text kept open (without its closing brace) in a buffer that doubles, so a value is
// appended in place, and a group of n values costs O(n) time and memory (a new copy per value
// was O(n^2): 100,000 values in one group took gigabytes). add: the value's text (flags
// kArrayNull: the first, kElementNull); merge: b's values after a's; close: the array's text.
int32_t hyrax_rt_array_agg_add(hyrax::QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t elo, uint64_t ehi,
                               int32_t flags, uint64_t* out);
int32_t hyrax_rt_array_agg_merge(hyrax::QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi,
                                 uint64_t* out);
int32_t hyrax_rt_array_agg_close(hyrax::QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t* out);
// a || b of two non-NULL arrays.
int32_t hyrax_rt_array_cat(hyrax::QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi, uint64_t* out);
// array_to_string(a, separator [, null string]): NULL elements left out when nlo is kNoString.
inline constexpr uint64_t kNoString = ~uint64_t{0};  // no StringRef's low half (its length is below 2^30)
int32_t hyrax_rt_array_to_string(hyrax::QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t slo, uint64_t shi,
                                 uint64_t nlo, uint64_t nhi, uint64_t* out);
// a[index] (1-based) as text; *isNull 1 out of range or for a NULL element.
int32_t hyrax_rt_array_element(hyrax::QueryContext* ctx, uint64_t alo, uint64_t ahi, int64_t index, uint64_t* out,
                               int8_t* isNull);
// cardinality(a).
int32_t hyrax_rt_array_count(hyrax::QueryContext* ctx, uint64_t alo, uint64_t ahi, int32_t* out);
// x cmp ANY (a) or x cmp ALL (a), x as the element's canonical text; mode = elementType | cmp << 8
// | all << 16. *out 0 false, 1 true, 2 NULL (three-valued over NULL elements).
int32_t hyrax_rt_array_any(hyrax::QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t xlo, uint64_t xhi, int32_t mode,
                           int8_t* out);
// The elements sorted (ARRAY(SELECT x ... ORDER BY x)): integers by value, text by bytes.
int32_t hyrax_rt_array_sort(hyrax::QueryContext* ctx, uint64_t alo, uint64_t ahi, int32_t elementType, int32_t descending,
                            int32_t nullsFirst, uint64_t* out);
// Values to text (typeId is hyrax::TypeId; `bits` holds the integral payload or the double's bits).
int32_t hyrax_rt_cast_to_str(hyrax::QueryContext* ctx, int32_t typeId, int32_t scale, int64_t bits, uint64_t* out);

// Decimal division: (a / 10^as) / (b / 10^bs) as a value scaled by 10^rs, rounded half away from
// zero. Status 1 on division by zero or overflow.
int32_t hyrax_rt_decimal_div(hyrax::QueryContext* ctx, int64_t a, int32_t as, int64_t b, int32_t bs, int32_t rs,
                             int64_t* out);
// Rescale a decimal (or integer with scale 0) from scale `from` to scale `to`, rounding half away
// from zero; status 1 on overflow of `precision` digits.
int32_t hyrax_rt_decimal_rescale(hyrax::QueryContext* ctx, int64_t v, int32_t from, int32_t to, int32_t precision,
                                 int64_t* out);

// `d` as a scaled integer of `scale` digits and `precision` (18: any 64-bit value), 22003 beyond
// them. To an integer type (`decimalDigits` 0) a half goes to the even neighbour, as PostgreSQL's
// rint (CAST(2.5::float8 AS integer) is 2); to a DECIMAL through the float's text of
// `decimalDigits` significant digits (15 for DOUBLE PRECISION, 6 for REAL), rounded away from
// zero, as its numeric does (text::floatToDecimal).
// A DECIMAL beyond 2^53 unscaled as the nearest double (text::decimalToDouble; generated code
// divides the smaller ones itself).
double hyrax_rt_decimal_to_double(int64_t scaled, int32_t scale);
int32_t hyrax_rt_double_to_int(hyrax::QueryContext* ctx, double d, int32_t scale, int32_t precision, int32_t decimalDigits,
                               int64_t* out);

}  // extern "C"

namespace hyrax {

enum class AbiType : uint8_t { Void, I8, I32, I64, F64, Ptr };

// The ABI type of a C++ parameter or result type, by the rules at the top of this file; any other
// type does not compile.
template <typename T>
constexpr AbiType abiTypeOf() {
  if constexpr (std::is_void_v<T>) return AbiType::Void;
  else if constexpr (std::is_pointer_v<T>) return AbiType::Ptr;  // data and function pointers
  else if constexpr (std::is_same_v<T, double>) return AbiType::F64;
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) return AbiType::I8;
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) return AbiType::I32;
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 8) return AbiType::I64;
  else static_assert(sizeof(T) == 0, "runtime functions take and return only int8/int32/int64, double and pointers");
}

// One row of the runtime function table: its signature is derived from the function's C++ type
// (runtimeFunction below), so the LLVM declaration codegen makes from it cannot disagree.
struct RuntimeFunction {
  const char* name;
  void* address;
  AbiType ret;
  uint8_t argc;
  AbiType args[8];
  // It uses the session thread's objects (ThreadScope: the routine caller, the sequence session,
  // a procedure's host) or changes the database: a pipeline that calls it runs on that thread.
  bool sessionThread = false;
  // Calls `address` with arguments and result as 64-bit slots (codegen/interp's interpreter, which
  // cannot make a native call of a signature known only at run time): integers zero-extended,
  // doubles as their bits, pointers as addresses. Made from the C++ type, like the signature.
  void (*invoke)(void* fn, const uint64_t* args, uint64_t* result) = nullptr;
};

// A value to and from the interpreter's 64-bit slots (RuntimeFunction::invoke).
template <typename T>
T fromSlot(uint64_t v) {
  if constexpr (std::is_pointer_v<T>) return reinterpret_cast<T>(static_cast<uintptr_t>(v));
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(v);
  else if constexpr (std::is_same_v<T, bool>) return v != 0;
  else return static_cast<T>(v);
}
template <typename T>
uint64_t toSlot(T v) {
  if constexpr (std::is_pointer_v<T>) return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(v));
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<uint64_t>(v);
  else if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
  else return static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
}
template <typename R, typename... Args, std::size_t... I>
void invokeWithSlots(void* fn, const uint64_t* args, uint64_t* result, std::index_sequence<I...>) {
  auto* f = reinterpret_cast<R (*)(Args...)>(fn);
  if constexpr (std::is_void_v<R>) {
    f(fromSlot<Args>(args[I])...);
    (void)result;
  } else {
    *result = toSlot<R>(f(fromSlot<Args>(args[I])...));
  }
  (void)args;
}
template <typename R, typename... Args>
void invokeWithSlots(void* fn, const uint64_t* args, uint64_t* result) {
  invokeWithSlots<R, Args...>(fn, args, result, std::index_sequence_for<Args...>{});
}

template <typename R, typename... Args>
RuntimeFunction runtimeFunction(const char* name, R (*fn)(Args...)) {
  static_assert(sizeof...(Args) <= 8, "a runtime function has at most 8 parameters");
  return {name,  reinterpret_cast<void*>(fn), abiTypeOf<R>(), static_cast<uint8_t>(sizeof...(Args)),
          {abiTypeOf<Args>()...}, false, &invokeWithSlots<R, Args...>};
}
template <typename F>
RuntimeFunction sessionRuntimeFunction(const char* name, F* fn) {
  RuntimeFunction f = runtimeFunction(name, fn);
  f.sessionThread = true;
  return f;
}

// Every function above, in one table.
const RuntimeFunction* runtimeFunctions(unsigned& count);
const RuntimeFunction* findRuntimeFunction(const char* name);  // nullptr when unknown

}  // namespace hyrax
