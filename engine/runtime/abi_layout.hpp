#pragma once
// Structs that C++ and generated code both read or write (a value slot, a result chunk's view, a
// hash table's directory and entry header) are each described once: the C++ struct, and beside it
// a list of its fields as ABI types. codegen builds the LLVM struct type from that list with the
// target's DataLayout (codegen/ir/codegen.hpp, CodeGen::field), so the generated code follows
// the target's pointer width and alignment (4-byte pointers on ARMv7) and names fields instead of
// counting bytes. The host offsets recorded here let a unit test check that the two agree
// (codegen/test/codegen_layout_test.cpp, for x86-64 and for a 32-bit ARM DataLayout).
#include <cstddef>
#include <cstdint>

#include "engine/runtime/runtime.hpp"

namespace hyrax {

struct AbiField {
  const char* name;
  AbiType type;       // I8, I32, I64, F64 or Ptr
  uint32_t count;     // > 1: an array of that many
  size_t hostOffset;  // offsetof in the C++ struct, as compiled for this host
};

struct AbiLayout {
  const char* name;  // also the LLVM struct type's name
  const AbiField* fields;
  uint32_t fieldCount;
  size_t hostSize;  // sizeof in C++
};

template <size_t N>
constexpr AbiLayout abiLayout(const char* name, const AbiField (&fields)[N], size_t hostSize) {
  return {name, fields, static_cast<uint32_t>(N), hostSize};
}

}  // namespace hyrax
