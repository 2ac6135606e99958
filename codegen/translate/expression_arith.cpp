// Arithmetic: checked integer and decimal operations (22003 on overflow, 22012 on division by
// zero), IEEE floating point. An error is raised only for non-NULL operands: a NULL's payload is
// undefined and must not trip a check.
#include "codegen/translate/expression_compiler.hpp"

#include <llvm/IR/Intrinsics.h>

#include "engine/runtime/runtime.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"

namespace hyrax::codegen {

using plan::ArithOp;

llvm::Value* ExprCompiler::checkedOp(ArithOp op, llvm::Value* a, llvm::Value* c, llvm::Value* null) {
  llvm::Intrinsic::ID id = op == ArithOp::Add   ? llvm::Intrinsic::sadd_with_overflow
                           : op == ArithOp::Sub ? llvm::Intrinsic::ssub_with_overflow
                                                : llvm::Intrinsic::smul_with_overflow;
  llvm::Value* pair = b_.CreateBinaryIntrinsic(id, a, c);
  llvm::Value* overflow = b_.CreateExtractValue(pair, 1);
  if (null) overflow = b_.CreateAnd(overflow, b_.CreateNot(null));
  cg_.raiseIf(overflow, HYRAX_ERR_OVERFLOW);
  return b_.CreateExtractValue(pair, 0);
}

void ExprCompiler::checkDateRange(llvm::Value* days, llvm::Value* null) {
  // One unsigned compare: days - min <= max - min.
  llvm::Value* offset = b_.CreateSub(days, cg_.c32(text::kMinDate));
  llvm::Value* outside = b_.CreateICmpUGT(offset, cg_.c32(int64_t{text::kMaxDate} - text::kMinDate));
  if (null) outside = b_.CreateAnd(outside, b_.CreateNot(null));
  cg_.raiseIf(outside, HYRAX_ERR_DATE_RANGE);
}

SqlValue ExprCompiler::negate(const plan::Expr& e) {
  SqlValue a = compile(*e.args[0]);
  SqlValue r = a;
  r.type = e.type;
  if (a.type.id == TypeId::Interval) {  // 0 - a
    SqlValue zero = constant(Value::interval(0, 0));
    return datetimeArith(ArithOp::Sub, zero, a, r);
  }
  if (a.type.isFloat()) {
    r.v = b_.CreateFNeg(a.v);
  } else {
    r.v = checkedOp(ArithOp::Sub, llvm::Constant::getNullValue(a.v->getType()), a.v, a.null);
  }
  return r;
}

SqlValue ExprCompiler::arith(const plan::Expr& e) {
  SqlValue a = compile(*e.args[0]);
  SqlValue c = compile(*e.args[1]);
  SqlValue r;
  r.type = e.type;
  r.null = anyNull({&a, &c});
  if (a.type.id == TypeId::Null || c.type.id == TypeId::Null) {
    r.v = llvm::Constant::getNullValue(cg_.payloadType(e.type));
    r.null = cg_.cTrue();
    return r;
  }
  llvm::Value* null = r.null;
  auto notNull = [&](llvm::Value* cond) { return null ? b_.CreateAnd(cond, b_.CreateNot(null)) : cond; };

  if (a.type.id == TypeId::Timestamp || a.type.id == TypeId::Interval || a.type.id == TypeId::Time)
    return datetimeArith(e.arith, a, c, r);
  if (a.type.isFloat()) {
    switch (e.arith) {
      case ArithOp::Add: r.v = b_.CreateFAdd(a.v, c.v); break;
      case ArithOp::Sub: r.v = b_.CreateFSub(a.v, c.v); break;
      case ArithOp::Mul: r.v = b_.CreateFMul(a.v, c.v); break;
      case ArithOp::Div:
        cg_.raiseIf(notNull(b_.CreateFCmpOEQ(c.v, llvm::ConstantFP::get(c.v->getType(), 0.0))),
                    HYRAX_ERR_DIVISION_BY_ZERO);
        r.v = b_.CreateFDiv(a.v, c.v);
        break;
      case ArithOp::Mod:
        cg_.raiseIf(notNull(b_.CreateFCmpOEQ(c.v, llvm::ConstantFP::get(c.v->getType(), 0.0))),
                    HYRAX_ERR_DIVISION_BY_ZERO);
        r.v = b_.CreateFRem(a.v, c.v);
        break;
      case ArithOp::BitAnd: throw Error(sqlstate::InternalError, "& of floating point values");
    }
    // An infinite result of finite operands is an overflow (22003), as PostgreSQL's float
    // arithmetic reports it (1.5e300 * 1e10 gave Infinity).
    auto isInf = [&](llvm::Value* x) {
      return b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), llvm::ConstantFP::getInfinity(x->getType()));
    };
    cg_.raiseIf(notNull(b_.CreateAnd(isInf(r.v), b_.CreateNot(b_.CreateOr(isInf(a.v), isInf(c.v))))), HYRAX_ERR_OVERFLOW);
    // And a zero product or quotient of non-zero (finite divisor) operands an underflow, as there.
    if (e.arith == ArithOp::Mul || e.arith == ArithOp::Div) {
      auto isZero = [&](llvm::Value* x) { return b_.CreateFCmpOEQ(x, llvm::ConstantFP::get(x->getType(), 0.0)); };
      llvm::Value* second = e.arith == ArithOp::Mul ? b_.CreateNot(isZero(c.v)) : b_.CreateNot(isInf(c.v));
      cg_.raiseIf(notNull(b_.CreateAnd(isZero(r.v), b_.CreateAnd(b_.CreateNot(isZero(a.v)), second))), HYRAX_ERR_UNDERFLOW);
    }
    return r;
  }

  if (a.type.id == TypeId::Decimal && e.arith == ArithOp::Div) {
    // Exact decimal division with rounding needs 128-bit intermediates: done by the runtime.
    auto* out = cg_.local(cg_.i64(), "decdiv");
    b_.CreateStore(cg_.c64(0), out);
    auto body = [&] {
      auto* status = cg_.call("hyrax_rt_decimal_div", {cg_.queryContext(), a.v, cg_.c32(a.type.scale), c.v,
                                                       cg_.c32(c.type.scale), cg_.c32(e.type.scale), out});
      cg_.checkStatus(status);
    };
    if (null)
      cg_.If(b_.CreateNot(null), body);
    else
      body();
    r.v = b_.CreateLoad(cg_.i64(), out);
    return r;
  }

  switch (e.arith) {
    case ArithOp::BitAnd: r.v = b_.CreateAnd(a.v, c.v); break;
    case ArithOp::Add:
    case ArithOp::Sub:
    case ArithOp::Mul:
      r.v = checkedOp(e.arith, a.v, c.v, null);
      if (e.type.id == TypeId::Date) checkDateRange(r.v, null);  // DATE +/- days
      break;
    case ArithOp::Div:
    case ArithOp::Mod: {
      llvm::Type* t = a.v->getType();
      llvm::Value* zero = llvm::ConstantInt::get(t, 0);
      llvm::Value* minusOne = llvm::ConstantInt::getSigned(t, -1);
      llvm::Value* one = llvm::ConstantInt::get(t, 1);
      cg_.raiseIf(notNull(b_.CreateICmpEQ(c.v, zero)), HYRAX_ERR_DIVISION_BY_ZERO);
      // Divisors 0 (only reachable for NULLs) and -1 (MIN / -1 traps) go another way.
      llvm::Value* isMinusOne = b_.CreateICmpEQ(c.v, minusOne);
      llvm::Value* safe = b_.CreateSelect(b_.CreateOr(isMinusOne, b_.CreateICmpEQ(c.v, zero)), one, c.v);
      if (e.arith == ArithOp::Div) {
        llvm::Value* q = b_.CreateSDiv(a.v, safe);
        llvm::Value* neg = checkedOp(ArithOp::Sub, zero, a.v, null ? b_.CreateOr(null, b_.CreateNot(isMinusOne))
                                                                    : b_.CreateNot(isMinusOne));
        r.v = b_.CreateSelect(isMinusOne, neg, q);
      } else {
        r.v = b_.CreateSelect(isMinusOne, zero, b_.CreateSRem(a.v, safe));
      }
      break;
    }
  }
  return r;
}

// TIMESTAMP +/- INTERVAL (or + TIME) and INTERVAL +/- INTERVAL through the runtime (calendar months, range
// checks: 22008); TIMESTAMP - TIMESTAMP inline (both in range: no overflow) as days and microseconds.
SqlValue ExprCompiler::datetimeArith(ArithOp op, const SqlValue& a, const SqlValue& c, SqlValue r) {
  llvm::Value* subtract = cg_.c32(op == ArithOp::Sub);
  auto unlessNull = [&](const std::function<void()>& body) {
    if (r.null)
      cg_.If(b_.CreateNot(r.null), body);
    else
      body();
  };
  if (a.type.id == TypeId::Time) {  // both within a day: no overflow
    if (c.type.id == TypeId::Time) {
      r.v = b_.CreateSub(a.v, c.v);
      r.hi = cg_.c64(0);
      return r;
    }
    // (a +/- the interval's time) modulo a day, in [0, day)
    llvm::Value* day = cg_.c64(text::kMicrosPerDay);
    llvm::Value* shift = b_.CreateSRem(c.v, day);
    llvm::Value* x = b_.CreateSRem(op == ArithOp::Sub ? b_.CreateSub(a.v, shift) : b_.CreateAdd(a.v, shift), day);
    r.v = b_.CreateSelect(b_.CreateICmpSLT(x, cg_.c64(0)), b_.CreateAdd(x, day), x);
    return r;
  }
  if (a.type.id == TypeId::Timestamp && c.type.id == TypeId::Timestamp) {
    llvm::Value* d = b_.CreateSub(a.v, c.v);
    r.v = b_.CreateSRem(d, cg_.c64(text::kMicrosPerDay));
    r.hi = b_.CreateZExt(b_.CreateTrunc(b_.CreateSDiv(d, cg_.c64(text::kMicrosPerDay)), cg_.i32()), cg_.i64());
    return r;
  }
  if (a.type.id == TypeId::Timestamp) {
    auto* out = cg_.local(cg_.i64(), "ts_plus");
    b_.CreateStore(cg_.c64(0), out);
    unlessNull([&] {
      // a TIME added is an interval of its microseconds
      llvm::Value* high = c.hi ? c.hi : cg_.c64(0);
      cg_.checkStatus(cg_.call("hyrax_rt_timestamp_add_interval", {cg_.queryContext(), a.v, c.v, high, subtract, out}));
    });
    r.v = b_.CreateLoad(cg_.i64(), out);
    return r;
  }
  auto* out = cg_.localStringOut("interval_sum");  // two zeroed words
  if (c.type.isFloat()) {  // INTERVAL * or / a number
    unlessNull([&] {
      cg_.checkStatus(cg_.call("hyrax_rt_interval_scale",
                               {cg_.queryContext(), a.v, a.hi, c.v, cg_.c32(op == ArithOp::Div), out}));
    });
    cg_.loadStringOut(out, r);
    return r;
  }
  unlessNull([&] {
    cg_.checkStatus(cg_.call("hyrax_rt_interval_add", {cg_.queryContext(), a.v, a.hi, c.v, c.hi, subtract, out}));
  });
  cg_.loadStringOut(out, r);
  return r;
}

}  // namespace hyrax::codegen
