#include "codegen/translate/expression_compiler.hpp"

#include <cstring>
#include <tuple>

#include "engine/runtime/like_pattern.hpp"
#include "engine/runtime/math_functions.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/runtime/value_slot.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/util/stack_depth.hpp"

namespace hyrax::codegen {

using plan::ExprKind;

llvm::Value* ExprCompiler::orNull(llvm::Value* a, llvm::Value* b) {
  if (!a) return b;
  if (!b) return a;
  return b_.CreateOr(a, b);
}

llvm::Value* ExprCompiler::anyNull(std::initializer_list<const SqlValue*> vs) {
  llvm::Value* n = nullptr;
  for (auto* v : vs) n = orNull(n, v->null);
  return n;
}

llvm::Value* ExprCompiler::isTrue(const SqlValue& v) {
  llvm::Value* t = v.v;
  if (v.type.id == TypeId::Null) return cg_.cFalse();
  if (v.null) t = b_.CreateAnd(t, b_.CreateNot(v.null));
  return t;
}

std::pair<llvm::Value*, llvm::Value*> ExprCompiler::safeString(const SqlValue& v) {
  if (!v.null) return {v.v, v.hi};
  return {b_.CreateSelect(v.null, cg_.c64(0), v.v), b_.CreateSelect(v.null, cg_.c64(0), v.hi)};
}

SqlValue ExprCompiler::constant(const Value& val) {
  SqlValue r;
  r.type = val.type();
  if (val.isNull()) {
    r.type = val.type().withNullable(true);
    r.v = llvm::Constant::getNullValue(cg_.payloadType(r.type));
    if (r.type.isTwoWords()) r.hi = cg_.c64(0);
    r.null = cg_.cTrue();
    return r;
  }
  r.type.nullable = false;
  switch (r.type.id) {
    case TypeId::Null: r.v = cg_.cFalse(); r.null = cg_.cTrue(); break;
    case TypeId::Bool: r.v = b_.getInt1(val.asBool()); break;
    case TypeId::Int16: r.v = b_.getInt16(static_cast<uint16_t>(val.asInt())); break;
    case TypeId::Int32:
    case TypeId::Date: r.v = cg_.c32(val.asInt()); break;
    case TypeId::Int64:
    case TypeId::Decimal:
    case TypeId::Timestamp:
    case TypeId::Time: r.v = cg_.c64(val.asInt()); break;
    case TypeId::Interval:
      r.v = cg_.c64(val.asInt());
      r.hi = cg_.c64(static_cast<int64_t>(val.high()));
      break;
    case TypeId::Float32: r.v = llvm::ConstantFP::get(b_.getFloatTy(), val.asDouble()); break;
    case TypeId::Float64: r.v = llvm::ConstantFP::get(cg_.f64(), val.asDouble()); break;
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Array:
    case TypeId::Text: {
      const std::string& s = val.asString();
      const char* data = s.data();
      if (s.size() > StringRef::kInlineMax) {
        strings_.push_back(s);
        data = strings_.back().data();
      }
      StringRef ref = StringRef::make(data, static_cast<uint32_t>(s.size()));
      r.v = cg_.c64(static_cast<int64_t>(ref.lo()));
      if (ref.isInline()) {
        r.hi = cg_.c64(static_cast<int64_t>(ref.hi()));
      } else {
        r.hi = b_.CreatePtrToInt(cg_.cPtr(data), cg_.i64());
      }
      break;
    }
  }
  return r;
}

SqlValue ExprCompiler::compile(const plan::Expr& e) {
  checkStackDepth();  // a chain of 10,000 terms recurses that deep (engine/util/stack_depth.hpp)
  switch (e.kind) {
    case ExprKind::Column: {
      if (!values_.has(e.iu))
        throw Error(sqlstate::InternalError, "codegen: column " + e.iu->name + " is not available here");
      return values_.at(e.iu);
    }
    // A NULL of a type (nullif's, a folded CASE's) has that type's payload, zeroed: an untyped
    // NULL's one-bit payload would fill only the first byte of a wider value's slot.
    case ExprKind::Constant: return constant(e.value.isNull() && !e.type.isNull() ? Value::null(e.type) : e.value);
    case ExprKind::RoutineCall: {
      // Arguments and result in value slots.
      auto n = static_cast<uint32_t>(e.args.size());
      llvm::Value* args = cg_.localArray(kValueSlotLayout, std::max(n, 1u), "routine_args");
      for (uint32_t i = 0; i < n; ++i) cg_.storeSlot(args, i, compile(*e.args[i]));
      llvm::Value* out = cg_.localArray(kValueSlotLayout, 1, "routine_value");
      routines_.emplace_back(e.name);
      cg_.checkStatus(cg_.call("hyrax_rt_call_routine", {cg_.queryContext(), cg_.cPtr(&routines_.back()), args, cg_.c32(n), out}));
      if (e.type.isNull()) return constant(Value());  // RETURNS void
      return cg_.loadSlot(out, 0, e.type);
    }
    case ExprKind::SequenceCall: {
      // The sequence's handle is a constant of the code; its value is the runtime's, each call.
      std::vector<SqlValue> args;
      for (auto& a : e.args) args.push_back(compile(*a));
      sequences_.push_back({e.sequence});
      llvm::Value* handle = cg_.cPtr(&sequences_.back());
      auto* out = cg_.local(cg_.i64(), "sequence_value");
      b_.CreateStore(cg_.c64(0), out);
      SqlValue r;
      r.type = e.type;
      if (e.sequenceOp != plan::SequenceOp::SetVal) {
        const char* fn = e.sequenceOp == plan::SequenceOp::NextVal ? "hyrax_rt_nextval" : "hyrax_rt_currval";
        cg_.checkStatus(cg_.call(fn, {cg_.queryContext(), handle, out}));
        r.v = b_.CreateLoad(cg_.i64(), out);
        return r;
      }
      // setval with a NULL argument does nothing and answers NULL (PostgreSQL's functions are strict).
      llvm::Value* null = nullptr;
      for (auto& a : args)
        if (a.null) null = null ? b_.CreateOr(null, a.null) : a.null;
      auto body = [&] {
        cg_.checkStatus(cg_.call("hyrax_rt_setval", {cg_.queryContext(), handle, args[0].v, b_.CreateZExt(args[1].v, cg_.i32())}));
        b_.CreateStore(args[0].v, out);
      };
      unlessNull(null, body);
      r.v = b_.CreateLoad(cg_.i64(), out);
      r.null = null;
      return r;
    }
    case ExprKind::Parameter: return cg_.loadSlot(cg_.parameterSlots(), e.param, e.type);
    case ExprKind::Arith: return arith(e);
    case ExprKind::Negate: return negate(e);
    case ExprKind::Compare: return compareExpr(e);
    case ExprKind::And:
    case ExprKind::Or:
    case ExprKind::Not: return logic(e);
    case ExprKind::IsNull: {
      SqlValue a = compile(*e.args[0]);
      SqlValue r;
      r.type = SqlType::boolean(false);
      llvm::Value* n = a.type.id == TypeId::Null ? cg_.cTrue() : (a.null ? a.null : cg_.cFalse());
      r.v = e.negated ? b_.CreateNot(n) : n;
      return r;
    }
    case ExprKind::Like: return like(e);
    case ExprKind::InList: return inList(e);
    case ExprKind::Case: return caseExpr(e);
    case ExprKind::Cast: return cast(compile(*e.args[0]), e.type, !e.implicitCast);
    case ExprKind::Concat: return concat(e);
    case ExprKind::Call: return call(e);
    case ExprKind::Extract: {
      SqlValue d = compile(*e.args[0]);
      SqlValue r;
      r.type = e.type;
      r.null = d.null;
      if (d.type.id == TypeId::Date && e.field <= plan::DateField::Day) {  // TPC-H's: the short way
        r.v = cg_.call("hyrax_rt_date_part", {d.v, cg_.c32(static_cast<int32_t>(e.field))});
        return r;
      }
      llvm::Value* bits = d.type.id == TypeId::Date ? b_.CreateSExt(d.v, cg_.i64()) : d.v;
      r.v = cg_.call("hyrax_rt_extract", {cg_.c32(static_cast<int32_t>(d.type.id)), cg_.c32(static_cast<int32_t>(e.field)),
                                          bits, d.hi ? d.hi : cg_.c64(0)});
      if (e.type.id == TypeId::Int32) r.v = b_.CreateTrunc(r.v, cg_.i32());
      return r;
    }
  }
  throw Error(sqlstate::InternalError, "codegen: unknown expression kind");
}

SqlValue ExprCompiler::logic(const plan::Expr& e) {
  SqlValue r;
  r.type = e.type;
  if (e.kind == ExprKind::Not) {
    SqlValue a = compile(*e.args[0]);
    r.v = b_.CreateNot(a.v);
    r.null = a.type.id == TypeId::Null ? cg_.cTrue() : a.null;
    r.type.nullable = r.null != nullptr;
    return r;
  }
  // AND: false wins over NULL; OR: true wins over NULL.
  bool isAnd = e.kind == ExprKind::And;
  llvm::Value* decided = cg_.cFalse();  // some operand is false (AND) / true (OR)
  llvm::Value* sawNull = nullptr;
  for (auto& arg : e.args) {
    SqlValue a = compile(*arg);
    llvm::Value* n = a.type.id == TypeId::Null ? cg_.cTrue() : a.null;
    llvm::Value* hit = isAnd ? b_.CreateNot(a.v) : a.v;
    if (n) hit = b_.CreateAnd(hit, b_.CreateNot(n));
    decided = b_.CreateOr(decided, hit);
    sawNull = orNull(sawNull, n);
  }
  r.v = isAnd ? b_.CreateNot(decided) : decided;
  r.null = sawNull ? b_.CreateAnd(sawNull, b_.CreateNot(decided)) : nullptr;
  r.type.nullable = r.null != nullptr;
  return r;
}

SqlValue ExprCompiler::inList(const plan::Expr& e) {
  SqlValue probe = compile(*e.args[0]);
  llvm::Value* found = cg_.cFalse();
  llvm::Value* sawNull = probe.type.id == TypeId::Null ? cg_.cTrue() : probe.null;
  for (size_t i = 1; i < e.args.size(); ++i) {
    SqlValue item = compile(*e.args[i]);
    if (item.type.id == TypeId::Null) {
      sawNull = cg_.cTrue();
      continue;
    }
    llvm::Value* eq = compare(plan::CmpOp::Eq, probe, item);
    if (item.null) {
      eq = b_.CreateAnd(eq, b_.CreateNot(item.null));
      sawNull = orNull(sawNull, item.null);
    }
    found = b_.CreateOr(found, eq);
  }
  if (probe.null) found = b_.CreateAnd(found, b_.CreateNot(probe.null));
  SqlValue r;
  r.type = e.type;
  r.v = e.negated ? b_.CreateNot(found) : found;
  r.null = sawNull ? b_.CreateAnd(sawNull, b_.CreateNot(found)) : nullptr;
  r.type.nullable = r.null != nullptr;
  return r;
}

SqlValue ExprCompiler::caseExpr(const plan::Expr& e) {
  // Branches, not selects: a THEN/ELSE is evaluated only when chosen (CASE WHEN x = 0 THEN 0
  // ELSE 1 / x END must not divide by zero).
  const SqlType& t = e.type;
  auto* vSlot = cg_.local(cg_.payloadType(t), "case_v");
  auto* hiSlot = t.isTwoWords() ? cg_.local(cg_.i64(), "case_hi") : nullptr;
  auto* nullSlot = cg_.local(cg_.i1(), "case_null");
  auto assign = [&](const SqlValue& v) {
    // An untyped NULL arm stores a zero payload of the CASE's type (its own is one bit wide).
    b_.CreateStore(v.type.id == TypeId::Null ? llvm::Constant::getNullValue(cg_.payloadType(t)) : v.v, vSlot);
    if (hiSlot) b_.CreateStore(v.hi ? v.hi : cg_.c64(0), hiSlot);
    b_.CreateStore(v.type.id == TypeId::Null ? cg_.cTrue() : (v.null ? v.null : cg_.cFalse()), nullSlot);
  };
  // A chain of tests, one block each, generated in a loop (a CASE may have thousands of arms).
  size_t pairs = (e.args.size() - (e.hasElse ? 1 : 0)) / 2;
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  auto* done = llvm::BasicBlock::Create(b_.getContext(), "case_done", fn);
  for (size_t i = 0; i < pairs; ++i) {
    SqlValue cond = compile(*e.args[2 * i]);
    auto* then = llvm::BasicBlock::Create(b_.getContext(), "case_then", fn);
    auto* next = llvm::BasicBlock::Create(b_.getContext(), "case_next", fn);
    b_.CreateCondBr(isTrue(cond), then, next);
    b_.SetInsertPoint(then);
    assign(compile(*e.args[2 * i + 1]));
    b_.CreateBr(done);
    b_.SetInsertPoint(next);
  }
  if (e.hasElse) {
    assign(compile(*e.args.back()));
  } else {
    b_.CreateStore(llvm::Constant::getNullValue(cg_.payloadType(t)), vSlot);
    if (hiSlot) b_.CreateStore(cg_.c64(0), hiSlot);
    b_.CreateStore(cg_.cTrue(), nullSlot);
  }
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  SqlValue r;
  r.type = t;
  r.v = b_.CreateLoad(cg_.payloadType(t), vSlot);
  if (hiSlot) r.hi = b_.CreateLoad(cg_.i64(), hiSlot);
  r.null = t.nullable ? b_.CreateLoad(cg_.i1(), nullSlot) : nullptr;
  return r;
}

SqlValue ExprCompiler::like(const plan::Expr& e) {
  SqlValue s = compile(*e.args[0]);
  SqlValue p = compile(*e.args[1]);
  auto [slo, shi] = safeString(s);
  auto [plo, phi] = safeString(p);
  SqlValue r;
  r.type = e.type;
  // A constant pattern is prepared now, so rows only search; the prepared bytes live with the
  // query's other host strings.
  std::string prepared;
  const plan::Expr& pattern = *e.args[1];
  bool constant = pattern.kind == ExprKind::Constant && !pattern.value.isNull() && pattern.value.type().isString();
  llvm::Value* call = nullptr;
  if (constant && prepareLikePattern(pattern.value.asString(), prepared)) {
    strings_.push_back(std::move(prepared));
    call = cg_.call("hyrax_rt_like_prepared", {slo, shi, cg_.cPtr(strings_.back().data())});
  } else {
    call = cg_.call("hyrax_rt_like", {slo, shi, plo, phi});
  }
  llvm::Value* m = b_.CreateICmpNE(call, cg_.c8(0));
  r.v = e.negated ? b_.CreateNot(m) : m;
  r.null = anyNull({&s, &p});
  return r;
}

SqlValue ExprCompiler::concat(const plan::Expr& e) {
  SqlValue a = cast(compile(*e.args[0]), SqlType::text());
  SqlValue c = cast(compile(*e.args[1]), SqlType::text());
  auto [alo, ahi] = safeString(a);
  auto [clo, chi] = safeString(c);
  auto* out = cg_.localStringOut("concat");
  cg_.checkStatus(cg_.call("hyrax_rt_str_concat", {cg_.queryContext(), alo, ahi, clo, chi, out}));
  SqlValue r;
  r.type = e.type;
  cg_.loadStringOut(out, r);
  r.null = anyNull({&a, &c});
  return r;
}

SqlValue ExprCompiler::compareExpr(const plan::Expr& e) {
  SqlValue a = compile(*e.args[0]);
  SqlValue c = compile(*e.args[1]);
  SqlValue r;
  r.type = e.type;
  if (a.type.id == TypeId::Null || c.type.id == TypeId::Null) {
    r.v = cg_.cFalse();
    r.null = cg_.cTrue();
    r.type.nullable = true;
    return r;
  }
  if (a.type.isVarBytes() && (a.null || c.null)) {
    auto [alo, ahi] = safeString(a);
    auto [clo, chi] = safeString(c);
    SqlValue sa = a, sc = c;
    sa.v = alo, sa.hi = ahi, sc.v = clo, sc.hi = chi;
    r.v = compare(e.cmp, sa, sc);
  } else {
    r.v = compare(e.cmp, a, c);
  }
  r.null = anyNull({&a, &c});
  return r;
}

}  // namespace hyrax::codegen

namespace hyrax::codegen {

SqlValue ExprCompiler::call(const plan::Expr& e) {
  if (plan::isArrayFunc(e.func)) return arrayCall(e);
  if (e.func == plan::ScalarFunc::Greatest || e.func == plan::ScalarFunc::Least) return greatestOrLeast(e);
  std::vector<SqlValue> args;
  llvm::Value* null = nullptr;
  for (auto& a : e.args) {
    args.push_back(compile(*a));
    null = orNull(null, args.back().type.id == TypeId::Null ? cg_.cTrue() : args.back().null);
  }
  SqlValue r;
  r.type = e.type;
  r.null = null;
  // Runtime calls see only non-NULL arguments: the result of a NULL row is thrown away anyway.
  auto s = [&](size_t i) { return safeString(args[i]); };
  auto stringResult = [&](const std::function<void(llvm::Value*)>& callWithOut) { this->stringResult(null, r, callWithOut); };
  switch (e.func) {
    case plan::ScalarFunc::Substring:
      stringResult([&](llvm::Value* out) {
        auto [lo, hi] = s(0);
        cg_.checkStatus(cg_.call("hyrax_rt_substring", {cg_.queryContext(), lo, hi, args[1].v, args[2].v, out}));
      });
      break;
    case plan::ScalarFunc::Upper:
    case plan::ScalarFunc::Lower:
      stringResult([&](llvm::Value* out) {
        auto [lo, hi] = s(0);
        cg_.checkStatus(cg_.call("hyrax_rt_str_case", {cg_.queryContext(), lo, hi, cg_.c32(e.func == plan::ScalarFunc::Upper), out}));
      });
      break;
    case plan::ScalarFunc::TrimBoth:
    case plan::ScalarFunc::TrimLeading:
    case plan::ScalarFunc::TrimTrailing:
      stringResult([&](llvm::Value* out) {
        auto [lo, hi] = s(0);
        auto [clo, chi] = s(1);
        bool leading = e.func != plan::ScalarFunc::TrimTrailing, trailing = e.func != plan::ScalarFunc::TrimLeading;
        cg_.call("hyrax_rt_trim", {lo, hi, clo, chi, cg_.c32(leading), cg_.c32(trailing), out});
      });
      break;
    case plan::ScalarFunc::Replace:
      stringResult([&](llvm::Value* out) {
        auto [lo, hi] = s(0);
        auto [flo, fhi] = s(1);
        auto [tlo, thi] = s(2);
        cg_.checkStatus(cg_.call("hyrax_rt_replace", {cg_.queryContext(), lo, hi, flo, fhi, tlo, thi, out}));
      });
      break;
    case plan::ScalarFunc::LeftPad:
    case plan::ScalarFunc::RightPad:
      stringResult([&](llvm::Value* out) {
        auto [lo, hi] = s(0);
        auto [flo, fhi] = s(2);
        cg_.checkStatus(cg_.call("hyrax_rt_pad", {cg_.queryContext(), lo, hi, args[1].v, flo, fhi,
                                                  cg_.c32(e.func == plan::ScalarFunc::LeftPad), out}));
      });
      break;
    case plan::ScalarFunc::SplitPart:
      stringResult([&](llvm::Value* out) {
        auto [lo, hi] = s(0);
        auto [dlo, dhi] = s(1);
        cg_.checkStatus(cg_.call("hyrax_rt_split_part", {cg_.queryContext(), lo, hi, dlo, dhi, args[2].v, out}));
      });
      break;
    case plan::ScalarFunc::Chr:
      stringResult([&](llvm::Value* out) { cg_.checkStatus(cg_.call("hyrax_rt_chr", {cg_.queryContext(), args[0].v, out})); });
      break;
    case plan::ScalarFunc::Repeat:
    case plan::ScalarFunc::Reverse:
    case plan::ScalarFunc::Initcap:
    case plan::ScalarFunc::Translate:
    case plan::ScalarFunc::Overlay:
    case plan::ScalarFunc::Md5:
    case plan::ScalarFunc::ToHex32:
    case plan::ScalarFunc::ToHex64:
    case plan::ScalarFunc::RegexpReplace:
      // One runtime entry for them all, its arguments in an array: the strings' halves in order,
      // then the integers (text_functions.hpp's TextArgs); the unused ones empty or 0.
      stringResult([&](llvm::Value* out) {
        auto* words = cg_.local(llvm::ArrayType::get(cg_.i64(), 10), "text_args");
        b_.CreateStore(llvm::Constant::getNullValue(words->getAllocatedType()), words);
        unsigned strings = 0, integers = 8;
        auto put = [&](unsigned at, llvm::Value* v) { b_.CreateStore(v, b_.CreateConstInBoundsGEP1_64(cg_.i64(), words, at)); };
        for (size_t i = 0; i < args.size(); ++i) {
          if (args[i].type.isString()) {
            auto [lo, hi] = s(i);
            put(strings++, lo);
            put(strings++, hi);
          } else {
            put(integers++, args[i].v);
          }
        }
        cg_.checkStatus(cg_.call("hyrax_rt_text_function", {cg_.queryContext(), cg_.c32(plan::textFnOf(e.func)), words, out}));
      });
      break;
    case plan::ScalarFunc::StartsWith: {
      auto [lo, hi] = s(0);
      auto [plo, phi] = s(1);
      r.v = b_.CreateICmpNE(cg_.call("hyrax_rt_starts_with", {lo, hi, plo, phi}), cg_.c32(0));
      break;
    }
    case plan::ScalarFunc::CharLength: {
      auto [lo, hi] = s(0);
      r.v = cg_.call("hyrax_rt_char_length", {lo, hi});
      break;
    }
    case plan::ScalarFunc::OctetLength:  // StringRef's first word: the length (u32), then a prefix
      r.v = b_.CreateTrunc(s(0).first, cg_.i32());
      break;
    case plan::ScalarFunc::Ascii: {
      auto [lo, hi] = s(0);
      r.v = cg_.call("hyrax_rt_ascii", {lo, hi});
      break;
    }
    case plan::ScalarFunc::RoundDouble: r.v = cg_.call("hyrax_rt_round_double", {args[0].v, args[1].v}); break;
    case plan::ScalarFunc::FloorDouble:
    case plan::ScalarFunc::CeilDouble:
      r.v = cg_.call("hyrax_rt_floor_double", {args[0].v, cg_.c32(e.func == plan::ScalarFunc::CeilDouble)});
      break;
    case plan::ScalarFunc::FloorDecimal:
    case plan::ScalarFunc::CeilDecimal:
      r.v = cg_.call("hyrax_rt_decimal_floor",
                     {args[0].v, cg_.c32(args[0].type.scale), cg_.c32(e.func == plan::ScalarFunc::CeilDecimal)});
      break;
    case plan::ScalarFunc::Power: r.v = cg_.call("hyrax_rt_power", {args[0].v, args[1].v}); break;
    case plan::ScalarFunc::CurrentDate: r.v = cg_.call("hyrax_rt_current_date", {cg_.queryContext()}); break;
    case plan::ScalarFunc::CurrentTimestamp: r.v = cg_.call("hyrax_rt_transaction_time", {cg_.queryContext()}); break;
    case plan::ScalarFunc::Sqrt: r.v = checkedCall(null, cg_.f64(), "hyrax_rt_sqrt", {args[0].v}); break;
    case plan::ScalarFunc::Exp:
    case plan::ScalarFunc::Ln:
    case plan::ScalarFunc::Log10:
    case plan::ScalarFunc::LogBase:
    case plan::ScalarFunc::Cbrt: {
      llvm::Value* y = args.size() > 1 ? args[1].v : llvm::ConstantFP::get(cg_.f64(), 0.0);
      r.v = checkedCall(null, cg_.f64(), "hyrax_rt_float_fn", {cg_.c32(plan::floatFnOf(e.func)), args[0].v, y});
      break;
    }
    case plan::ScalarFunc::TruncDouble: r.v = cg_.call("hyrax_rt_trunc_double", {args[0].v, args[1].v}); break;
    case plan::ScalarFunc::RoundScaled:
    case plan::ScalarFunc::TruncScaled: {
      const int32_t scale = args[0].type.id == TypeId::Decimal ? args[0].type.scale : 0;
      r.v = checkedCall(null, cg_.i64(), "hyrax_rt_round_scaled",
                        {args[0].v, cg_.c32(scale), args[1].v, cg_.c32(e.func == plan::ScalarFunc::TruncScaled),
                         cg_.c64(math::largestMagnitude(e.type))});
      break;
    }
    case plan::ScalarFunc::DivTruncated:
      r.v = checkedCall(null, cg_.i64(), "hyrax_rt_div_truncated", {args[0].v, args[1].v});
      break;
    case plan::ScalarFunc::Gcd:
    case plan::ScalarFunc::Lcm: {
      // INTEGER arguments widened; the result fits INTEGER (largestMagnitude), so it is cut back.
      llvm::Value* g = checkedCall(null, cg_.i64(), "hyrax_rt_gcd",
                                   {b_.CreateSExt(args[0].v, cg_.i64()), b_.CreateSExt(args[1].v, cg_.i64()),
                                    cg_.c32(e.func == plan::ScalarFunc::Lcm), cg_.c64(math::largestMagnitude(e.type))});
      r.v = b_.CreateTrunc(g, cg_.payloadType(e.type));
      break;
    }
    case plan::ScalarFunc::Greatest:
    case plan::ScalarFunc::Least: break;  // greatestOrLeast's, above
    case plan::ScalarFunc::DateTrunc: {
      // Two words out, as an interval's; a timestamp's is the first.
      const SqlValue& x = args[1];
      stringResult([&](llvm::Value* out) {
        cg_.checkStatus(cg_.call("hyrax_rt_date_trunc", {cg_.queryContext(), cg_.c32(static_cast<int32_t>(x.type.id)),
                                                         args[0].v, x.v, x.hi ? x.hi : cg_.c64(0), out}));
      });
      if (e.type.id != TypeId::Interval) r.hi = nullptr;
      break;
    }
    case plan::ScalarFunc::MakeDate:
      r.v = checkedCall(null, cg_.i32(), "hyrax_rt_make_date", {args[0].v, args[1].v, args[2].v});
      break;
    case plan::ScalarFunc::MakeTime:
      r.v = checkedCall(null, cg_.i64(), "hyrax_rt_make_time", {args[0].v, args[1].v, args[2].v});
      break;
    case plan::ScalarFunc::MakeTimestamp:
      r.v = checkedCall(null, cg_.i64(), "hyrax_rt_make_timestamp",
                        {args[0].v, args[1].v, args[2].v, args[3].v, args[4].v, args[5].v});
      break;
    case plan::ScalarFunc::JustifyDays:
    case plan::ScalarFunc::JustifyHours:
    case plan::ScalarFunc::JustifyInterval: {
      stringResult([&](llvm::Value* out) {
        cg_.checkStatus(cg_.call("hyrax_rt_justify",
                                 {cg_.queryContext(), cg_.c32(plan::justifyOf(e.func)), args[0].v, args[0].hi, out}));
      });
      break;
    }
    case plan::ScalarFunc::Age:
      stringResult([&](llvm::Value* out) {
        cg_.checkStatus(cg_.call("hyrax_rt_age", {cg_.queryContext(), args[0].v, args[1].v, out}));
      });
      break;
    case plan::ScalarFunc::RegexMatch:
    case plan::ScalarFunc::RegexMatchInsensitive: {
      auto* out = cg_.local(cg_.i8(), "regex");
      b_.CreateStore(cg_.c8(0), out);
      auto body = [&] {
        auto [lo, hi] = s(0);
        auto [plo, phi] = s(1);
        cg_.checkStatus(cg_.call("hyrax_rt_regex_match", {cg_.queryContext(), lo, hi, plo, phi,
                                                          cg_.c32(e.func == plan::ScalarFunc::RegexMatchInsensitive), out}));
      };
      unlessNull(null, body);
      r.v = b_.CreateICmpNE(b_.CreateLoad(cg_.i8(), out), cg_.c8(0));
      break;
    }
    case plan::ScalarFunc::CurrentSetting: {
      const bool missingOk = e.args[1]->kind == plan::ExprKind::Constant && !e.args[1]->value.isNull() &&
                             e.args[1]->value.asInt() != 0;
      auto* missing = cg_.local(cg_.i8(), "missing");
      b_.CreateStore(cg_.c8(0), missing);
      stringResult([&](llvm::Value* out) {
        auto [lo, hi] = s(0);
        cg_.checkStatus(cg_.call("hyrax_rt_current_setting", {cg_.queryContext(), lo, hi, cg_.c32(missingOk), out, missing}));
      });
      if (missingOk) r.null = orNull(r.null, b_.CreateICmpNE(b_.CreateLoad(cg_.i8(), missing), cg_.c8(0)));
      break;
    }
    case plan::ScalarFunc::ArrayAppend:
    case plan::ScalarFunc::ArrayPrepend:
    case plan::ScalarFunc::ArrayCat:
    case plan::ScalarFunc::ArrayToString:
    case plan::ScalarFunc::ArrayElement:
    case plan::ScalarFunc::Cardinality:
    case plan::ScalarFunc::ArrayAny:
    case plan::ScalarFunc::ArraySort: break;  // arrayCall's, above
    case plan::ScalarFunc::Position: {
      auto [nlo, nhi] = s(0);
      auto [lo, hi] = s(1);
      r.v = cg_.call("hyrax_rt_position", {nlo, nhi, lo, hi});
      break;
    }
  }
  return r;
}

llvm::Value* ExprCompiler::checkedCall(llvm::Value* null, llvm::Type* type, const char* runtimeName,
                                       std::vector<llvm::Value*> args) {
  auto* out = cg_.local(type, runtimeName);
  b_.CreateStore(llvm::Constant::getNullValue(type), out);
  args.insert(args.begin(), cg_.queryContext());
  args.push_back(out);
  unlessNull(null, [&] { cg_.checkStatus(cg_.call(runtimeName, args)); });
  return b_.CreateLoad(type, out);
}

// greatest(x, y, ...) / least: the arguments (of the call's type) in order, a later one taking
// the place of the value so far when it is not NULL and that is, or when it compares greater
// (less); so NULLs are skipped, ties keep the first (PostgreSQL's order), and the result is NULL
// only when every argument is.
SqlValue ExprCompiler::greatestOrLeast(const plan::Expr& e) {
  const plan::CmpOp better = e.func == plan::ScalarFunc::Greatest ? plan::CmpOp::Gt : plan::CmpOp::Lt;
  SqlValue r = compile(*e.args[0]);
  for (size_t i = 1; i < e.args.size(); ++i) {
    SqlValue x = compile(*e.args[i]);
    SqlValue sx = x, sr = r;  // a NULL string is compared as '' (never read), not through its pointer
    if (x.type.isVarBytes()) std::tie(sx.v, sx.hi) = safeString(x);
    if (r.type.isVarBytes()) std::tie(sr.v, sr.hi) = safeString(r);
    llvm::Value* take = compare(better, sx, sr);
    if (r.null) take = b_.CreateOr(r.null, take);
    if (x.null) take = b_.CreateAnd(b_.CreateNot(x.null), take);
    r.v = b_.CreateSelect(take, x.v, r.v);
    if (r.hi) r.hi = b_.CreateSelect(take, x.hi, r.hi);
    r.null = r.null && x.null ? b_.CreateAnd(r.null, x.null) : nullptr;
  }
  r.type = e.type;
  return r;
}

void ExprCompiler::unlessNull(llvm::Value* null, const std::function<void()>& body) {
  if (null)
    cg_.If(b_.CreateNot(null), body);
  else
    body();
}

void ExprCompiler::stringResult(llvm::Value* null, SqlValue& r, const std::function<void(llvm::Value*)>& fill) {
  auto* out = cg_.localStringOut("str");
  unlessNull(null, [&] { fill(out); });
  cg_.loadStringOut(out, r);
}

// Arrays: each function states its own NULL rule (plan::ScalarFunc's comments).
SqlValue ExprCompiler::arrayCall(const plan::Expr& e) {
  std::vector<SqlValue> args;
  for (auto& a : e.args) args.push_back(compile(*a));
  auto isNull = [&](size_t i) -> llvm::Value* {
    if (args[i].type.isNull()) return cg_.cTrue();
    return args[i].null ? args[i].null : cg_.cFalse();
  };
  auto flag = [&](llvm::Value* v) { return b_.CreateZExt(v, cg_.i32()); };
  SqlValue r;
  r.type = e.type;
  // Runs `body` (which fills `out`) unless `skip`; the result is NULL when skipped.
  auto stringResult = [&](llvm::Value* skip, const std::function<void(llvm::Value*)>& body) {
    this->stringResult(skip, r, body);
    r.null = skip;
  };
  auto anyOf = [&](std::initializer_list<size_t> which) -> llvm::Value* {
    llvm::Value* n = nullptr;
    for (size_t i : which) n = orNull(n, args[i].type.isNull() ? cg_.cTrue() : args[i].null);
    return n;
  };
  switch (e.func) {
    case plan::ScalarFunc::ArrayAppend:
    case plan::ScalarFunc::ArrayPrepend: {
      const bool prepend = e.func == plan::ScalarFunc::ArrayPrepend;
      const size_t arr = prepend ? 1 : 0, elem = prepend ? 0 : 1;
      stringResult(nullptr, [&](llvm::Value* out) {
        auto [alo, ahi] = safeString(args[arr]);
        auto [elo, ehi] = safeString(args[elem]);
        llvm::Value* flags = b_.CreateOr(flag(isNull(arr)), b_.CreateShl(flag(isNull(elem)), 1));
        if (prepend) flags = b_.CreateOr(flags, cg_.c32(kPrepend));
        cg_.checkStatus(cg_.call("hyrax_rt_array_append", {cg_.queryContext(), alo, ahi, elo, ehi, flags, out}));
      });
      break;
    }
    case plan::ScalarFunc::ArrayCat: {
      // A NULL side is taken as {} (the canonical empty array's halves), so only both NULL is NULL.
      SqlValue empty = constant(Value::string("{}", e.type.withNullable(false)));
      auto side = [&](size_t i) -> std::pair<llvm::Value*, llvm::Value*> {
        if (args[i].type.isNull()) return {empty.v, empty.hi};
        if (!args[i].null) return {args[i].v, args[i].hi};
        return {b_.CreateSelect(args[i].null, empty.v, args[i].v), b_.CreateSelect(args[i].null, empty.hi, args[i].hi)};
      };
      llvm::Value* bothNull = b_.CreateAnd(isNull(0), isNull(1));
      stringResult(bothNull, [&](llvm::Value* out) {
        auto [alo, ahi] = side(0);
        auto [blo, bhi] = side(1);
        cg_.checkStatus(cg_.call("hyrax_rt_array_cat", {cg_.queryContext(), alo, ahi, blo, bhi, out}));
      });
      break;
    }
    case plan::ScalarFunc::ArrayToString:
      stringResult(anyOf({0, 1}), [&](llvm::Value* out) {
        auto [alo, ahi] = safeString(args[0]);
        auto [slo, shi] = safeString(args[1]);
        llvm::Value *nlo = cg_.c64(static_cast<int64_t>(kNoString)), *nhi = cg_.c64(0);
        if (args.size() > 2) {  // a NULL null string is none
          auto [lo, hi] = safeString(args[2]);
          nlo = b_.CreateSelect(isNull(2), nlo, lo);
          nhi = hi;
        }
        cg_.checkStatus(cg_.call("hyrax_rt_array_to_string", {cg_.queryContext(), alo, ahi, slo, shi, nlo, nhi, out}));
      });
      break;
    case plan::ScalarFunc::ArrayElement: {
      auto* elementNull = cg_.local(cg_.i8(), "element_null");
      b_.CreateStore(cg_.c8(1), elementNull);
      stringResult(anyOf({0, 1}), [&](llvm::Value* out) {
        auto [alo, ahi] = safeString(args[0]);
        cg_.checkStatus(cg_.call("hyrax_rt_array_element", {cg_.queryContext(), alo, ahi, args[1].v, out, elementNull}));
      });
      r.null = b_.CreateICmpNE(b_.CreateLoad(cg_.i8(), elementNull), cg_.c8(0));
      break;
    }
    case plan::ScalarFunc::Cardinality: {
      auto* count = cg_.local(cg_.i32(), "cardinality");
      b_.CreateStore(cg_.c32(0), count);
      llvm::Value* skip = anyOf({0});
      auto body = [&] {
        auto [alo, ahi] = safeString(args[0]);
        cg_.checkStatus(cg_.call("hyrax_rt_array_count", {cg_.queryContext(), alo, ahi, count}));
      };
      unlessNull(skip, body);
      r.v = b_.CreateLoad(cg_.i32(), count);
      r.null = skip;
      break;
    }
    case plan::ScalarFunc::ArrayAny: {
      // 0 false, 1 true, 2 NULL; a NULL array is NULL. A NULL x is NULL too, but over an empty
      // array ANY is false and ALL true, as in PostgreSQL: the runtime decides (mode bit 17).
      auto* out = cg_.local(cg_.i8(), "any");
      b_.CreateStore(cg_.c8(2), out);
      llvm::Value* skip = anyOf({1});
      llvm::Value* xNull = anyOf({0});
      auto body = [&] {
        auto [xlo, xhi] = safeString(args[0]);
        auto [alo, ahi] = safeString(args[1]);
        const int32_t mode = static_cast<int32_t>(e.args[1]->type.element) | static_cast<int32_t>(e.cmp) << 8 |
                             int32_t{e.negated} << 16;
        llvm::Value* modeValue = cg_.c32(mode);
        if (xNull) modeValue = b_.CreateOr(modeValue, b_.CreateShl(b_.CreateZExt(xNull, cg_.i32()), 17));
        cg_.checkStatus(cg_.call("hyrax_rt_array_any", {cg_.queryContext(), alo, ahi, xlo, xhi, modeValue, out}));
      };
      unlessNull(skip, body);
      llvm::Value* v = b_.CreateLoad(cg_.i8(), out);
      r.v = b_.CreateICmpEQ(v, cg_.c8(1));
      r.null = b_.CreateICmpEQ(v, cg_.c8(2));
      break;
    }
    case plan::ScalarFunc::ArraySort:
      stringResult(anyOf({0}), [&](llvm::Value* out) {
        auto [alo, ahi] = safeString(args[0]);
        cg_.checkStatus(cg_.call("hyrax_rt_array_sort", {cg_.queryContext(), alo, ahi,
                                                         cg_.c32(static_cast<int32_t>(e.args[0]->type.element)),
                                                         cg_.c32(e.negated), cg_.c32(e.hasElse), out}));
      });
      break;
    default: throw Error(sqlstate::InternalError, "not an array function");
  }
  return r;
}

}  // namespace hyrax::codegen
