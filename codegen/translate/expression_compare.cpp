// Comparison, three-way comparison and hashing of non-NULL SQL values.
#include "codegen/translate/expression_compiler.hpp"
#include "engine/runtime/hash_table.hpp"
#include "engine/types/string_ref.hpp"

namespace hyrax::codegen {

using plan::CmpOp;

static llvm::CmpInst::Predicate intPredicate(CmpOp op, bool isSigned) {
  switch (op) {
    case CmpOp::Eq: return llvm::CmpInst::ICMP_EQ;
    case CmpOp::Ne: return llvm::CmpInst::ICMP_NE;
    case CmpOp::Lt: return isSigned ? llvm::CmpInst::ICMP_SLT : llvm::CmpInst::ICMP_ULT;
    case CmpOp::Le: return isSigned ? llvm::CmpInst::ICMP_SLE : llvm::CmpInst::ICMP_ULE;
    case CmpOp::Gt: return isSigned ? llvm::CmpInst::ICMP_SGT : llvm::CmpInst::ICMP_UGT;
    case CmpOp::Ge: return isSigned ? llvm::CmpInst::ICMP_SGE : llvm::CmpInst::ICMP_UGE;
  }
  return llvm::CmpInst::ICMP_EQ;
}

// Floats in PostgreSQL's total order: NaN equals NaN and is above every other value, Infinity
// included, so sorts, groups, DISTINCT, joins, IN, min and max treat NaN as one value at the top
// (IEEE's comparisons made NaN unequal to itself and to nothing less or greater: NaNs formed
// groups of their own, and a sort with one left rows out of order). -0.0 equals 0.0.
llvm::Value* ExprCompiler::floatCompare(CmpOp op, llvm::Value* a, llvm::Value* c) {
  auto isNan = [&](llvm::Value* x) { return b_.CreateFCmpUNO(x, x); };
  // a below c: c is NaN and a is not, or both are numbers and a < c (ULT: unordered or less).
  auto below = [&](llvm::Value* x, llvm::Value* y) { return b_.CreateAnd(b_.CreateFCmpULT(x, y), b_.CreateNot(isNan(x))); };
  switch (op) {
    case CmpOp::Eq: return b_.CreateOr(b_.CreateFCmpOEQ(a, c), b_.CreateAnd(isNan(a), isNan(c)));
    case CmpOp::Ne: return b_.CreateNot(floatCompare(CmpOp::Eq, a, c));
    case CmpOp::Lt: return below(a, c);
    case CmpOp::Gt: return below(c, a);
    case CmpOp::Le: return b_.CreateNot(below(c, a));
    case CmpOp::Ge: return b_.CreateNot(below(a, c));
  }
  return b_.CreateFCmpOEQ(a, c);
}

llvm::Value* ExprCompiler::compare(CmpOp op, const SqlValue& a, const SqlValue& c) {
  if (a.type.isFloat()) return floatCompare(op, a.v, c.v);
  if (a.type.id == TypeId::Interval) {  // by span: '1 mon' = '30 days' (engine/types/interval.hpp)
    llvm::Value* r = cg_.call("hyrax_rt_interval_cmp", {a.v, a.hi, c.v, c.hi});
    return b_.CreateICmp(intPredicate(op, true), r, cg_.c32(0));
  }
  if (!a.type.isVarBytes()) return b_.CreateICmp(intPredicate(op, a.type.id != TypeId::Bool), a.v, c.v);

  if (op == CmpOp::Eq || op == CmpOp::Ne) {
    // Length and prefix are the low half: if they differ, the strings differ. Short strings are
    // complete in the high half; only long ones with equal prefixes need the runtime. Equal low
    // halves mean equal lengths, so a type that only holds short strings settles it for both.
    llvm::Value* loEq = b_.CreateICmpEQ(a.v, c.v);
    if (alwaysInline(a.type) || alwaysInline(c.type)) {
      llvm::Value* eq = b_.CreateAnd(loEq, b_.CreateICmpEQ(a.hi, c.hi));
      return op == CmpOp::Eq ? eq : b_.CreateNot(eq);
    }
    auto* slot = cg_.local(cg_.i1(), "str_eq");
    llvm::Value* len = b_.CreateTrunc(a.v, cg_.i32());
    llvm::Value* isLong = b_.CreateICmpUGT(len, cg_.c32(12));
    cg_.If(b_.CreateAnd(loEq, isLong),
           [&] {
             auto* r = cg_.call("hyrax_rt_str_eq", {a.v, a.hi, c.v, c.hi});
             b_.CreateStore(b_.CreateICmpNE(r, cg_.c8(0)), slot);
           },
           [&] { b_.CreateStore(b_.CreateAnd(loEq, b_.CreateICmpEQ(a.hi, c.hi)), slot); });
    llvm::Value* eq = b_.CreateLoad(cg_.i1(), slot);
    return op == CmpOp::Eq ? eq : b_.CreateNot(eq);
  }
  return b_.CreateICmp(intPredicate(op, true), stringCompare3(a, c), cg_.c32(0));
}

// Strings in byte order (memcmp, then the shorter first), as hyrax_rt_str_cmp: from the 4-byte
// prefixes in the low halves when they differ, through the runtime only when they are equal. The
// prefixes read as big-endian numbers order as memcmp does over their bytes, and where one string
// ends within them its zero padding stands against a byte that differs from it, so is below it,
// as the shorter string is. (Every comparison used to call the runtime: TPC-H Q16's sort of
// 18,314 rows on two strings took 8.6 ms, 33 ns a comparison.)
llvm::Value* ExprCompiler::stringCompare3(const SqlValue& a, const SqlValue& c) {
  // The byte swaps in shifts (LLVM's passes make each one instruction; the interpreter has no bswap).
  // Halves, then quarters, then bytes trade places: log2(bytes) steps (what InstCombine turns
  // into one bswap; at O0 and in the interpreter a few operations, not one per byte).
  auto swapBytes = [&](llvm::Value* x, unsigned bytes) {
    auto* ty = x->getType();
    const uint64_t all = bytes == 8 ? ~uint64_t{0} : 0xFFFFFFFFull;
    for (unsigned width = bytes * 4; width >= 8; width /= 2) {  // bits moved each way
      uint64_t low = 0;  // the low `width` bits of each 2*width-bit group
      for (unsigned at = 0; at < bytes * 8; at += 2 * width) low |= ((uint64_t{1} << width) - 1) << at;
      llvm::Value* down = b_.CreateLShr(b_.CreateAnd(x, llvm::ConstantInt::get(ty, all & ~low)), width);
      llvm::Value* up = b_.CreateShl(b_.CreateAnd(x, llvm::ConstantInt::get(ty, low)), width);
      x = b_.CreateOr(down, up);
    }
    return x;
  };
  llvm::Value* pa = swapBytes(b_.CreateTrunc(b_.CreateLShr(a.v, 32), cg_.i32()), 4);
  llvm::Value* pc = swapBytes(b_.CreateTrunc(b_.CreateLShr(c.v, 32), cg_.i32()), 4);
  auto* slot = cg_.local(cg_.i32(), "str_cmp");
  auto order = [&](llvm::Value* x, llvm::Value* y) {  // -1, 0, 1 as unsigned x against y
    return b_.CreateSub(b_.CreateZExt(b_.CreateICmpUGT(x, y), cg_.i32()), b_.CreateZExt(b_.CreateICmpULT(x, y), cg_.i32()));
  };
  // Equal prefixes: two short strings are complete in their high halves (bytes 4-11, zero
  // padded), ordered the same way, then by length; only a long one needs the runtime. (TPC-H
  // Q16's brands, 'Brand#13', share their prefix: every compare of them called it.)
  llvm::Value* lenA = b_.CreateTrunc(a.v, cg_.i32());
  llvm::Value* lenC = b_.CreateTrunc(c.v, cg_.i32());
  llvm::Value* bothShort = b_.CreateAnd(b_.CreateICmpULE(lenA, cg_.c32(12)), b_.CreateICmpULE(lenC, cg_.c32(12)));
  cg_.If(b_.CreateICmpNE(pa, pc), [&] { b_.CreateStore(order(pa, pc), slot); },
         [&] {
           cg_.If(bothShort,
                  [&] {
                    llvm::Value* ha = swapBytes(a.hi, 8);
                    llvm::Value* hc = swapBytes(c.hi, 8);
                    b_.CreateStore(b_.CreateSelect(b_.CreateICmpNE(ha, hc), order(ha, hc), order(lenA, lenC)), slot);
                  },
                  [&] { b_.CreateStore(cg_.call("hyrax_rt_str_cmp", {a.v, a.hi, c.v, c.hi}), slot); });
         });
  return b_.CreateLoad(cg_.i32(), slot);
}

llvm::Value* ExprCompiler::compare3(const SqlValue& a, const SqlValue& c) {
  llvm::Value *lt, *gt;
  if (a.type.isVarBytes()) {
    llvm::Value* r = stringCompare3(a, c);
    lt = b_.CreateICmpSLT(r, cg_.c32(0));
    gt = b_.CreateICmpSGT(r, cg_.c32(0));
  } else {
    lt = compare(CmpOp::Lt, a, c);
    gt = compare(CmpOp::Gt, a, c);
  }
  return b_.CreateSub(b_.CreateZExt(gt, cg_.i32()), b_.CreateZExt(lt, cg_.i32()));
}

llvm::Value* ExprCompiler::hash(const SqlValue& v) {
  llvm::Value* x;
  if (v.type.id == TypeId::Interval) return cg_.call("hyrax_rt_interval_hash", {v.v, v.hi});
  if (v.type.isVarBytes()) {
    // Short strings inline (hashShortString's steps), long ones through the runtime.
    auto shortHash = [&] {
      auto k = [&](uint64_t c) { return cg_.c64(static_cast<int64_t>(c)); };
      llvm::Value* h = b_.CreateXor(v.v, b_.CreateMul(v.hi, k(0x9E3779B97F4A7C15ULL)));
      h = b_.CreateMul(h, k(0xBF58476D1CE4E5B9ULL));
      h = b_.CreateXor(h, b_.CreateLShr(h, 29));
      h = b_.CreateMul(h, k(0x94D049BB133111EBULL));
      return b_.CreateXor(h, b_.CreateLShr(h, 32));
    };
    if (alwaysInline(v.type)) return shortHash();
    auto* slot = cg_.local(cg_.i64(), "str_hash");
    llvm::Value* isLong = b_.CreateICmpUGT(b_.CreateTrunc(v.v, cg_.i32()), cg_.c32(StringRef::kInlineMax));
    cg_.If(isLong, [&] { b_.CreateStore(cg_.call("hyrax_rt_hash_string", {v.v, v.hi}), slot); },
           [&] { b_.CreateStore(shortHash(), slot); });
    return b_.CreateLoad(cg_.i64(), slot);
  }
  if (v.type.isFloat()) {
    // -0.0 + 0.0 == +0.0, and every NaN one NaN, so equal values (floatCompare) hash equally.
    llvm::Value* d = b_.CreateFPExt(v.v, cg_.f64());
    d = b_.CreateFAdd(d, llvm::ConstantFP::get(cg_.f64(), 0.0));
    d = b_.CreateSelect(b_.CreateFCmpUNO(d, d), llvm::ConstantFP::getNaN(cg_.f64()), d);
    x = b_.CreateBitCast(d, cg_.i64());
  } else if (v.type.id == TypeId::Bool || v.type.id == TypeId::Null) {
    x = b_.CreateZExt(v.v, cg_.i64());
  } else {
    x = b_.CreateSExt(v.v, cg_.i64());
  }
  // Multiply-xorshift: every input bit reaches the high bits, then folds back into the low ones.
  // (engine/runtime/hash_table.hpp's hashInteger is the same, for the scans a join narrows.)
  x = b_.CreateMul(b_.CreateXor(x, b_.CreateLShr(x, 32)), cg_.c64(static_cast<int64_t>(0x9E3779B97F4A7C15ULL)));
  return b_.CreateXor(x, b_.CreateLShr(x, 29));
}

llvm::Value* ExprCompiler::combine(llvm::Value* h1, llvm::Value* h2) {
  // (the runtime's combineHashes: scans that test keys against a join's table hash as this does)
  llvm::Value* rot = b_.CreateOr(b_.CreateShl(h1, kHashCombineRotate), b_.CreateLShr(h1, 64 - kHashCombineRotate));
  return b_.CreateMul(b_.CreateXor(rot, h2), cg_.c64(static_cast<int64_t>(kHashCombineMultiplier)));
}

}  // namespace hyrax::codegen
