// The one table of runtime functions: codegen declares them from here, the JIT resolves them here.
#include <cstring>
#include <initializer_list>

#include "engine/runtime/runtime.hpp"

namespace hyrax {

namespace {
using A = AbiType;
#define HYRAX_FN(name, ret, ...) \
  RuntimeFunction { #name, reinterpret_cast<void*>(&name), ret, static_cast<uint8_t>(std::initializer_list<A>{__VA_ARGS__}.size()), {__VA_ARGS__} }

const RuntimeFunction kFunctions[] = {
    HYRAX_FN(hyrax_rt_error, A::I32, A::Ptr, A::I32),
    HYRAX_FN(hyrax_rt_string_too_long, A::I32, A::Ptr, A::I32, A::I32),
    HYRAX_FN(hyrax_rt_check_cancel, A::I32, A::Ptr),
    HYRAX_FN(hyrax_rt_table_chunks, A::I32, A::Ptr),
    HYRAX_FN(hyrax_rt_table_chunk_rows, A::I32, A::Ptr, A::I32),
    HYRAX_FN(hyrax_rt_index_find, A::I64, A::Ptr, A::Ptr),
    HYRAX_FN(hyrax_rt_params, A::Ptr, A::Ptr),
    HYRAX_FN(hyrax_rt_program_host, A::I32, A::Ptr, A::I32),
    HYRAX_FN(hyrax_rt_program_reset, A::Void, A::Ptr, A::Ptr),
    HYRAX_FN(hyrax_rt_index_find_all, A::I64, A::Ptr, A::Ptr, A::Ptr, A::Ptr),
    HYRAX_FN(hyrax_rt_index_range, A::I64, A::Ptr, A::Ptr, A::Ptr, A::Ptr, A::I32, A::I32, A::I64, A::Ptr),
    HYRAX_FN(hyrax_rt_write_row, A::I32, A::Ptr, A::Ptr, A::Ptr),
    HYRAX_FN(hyrax_rt_result_view, A::Ptr, A::Ptr),
    HYRAX_FN(hyrax_rt_result_flush, A::Void, A::Ptr),
    HYRAX_FN(hyrax_rt_date_part, A::I32, A::I32, A::I32),
    HYRAX_FN(hyrax_rt_ht_create, A::Ptr, A::Ptr, A::I32, A::I64),
    HYRAX_FN(hyrax_rt_ht_insert, A::Ptr, A::Ptr, A::I64),
    HYRAX_FN(hyrax_rt_ht_count, A::I64, A::Ptr),
    HYRAX_FN(hyrax_rt_ht_entry, A::Ptr, A::Ptr, A::I64),
    HYRAX_FN(hyrax_rt_buf_create, A::Ptr, A::Ptr, A::I32),
    HYRAX_FN(hyrax_rt_buf_append, A::Ptr, A::Ptr),
    HYRAX_FN(hyrax_rt_buf_count, A::I64, A::Ptr),
    HYRAX_FN(hyrax_rt_buf_row, A::Ptr, A::Ptr, A::I64),
    HYRAX_FN(hyrax_rt_buf_sort, A::Void, A::Ptr, A::Ptr),
    HYRAX_FN(hyrax_rt_buf_keep_first, A::Void, A::Ptr, A::I64, A::Ptr),
    HYRAX_FN(hyrax_rt_hash_string, A::I64, A::I64, A::I64),
    HYRAX_FN(hyrax_rt_str_cmp, A::I32, A::I64, A::I64, A::I64, A::I64),
    HYRAX_FN(hyrax_rt_str_eq, A::I8, A::I64, A::I64, A::I64, A::I64),
    HYRAX_FN(hyrax_rt_like, A::I8, A::I64, A::I64, A::I64, A::I64),
    HYRAX_FN(hyrax_rt_like_prepared, A::I8, A::I64, A::I64, A::Ptr),
    HYRAX_FN(hyrax_rt_str_concat, A::Void, A::Ptr, A::I64, A::I64, A::I64, A::I64, A::Ptr),
    HYRAX_FN(hyrax_rt_substring, A::I32, A::Ptr, A::I64, A::I64, A::I64, A::I64, A::Ptr),
    HYRAX_FN(hyrax_rt_str_case, A::Void, A::Ptr, A::I64, A::I64, A::I32, A::Ptr),
    HYRAX_FN(hyrax_rt_char_length, A::I32, A::I64, A::I64),
    HYRAX_FN(hyrax_rt_add_months, A::I32, A::I32, A::I32),
    HYRAX_FN(hyrax_rt_round_double, A::F64, A::F64, A::I32),
    HYRAX_FN(hyrax_rt_floor_double, A::F64, A::F64, A::I32),
    HYRAX_FN(hyrax_rt_decimal_floor, A::I64, A::I64, A::I32, A::I32),
    HYRAX_FN(hyrax_rt_sqrt, A::I32, A::Ptr, A::F64, A::Ptr),
    HYRAX_FN(hyrax_rt_power, A::F64, A::F64, A::F64),
    HYRAX_FN(hyrax_rt_current_date, A::I32),
    HYRAX_FN(hyrax_rt_call_routine, A::I32, A::Ptr, A::Ptr, A::Ptr, A::I32, A::Ptr),
    HYRAX_FN(hyrax_rt_position, A::I32, A::I64, A::I64, A::I64, A::I64),
    HYRAX_FN(hyrax_rt_trim, A::Void, A::I64, A::I64, A::I64, A::I64, A::I32, A::I32, A::Ptr),
    HYRAX_FN(hyrax_rt_cast_str_to_int, A::I32, A::Ptr, A::I64, A::I64, A::I32, A::Ptr),
    HYRAX_FN(hyrax_rt_cast_str_to_decimal, A::I32, A::Ptr, A::I64, A::I64, A::I32, A::I32, A::Ptr),
    HYRAX_FN(hyrax_rt_cast_str_to_double, A::I32, A::Ptr, A::I64, A::I64, A::Ptr),
    HYRAX_FN(hyrax_rt_cast_str_to_date, A::I32, A::Ptr, A::I64, A::I64, A::Ptr),
    HYRAX_FN(hyrax_rt_cast_str_to_bool, A::I32, A::Ptr, A::I64, A::I64, A::Ptr),
    HYRAX_FN(hyrax_rt_cast_to_str, A::Void, A::Ptr, A::I32, A::I32, A::I64, A::Ptr),
    HYRAX_FN(hyrax_rt_decimal_div, A::I32, A::Ptr, A::I64, A::I32, A::I64, A::I32, A::I32, A::Ptr),
    HYRAX_FN(hyrax_rt_decimal_rescale, A::I32, A::Ptr, A::I64, A::I32, A::I32, A::I32, A::Ptr),
    HYRAX_FN(hyrax_rt_double_to_int, A::I32, A::Ptr, A::F64, A::I32, A::I32, A::Ptr),
};
#undef HYRAX_FN
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
