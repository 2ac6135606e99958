#pragma once
// Compiles bound expressions (plan::Expr) to LLVM IR over the SQL values currently in registers.
// SQL semantics: three-valued logic, NULL flags only where a value can be NULL, checked integer
// and decimal overflow, exact DECIMAL arithmetic on scaled integers.
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/ir/codegen.hpp"
#include "codegen/plan/expression.hpp"
#include "engine/runtime/routine_caller.hpp"
#include "engine/runtime/sequence_calls.hpp"
#include "engine/types/string_ref.hpp"

namespace hyrax::codegen {

// The SQL value of each IU in the current row. A lazy IU is computed where it is used, each time
// (a row found through an index loads only the columns its expressions reach: a CASE over ten
// columns reads one); loads are not cached since a use may sit in a branch that does not
// dominate the next.
class IUValues {
 public:
  SqlValue& operator[](const plan::IU* iu) {
    lazy_.erase(iu);
    return values_[iu];
  }
  void setLazy(const plan::IU* iu, std::function<SqlValue()> load) {
    values_.erase(iu);
    lazy_[iu] = std::move(load);
  }
  bool has(const plan::IU* iu) const { return values_.count(iu) || lazy_.count(iu); }
  void clear() {
    values_.clear();
    lazy_.clear();
  }
  SqlValue at(const plan::IU* iu) const {
    auto l = lazy_.find(iu);
    return l != lazy_.end() ? l->second() : values_.at(iu);
  }

 private:
  std::unordered_map<const plan::IU*, SqlValue> values_;
  std::unordered_map<const plan::IU*, std::function<SqlValue()>> lazy_;
};

// A CHAR(n) or VARCHAR(n) with n <= 12: every value is inline in its StringRef (lengths are
// checked on the way in), so generated code needs no path for long strings.
inline bool alwaysInline(const SqlType& t) {
  return t.isString() && t.length > 0 && t.length <= StringRef::kInlineMax;
}

// What generated code points at, kept alive as long as the code: the characters of long string
// constants, and the stored functions it calls (each resolved on its first call, not per call).
struct CodeConstants {
  std::deque<std::string> strings;
  std::deque<std::vector<uint64_t>> words;  // arrays the runtime reads (selection vectors' IN lists)
  std::deque<RoutineHandle> routines;
  std::deque<SequenceHandle> sequences;  // nextval/currval/setval's sequences
};

class ExprCompiler {
 public:
  ExprCompiler(CodeGen& cg, IUValues& values, CodeConstants& constants)
      : cg_(cg), b_(cg.b), values_(values), strings_(constants.strings), routines_(constants.routines), sequences_(constants.sequences) {}

  SqlValue compile(const plan::Expr& e);

  // True when the value is not NULL and true (a WHERE/ON/HAVING condition holds).
  llvm::Value* isTrue(const SqlValue& v);
  // Comparison of two non-NULL values of the same type; i1.
  llvm::Value* floatCompare(plan::CmpOp op, llvm::Value* a, llvm::Value* c);  // PostgreSQL's order: NaN on top
  llvm::Value* compare(plan::CmpOp op, const SqlValue& a, const SqlValue& b);
  // Three-way comparison of non-NULL values of the same type: i32 -1/0/1 (for ORDER BY).
  llvm::Value* compare3(const SqlValue& a, const SqlValue& b);
  // Two strings' order as hyrax_rt_str_cmp gives it (i32: negative, 0, positive), inline when
  // their 4-byte prefixes differ.
  llvm::Value* stringCompare3(const SqlValue& a, const SqlValue& c);
  // 64-bit hash of a non-NULL value; combine() mixes several.
  llvm::Value* hash(const SqlValue& v);
  llvm::Value* combine(llvm::Value* h1, llvm::Value* h2);
  // Converts a value to another type (NULL stays NULL; errors raise).
  // A string headed for a CHAR(n)/VARCHAR(n): cut to n characters by an explicit CAST
  // (`explicitCast`, as the query wrote it), else as an assignment, which cuts only trailing
  // blanks (22001 when others would go: INSERT, UPDATE, procedure variables).
  SqlValue cast(const SqlValue& v, const SqlType& to, bool explicitCast = false);
  // String `s` (NULL passes) cut to `to`'s length (0: any) as text::fitString says.
  void fitLength(SqlValue& s, const SqlType& to, bool explicitCast);
  SqlValue constant(const Value& v);
  // OR of the NULL flags (nullptr when none can be NULL).
  llvm::Value* anyNull(std::initializer_list<const SqlValue*> vs);
  // String (or array) halves with NULLs replaced by the empty string, safe to hand to the runtime.
  std::pair<llvm::Value*, llvm::Value*> safeString(const SqlValue& v);

 private:
  SqlValue arith(const plan::Expr& e);
  SqlValue negate(const plan::Expr& e);
  SqlValue datetimeArith(plan::ArithOp op, const SqlValue& a, const SqlValue& c, SqlValue r);
  SqlValue compareExpr(const plan::Expr& e);
  SqlValue logic(const plan::Expr& e);
  SqlValue inList(const plan::Expr& e);
  SqlValue caseExpr(const plan::Expr& e);
  SqlValue like(const plan::Expr& e);
  SqlValue concat(const plan::Expr& e);
  SqlValue call(const plan::Expr& e);  // plan::ScalarFunc, in the runtime
  SqlValue arrayCall(const plan::Expr& e);  // the array functions (plan::isArrayFunc)
  SqlValue greatestOrLeast(const plan::Expr& e);
  // A runtime call `runtimeName(ctx, args..., &out)` that returns a status and writes a `type`
  // result, made unless `null`; its result (0 when NULL).
  llvm::Value* checkedCall(llvm::Value* null, llvm::Type* type, const char* runtimeName, std::vector<llvm::Value*> args);
  // Integer op with overflow check (Add/Sub/Mul); raises 22003 unless `null`.
  llvm::Value* checkedOp(plan::ArithOp op, llvm::Value* a, llvm::Value* b, llvm::Value* null);
  // 22008 unless `days` (of a value that is not NULL) is a date in 0001-01-01 .. 9999-12-31.
  void checkDateRange(llvm::Value* days, llvm::Value* null);
  llvm::Value* orNull(llvm::Value* a, llvm::Value* b);
  // Runs `body` unless `null` (nullptr: always).
  void unlessNull(llvm::Value* null, const std::function<void()>& body);
  // A string result a runtime call writes into its out-parameter (`fill` gets it), made unless `null`.
  void stringResult(llvm::Value* null, SqlValue& r, const std::function<void(llvm::Value*)>& fill);

  CodeGen& cg_;
  llvm::IRBuilder<>& b_;
  IUValues& values_;
  std::deque<std::string>& strings_;
  std::deque<RoutineHandle>& routines_;
  std::deque<SequenceHandle>& sequences_;
};

}  // namespace hyrax::codegen
