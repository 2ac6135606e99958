#pragma once
// A SQL value in generated code: its payload in registers, its NULL flag, and its SQL type.
#include <llvm/IR/Value.h>

#include "engine/types/sql_type.hpp"

namespace hyrax::codegen {

struct SqlValue {
  // Payload by type: BOOLEAN i1; SMALLINT i16; INTEGER/DATE i32; BIGINT/DECIMAL i64 (scaled);
  // REAL float; DOUBLE double; TIMESTAMP/TIME i64; strings the low half (i64) of the StringRef, with
  // `hi` the high half; INTERVAL its microseconds, with `hi` days (low 32 bits) and months.
  llvm::Value* v = nullptr;
  llvm::Value* hi = nullptr;    // strings and intervals only (SqlType::isTwoWords)
  llvm::Value* null = nullptr;  // i1; nullptr when the value cannot be NULL
  SqlType type;

  bool mayBeNull() const { return null != nullptr; }
};

}  // namespace hyrax::codegen
