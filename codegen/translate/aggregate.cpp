// Hash aggregation. consume() finds or inserts the row's group in a chained hash table (trying
// the previous row's group first, or the group a join entry points at) and updates the aggregate
// states in place; produce() then runs a pipeline over the groups. GROUP BY treats NULLs as one
// group. Without GROUP BY there is exactly one group, even for empty input.
#include <algorithm>

#include "codegen/translate/operator_translators.hpp"
#include "codegen/translate/query_compiler.hpp"
#include "engine/runtime/thread_scope.hpp"
#include "engine/util/machine_cores.hpp"

#include <llvm/IR/Intrinsics.h>

#include "engine/runtime/hash_table.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/types/text_format.hpp"

namespace hyrax::codegen {

using plan::AggFunc;

namespace {
constexpr double kLastGroupMinGroups = 10'000;
constexpr uint64_t kDirectKeys = 256;  // findGroup's array of groups by small integer keys

// A sum (or avg) of 16- or 32-bit integers in 64 bits cannot overflow before its 2^32nd value:
// each row adds a plain add, and the output checks the count once per group (one overflow check
// and branch per sum and row took a seventh of GROUP BY's time). Past 2^32 values the sum might
// have wrapped, so 22003 is raised, even if it would have fit: stricter than PostgreSQL, whose
// sum(int4) never checks.
bool countCheckedSum(const plan::Aggregate::Agg& agg) {
  return (agg.func == AggFunc::Sum || agg.func == AggFunc::Avg) && agg.arg->type.isInteger() && agg.arg->type.byteWidth() <= 4;
}
constexpr int64_t kCountCheckedMaxValues = int64_t{1} << 32;

// A variance's value as its distance from the group's first (`shift`), in double precision: the
// distances are small where the values are close, so the mean and the squares keep their digits
// (1e12 + 1, 1e12 + 2 ... would lose them as doubles), and integers and decimals subtract exactly
// first. Variances do not move with the shift.
llvm::Value* distanceFrom(CodeGen& cg, const SqlType& shiftType, llvm::Value* x, llvm::Value* shift) {
  auto& b = cg.b;
  if (shiftType.isFloat()) return b.CreateFSub(x, shift);
  llvm::Value* pair = b.CreateBinaryIntrinsic(llvm::Intrinsic::ssub_with_overflow, x, shift);
  cg.raiseIf(b.CreateExtractValue(pair, 1), HYRAX_ERR_OVERFLOW);
  llvm::Value* d = b.CreateSIToFP(b.CreateExtractValue(pair, 0), cg.f64());
  if (shiftType.id != TypeId::Decimal || shiftType.scale == 0) return d;
  return b.CreateFDiv(d, llvm::ConstantFP::get(cg.f64(), static_cast<double>(text::pow10(shiftType.scale))));
}
}  // namespace

llvm::Value* averageOf(CodeGen& cg, llvm::Value* sum, const SqlType& sumType, llvm::Value* count, llvm::Value* empty,
                       const SqlType& out) {
  auto& b = cg.b;
  if (sumType.isFloat()) return b.CreateFDiv(sum, b.CreateSIToFP(count, cg.f64()));
  if (out.isFloat())  // avg of BIGINT (aggregateResultType): the exact sum, rounded once to a double, over the count
    return b.CreateFDiv(b.CreateSIToFP(sum, cg.f64()), b.CreateSIToFP(count, cg.f64()));
  auto* slot = cg.local(cg.i64(), "avg");  // (0 for no values: the caller makes it NULL)
  b.CreateStore(cg.c64(0), slot);
  cg.If(b.CreateNot(empty), [&] {
    cg.checkStatus(cg.call("hyrax_rt_decimal_div", {cg.queryContext(), sum, cg.c32(sumType.scale), count, cg.c32(0),
                                                    cg.c32(out.scale), slot}));
  });
  return b.CreateLoad(cg.i64(), slot);
}

AggregateTranslator::AggregateTranslator(const plan::Operator& op, QueryTranslator& q) : Translator(op, q) {
  auto& a = static_cast<const plan::Aggregate&>(op);
  for (auto& g : a.groups) groupFields_.push_back(table_.addField(g.iu->type));
  for (auto& agg : a.aggregates) {
    AggState s;
    if (agg.func == AggFunc::Sum || agg.func == AggFunc::Avg) {
      const SqlType& in = agg.arg->type;
      s.valueType = in.isInteger() ? SqlType::int64(false)
                    : in.id == TypeId::Decimal ? SqlType::decimal(18, in.scale, false)
                                               : SqlType::float64(false);
      s.value = table_.addField(s.valueType);
    } else if (agg.func == AggFunc::Min || agg.func == AggFunc::Max) {
      s.valueType = agg.arg->type.withNullable(false);
      s.value = table_.addField(s.valueType);
    } else if (agg.func == AggFunc::ArrayAgg) {
      s.valueType = agg.iu->type.withNullable(false);  // the array so far (its text in the query's arena)
      s.value = table_.addField(s.valueType);
    } else if (plan::isVariance(agg.func)) {
      const SqlType& in = agg.arg->type;
      s.valueType = SqlType::float64(false);  // the mean's distance from the shift
      s.value = table_.addField(s.valueType);
      s.squares = table_.addField(s.valueType);
      s.shiftType = in.isInteger() ? SqlType::int64(false)
                    : in.id == TypeId::Decimal ? SqlType::decimal(18, in.scale, false)
                                               : SqlType::float64(false);
      s.shift = table_.addField(s.shiftType);
    }
    // count(*), array_agg (which keeps NULLs) and aggregates over NOT NULL arguments count every
    // row: one counter serves them all.
    s.sharedCount = agg.func == AggFunc::CountStar || (agg.func == AggFunc::ArrayAgg && !agg.skipNulls) ||
                    !agg.arg->type.nullable;
    if (s.sharedCount && !rowCount_) rowCount_ = table_.addField(SqlType::int64(false));
    s.count = s.sharedCount ? *rowCount_ : table_.addField(SqlType::int64(false));
    states_.push_back(s);
  }
}

void AggregateTranslator::consume(Translator&) {
  auto& b = cg_.b;
  if (entryGroups_ && entryGroups_->groupField()) {
    // Each join entry fixes its group: there are at most as many groups as entries.
    const double entries = entryGroups_->op().child(0)->estimatedRows;
    q_.sinkInto(PipelineSink::Aggregate, table_.slot(), merge_, mergeSlot_,
                entries >= 0 && op_.estimatedRows >= 0 ? std::min(op_.estimatedRows, entries) : op_.estimatedRows);
    // The join entry this row came from points at its group once the first of its rows found it.
    // On several threads each aggregates into a table of its own while all share the join's
    // entries: each thread has a field of its own in the entry (its tag modulo the entry's
    // slots; as many slots as the query's threads, up to 4), which holds the group's address with
    // the tag of the thread whose table holds it (QueryTranslator::threadTagSlot) in its top 16
    // bits; a thread uses only its own, finding the group by its keys otherwise. Where threads
    // share a slot the first to meet the entry keeps it. With one field for all, a thread found
    // half its groups by their keys (TPC-H Q13: 1.5M orders of random customers, one group per
    // customer): two threads took as long as one. The word is read and written as a relaxed
    // atomic (plain moves on x86-64 and ARM).
    q_.pinGroups();
    llvm::Value* thread = b.CreatePtrToInt(cg_.loadPtr(cg_.stateSlot(q_.threadTagSlot())), cg_.i64());
    llvm::Value* field = entryGroups_->groupField();
    if (const uint32_t slots = entryGroups_->groupSlots(); slots > 1)
      field = b.CreateGEP(cg_.i8(), field, b.CreateShl(b.CreateAnd(thread, cg_.c64(slots - 1)), 3));
    llvm::Value* tag = b.CreateShl(thread, 48);
    auto* load = b.CreateLoad(cg_.i64(), field);
    load->setAtomic(llvm::AtomicOrdering::Monotonic);
    load->setAlignment(llvm::Align(8));
    llvm::Value* raw = load;
    const auto mask = static_cast<int64_t>(kHashEntryMask);
    llvm::Value* mine = b.CreateAnd(b.CreateICmpNE(raw, cg_.c64(0)), b.CreateICmpEQ(b.CreateAnd(raw, cg_.c64(~mask)), tag));
    auto* group = cg_.local(cg_.ptr(), "entry_group");
    b.CreateStore(b.CreateIntToPtr(b.CreateAnd(raw, cg_.c64(mask)), cg_.ptr()), group);
    cg_.If(b.CreateNot(mine), [&] {
      llvm::Value* g = findGroup(groupKeys());
      b.CreateStore(g, group);
      cg_.If(b.CreateICmpEQ(raw, cg_.c64(0)), [&] {
        auto* store = b.CreateStore(b.CreateOr(b.CreatePtrToInt(g, cg_.i64()), tag), field);
        store->setAtomic(llvm::AtomicOrdering::Monotonic);
        store->setAlignment(llvm::Align(8));
      });
    });
    accumulate(b.CreateLoad(cg_.ptr(), group));
    return;
  }
  q_.sinkInto(PipelineSink::Aggregate, table_.slot(), merge_, mergeSlot_, op_.estimatedRows);
  {
    std::vector<const plan::IU*> columns;  // group keys that are a column as it is
    for (auto& g : static_cast<const plan::Aggregate&>(op_).groups)
      if (g.expr->kind == plan::ExprKind::Column) columns.push_back(g.expr->iu);
    q_.groupsBy(columns);
  }
  prefetchAhead();
  HashTableCode::Keys keys = groupKeys();
  if (groupFilter_) {
    std::vector<SqlValue> joinKeys;
    for (size_t g : filterGroups_) joinKeys.push_back(keys.values[g]);
    cg_.If(groupFilter_->holdsKeys(joinKeys), [&] { accumulate(findGroup(keys)); });
  } else {
    accumulate(findGroup(keys));
  }
}

void AggregateTranslator::skipGroupsWithout(HashJoinTranslator* join, std::vector<size_t> groupOfKey) {
  groupFilter_ = join;
  filterGroups_ = std::move(groupOfKey);
}

std::pair<HashJoinTranslator*, const plan::Expr*> AggregateTranslator::groupFilter() const {
  if (!groupFilter_ || filterGroups_.size() != 1) return {nullptr, nullptr};
  auto& a = static_cast<const plan::Aggregate&>(op_);
  const plan::Expr* key = a.groups[filterGroups_[0]].expr.get();
  // The groups the join's table keeps, of the groups expected: the share of rows kept, if rows
  // spread evenly over groups.
  const double share = groupFilter_->op().child(0)->estimatedRows / std::max(1.0, op_.estimatedRows);
  if (!key->type.isInteger() || !groupFilter_->worthFiltering(share)) return {nullptr, nullptr};
  return {groupFilter_, key};
}

HashTableCode::Keys AggregateTranslator::groupKeys() {
  auto& a = static_cast<const plan::Aggregate&>(op_);
  std::vector<SqlValue> values;
  for (auto& g : a.groups) {
    SqlValue k = q_.expr.compile(*g.expr);
    k.type = g.iu->type;
    if (!k.type.nullable) k.null = nullptr;
    values.push_back(k);
  }
  return table_.hashKeys(std::move(values));
}

// Many groups fed straight from a scan: the bucket of the group a row some rows ahead belongs to
// is loaded meanwhile (TPC-H Q18: 6M lineitem rows into 1.5M groups).
void AggregateTranslator::prefetchAhead() {
  auto& a = static_cast<const plan::Aggregate&>(op_);
  // Not when a join above lets few groups in (its filter, below, drops most rows first).
  if (!q_.lookahead || groupFilter_ || a.groups.empty() || op_.estimatedRows < QueryTranslator::kPrefetchMinEntries) return;
  for (auto& g : a.groups)
    if (g.expr->kind != plan::ExprKind::Column) return;
  // The row ahead's keys are read and hashed only while the table is large.
  table_.prefetchOnceLarge([&]() -> llvm::Value* {
    std::vector<SqlValue> ahead;
    for (auto& g : a.groups) {
      auto v = q_.lookahead(g.expr->iu, QueryTranslator::kPrefetchDistance);
      if (!v) return nullptr;
      v->type = g.iu->type;
      v->null = nullptr;
      ahead.push_back(*v);
    }
    return table_.hashKeys(std::move(ahead)).hash;
  });
}

// GROUP BY one integer key whose values are small (0..kDirectKeys-1: codes, flags, counts, small
// enums): a row finds its group in a pipeline call's array indexed by the key, without hashing,
// the bucket load, the chain's entry and the key compare, which made GROUP BY over 16 groups
// 3.5 times the hand-written loop that indexes an array by the key (bench/micro (2)). The array
// is a local of the pipeline function, zeroed on each call (2 KiB per morsel of 16,384 rows), and
// holds entries of the table found or inserted in this call. Entries stay where they are until
// the table spills (pre-aggregation), which makes it large: the insert that makes it so clears
// the array, and no entry is put there afterwards. So a row's way is one compare, one load and a
// null test (the table's state is not asked per row: that kept LLVM's loop busy with it). Other
// keys (negative, larger, NULL) take the hash table's way, at the cost of the compare.
llvm::Value* AggregateTranslator::findGroup(const HashTableCode::Keys& keys) {
  auto& b = cg_.b;
  if (keys.values.size() != 1 || !keys.values[0].type.isInteger()) return findGroupByHash(keys);
  auto* slots = llvm::ArrayType::get(cg_.ptr(), kDirectKeys);
  llvm::AllocaInst* direct = acrossRows().direct;
  auto clear = [&] { b.CreateMemSet(direct, cg_.c8(0), kDirectKeys * sizeof(void*), llvm::MaybeAlign(8)); };
  if (!direct) {
    direct = acrossRows().direct = cg_.local(slots, "direct_groups");
    llvm::IRBuilderBase::InsertPointGuard guard(b);
    b.SetInsertPoint(cg_.entryBlock());
    clear();
  }
  const SqlValue& key = keys.values[0];
  llvm::Value* index = b.CreateSExt(key.v, cg_.i64());
  llvm::Value* usable = b.CreateICmpULT(index, cg_.c64(kDirectKeys));
  if (key.null) usable = b.CreateAnd(usable, b.CreateNot(key.null));
  auto* found = cg_.local(cg_.ptr(), "group");
  b.CreateStore(llvm::ConstantPointerNull::get(cg_.ptr()), found);
  // (Read and written only where usable: no select to keep the address in bounds otherwise.)
  llvm::Value* slot = b.CreateGEP(slots, direct, {cg_.c64(0), index});
  cg_.If(usable, CodeGen::Usually::True, [&] { b.CreateStore(cg_.loadPtr(slot), found); });
  cg_.If(b.CreateIsNull(b.CreateLoad(cg_.ptr(), found)), CodeGen::Usually::False, [&] {
    llvm::Value* wasLarge = table_.isLarge();
    llvm::Value* group = findGroupByHash(keys);
    b.CreateStore(group, found);
    llvm::Value* large = table_.isLarge();
    cg_.If(b.CreateAnd(large, b.CreateNot(wasLarge)), clear);  // this insert spilled: entries moved
    cg_.If(b.CreateAnd(usable, b.CreateNot(large)), [&] { b.CreateStore(group, slot); });
  });
  return b.CreateLoad(cg_.ptr(), found);
}

// One pipeline function may hold consume()'s code more than once (a left outer join's consumer
// comes twice: for a probe row's matches and for a row without any), and an insert in either copy
// may spill the table's entries. So what a row leaves for the next (the groups by small key, the
// previous row's group) is one local per function, which every copy reads and updates: with a
// local per copy, a spill in one left the other's pointing at entries that had moved, and rows
// were counted in other groups (sqlfuzz finding 19).
AggregateTranslator::RowLocals& AggregateTranslator::acrossRows() {
  if (rowLocals_.fn != cg_.function()) rowLocals_ = RowLocals{cg_.function()};
  return rowLocals_;
}

llvm::Value* AggregateTranslator::findGroupByHash(const HashTableCode::Keys& keys) {
  auto& b = cg_.b;
  auto& a = static_cast<const plan::Aggregate&>(op_);
  // Only a big table makes the previous group worth a check: a few groups stay in cache, and
  // with them rows change group too often (TPC-H Q1 loses a third). Without GROUP BY there is
  // one group, found once.
  if (!a.groups.empty() && op_.estimatedRows < kLastGroupMinGroups) return table_.findOrInsert(keys, groupFields_);

  // The previous row's group first: input ordered or clustered by the keys (lineitem by
  // l_orderkey, a join's matches for one probe row) mostly stays in it, and its entry is in
  // cache; only a change of group walks a chain, whose head is then usually a cache miss. So it
  // is kept only once the table is large (the estimate may be far off: without statistics it is
  // the input's row count), and in a local, a register: in a state slot it was a store per row
  // that made LLVM load everything else again.
  llvm::AllocaInst* lastAddr = acrossRows().last;
  if (!lastAddr) {
    lastAddr = acrossRows().last = cg_.local(cg_.ptr(), "last_group");
    llvm::IRBuilderBase::InsertPointGuard guard(b);
    b.SetInsertPoint(cg_.entryBlock());
    b.CreateStore(llvm::ConstantPointerNull::get(cg_.ptr()), lastAddr);
  }
  auto* found = cg_.local(cg_.ptr(), "group");
  llvm::Value* last = cg_.loadPtr(lastAddr);
  b.CreateStore(last, found);
  auto* hit = cg_.local(cg_.i1(), "same_group");
  b.CreateStore(cg_.cFalse(), hit);
  cg_.If(b.CreateIsNotNull(last), [&] { b.CreateStore(table_.holds(last, groupFields_, keys), hit); });
  cg_.If(b.CreateNot(b.CreateLoad(cg_.i1(), hit)), [&] {
    llvm::Value* group = table_.findOrInsert(keys, groupFields_);
    b.CreateStore(group, found);
    llvm::Value* keep = a.groups.empty() ? group : b.CreateSelect(table_.isLarge(), group, llvm::ConstantPointerNull::get(cg_.ptr()));
    b.CreateStore(keep, lastAddr);
  });
  return b.CreateLoad(cg_.ptr(), found);
}

void AggregateTranslator::accumulate(llvm::Value* group) {
  auto& a = static_cast<const plan::Aggregate&>(op_);
  auto& b = cg_.b;
  if (rowCount_) {
    llvm::Value* addr = table_.fieldAddress(group, (*rowCount_));
    b.CreateStore(b.CreateAdd(b.CreateLoad(cg_.i64(), addr), cg_.c64(1)), addr);
  }

  for (size_t i = 0; i < a.aggregates.size(); ++i) {
    auto& agg = a.aggregates[i];
    const AggState& s = states_[i];
    if (agg.func == AggFunc::CountStar) continue;  // the shared row count
    llvm::Value* countAddr = table_.fieldAddress(group, (s.count));
    llvm::Value* count = b.CreateLoad(cg_.i64(), countAddr);
    SqlValue v = q_.expr.compile(*agg.arg);
    if (agg.func == AggFunc::ArrayAgg && !s.sharedCount) {  // string_agg's: NULLs left out and not counted
      if (v.type.id == TypeId::Null) continue;
      auto append = [&] {
        b.CreateStore(b.CreateAdd(count, cg_.c64(1)), countAddr);
        appendToArray(group, s, v, b.CreateICmpEQ(count, cg_.c64(0)));  // the first value: no array yet
      };
      if (v.null) cg_.If(b.CreateNot(v.null), append);
      else append();
      continue;
    }
    if (agg.func == AggFunc::ArrayAgg) {  // every row, NULLs too, in input order
      appendToArray(group, s, v, b.CreateICmpEQ(count, cg_.c64(1)));  // the first row: count is one ahead
      continue;
    }
    auto update = [&] {
      // Counted already when shared (updated above, so `count` is one ahead: compare with 1).
      if (!s.sharedCount) b.CreateStore(b.CreateAdd(count, cg_.c64(1)), countAddr);
      if (agg.func == AggFunc::Count) return;
      llvm::Value* addr = table_.fieldAddress(group, (s.value));
      SqlValue cur = cg_.loadValue(addr, s.valueType);
      SqlValue in = v;
      in.null = nullptr;
      if (plan::isVariance(agg.func)) {
        // Welford, over the distances from the first value: with n values now, mean += (x - mean)
        // / n; squares += (x - old mean) * (x - mean).
        llvm::Value* seen = s.sharedCount ? count : b.CreateAdd(count, cg_.c64(1));
        llvm::Value* n = b.CreateSIToFP(seen, cg_.f64());
        llvm::Value* raw = s.shiftType.isFloat() ? q_.expr.cast(in, s.shiftType).v
                           : in.type.isInteger() ? b.CreateSExt(in.v, cg_.i64())
                                                 : in.v;
        llvm::Value* shiftAddr = table_.fieldAddress(group, s.shift);
        llvm::Value* shift = b.CreateSelect(b.CreateICmpEQ(seen, cg_.c64(1)), raw,
                                            b.CreateLoad(raw->getType(), shiftAddr));
        b.CreateStore(shift, shiftAddr);
        llvm::Value* x = distanceFrom(cg_, s.shiftType, raw, shift);
        llvm::Value* delta = b.CreateFSub(x, cur.v);
        cur.v = b.CreateFAdd(cur.v, b.CreateFDiv(delta, n));
        cg_.storeValue(addr, cur);
        llvm::Value* squaresAddr = table_.fieldAddress(group, s.squares);
        llvm::Value* squares = b.CreateLoad(cg_.f64(), squaresAddr);
        b.CreateStore(b.CreateFAdd(squares, b.CreateFMul(delta, b.CreateFSub(x, cur.v))), squaresAddr);
        return;
      }
      if (agg.func == AggFunc::Sum || agg.func == AggFunc::Avg) {
        if (s.valueType.isFloat()) {
          in = q_.expr.cast(in, s.valueType);
          cur.v = b.CreateFAdd(cur.v, in.v);
        } else {
          llvm::Value* x = b.CreateSExt(in.v, cg_.i64());
          if (countCheckedSum(agg)) {
            cur.v = b.CreateAdd(cur.v, x);
          } else {
            llvm::Value* pair = b.CreateBinaryIntrinsic(llvm::Intrinsic::sadd_with_overflow, cur.v, x);
            cg_.raiseIf(b.CreateExtractValue(pair, 1), HYRAX_ERR_OVERFLOW);
            cur.v = b.CreateExtractValue(pair, 0);
          }
        }
        cg_.storeValue(addr, cur);
      } else {
        plan::CmpOp better = agg.func == AggFunc::Min ? plan::CmpOp::Lt : plan::CmpOp::Gt;
        llvm::Value* first = b.CreateICmpEQ(count, cg_.c64(s.sharedCount ? 1 : 0));
        llvm::Value* take = b.CreateOr(first, q_.expr.compare(better, in, cur));
        cg_.If(take, [&] { cg_.storeValue(addr, in); });
      }
    };
    if (v.null)
      cg_.If(b.CreateNot(v.null), update);
    else if (v.type.id == TypeId::Null)
      continue;  // aggregates skip NULLs
    else
      update();
  }
}

// Appends the row's value `v` (NULL too) to the group's array; `first`: there is none yet.
void AggregateTranslator::appendToArray(llvm::Value* group, const AggState& s, const SqlValue& v, llvm::Value* first) {
  auto& b = cg_.b;
  llvm::Value* addr = table_.fieldAddress(group, s.value);
  SqlValue cur = cg_.loadValue(addr, s.valueType);
  cur.null = first;
  SqlValue element = q_.expr.cast(v, SqlType::text());
  auto [elo, ehi] = q_.expr.safeString(element);
  auto* out = cg_.localStringOut("array_agg");
  llvm::Value* elementNull = element.null ? element.null : (v.type.isNull() ? cg_.cTrue() : cg_.cFalse());
  llvm::Value* flags = b.CreateOr(b.CreateZExt(cur.null, cg_.i32()), b.CreateShl(b.CreateZExt(elementNull, cg_.i32()), 1));
  cg_.checkStatus(cg_.call("hyrax_rt_array_agg_add", {cg_.queryContext(), cur.v, cur.hi, elo, ehi, flags, out}));
  SqlValue next;
  next.type = s.valueType;
  cg_.loadStringOut(out, next);
  cg_.storeValue(addr, next);
}

void AggregateTranslator::produce() {
  auto& a = static_cast<const plan::Aggregate&>(op_);
  auto& b = cg_.b;
  if (!a.groups.empty()) {  // a join below whose entries fix the groups (Map, Filter between)
    Translator* t = children[0].get();
    while (t->op().kind == plan::OpKind::Map || t->op().kind == plan::OpKind::Filter) t = t->children[0].get();
    std::vector<const plan::Expr*> keys;
    for (auto& g : a.groups) keys.push_back(g.expr.get());
    if (t->op().kind == plan::OpKind::HashJoin && static_cast<HashJoinTranslator*>(t)->entryFixes(keys)) {
      entryGroups_ = static_cast<HashJoinTranslator*>(t);
      // A slot per thread the query may run on, or the machine's cores: a statement's code is
      // cached and may run later at another SET threads.
      const auto* policy = ThreadScope<const ExecutionPolicy>::current();
      const uint32_t threads = std::max(policy ? policy->threads : 1u, machineCores());
      entryGroups_->reserveGroupField(threads <= 1 ? 1 : threads == 2 ? 2 : 4);
    }
  }
  table_.create(op_.estimatedRows);
  merge_ = cg_.uniqueName("merge");
  mergeSlot_ = q_.newStateSlot();
  q_.newStateSlot();  // mergeSlot_ + 1: the partition a merge call takes
  children[0]->produce();
  generateMerge();

  if (a.groups.empty()) table_.ensureOneEntry();

  table_.forEachEntry(op_.estimatedRows, [&](llvm::Value* entry) {
    for (size_t g = 0; g < a.groups.size(); ++g) q_.values[a.groups[g].iu] = table_.load(entry, groupFields_[g]);
    for (size_t k = 0; k < a.aggregates.size(); ++k) {
      auto& agg = a.aggregates[k];
      const AggState& s = states_[k];
      llvm::Value* count = b.CreateLoad(cg_.i64(), table_.fieldAddress(entry, (s.count)));
      SqlValue out;
      out.type = agg.iu->type;
      if (agg.func == AggFunc::CountStar || agg.func == AggFunc::Count) {
        out.v = count;
      } else {
        if (countCheckedSum(agg)) cg_.raiseIf(b.CreateICmpUGE(count, cg_.c64(kCountCheckedMaxValues)), HYRAX_ERR_OVERFLOW);
        llvm::Value* empty = b.CreateICmpEQ(count, cg_.c64(0));
        SqlValue cur = cg_.loadValue(table_.fieldAddress(entry, (s.value)), s.valueType);
        if (plan::isVariance(agg.func)) {
          // The sum of squared deviations over n - 1 (sample) or n (population); NULL below 2 or 1.
          const bool sample = agg.func == AggFunc::VarSamp || agg.func == AggFunc::StddevSamp;
          llvm::Value* squares = b.CreateLoad(cg_.f64(), table_.fieldAddress(entry, s.squares));
          llvm::Value* divisor = b.CreateSIToFP(sample ? b.CreateSub(count, cg_.c64(1)) : count, cg_.f64());
          cur.v = b.CreateFDiv(squares, divisor);
          if (agg.func == AggFunc::StddevSamp || agg.func == AggFunc::StddevPop)
            cur.v = b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, cur.v);
          if (sample) empty = b.CreateICmpSLT(count, cg_.c64(2));
        }
        if (agg.func == AggFunc::Avg) cur.v = averageOf(cg_, cur.v, s.valueType, count, empty, out.type);
        if (agg.func == AggFunc::ArrayAgg) {  // the open text closed (hyrax_rt_array_agg_add)
          auto* closed = cg_.localStringOut("array_agg");  // (zeroed: empty groups' NULL)
          cg_.If(b.CreateNot(empty), [&] {
            cg_.checkStatus(cg_.call("hyrax_rt_array_agg_close", {cg_.queryContext(), cur.v, cur.hi, closed}));
          });
          cg_.loadStringOut(closed, cur);
        }
        out.v = cur.v;
        out.hi = cur.hi;
        out.null = empty;
      }
      q_.values[agg.iu] = out;
    }
    emit();
  });
}

// Parallel aggregation: each helper thread aggregates its morsels into a table of its own (with
// many groups a small one that spills them into hash partitions: the driver's mergePartitions);
// this function then folds one such table, or one spilled partition (in state slot mergeSlot_),
// into the table in the sink's slot, a morsel of its entries per call: each group is found or
// inserted by its keys as a row's would be, and its states combine (counts and sums add, min/max
// keep the better value of the two that saw rows). A group may come several times from one source
// (a partition holds each spill's copy).
void AggregateTranslator::generateMerge() {
  auto& b = cg_.b;
  cg_.beginFunction(merge_);
  q_.markColdIf(op_.estimatedRows);
  llvm::Value* from = cg_.loadPtr(cg_.stateSlot(mergeSlot_));
  llvm::Value* n = cg_.call("hyrax_rt_ht_count", {from});
  llvm::Value* end = b.CreateSelect(b.CreateICmpULT(cg_.arg(3), n), cg_.arg(3), n);
  // Partition `part` of `parts` (state slot mergeSlot_ + 1, as part | parts << 32): each thread
  // merges the groups whose hash falls in its partition, into a table of its own (hashPartition's
  // steps; a spilled partition is merged whole, as partition 0 of 1).
  llvm::Value* partition = b.CreatePtrToInt(cg_.loadPtr(cg_.stateSlot(mergeSlot_ + 1)), cg_.i64());
  llvm::Value* part = b.CreateAnd(partition, cg_.c64(0xFFFFFFFF));
  llvm::Value* parts = b.CreateLShr(partition, 32);
  table_.forEntries(from, cg_.arg(2), end, [&](llvm::Value* entry) {
    llvm::Value* hash = b.CreateLoad(cg_.i64(), cg_.field(entry, kHashEntryLayout, HashEntryField::Hash));
    llvm::Value* mixed = b.CreateLShr(b.CreateMul(hash, cg_.c64(static_cast<int64_t>(kHashBucketMultiplier))), 32);
    cg_.If(b.CreateICmpEQ(b.CreateURem(mixed, parts), part), [&] { mergeGroup(entry); });
  }, [&](llvm::Value* later) {  // its bucket, from the hash stored with it (the same the keys give)
    table_.prefetch(b.CreateLoad(cg_.i64(), cg_.field(later, kHashEntryLayout, HashEntryField::Hash)));
  });
  cg_.endFunction();
}

void AggregateTranslator::mergeGroup(llvm::Value* entry) {
  auto& a = static_cast<const plan::Aggregate&>(op_);
  auto& b = cg_.b;
  std::vector<SqlValue> keys;
  for (size_t g = 0; g < a.groups.size(); ++g) {
    SqlValue k = table_.load(entry, groupFields_[g]);
    k.type = a.groups[g].iu->type;
    if (!k.type.nullable) k.null = nullptr;
    keys.push_back(k);
  }
  llvm::Value* group = findGroup(table_.storedKeys(std::move(keys), entry));
  // Counts as they were before this merge (a shared count is the row count, updated last).
  std::vector<llvm::Value*> mine, theirs;
  for (const AggState& s : states_) {
    mine.push_back(b.CreateLoad(cg_.i64(), table_.fieldAddress(group, s.count)));
    theirs.push_back(b.CreateLoad(cg_.i64(), table_.fieldAddress(entry, s.count)));
  }
  for (size_t k = 0; k < a.aggregates.size(); ++k) {
    const AggFunc f = a.aggregates[k].func;
    const AggState& s = states_[k];
    if (f == AggFunc::CountStar || f == AggFunc::Count) continue;
    cg_.If(b.CreateICmpNE(theirs[k], cg_.c64(0)), [&] {
      llvm::Value* addr = table_.fieldAddress(group, s.value);
      SqlValue cur = cg_.loadValue(addr, s.valueType);
      SqlValue in = cg_.loadValue(table_.fieldAddress(entry, s.value), s.valueType);
      cur.null = in.null = nullptr;
      if (f == AggFunc::ArrayAgg) {  // a thread's elements after the others' (no order is promised here)
        auto* out = cg_.localStringOut("array_agg");
        cg_.If(b.CreateICmpEQ(mine[k], cg_.c64(0)), [&] { cg_.storeValue(addr, in); }, [&] {
          cg_.checkStatus(cg_.call("hyrax_rt_array_agg_merge", {cg_.queryContext(), cur.v, cur.hi, in.v, in.hi, out}));
          SqlValue both;
          both.type = s.valueType;
          cg_.loadStringOut(out, both);
          cg_.storeValue(addr, both);
        });
      } else if (plan::isVariance(f)) {
        llvm::Value* squaresAddr = table_.fieldAddress(group, s.squares);
        llvm::Value* shiftAddr = table_.fieldAddress(group, s.shift);
        llvm::Type* shiftTy = cg_.payloadType(s.shiftType);
        llvm::Value* theirSquares = b.CreateLoad(cg_.f64(), table_.fieldAddress(entry, s.squares));
        llvm::Value* theirShift = b.CreateLoad(shiftTy, table_.fieldAddress(entry, s.shift));
        cg_.If(b.CreateICmpEQ(mine[k], cg_.c64(0)), [&] {  // none here yet: theirs as they are
          cg_.storeValue(addr, in);
          b.CreateStore(theirSquares, squaresAddr);
          b.CreateStore(theirShift, shiftAddr);
        }, [&] {
          // Chan et al.: the means weighted by the counts (theirs moved to this shift); the
          // squares add, plus the spread of the two means, delta^2 * n1 * n2 / n.
          llvm::Value* n1 = b.CreateSIToFP(mine[k], cg_.f64());
          llvm::Value* n2 = b.CreateSIToFP(theirs[k], cg_.f64());
          llvm::Value* n = b.CreateFAdd(n1, n2);
          llvm::Value* theirMean = b.CreateFAdd(in.v, distanceFrom(cg_, s.shiftType, theirShift, b.CreateLoad(shiftTy, shiftAddr)));
          llvm::Value* delta = b.CreateFSub(theirMean, cur.v);
          llvm::Value* squares = b.CreateLoad(cg_.f64(), squaresAddr);
          llvm::Value* spread = b.CreateFDiv(b.CreateFMul(b.CreateFMul(delta, delta), b.CreateFMul(n1, n2)), n);
          b.CreateStore(b.CreateFAdd(b.CreateFAdd(squares, theirSquares), spread), squaresAddr);
          cur.v = b.CreateFAdd(cur.v, b.CreateFDiv(b.CreateFMul(delta, n2), n));
          cg_.storeValue(addr, cur);
        });
      } else if (f == AggFunc::Sum || f == AggFunc::Avg) {
        if (s.valueType.isFloat()) {
          cur.v = b.CreateFAdd(cur.v, in.v);
        } else {
          llvm::Value* pair = b.CreateBinaryIntrinsic(llvm::Intrinsic::sadd_with_overflow, cur.v, in.v);
          cg_.raiseIf(b.CreateExtractValue(pair, 1), HYRAX_ERR_OVERFLOW);
          cur.v = b.CreateExtractValue(pair, 0);
        }
        cg_.storeValue(addr, cur);
      } else {
        plan::CmpOp better = f == AggFunc::Min ? plan::CmpOp::Lt : plan::CmpOp::Gt;
        llvm::Value* take = b.CreateOr(b.CreateICmpEQ(mine[k], cg_.c64(0)), q_.expr.compare(better, in, cur));
        cg_.If(take, [&] { cg_.storeValue(addr, in); });
      }
    });
  }
  std::vector<uint32_t> added;  // each count field once (the shared one is the row count)
  for (size_t k = 0; k < states_.size(); ++k) {
    uint32_t field = states_[k].count;
    if (std::find(added.begin(), added.end(), field) != added.end()) continue;
    added.push_back(field);
    b.CreateStore(b.CreateAdd(mine[k], theirs[k]), table_.fieldAddress(group, field));
  }
}

}  // namespace hyrax::codegen
