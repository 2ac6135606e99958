#pragma once
// The interpreter's code: a generated LLVM function translated (ir_to_bytecode.cpp) into a flat
// array of three-address instructions over 64-bit registers, one register per SSA value. No LLVM
// types here: the interpreter's loop (interpreter.cpp) compiles without LLVM's headers.
//
// Values in registers: integers of N bits zero-extended to 64 (an instruction that needs them
// signed sign-extends by its `shift`, 64 - N, and masks its result back to N bits), pointers as
// addresses, doubles as their bits, floats as the double of the same value (every float operation
// rounds its result to float again: a double operation rounded once is the float operation's
// exact result for + - * / and sqrt). A struct value (the {result, overflow} of an overflow
// intrinsic) takes one register per field, in a row.
#include <cstdint>
#include <string>
#include <vector>

namespace hyrax::interp {

// X-macro: the opcodes, in the order of the interpreter's jump table.
#define HYRAX_INTERP_OPS(X)                                                                                  \
  X(Mov)         /* dst = a */                                                                             \
  X(AddImm)      /* dst = a + imm (pointers: a GEP's constant offset) */                                   \
  X(Add) X(Sub) X(Mul) X(And) X(Or) X(Xor) X(Shl) X(LShr) X(AShr) /* dst = (a op b) & imm (the mask) */     \
  X(UDiv) X(SDiv) X(URem) X(SRem)                                                                          \
  X(MaskMov)     /* dst = a & imm: trunc, narrow ptrtoint */                                               \
  X(SExt)        /* dst = sext(a from 64-shift bits) & imm */                                              \
  X(IcmpEq) X(IcmpNe) X(IcmpUlt) X(IcmpUle) X(IcmpSlt) X(IcmpSle)                                          \
  X(Select)      /* dst = a & 1 ? b : reg[imm] */                                                          \
  X(FAdd) X(FSub) X(FMul) X(FDiv) X(FRem) X(FNeg) X(RoundF32)                                              \
  X(FcmpOeq) X(FcmpOne) X(FcmpOlt) X(FcmpOle) X(FcmpOrd) X(FcmpUno) X(FcmpUeq) X(FcmpUne) X(FcmpUlt)      \
  X(FcmpUle)                                                                                               \
  X(SIToFP) X(UIToFP) X(FPToSI) X(FPToUI) /* FPToSI/FPToUI: & imm */                                       \
  X(SIToF32) X(UIToF32) /* to float: rounded once, from the integer */                                     \
  X(Load1) X(Load8) X(Load16) X(Load32) X(Load64) X(LoadF32) /* dst = *(a + imm) */                        \
  X(Store8) X(Store16) X(Store32) X(Store64) X(StoreF32)     /* *(a + imm) = b */                          \
  X(AtomicLoad) X(AtomicStore) /* as Load / Store, `shift` the size in bytes, relaxed */                   \
  X(LoadIdx8) X(LoadIdx16) X(LoadIdx32) X(LoadIdx64) /* a GEP and its load: dst = *(a + (sext(b) << aux) + imm) */ \
  X(GepIndex)    /* dst = a + sext(b from 64-shift bits) * imm */                                          \
  X(Alloca)      /* dst = the frame's stack + imm */                                                       \
  X(Br)          /* to imm */                                                                              \
  X(CondBr)      /* to b if a & 1, else to imm */                                                          \
  X(BrEq) X(BrNe) X(BrUlt) X(BrUle) X(BrSlt) X(BrSle) /* an icmp and its branch: to dst if (a op b), else to imm */ \
  X(Switch)      /* on a: the function's switch table at imm */                                            \
  X(Ret) X(RetVoid) X(Unreachable)                                                                         \
  X(CallNative)  /* dst = the call site imm's runtime function (RuntimeFunction::invoke) */                \
  X(CallFunction) /* dst = the call site imm's function of the module, interpreted */                      \
  X(MemSet)      /* memset(dst, a, b) */                                                                   \
  X(MemCpy) X(MemMove) /* (dst, a, b) */                                                                   \
  X(SAddOv) X(SSubOv) X(SMulOv) /* dst = a op b (of 64-shift bits), dst + 1 = overflowed */                \
  X(Sqrt) X(Fabs)

enum class Op : uint16_t {
#define HYRAX_INTERP_ENUM(name) name,
  HYRAX_INTERP_OPS(HYRAX_INTERP_ENUM)
#undef HYRAX_INTERP_ENUM
};

struct Inst {
  Op op;
  uint8_t shift = 0;  // 64 - the operands' width, for what treats them as signed
  uint8_t aux = 0;    // LoadIdx: log2 of the index's scale
  uint32_t dst = 0, a = 0, b = 0;
  uint64_t imm = 0;
};

struct Function;

// A call: a runtime function through its invoke (args from registers), or a function of the
// module, interpreted.
struct CallSite {
  void (*invoke)(void* fn, const uint64_t* args, uint64_t* result) = nullptr;
  void* native = nullptr;
  const Function* callee = nullptr;
  std::vector<uint32_t> args;  // registers
};

struct SwitchTable {
  uint64_t defaultTarget = 0;
  std::vector<std::pair<uint64_t, uint64_t>> cases;  // value (zero-extended), target
};

struct Function {
  std::string name;
  std::vector<Inst> code;
  // Registers: parameters first, then the values, then the constants (copied in at each call).
  uint32_t params = 0, firstConstant = 0, registers = 0;
  std::vector<uint64_t> constants;  // registers firstConstant ..
  uint32_t stackBytes = 0;          // allocas, 16-aligned
  std::vector<CallSite> calls;
  std::vector<SwitchTable> switches;
};

}  // namespace hyrax::interp
