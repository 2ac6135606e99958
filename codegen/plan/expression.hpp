#pragma once
// Bound, typed scalar expressions: what sql/'s binder produces and codegen compiles.
// The binder has already made operand types agree (it inserts Casts), so codegen trusts the
// types written here: for Arith and Compare both operands have the same TypeId (DECIMAL
// operands of + - and comparisons have the same scale; * and / take any scales).
#include <memory>
#include <string>
#include <vector>

#include "codegen/plan/iu.hpp"
#include "engine/catalog/sequence.hpp"
#include "engine/types/datetime_fields.hpp"
#include "engine/types/value.hpp"
#include "engine/util/error.hpp"

namespace hyrax::plan {

enum class ExprKind : uint8_t {
  Column,    // reads an IU
  Constant,  // value
  Arith,     // args[0] op args[1]
  Negate,    // -args[0]
  Compare,   // args[0] cmp args[1]
  And,       // args... (three-valued)
  Or,        // args... (three-valued)
  Not,       // args[0]
  IsNull,    // args[0] IS NULL (negated: IS NOT NULL)
  Like,      // args[0] LIKE args[1] (negated: NOT LIKE)
  InList,    // args[0] IN (args[1..]) (negated: NOT IN); all of one type
  Case,      // WHEN args[0] THEN args[1] ... [ELSE args[last]] (hasElse)
  Cast,      // args[0] as `type`
  Concat,    // args[0] || args[1] (strings)
  Extract,   // EXTRACT(field FROM args[0]) of a DATE
  Call,      // scalar function `func` of args; NULL when any argument is NULL
  Parameter, // $n of a prepared statement (`param` = n - 1), set before each run
  RoutineCall,  // stored function `name` of args (already of its parameters' types), run for each row
  SequenceCall, // nextval/currval (no args) or setval(args[0] BIGINT, args[1] BOOLEAN) of `sequence`, per row
};

enum class SequenceOp : uint8_t { NextVal, CurrVal, SetVal };

// Scalar functions compiled as calls into the runtime (strings.cpp). Positions and lengths count
// characters (UTF-8 code points), as SQL does.
enum class ScalarFunc : uint8_t {
  Substring,    // (s, start BIGINT [, count BIGINT])
  Upper,        // (s)
  Lower,        // (s)
  CharLength,   // (s) -> INTEGER
  OctetLength,  // (s) -> INTEGER: its bytes
  Ascii,        // (s) -> INTEGER: the first character's code point, 0 for ''
  Position,     // (needle, s) -> INTEGER, 0 when absent
  TrimBoth,     // (s, characters)
  TrimLeading,  // (s, characters)
  TrimTrailing, // (s, characters)
  RoundDouble,  // (x DOUBLE, digits INTEGER) -> DOUBLE
  FloorDouble,  // (x DOUBLE) -> DOUBLE
  CeilDouble,   // (x DOUBLE) -> DOUBLE
  FloorDecimal, // (x DECIMAL(p,s)) -> DECIMAL(18,0)
  CeilDecimal,  // (x DECIMAL(p,s)) -> DECIMAL(18,0)
  Sqrt,         // (x DOUBLE) -> DOUBLE; 2201F for a negative x
  Power,        // (x DOUBLE, y DOUBLE) -> DOUBLE
  CurrentDate,  // () -> DATE: the day (UTC) the transaction began
  CurrentTimestamp,  // () -> TIMESTAMP: when the transaction began (UTC); QueryContext::transactionTime
  Replace,      // (s, from, to): every occurrence of from replaced
  LeftPad,      // (s, length BIGINT, fill): lpad
  RightPad,     // (s, length BIGINT, fill): rpad
  SplitPart,    // (s, delimiter, n BIGINT): the n-th field (from the end for a negative n)
  Chr,          // (code BIGINT): the character with that code point
  RegexMatch,   // (s, pattern) -> BOOLEAN: s ~ pattern (POSIX ERE, engine/runtime/regex_match.hpp)
  RegexMatchInsensitive,  // (s, pattern) -> BOOLEAN: s ~* pattern
  CurrentSetting,  // (name, missing_ok BOOLEAN constant) -> TEXT: the session's setting when the query runs;
                   // NULL for an unknown name when missing_ok (so the result is nullable then)
  // Numeric functions of engine/runtime/math_functions.hpp (its FloatFn for the DOUBLE ones):
  Exp,          // (x DOUBLE) -> DOUBLE
  Ln,           // (x DOUBLE) -> DOUBLE
  Log10,        // (x DOUBLE) -> DOUBLE: log(x)
  LogBase,      // (b DOUBLE, x DOUBLE) -> DOUBLE: log(b, x)
  Cbrt,         // (x DOUBLE) -> DOUBLE
  TruncDouble,  // (x DOUBLE, digits INTEGER) -> DOUBLE
  RoundScaled,  // (x DECIMAL(p,s) or BIGINT, digits INTEGER constant) -> DECIMAL(18, max(0, min(digits, s)))
                // or BIGINT: half away from zero, also to tens, hundreds, ... (negative digits)
  TruncScaled,  // the same, toward zero
  DivTruncated, // (a, b) both BIGINT or both DECIMAL(p,s) -> BIGINT or DECIMAL(18,0): div(a, b)
  Gcd,          // (a, b) both INTEGER, BIGINT or DECIMAL(18,s) -> that type
  Lcm,          // the same
  // NULL only when every argument is (the others are skipped), not "NULL when any argument is":
  Greatest,     // (x, y, ...) all of the call's type: the greatest (floats: NaN above all)
  Least,        // the same, the least
  // Calendar functions of engine/types/calendar.hpp (their errors are its):
  DateTrunc,        // (unit INTEGER constant: a DateTimeField, x TIMESTAMP or INTERVAL) -> x's type
  MakeDate,         // (y, m, d INTEGER) -> DATE
  MakeTime,         // (h, m INTEGER, s DOUBLE) -> TIME
  MakeTimestamp,    // (y, mo, d, h, mi INTEGER, s DOUBLE) -> TIMESTAMP
  JustifyDays,      // (x INTERVAL) -> INTERVAL
  JustifyHours,     // the same
  JustifyInterval,  // the same
  Age,              // (t1, t2 TIMESTAMP) -> INTERVAL
  // String functions of engine/runtime/text_functions.hpp (its TextFn), -> TEXT:
  Repeat,         // (s, n BIGINT)
  Reverse,        // (s)
  Initcap,        // (s)
  Translate,      // (s, from, to)
  Overlay,        // (s, t, start BIGINT, count BIGINT: textfn::kNoCount without FOR)
  Md5,            // (s)
  ToHex32,        // (n BIGINT, an INTEGER's value)
  ToHex64,        // (n BIGINT)
  RegexpReplace,  // (s, pattern, replacement, flags)
  StartsWith,     // (s, prefix) -> BOOLEAN
  // Arrays (engine/runtime/array_functions.cpp); their NULL rules are their own, not "NULL when
  // any argument is":
  ArrayAppend,  // (array, element TEXT): a NULL array is {}, a NULL element is added; never NULL
  ArrayPrepend, // (element TEXT, array): the same at the front
  ArrayCat,     // (array, array): a NULL side is {}; NULL when both are
  ArrayToString,  // (array, separator [, null string]): NULL elements left out without a null string
  ArrayElement, // (array, index BIGINT) -> TEXT: 1-based, NULL out of range
  Cardinality,  // (array) -> INTEGER
  ArrayAny,     // (x TEXT, array) -> BOOLEAN: x `cmp` ANY (array), or ALL when `negated`; the
                // array's element type says how elements compare (integers by value, text by bytes)
  ArraySort,    // (array): its elements in order, descending when `negated`, NULLs first when `hasElse`
};
inline bool isArrayFunc(ScalarFunc f) { return f >= ScalarFunc::ArrayAppend; }
// The engine's math::FloatFn (engine/runtime/math_functions.hpp) that computes Exp, Ln, Log10,
// LogBase or Cbrt, as an int; -1 for the other functions.
int32_t floatFnOf(ScalarFunc f);
// The engine's textfn::TextFn (engine/runtime/text_functions.hpp) that computes Repeat .. RegexpReplace,
// as an int; -1 for the other functions.
int32_t textFnOf(ScalarFunc f);
// The text::Justify (engine/types/calendar.hpp) of JustifyDays, JustifyHours or JustifyInterval, as an int.
int32_t justifyOf(ScalarFunc f);
const char* toString(ScalarFunc f);

using DateField = DateTimeField;  // EXTRACT's field (engine/types/datetime_fields.hpp)

enum class ArithOp : uint8_t { Add, Sub, Mul, Div, Mod, BitAnd };  // BitAnd: integers only
enum class CmpOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

struct Expr {
  ExprKind kind;
  SqlType type;  // result type, nullability included
  SourcePos pos;
  const IU* iu = nullptr;  // Column
  Value value;             // Constant
  ArithOp arith = ArithOp::Add;
  CmpOp cmp = CmpOp::Eq;
  bool negated = false;  // IsNull, Like, InList
  bool hasElse = false;  // Case
  // Cast: put in by the binder to make types meet (sql/semantic castTo), not written in the
  // query. A CHAR's padding survives the first and not the second (PostgreSQL: an explicit cast
  // to another string type drops trailing blanks), which LIKE tells apart (type_rules.cpp).
  bool implicitCast = false;
  // Constant: a quoted literal as written ('abc'), typed TEXT until an operand beside it gives it
  // that operand's type, as PostgreSQL's untyped literals; a CAST the query wrote types it for good
  // (CAST('a ' AS TEXT) compared with a CHAR is a text comparison, its blank counting).
  bool untypedLiteral = false;
  DateField field = DateField::Year;  // Extract
  ScalarFunc func = ScalarFunc::Substring;  // Call
  uint32_t param = 0;                       // Parameter
  std::string name;                         // RoutineCall
  SequenceOp sequenceOp = SequenceOp::NextVal;  // SequenceCall
  std::shared_ptr<Sequence> sequence;           // SequenceCall: resolved when bound, never a value
  std::vector<std::unique_ptr<Expr>> args;

  Expr(ExprKind k, SqlType t, SourcePos p = {}) : kind(k), type(t), pos(p) {}
  ~Expr();  // without recursion: a chain of 10,000 terms is a tree that deep

  static std::unique_ptr<Expr> column(const IU* iu, SourcePos p = {});
  static std::unique_ptr<Expr> constant(Value v, SourcePos p = {});
  std::unique_ptr<Expr> clone() const;

  // Does it read only these IUs (or none)? Used by predicate pushdown.
  void collectIUs(std::vector<const IU*>& out) const;
  bool isConstant() const { return kind == ExprKind::Constant; }
};

using ExprPtr = std::unique_ptr<Expr>;

// Does `e` read only IUs of `set` (constants read none)? Does it read any of them?
bool readsOnly(const Expr& e, const IURefs& set);
bool readsAny(const Expr& e, const IURefs& set);

// "a + 1", "sum" ... for EXPLAIN.
std::string toString(const Expr& e);
const char* toString(ArithOp op);
const char* toString(CmpOp op);
// The comparison with its sides swapped: c op x  ==  x mirrored(op) c.
CmpOp mirrored(CmpOp op);

}  // namespace hyrax::plan

namespace hyrax::plan {
// Structural equality (same operator tree, same IUs, same constants): GROUP BY matching.
bool sameExpr(const Expr& a, const Expr& b);
}  // namespace hyrax::plan
