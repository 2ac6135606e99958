// The structs that C++ and generated code share (engine/runtime/abi_layout.hpp): the LLVM struct
// type codegen builds from each description must put every field where C++ puts it on this host,
// and where a 32-bit ARM compiler puts it on ARMv7 (4-byte pointers, 8-byte aligned 64-bit
// values), so the generated code and the runtime agree on both targets.
#include <catch2/catch.hpp>

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <algorithm>

#include "codegen/ir/codegen.hpp"
#include "codegen/jit/jit.hpp"
#include "engine/runtime/hash_table.hpp"
#include "engine/runtime/result_chunk.hpp"
#include "engine/runtime/value_slot.hpp"

using namespace hyrax;

namespace {

const AbiLayout* const kShared[] = {&kValueSlotLayout, &kResultChunkViewLayout, &kHashDirectoryLayout,
                                    &kHashEntryLayout};

// Offsets by the C rules (each field at the next multiple of its alignment, the size rounded up to
// the largest alignment), with the type sizes and alignments of a 32-bit AAPCS target.
struct Expected {
  std::vector<uint64_t> offsets;
  uint64_t size = 0;
};
Expected armv7Layout(const AbiLayout& layout) {
  auto sizeAlign = [](AbiType t) -> std::pair<uint64_t, uint64_t> {
    switch (t) {
      case AbiType::I8: return {1, 1};
      case AbiType::I32: return {4, 4};
      case AbiType::Ptr: return {4, 4};
      case AbiType::I64:
      case AbiType::F64: return {8, 8};
      case AbiType::Void: break;
    }
    FAIL("a layout field has no size");
    return {0, 1};
  };
  Expected e;
  uint64_t at = 0, maxAlign = 1;
  for (uint32_t i = 0; i < layout.fieldCount; ++i) {
    auto [size, align] = sizeAlign(layout.fields[i].type);
    at = (at + align - 1) / align * align;
    e.offsets.push_back(at);
    at += size * layout.fields[i].count;
    maxAlign = std::max(maxAlign, align);
  }
  e.size = (at + maxAlign - 1) / maxAlign * maxAlign;
  return e;
}

}  // namespace

TEST_CASE("shared layouts: LLVM's offsets on this host are C++'s") {
  llvm::LLVMContext ctx;
  llvm::Module module("layouts", ctx);
  jit::configureModule(module);  // the host's triple and DataLayout, as queries are compiled
  codegen::CodeGen cg(ctx, module);
  for (const AbiLayout* layout : kShared) {
    INFO(layout->name);
    const llvm::StructLayout* sl = module.getDataLayout().getStructLayout(cg.structType(*layout));
    for (uint32_t i = 0; i < layout->fieldCount; ++i) {
      INFO(layout->fields[i].name);
      CHECK(sl->getElementOffset(i) == layout->fields[i].hostOffset);
    }
    CHECK(cg.sizeOf(*layout) == layout->hostSize);
  }
}

TEST_CASE("shared layouts: LLVM's offsets on ARMv7 follow the 32-bit ABI") {
  llvm::LLVMContext ctx;
  llvm::Module module("layouts_armv7", ctx);
  jit::configureModule(module, "armv7-unknown-linux-gnueabihf");
  REQUIRE(module.getDataLayout().getPointerSize() == 4);
  codegen::CodeGen cg(ctx, module);
  for (const AbiLayout* layout : kShared) {
    INFO(layout->name);
    Expected want = armv7Layout(*layout);
    const llvm::StructLayout* sl = module.getDataLayout().getStructLayout(cg.structType(*layout));
    for (uint32_t i = 0; i < layout->fieldCount; ++i) {
      INFO(layout->fields[i].name);
      CHECK(sl->getElementOffset(i) == want.offsets[i]);
    }
    CHECK(cg.sizeOf(*layout) == want.size);
  }
  // Entries' payloads start after the header: the same 16 bytes on both targets (hash_table.hpp).
  CHECK(cg.sizeOf(kHashEntryLayout) == 16);
  CHECK(cg.sizeOf(kValueSlotLayout) == 24);
}

TEST_CASE("a layout's LLVM type is made once per context") {
  llvm::LLVMContext ctx;
  llvm::Module module("layouts_once", ctx);
  jit::configureModule(module);
  codegen::CodeGen cg(ctx, module);
  CHECK(cg.structType(kValueSlotLayout) == cg.structType(kValueSlotLayout));
  CHECK(cg.structType(kValueSlotLayout)->getName() == kValueSlotLayout.name);
}
