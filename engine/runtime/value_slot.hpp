#pragma once
// A value slot: one SQL value in its physical layout (up to 16 bytes: a StringRef is the widest)
// and its NULL flag. Prepared statements' parameters, a stored procedure's variables, a stored
// function's arguments and result, and the row a one-row write hands over are arrays of these,
// written and read by C++ and by generated code alike (layout described once: abi_layout.hpp).
#include <cstddef>
#include <cstdint>

#include "engine/runtime/abi_layout.hpp"

namespace hyrax {

struct ValueSlot {
  uint64_t value[2];  // the value's bytes (Value::encode / Value::decode, Table::put)
  uint8_t null;       // 1: NULL (the value's bytes mean nothing then)

  uint8_t* bytes() { return reinterpret_cast<uint8_t*>(value); }
  const uint8_t* bytes() const { return reinterpret_cast<const uint8_t*>(value); }
};

enum class ValueSlotField : uint32_t { Value, Null };
inline constexpr AbiField kValueSlotFields[] = {
    {"value", AbiType::I64, 2, offsetof(ValueSlot, value)},
    {"null", AbiType::I8, 1, offsetof(ValueSlot, null)},
};
inline constexpr AbiLayout kValueSlotLayout = abiLayout("hyrax.value_slot", kValueSlotFields, sizeof(ValueSlot));

}  // namespace hyrax
