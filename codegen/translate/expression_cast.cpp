// CAST between SQL types. Conversions through text and those needing rounding with 128-bit
// intermediates call engine/runtime; the rest is inline. Calls are skipped for NULL inputs.
#include "codegen/translate/expression_compiler.hpp"

#include "engine/runtime/runtime.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"

namespace hyrax::codegen {

namespace {
int64_t rangeMin(TypeId t) { return t == TypeId::Int16 ? INT16_MIN : t == TypeId::Int32 ? INT32_MIN : INT64_MIN; }
int64_t rangeMax(TypeId t) { return t == TypeId::Int16 ? INT16_MAX : t == TypeId::Int32 ? INT32_MAX : INT64_MAX; }
}  // namespace

// Lengths of CHAR(n) and VARCHAR(n) are characters, as in SQL and PostgreSQL ('éé' fits a
// VARCHAR(2); its 4 bytes were refused). Within the limit in bytes it is within it in
// characters, so only strings longer in bytes go to the runtime, which cuts them as
// text::fitString says: an explicit CAST to n characters, an assignment its trailing blanks
// (22001 when other characters would go).
void ExprCompiler::fitLength(SqlValue& s, const SqlType& to, bool explicitCast) {
  if (!to.length) return;
  auto* out = cg_.localStringOut("fit");
  b_.CreateStore(s.v, out);
  b_.CreateStore(s.hi, b_.CreateConstInBoundsGEP1_64(cg_.i64(), out, 1));
  llvm::Value* maybe = b_.CreateICmpUGT(b_.CreateTrunc(s.v, cg_.i32()), cg_.c32(to.length));
  if (s.null) maybe = b_.CreateAnd(maybe, b_.CreateNot(s.null));
  cg_.If(maybe, CodeGen::Usually::False, [&] {
    cg_.checkStatus(cg_.call("hyrax_rt_fit_string", {cg_.queryContext(), s.v, s.hi, cg_.c32(static_cast<int>(to.id)),
                                                     cg_.c32(to.length), cg_.c32(explicitCast), out}));
  });
  cg_.loadStringOut(out, s);
}

SqlValue ExprCompiler::cast(const SqlValue& in, const SqlType& to, bool explicitCast) {
  SqlValue r;
  r.type = to.withNullable(in.null != nullptr || in.type.id == TypeId::Null);
  r.null = in.null;
  const SqlType& from = in.type;
  if (from.id == TypeId::Null) {
    Value nv = Value::null(to);
    return constant(nv);
  }
  // To TEXT or an unbounded VARCHAR a string stays as it is; to an unbounded CHAR it loses its
  // trailing blanks below (CHAR values carry none).
  if (from.sameAs(to) || (from.isString() && to.isString() && to.length == 0 && (to.id != TypeId::Char || from.id == TypeId::Char))) {
    r.v = in.v;
    r.hi = in.hi;
    return r;
  }
  llvm::Value* null = in.null;
  auto guarded = [&](const std::function<void()>& body) {
    if (null)
      cg_.If(b_.CreateNot(null), body);
    else
      body();
  };
  auto notNull = [&](llvm::Value* c) { return null ? b_.CreateAnd(c, b_.CreateNot(null)) : c; };

  // ---- arrays: their canonical text (engine/types/array_text.hpp) ----
  if (to.isArray() && from.isArray() && from.element == to.element) {  // int2vector -> int2[]: the same text
    r.v = in.v;
    r.hi = in.hi;
    return r;
  }
  if (to.isArray()) {  // from text, or from an array of other elements: parsed, checked, made canonical
    auto [lo, hi] = safeString(in);
    auto* out = cg_.localStringOut("array_in");
    guarded([&] {
      cg_.checkStatus(cg_.call("hyrax_rt_array_in", {cg_.queryContext(), lo, hi, cg_.c32(static_cast<int32_t>(to.element)), out}));
    });
    cg_.loadStringOut(out, r);
    return r;
  }
  if (from.isArray() && to.isString()) {  // its text
    r.v = in.v;
    r.hi = in.hi;
    fitLength(r, to, explicitCast);
    return r;
  }

  // ---- to text ----
  if (to.isString()) {
    if (from.isString()) {
      r.v = in.v;
      r.hi = in.hi;
      if (to.id == TypeId::Char && from.id != TypeId::Char) {
        // CHAR(n) values carry no trailing blanks (text::withoutCharPadding): the same string
        // without them, pointing into the same characters.
        SqlValue blank = constant(Value::string(" "));
        auto* out = cg_.localStringOut("char");
        auto [lo, hi] = safeString(in);
        cg_.call("hyrax_rt_trim", {lo, hi, blank.v, blank.hi, cg_.c32(0), cg_.c32(1), out});
        cg_.loadStringOut(out, r);
      }
      fitLength(r, to, explicitCast);
      return r;
    }
    auto* out = cg_.localStringOut("tostr");
    if (from.id == TypeId::Timestamp || from.id == TypeId::Time || from.id == TypeId::Interval) {
      guarded([&] {
        cg_.checkStatus(cg_.call("hyrax_rt_datetime_to_str", {cg_.queryContext(), cg_.c32(static_cast<int>(from.id)), in.v,
                                                              in.hi ? in.hi : cg_.c64(0), out}));
      });
      cg_.loadStringOut(out, r);
      fitLength(r, to, explicitCast);
      return r;
    }
    guarded([&] {
      llvm::Value* bits;
      if (from.isFloat())
        bits = b_.CreateBitCast(b_.CreateFPExt(in.v, cg_.f64()), cg_.i64());
      else if (from.id == TypeId::Bool)
        bits = b_.CreateZExt(in.v, cg_.i64());
      else
        bits = b_.CreateSExt(in.v, cg_.i64());
      cg_.checkStatus(cg_.call("hyrax_rt_cast_to_str",
                               {cg_.queryContext(), cg_.c32(static_cast<int>(from.id)), cg_.c32(from.scale), bits, out}));
    });
    cg_.loadStringOut(out, r);
    fitLength(r, to, explicitCast);
    return r;
  }

  // ---- from text ----
  if (from.isString() && to.id == TypeId::Interval) {
    auto [lo, hi] = safeString(in);
    auto* out = cg_.localStringOut("interval");  // two zeroed words, as a string's
    guarded([&] { cg_.checkStatus(cg_.call("hyrax_rt_cast_str_to_interval", {cg_.queryContext(), lo, hi, out})); });
    cg_.loadStringOut(out, r);
    return r;
  }
  if (from.isString() && (to.id == TypeId::Timestamp || to.id == TypeId::Time)) {
    auto [lo, hi] = safeString(in);
    auto* out = cg_.local(cg_.i64(), "fromstr");
    b_.CreateStore(cg_.c64(0), out);
    guarded([&] {
      cg_.checkStatus(cg_.call("hyrax_rt_cast_str_to_timestamp",
                               {cg_.queryContext(), lo, hi, cg_.c32(to.id == TypeId::Time), out}));
    });
    r.v = b_.CreateLoad(cg_.i64(), out);
    return r;
  }
  if (from.isString()) {
    auto [lo, hi] = safeString(in);
    llvm::Type* outTy = to.id == TypeId::Float64 || to.id == TypeId::Float32 ? cg_.f64()
                        : to.id == TypeId::Date                             ? cg_.i32()
                        : to.id == TypeId::Bool                             ? cg_.i8()
                                                                            : cg_.i64();
    auto* out = cg_.local(outTy, "fromstr");
    b_.CreateStore(llvm::Constant::getNullValue(outTy), out);
    guarded([&] {
      llvm::Value* status;
      switch (to.id) {
        case TypeId::Float32:
        case TypeId::Float64: status = cg_.call("hyrax_rt_cast_str_to_double", {cg_.queryContext(), lo, hi, out}); break;
        case TypeId::Date: status = cg_.call("hyrax_rt_cast_str_to_date", {cg_.queryContext(), lo, hi, out}); break;
        case TypeId::Bool: status = cg_.call("hyrax_rt_cast_str_to_bool", {cg_.queryContext(), lo, hi, out}); break;
        case TypeId::Decimal:
          status = cg_.call("hyrax_rt_cast_str_to_decimal",
                            {cg_.queryContext(), lo, hi, cg_.c32(to.precision), cg_.c32(to.scale), out});
          break;
        default:
          status = cg_.call("hyrax_rt_cast_str_to_int",
                            {cg_.queryContext(), lo, hi, cg_.c32(static_cast<int>(to.id)), out});
      }
      cg_.checkStatus(status);
    });
    llvm::Value* v = b_.CreateLoad(outTy, out);
    if (to.id == TypeId::Float32) v = b_.CreateFPTrunc(v, b_.getFloatTy());
    if (to.id == TypeId::Bool) v = b_.CreateICmpNE(v, cg_.c8(0));
    if (to.id == TypeId::Int16 || to.id == TypeId::Int32) v = b_.CreateTrunc(v, cg_.payloadType(to));
    r.v = v;
    return r;
  }

  // ---- timestamps are microseconds since 1970, dates days since 1970 (no range to check) ----
  if (from.id == TypeId::Date && to.id == TypeId::Timestamp) {
    r.v = b_.CreateMul(b_.CreateSExt(in.v, cg_.i64()), cg_.c64(text::kMicrosPerDay));
    return r;
  }
  if (from.id == TypeId::Timestamp && (to.id == TypeId::Date || to.id == TypeId::Time)) {
    // floor(t / day): timestamps before 1970 are negative.
    llvm::Value* day = b_.CreateSDiv(in.v, cg_.c64(text::kMicrosPerDay));
    llvm::Value* rem = b_.CreateSRem(in.v, cg_.c64(text::kMicrosPerDay));
    llvm::Value* neg = b_.CreateICmpSLT(rem, cg_.c64(0));
    day = b_.CreateSub(day, b_.CreateZExt(neg, cg_.i64()));
    r.v = to.id == TypeId::Date ? b_.CreateTrunc(day, cg_.i32())
                                : b_.CreateSelect(neg, b_.CreateAdd(rem, cg_.c64(text::kMicrosPerDay)), rem);
    return r;
  }

  // ---- dates are days since 1970 in an i32 ----
  if ((from.id == TypeId::Date && to.id == TypeId::Int32) || (from.id == TypeId::Int32 && to.id == TypeId::Date)) {
    r.v = in.v;
    return r;
  }

  // ---- booleans ----
  if (from.id == TypeId::Bool) {
    if (to.isFloat()) {
      r.v = b_.CreateUIToFP(in.v, cg_.payloadType(to));
      return r;
    }
    if (to.isInteger() || to.id == TypeId::Decimal) {
      llvm::Value* v = b_.CreateZExt(in.v, cg_.payloadType(to));
      if (to.id == TypeId::Decimal) v = b_.CreateMul(v, cg_.c64(text::pow10(to.scale)));
      r.v = v;
      return r;
    }
  }
  if (to.id == TypeId::Bool && from.isInteger()) {
    r.v = b_.CreateICmpNE(in.v, llvm::Constant::getNullValue(in.v->getType()));
    return r;
  }

  // ---- numbers ----
  if (from.isInteger() && to.isInteger()) {
    unsigned fw = in.v->getType()->getIntegerBitWidth(), tw = cg_.payloadType(to)->getIntegerBitWidth();
    if (tw >= fw) {
      r.v = b_.CreateSExt(in.v, cg_.payloadType(to));
    } else {
      llvm::Value* out = b_.CreateOr(b_.CreateICmpSLT(in.v, llvm::ConstantInt::getSigned(in.v->getType(), rangeMin(to.id))),
                                     b_.CreateICmpSGT(in.v, llvm::ConstantInt::getSigned(in.v->getType(), rangeMax(to.id))));
      cg_.raiseIf(notNull(out), HYRAX_ERR_OVERFLOW);
      r.v = b_.CreateTrunc(in.v, cg_.payloadType(to));
    }
    return r;
  }
  if ((from.isInteger() || from.id == TypeId::Decimal) && to.id == TypeId::Decimal) {
    llvm::Value* v = b_.CreateSExt(in.v, cg_.i64());
    int fromScale = from.id == TypeId::Decimal ? from.scale : 0;
    if (to.scale >= fromScale) {
      if (to.scale > fromScale) v = checkedOp(plan::ArithOp::Mul, v, cg_.c64(text::pow10(to.scale - fromScale)), null);
      // Digits before the point must fit the target precision.
      int64_t limit = text::pow10(to.precision);
      llvm::Value* out = b_.CreateOr(b_.CreateICmpSGE(v, cg_.c64(limit)), b_.CreateICmpSLE(v, cg_.c64(-limit)));
      if (to.precision < 18) cg_.raiseIf(notNull(out), HYRAX_ERR_OVERFLOW);
      r.v = v;
      return r;
    }
    auto* out = cg_.local(cg_.i64(), "rescale");
    b_.CreateStore(cg_.c64(0), out);
    guarded([&] {
      cg_.checkStatus(cg_.call("hyrax_rt_decimal_rescale", {cg_.queryContext(), v, cg_.c32(fromScale),
                                                            cg_.c32(to.scale), cg_.c32(to.precision), out}));
    });
    r.v = b_.CreateLoad(cg_.i64(), out);
    return r;
  }
  if (from.id == TypeId::Decimal && to.isInteger()) {
    auto* out = cg_.local(cg_.i64(), "dec2int");
    b_.CreateStore(cg_.c64(0), out);
    guarded([&] {
      cg_.checkStatus(cg_.call("hyrax_rt_decimal_rescale",
                               {cg_.queryContext(), in.v, cg_.c32(from.scale), cg_.c32(0), cg_.c32(18), out}));
    });
    SqlValue wide = r;
    wide.type = SqlType::int64(r.type.nullable);
    wide.v = b_.CreateLoad(cg_.i64(), out);
    return cast(wide, to);
  }
  if ((from.isInteger() || from.id == TypeId::Decimal) && to.isFloat()) {
    llvm::Value* v = b_.CreateSIToFP(in.v, cg_.f64());
    if (from.id == TypeId::Decimal && from.scale) {
      // One rounding (text::decimalToDouble): exact operands divided inline, larger ones by the runtime.
      auto* slot = cg_.local(cg_.f64(), "dec2dbl");
      b_.CreateStore(b_.CreateFDiv(v, llvm::ConstantFP::get(cg_.f64(), static_cast<double>(text::pow10(from.scale)))), slot);
      llvm::Value* big = b_.CreateICmpUGT(b_.CreateAdd(in.v, cg_.c64(text::kDoubleExactInts)), cg_.c64(2 * text::kDoubleExactInts));
      cg_.If(big, CodeGen::Usually::False,
             [&] { b_.CreateStore(cg_.call("hyrax_rt_decimal_to_double", {in.v, cg_.c32(from.scale)}), slot); });
      v = b_.CreateLoad(cg_.f64(), slot);
    }
    if (to.id == TypeId::Float32) v = b_.CreateFPTrunc(v, b_.getFloatTy());
    r.v = v;
    return r;
  }
  if (from.isFloat() && to.isFloat()) {
    r.v = to.id == TypeId::Float64 ? b_.CreateFPExt(in.v, cg_.f64()) : b_.CreateFPTrunc(in.v, b_.getFloatTy());
    return r;
  }
  if (from.isFloat() && (to.isInteger() || to.id == TypeId::Decimal)) {
    auto* out = cg_.local(cg_.i64(), "dbl2int");
    b_.CreateStore(cg_.c64(0), out);
    llvm::Value* d = b_.CreateFPExt(in.v, cg_.f64());
    guarded([&] {
      cg_.checkStatus(cg_.call("hyrax_rt_double_to_int",
                               {cg_.queryContext(), d, cg_.c32(to.id == TypeId::Decimal ? to.scale : 0),
                                cg_.c32(to.id == TypeId::Decimal ? to.precision : 18),
                                cg_.c32(to.id != TypeId::Decimal ? 0 : from.id == TypeId::Float32 ? 6 : 15), out}));
    });
    SqlValue wide = r;
    wide.type = to.id == TypeId::Decimal ? to : SqlType::int64(r.type.nullable);
    wide.v = b_.CreateLoad(cg_.i64(), out);
    return to.id == TypeId::Decimal ? wide : cast(wide, to);
  }
  throw Error(sqlstate::InternalError, "codegen: no cast from " + from.name() + " to " + to.name());
}

}  // namespace hyrax::codegen
