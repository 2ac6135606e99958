// The runtime function table: signatures derived from the C++ functions' types, and the LLVM
// declarations codegen makes from them.
#include <catch2/catch.hpp>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "codegen/ir/codegen.hpp"
#include "engine/runtime/runtime.hpp"

using namespace hyrax;

// The mapping from C++ types (a mismatch in the table cannot compile: an unsupported type is a
// static_assert in abiTypeOf).
static_assert(abiTypeOf<void>() == AbiType::Void);
static_assert(abiTypeOf<int8_t>() == AbiType::I8);
static_assert(abiTypeOf<uint32_t>() == AbiType::I32);
static_assert(abiTypeOf<int64_t>() == AbiType::I64);
static_assert(abiTypeOf<double>() == AbiType::F64);
static_assert(abiTypeOf<const uint8_t*>() == AbiType::Ptr);
static_assert(abiTypeOf<int32_t (*)(const void*, const void*)>() == AbiType::Ptr);

namespace {
int32_t sample(QueryContext*, double, uint64_t*, int8_t) { return 0; }
}  // namespace

TEST_CASE("a runtime function's row is derived from its C++ type") {
  RuntimeFunction f = runtimeFunction("sample", &sample);
  CHECK(f.address == reinterpret_cast<void*>(&sample));
  CHECK(f.ret == AbiType::I32);
  REQUIRE(f.argc == 4);
  CHECK(f.args[0] == AbiType::Ptr);
  CHECK(f.args[1] == AbiType::F64);
  CHECK(f.args[2] == AbiType::Ptr);
  CHECK(f.args[3] == AbiType::I8);

  const RuntimeFunction* range = findRuntimeFunction("hyrax_rt_index_range");
  REQUIRE(range);
  std::vector<AbiType> args(range->args, range->args + range->argc);
  CHECK(range->ret == AbiType::I64);
  CHECK(args == std::vector<AbiType>{AbiType::Ptr, AbiType::Ptr, AbiType::Ptr, AbiType::Ptr, AbiType::I32, AbiType::I32,
                                     AbiType::I64, AbiType::Ptr});
}

TEST_CASE("codegen declares every runtime function with the table's signature") {
  llvm::LLVMContext ctx;
  llvm::Module module("runtime_table", ctx);
  codegen::CodeGen cg(ctx, module);
  auto matches = [](llvm::Type* t, AbiType a) {
    if (a == AbiType::Void) return t->isVoidTy();
    if (a == AbiType::F64) return t->isDoubleTy();
    if (a == AbiType::Ptr) return t->isPointerTy();
    return t->isIntegerTy(a == AbiType::I8 ? 8 : a == AbiType::I32 ? 32 : 64);
  };
  unsigned n = 0;
  const RuntimeFunction* all = runtimeFunctions(n);
  REQUIRE(n > 40);
  for (unsigned i = 0; i < n; ++i) {
    const RuntimeFunction& f = all[i];
    INFO(f.name);
    llvm::FunctionType* ft = cg.runtimeFunction(f.name)->getFunctionType();
    CHECK(matches(ft->getReturnType(), f.ret));
    REQUIRE(ft->getNumParams() == f.argc);
    for (unsigned a = 0; a < f.argc; ++a) CHECK(matches(ft->getParamType(a), f.args[a]));
    CHECK_FALSE(ft->isVarArg());
  }
}
