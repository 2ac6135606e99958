// The one table of runtime functions: codegen declares them from here, the JIT resolves them here.
#include <cstring>

#include "engine/runtime/runtime.hpp"

namespace hyrax {

namespace {
// Each row's signature comes from the function's C++ type (runtimeFunction in runtime.hpp).
#define HYRAX_FN(name) runtimeFunction(#name, &name)
// ... and those that must run on the session's thread (RuntimeFunction::sessionThread).
#define HYRAX_SESSION_FN(name) sessionRuntimeFunction(#name, &name)

const RuntimeFunction kFunctions[] = {
    HYRAX_FN(hyrax_rt_error),
    HYRAX_FN(hyrax_rt_fit_string),
    HYRAX_FN(hyrax_rt_check_cancel),
    HYRAX_FN(hyrax_rt_table_chunks),
    HYRAX_FN(hyrax_rt_table_chunk_rows),
    HYRAX_FN(hyrax_rt_select_range),
    HYRAX_FN(hyrax_rt_refine_range),
    HYRAX_FN(hyrax_rt_select_values),
    HYRAX_FN(hyrax_rt_refine_values),
    HYRAX_FN(hyrax_rt_select_strings),
    HYRAX_FN(hyrax_rt_refine_strings),
    HYRAX_FN(hyrax_rt_select_like),
    HYRAX_FN(hyrax_rt_refine_like),
    HYRAX_FN(hyrax_rt_select_compare),
    HYRAX_FN(hyrax_rt_refine_compare),
    HYRAX_FN(hyrax_rt_select_joined),
    HYRAX_FN(hyrax_rt_refine_joined),
    HYRAX_FN(hyrax_rt_select_joined2),
    HYRAX_FN(hyrax_rt_refine_joined2),
    HYRAX_FN(hyrax_rt_index_find),
    HYRAX_FN(hyrax_rt_params),
    HYRAX_SESSION_FN(hyrax_rt_program_host),
    HYRAX_SESSION_FN(hyrax_rt_program_reset),
    HYRAX_SESSION_FN(hyrax_rt_program_savepoint),
    HYRAX_SESSION_FN(hyrax_rt_program_catch),
    HYRAX_FN(hyrax_rt_index_find_all),
    HYRAX_FN(hyrax_rt_index_range),
    HYRAX_SESSION_FN(hyrax_rt_write_row),
    HYRAX_FN(hyrax_rt_result_view),
    HYRAX_FN(hyrax_rt_result_flush),
    HYRAX_FN(hyrax_rt_date_part),
    HYRAX_FN(hyrax_rt_ht_create),
    HYRAX_FN(hyrax_rt_ht_insert),
    HYRAX_FN(hyrax_rt_ht_count),
    HYRAX_FN(hyrax_rt_ht_entry),
    HYRAX_FN(hyrax_rt_ht_entry_run),
    HYRAX_FN(hyrax_rt_ht_note_null),
    HYRAX_FN(hyrax_rt_ht_saw_null),
    HYRAX_FN(hyrax_rt_buf_create),
    HYRAX_FN(hyrax_rt_buf_append),
    HYRAX_FN(hyrax_rt_buf_count),
    HYRAX_FN(hyrax_rt_buf_row),
    HYRAX_FN(hyrax_rt_buf_sort),
    HYRAX_FN(hyrax_rt_buf_keep_first),
    HYRAX_FN(hyrax_rt_buf_keep_per_partition),
    HYRAX_FN(hyrax_rt_buf_window_frames),
    HYRAX_FN(hyrax_rt_hash_string),
    HYRAX_FN(hyrax_rt_str_cmp),
    HYRAX_FN(hyrax_rt_str_eq),
    HYRAX_FN(hyrax_rt_like),
    HYRAX_FN(hyrax_rt_like_prepared),
    HYRAX_FN(hyrax_rt_str_concat),
    HYRAX_FN(hyrax_rt_substring),
    HYRAX_FN(hyrax_rt_str_case),
    HYRAX_FN(hyrax_rt_char_length),
    HYRAX_FN(hyrax_rt_ascii),
    HYRAX_FN(hyrax_rt_round_double),
    HYRAX_FN(hyrax_rt_floor_double),
    HYRAX_FN(hyrax_rt_decimal_floor),
    HYRAX_FN(hyrax_rt_sqrt),
    HYRAX_FN(hyrax_rt_power),
    HYRAX_FN(hyrax_rt_float_fn),
    HYRAX_FN(hyrax_rt_trunc_double),
    HYRAX_FN(hyrax_rt_round_scaled),
    HYRAX_FN(hyrax_rt_div_truncated),
    HYRAX_FN(hyrax_rt_gcd),
    HYRAX_FN(hyrax_rt_current_date),
    HYRAX_FN(hyrax_rt_transaction_time),
    HYRAX_FN(hyrax_rt_cast_str_to_timestamp),
    HYRAX_FN(hyrax_rt_cast_str_to_interval),
    HYRAX_FN(hyrax_rt_datetime_to_str),
    HYRAX_FN(hyrax_rt_timestamp_add_interval),
    HYRAX_FN(hyrax_rt_interval_add),
    HYRAX_FN(hyrax_rt_interval_scale),
    HYRAX_FN(hyrax_rt_interval_cmp),
    HYRAX_FN(hyrax_rt_interval_hash),
    HYRAX_FN(hyrax_rt_extract),
    HYRAX_FN(hyrax_rt_date_trunc),
    HYRAX_FN(hyrax_rt_make_date),
    HYRAX_FN(hyrax_rt_make_time),
    HYRAX_FN(hyrax_rt_make_timestamp),
    HYRAX_FN(hyrax_rt_justify),
    HYRAX_FN(hyrax_rt_age),
    HYRAX_SESSION_FN(hyrax_rt_call_routine),
    HYRAX_SESSION_FN(hyrax_rt_nextval),
    HYRAX_SESSION_FN(hyrax_rt_currval),
    HYRAX_SESSION_FN(hyrax_rt_setval),
    HYRAX_FN(hyrax_rt_position),
    HYRAX_FN(hyrax_rt_regex_match),
    HYRAX_SESSION_FN(hyrax_rt_current_setting),  // reads the session's settings (a thread-local scope)
    HYRAX_FN(hyrax_rt_trim),
    HYRAX_FN(hyrax_rt_replace),
    HYRAX_FN(hyrax_rt_pad),
    HYRAX_FN(hyrax_rt_split_part),
    HYRAX_FN(hyrax_rt_chr),
    HYRAX_FN(hyrax_rt_text_function),
    HYRAX_FN(hyrax_rt_starts_with),
    HYRAX_FN(hyrax_rt_cast_str_to_int),
    HYRAX_FN(hyrax_rt_cast_str_to_decimal),
    HYRAX_FN(hyrax_rt_cast_str_to_double),
    HYRAX_FN(hyrax_rt_cast_str_to_date),
    HYRAX_FN(hyrax_rt_cast_str_to_bool),
    HYRAX_FN(hyrax_rt_cast_to_str),
    HYRAX_FN(hyrax_rt_decimal_div),
    HYRAX_FN(hyrax_rt_decimal_rescale),
    HYRAX_FN(hyrax_rt_double_to_int),
    HYRAX_FN(hyrax_rt_decimal_to_double),
    HYRAX_FN(hyrax_rt_array_in),
    HYRAX_FN(hyrax_rt_array_append),
    HYRAX_FN(hyrax_rt_array_cat),
    HYRAX_FN(hyrax_rt_array_agg_add),
    HYRAX_FN(hyrax_rt_array_agg_merge),
    HYRAX_FN(hyrax_rt_array_agg_close),
    HYRAX_FN(hyrax_rt_array_to_string),
    HYRAX_FN(hyrax_rt_array_element),
    HYRAX_FN(hyrax_rt_array_count),
    HYRAX_FN(hyrax_rt_array_any),
    HYRAX_FN(hyrax_rt_array_sort),
};
#undef HYRAX_FN
#undef HYRAX_SESSION_FN
}  // namespace

const RuntimeFunction* runtimeFunctions(unsigned& count) {
  count = sizeof(kFunctions) / sizeof(kFunctions[0]);
  return kFunctions;
}

const RuntimeFunction* findRuntimeFunction(const char* name) {
  for (auto& f : kFunctions)
    if (std::strcmp(f.name, name) == 0) return &f;
  return nullptr;
}

}  // namespace hyrax
