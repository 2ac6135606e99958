// Selection vectors for table scans: which conjuncts of the filter right above a scan are
// decided by engine/runtime/scan_selection.cpp's loops before the generated code sees a row, and
// the calls that narrow a block of rows to those that pass them. Under a selective filter most
// rows fail, and failing in a precompiled loop costs a compare where the generated code (above
// all the interpreter's and cheap code's) paid loads, branches and a trip through the pipeline.
#include <algorithm>

#include "codegen/translate/operator_translators.hpp"

#include "engine/runtime/like_pattern.hpp"
#include "engine/storage/table.hpp"
#include "engine/types/string_ref.hpp"

namespace hyrax::codegen {

namespace {

// Types whose stored form is a signed integer that orders as the values do.
bool storedAsInteger(const SqlType& t) {
  return t.isInteger() || t.id == TypeId::Decimal || t.id == TypeId::Date || t.id == TypeId::Time || t.id == TypeId::Timestamp;
}

// The column `e` reads as stored, or nullptr: a column, or an integer column widened to a larger
// integer type (smallint_col < 5, 5 being INTEGER), whose stored values, sign-extended, compare
// with constants of the wider type as they are.
const plan::Expr* storedColumn(const plan::Expr* e) {
  if (e->kind == plan::ExprKind::Cast && e->args.size() == 1 && e->args[0]->kind == plan::ExprKind::Column &&
      e->type.isInteger() && e->args[0]->type.isInteger() && e->args[0]->type.byteWidth() <= e->type.byteWidth())
    return e->args[0].get();
  return e->kind == plan::ExprKind::Column ? e : nullptr;
}

// The string column `e` reads with its stored bytes, or nullptr: a column, or a VARCHAR or TEXT
// column cast to TEXT or to a VARCHAR at least as long (the same bytes; not CHAR, whose cast to
// text drops its padding).
const plan::Expr* storedString(const plan::Expr* e) {
  if (e->kind == plan::ExprKind::Cast && e->args.size() == 1 && e->args[0]->kind == plan::ExprKind::Column) {
    const SqlType& from = e->args[0]->type;
    const SqlType& to = e->type;
    const bool sameBytes = (from.id == TypeId::Varchar || from.id == TypeId::Text) &&
                           (to.id == TypeId::Text || (to.id == TypeId::Varchar && (to.length == 0 || (from.length && from.length <= to.length))));
    return sameBytes ? e->args[0].get() : nullptr;
  }
  return e->kind == plan::ExprKind::Column && e->type.isString() ? e : nullptr;
}

// Whether constant `k` compares with column type `t` (read through `compared`, the comparison's
// operand type) as stored: integers of the compared type, DECIMALs of the column's scale, strings
// as bytes (the code generator compares strings' bytes; the binder cast the constant).
bool comparesAsStored(const SqlType& t, const SqlType& compared, const Value& k) {
  if (k.isNull()) return false;
  const SqlType& kt = k.type();
  if (t.isString()) return kt.isString() && compared.sameAs(t);
  return storedAsInteger(t) && kt.id == compared.id && (t.id != TypeId::Decimal || kt.scale == t.scale);
}

}  // namespace

// A hash join above that drops most of the scan's rows (TPC-H Q8: lineitem's 6M rows probe 1,451
// parts, 43,693 match): the rows whose keys its built table cannot hold (by the table's key
// filter, made for this once the table is built) are skipped here, before the generated code
// hashes and probes them one by one.
// Likewise under an aggregate that skips the groups a join above does not hold (TPC-H Q17's
// lineitem, grouped by l_partkey for the 204 parts the join keeps: AggregateTranslator::groupFilter).
std::vector<TableScanTranslator::ColumnTest> TableScanTranslator::joinTests(const std::vector<const plan::Expr*>& keys,
                                                                            HashJoinTranslator* join) {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  if (keys.empty() || keys.size() > 2) return {};
  std::vector<size_t> at;
  for (const plan::Expr* key : keys) {
    const plan::Expr* col = storedColumn(key);
    const size_t i = col ? scannedIndex(col) : scan.columns.size();
    if (i == scan.columns.size()) return {};
    at.push_back(i);
  }
  ColumnTest t;
  t.kind = ColumnTest::Kind::Joined;
  t.column = at[0];
  t.other = at.back();
  t.count = static_cast<uint32_t>(at.size());
  t.table = join->table();  // (loaded at the function's entry: the build is done before this pipeline)
  q_.useKeyFilter(join->tableSlot());
  std::string names;
  for (size_t i : at) names += (names.empty() ? "" : ", ") + scan.table->columns()[scan.columns[i].index].name;
  q_.selections.push_back((scan.alias.empty() ? scan.table->name() : scan.alias) + " (" + names + " by the join's table)");
  return {t};
}

// Two columns of the row compared (TPC-H Q4's l_commitdate < l_receiptdate, which keeps 63% of
// lineitem at random: a mispredicted branch every third row in the generated loop), when both
// are stored as integers of one width that order as the comparison does.
bool TableScanTranslator::compareTest(const plan::Expr& c, ColumnTest& t) const {
  if (c.kind != plan::ExprKind::Compare || c.args.size() != 2) return false;
  const plan::Expr* a = storedColumn(c.args[0].get());
  const plan::Expr* b = storedColumn(c.args[1].get());
  if (!a || !b || !c.args[0]->type.sameAs(c.args[1]->type)) return false;
  const SqlType& ta = a->iu->type;
  const SqlType& tb = b->iu->type;
  if (!storedAsInteger(ta) || ta.id != tb.id || ta.byteWidth() != tb.byteWidth() || ta.scale != tb.scale) return false;
  size_t i = scannedIndex(a), j = scannedIndex(b);
  auto& scan = static_cast<const plan::TableScan&>(op_);
  if (i == scan.columns.size() || j == scan.columns.size()) return false;
  uint32_t op = HYRAX_COMPARE_EQ;
  switch (c.cmp) {
    case plan::CmpOp::Eq: op = HYRAX_COMPARE_EQ; break;
    case plan::CmpOp::Ne: op = HYRAX_COMPARE_NE; break;
    case plan::CmpOp::Lt: op = HYRAX_COMPARE_LT; break;
    case plan::CmpOp::Le: op = HYRAX_COMPARE_LE; break;
    case plan::CmpOp::Gt: op = HYRAX_COMPARE_LT, std::swap(i, j); break;
    case plan::CmpOp::Ge: op = HYRAX_COMPARE_LE, std::swap(i, j); break;
  }
  t = {};
  t.kind = ColumnTest::Kind::Compare;
  t.column = i;
  t.other = j;
  t.count = op;
  return true;
}

size_t TableScanTranslator::scannedIndex(const plan::Expr* col) const {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  size_t i = 0;
  while (i < scan.columns.size() && (scan.columns[i].iu != col->iu || scan.columns[i].index == plan::TableScan::kRowNumber)) ++i;
  return i;
}

std::vector<TableScanTranslator::ColumnTest> TableScanTranslator::columnTests() {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  if (auto* join = dynamic_cast<HashJoinTranslator*>(parent))
    return joinTests(join->filterKeys(*this, static_cast<double>(scan.table->rowCount())), join);
  if (auto* agg = dynamic_cast<AggregateTranslator*>(parent)) {
    auto [join, key] = agg->groupFilter();
    return key ? joinTests({key}, join) : std::vector<ColumnTest>{};
  }
  auto* filter = dynamic_cast<FilterTranslator*>(parent);
  if (!filter) return {};
  const double rows = static_cast<double>(scan.table->rowCount());
  // A LIKE costs tens of nanoseconds a row (TPC-H Q13's '%special%requests%' over 1.5M comments:
  // 53 ms), so it is decided here even when it keeps most rows: in the generated loop it stood
  // between one row's hash probes and the next's, whose cache misses then no longer overlapped
  // (Q13's probe of customer's table and aggregate, 29 ms without the LIKE, over 200 with it).
  const bool selective = filter->op().estimatedRows <= kSelectiveShare * rows;
  std::vector<const plan::Expr*> all;
  FilterTranslator::conjuncts(*static_cast<const plan::Filter&>(filter->op()).predicate, all);
  std::vector<ColumnTest> tests;
  // The values of an equality or IN list, kept with the code: int64s, or StringRefs (a long
  // string's characters in a buffer of their own).
  auto keep = [&](const std::vector<const Value*>& values, bool strings) -> const void* {
    std::vector<uint64_t> words;
    for (const Value* v : values) {
      if (!strings) {
        words.push_back(static_cast<uint64_t>(v->asInt()));
        continue;
      }
      const std::string& s = v->asString();
      const char* data = s.data();
      if (s.size() > StringRef::kInlineMax) {
        q_.constants.strings.push_back(s);
        data = q_.constants.strings.back().data();
      }
      StringRef ref = StringRef::make(data, static_cast<uint32_t>(s.size()));
      words.push_back(ref.lo());
      words.push_back(ref.hi());
    }
    if (!strings)  // searched in order when long (hyrax_rt_select_values)
      std::sort(words.begin(), words.end(), [](uint64_t a, uint64_t b) { return static_cast<int64_t>(a) < static_cast<int64_t>(b); });
    q_.constants.words.push_back(std::move(words));
    return q_.constants.words.back().data();
  };
  for (const plan::Expr* c : all) {
    if (c->kind == plan::ExprKind::Like) {
      const plan::Expr* col = storedString(c->args[0].get());
      const plan::Expr* pattern = c->args[1].get();
      if (!col || pattern->kind != plan::ExprKind::Constant || pattern->value.isNull() || !pattern->value.type().isString())
        continue;
      const size_t i = scannedIndex(col);
      std::string prepared;
      if (i == scan.columns.size() || !prepareLikePattern(pattern->value.asString(), prepared)) continue;
      q_.constants.strings.push_back(std::move(prepared));
      tests.push_back({ColumnTest::Kind::Like, i, 0, 0, q_.constants.strings.back().data(), c->negated ? 1u : 0u});
      filter->decidedBelow.push_back(c);
      continue;
    }
    if (!selective) continue;
    if (ColumnTest t; compareTest(*c, t)) {
      tests.push_back(t);
      filter->decidedBelow.push_back(c);
      continue;
    }
    if (c->kind == plan::ExprKind::Compare && c->args.size() == 2 && c->cmp != plan::CmpOp::Ne) {
      const plan::Expr* col = c->args[0].get();
      const plan::Expr* k = c->args[1].get();
      plan::CmpOp op = c->cmp;
      if (col->kind == plan::ExprKind::Constant) {
        std::swap(col, k);
        op = plan::mirrored(op);
      }
      const SqlType compared = col->type;
      col = storedColumn(col);
      if (!col || k->kind != plan::ExprKind::Constant) continue;
      size_t i = scannedIndex(col);
      if (i == scan.columns.size() || !comparesAsStored(col->iu->type, compared, k->value)) continue;
      if (col->iu->type.isString()) {
        if (op != plan::CmpOp::Eq) continue;
        tests.push_back({ColumnTest::Kind::Strings, i, 0, 0, keep({&k->value}, true), 1});
      } else {
        const int64_t v = k->value.asInt();
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        switch (op) {
          case plan::CmpOp::Eq: lo = hi = v; break;
          case plan::CmpOp::Lt: if (v == INT64_MIN) lo = 1, hi = 0; else hi = v - 1; break;
          case plan::CmpOp::Le: hi = v; break;
          case plan::CmpOp::Gt: if (v == INT64_MAX) lo = 1, hi = 0; else lo = v + 1; break;
          case plan::CmpOp::Ge: lo = v; break;
          case plan::CmpOp::Ne: break;
        }
        auto same = std::find_if(tests.begin(), tests.end(),
                                 [&](const ColumnTest& r) { return r.column == i && r.kind == ColumnTest::Kind::Range; });
        if (same == tests.end()) {
          tests.push_back({ColumnTest::Kind::Range, i, lo, hi, nullptr, 0});
        } else {
          same->lo = std::max(same->lo, lo);
          same->hi = std::min(same->hi, hi);
        }
      }
      filter->decidedBelow.push_back(c);
    } else if (c->kind == plan::ExprKind::InList && !c->negated && c->args.size() >= 2) {
      // x IN (a, b, ...) as a filter: true where x equals an item; NULL items never match.
      const plan::Expr* col = storedColumn(c->args[0].get());
      if (!col) continue;
      size_t i = scannedIndex(col);
      if (i == scan.columns.size()) continue;
      const SqlType& t = col->iu->type;
      std::vector<const Value*> values;
      bool all = true;
      for (size_t a = 1; a < c->args.size() && all; ++a) {
        const plan::Expr* item = c->args[a].get();
        if (item->kind != plan::ExprKind::Constant) all = false;
        else if (item->value.isNull()) continue;
        else if (!comparesAsStored(t, c->args[0]->type, item->value)) all = false;
        else values.push_back(&item->value);
      }
      if (!all) continue;
      const bool strings = t.isString();
      tests.push_back({strings ? ColumnTest::Kind::Strings : ColumnTest::Kind::Values, i, 0, 0,
                       values.empty() ? nullptr : keep(values, strings), static_cast<uint32_t>(values.size())});
      filter->decidedBelow.push_back(c);
    }
  }
  // The first test reads every row of a block: ranges first, a 32-bit column without NULLs
  // before others (the fast loop), strings last (16 bytes a row, and calls for long ones), LIKE
  // after them (a search a row).
  auto rank = [&](const ColumnTest& t) {
    const SqlType& type = scan.columns[t.column].iu->type;
    if (t.kind == ColumnTest::Kind::Like) return 4;
    if (t.kind == ColumnTest::Kind::Strings) return 3;
    if (t.kind == ColumnTest::Kind::Values || t.kind == ColumnTest::Kind::Compare) return 2;
    return type.byteWidth() == 4 && !type.nullable ? 0 : 1;
  };
  std::stable_sort(tests.begin(), tests.end(), [&](const ColumnTest& a, const ColumnTest& b) { return rank(a) < rank(b); });
  if (!tests.empty()) {
    std::string text = scan.alias.empty() ? scan.table->name() : scan.alias;
    auto name = [&](size_t i) { return scan.table->columns()[scan.columns[i].index].name; };
    for (size_t i = 0; i < tests.size(); ++i)
      text += (i ? ", " : " (") + name(tests[i].column) + (tests[i].kind == ColumnTest::Kind::Compare ? " with " + name(tests[i].other) : "");
    q_.selections.push_back(text + ")");
  }
  // A hash join right above the filter narrows the rows left further, after the filter's tests
  // (a key filter's test costs a row more than a compare): TPC-H Q3's lineitem after l_shipdate,
  // 1% of whose rows find one of the 147,000 orders built; Q4's, 4% one of 57,000.
  if (auto* join = dynamic_cast<HashJoinTranslator*>(filter->parent)) {
    std::vector<ColumnTest> joined = joinTests(join->filterKeys(*filter, filter->op().estimatedRows), join);
    tests.insert(tests.end(), joined.begin(), joined.end());
  }
  return tests;
}

llvm::Value* TableScanTranslator::selectRows(llvm::Value* first, llvm::Value* last, const std::vector<llvm::Value*>& data,
                                             const std::vector<llvm::Value*>& nulls, const std::vector<ColumnTest>& tests,
                                             llvm::Value* selection) {
  auto& scan = static_cast<const plan::TableScan&>(op_);
  auto& b = cg_.b;
  llvm::Value* nullPtr = llvm::ConstantPointerNull::get(cg_.ptr());
  llvm::Value* n = nullptr;  // none yet: the first test reads [first, last)
  auto otherNulls = [&](const ColumnTest& t) { return nulls[t.other] ? nulls[t.other] : nullPtr; };
  auto shape = [&](const ColumnTest& t) { return cg_.c32(scan.columns[t.column].iu->type.byteWidth() | t.count << 8); };
  // Two join keys: {column, its NULLs, other, its NULLs} in an array (a runtime function takes
  // at most 8 parameters), and their widths.
  auto keyColumns = [&](const ColumnTest& t) {
    llvm::Value* a = cg_.local(llvm::ArrayType::get(cg_.ptr(), 4), "join_keys");
    llvm::Value* parts[] = {data[t.column], nulls[t.column] ? nulls[t.column] : nullPtr, data[t.other],
                            nulls[t.other] ? nulls[t.other] : nullPtr};
    for (unsigned k = 0; k < 4; ++k) b.CreateStore(parts[k], b.CreateConstGEP1_32(cg_.ptr(), a, k));
    return a;
  };
  auto keyWidths = [&](const ColumnTest& t) {
    return cg_.c32(scan.columns[t.column].iu->type.byteWidth() | scan.columns[t.other].iu->type.byteWidth() << 8);
  };
  for (const ColumnTest& t : tests) {
    llvm::Value* column = data[t.column];
    llvm::Value* columnNulls = nulls[t.column] ? nulls[t.column] : nullPtr;
    llvm::Value* width = cg_.c32(scan.columns[t.column].iu->type.byteWidth());
    llvm::Value* values = t.values ? cg_.cPtr(t.values) : nullPtr;
    llvm::Value* count = cg_.c32(t.count);
    if (!n) {
      llvm::Value* from = b.CreateTrunc(first, cg_.i32());
      llvm::Value* to = b.CreateTrunc(last, cg_.i32());
      switch (t.kind) {
        case ColumnTest::Kind::Range:
          n = cg_.call("hyrax_rt_select_range", {column, columnNulls, width, from, to, cg_.c64(t.lo), cg_.c64(t.hi), selection});
          break;
        case ColumnTest::Kind::Values:
          n = cg_.call("hyrax_rt_select_values", {column, columnNulls, width, values, count, from, to, selection});
          break;
        case ColumnTest::Kind::Strings:
          n = cg_.call("hyrax_rt_select_strings", {column, columnNulls, values, count, from, to, selection});
          break;
        case ColumnTest::Kind::Like:
          n = cg_.call("hyrax_rt_select_like", {column, columnNulls, values, count, from, to, selection});
          break;
        case ColumnTest::Kind::Compare:
          n = cg_.call("hyrax_rt_select_compare", {column, columnNulls, data[t.other], otherNulls(t), shape(t), from, to, selection});
          break;
        case ColumnTest::Kind::Joined:
          n = t.count == 2 ? cg_.call("hyrax_rt_select_joined2", {t.table, keyColumns(t), keyWidths(t), from, to, selection})
                           : cg_.call("hyrax_rt_select_joined", {t.table, column, columnNulls, width, from, to, selection});
          break;
      }
      continue;
    }
    switch (t.kind) {
      case ColumnTest::Kind::Range:
        n = cg_.call("hyrax_rt_refine_range", {column, columnNulls, width, selection, n, cg_.c64(t.lo), cg_.c64(t.hi)});
        break;
      case ColumnTest::Kind::Values:
        n = cg_.call("hyrax_rt_refine_values", {column, columnNulls, width, values, count, selection, n});
        break;
      case ColumnTest::Kind::Strings:
        n = cg_.call("hyrax_rt_refine_strings", {column, columnNulls, values, count, selection, n});
        break;
      case ColumnTest::Kind::Like:
        n = cg_.call("hyrax_rt_refine_like", {column, columnNulls, values, count, selection, n});
        break;
      case ColumnTest::Kind::Compare:
        n = cg_.call("hyrax_rt_refine_compare", {column, columnNulls, data[t.other], otherNulls(t), shape(t), selection, n});
        break;
      case ColumnTest::Kind::Joined:
        n = t.count == 2 ? cg_.call("hyrax_rt_refine_joined2", {t.table, keyColumns(t), keyWidths(t), selection, n})
                         : cg_.call("hyrax_rt_refine_joined", {t.table, column, columnNulls, width, selection, n});
        break;
    }
  }
  return n;
}

}  // namespace hyrax::codegen
