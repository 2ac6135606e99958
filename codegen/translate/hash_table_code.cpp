#include "codegen/translate/hash_table_code.hpp"

#include <algorithm>

#include "engine/runtime/hash_table.hpp"
#include "engine/runtime/runtime.hpp"

namespace hyrax::codegen {

HashTableCode::HashTableCode(QueryTranslator& q)
    : q_(q), cg_(q.cg), layout_(static_cast<uint32_t>(q.cg.sizeOf(kHashEntryLayout))) {}

void HashTableCode::create(double expectedEntries) {
  slot_ = q_.newStateSlot();
  created_ = true;
  int64_t expected = static_cast<int64_t>(std::min(expectedEntries, 1e12));
  q_.atInit([this, expected] {
    llvm::Value* table = cg_.call("hyrax_rt_ht_create", {cg_.queryContext(), cg_.c32(layout_.size()), cg_.c64(expected)});
    cg_.b.CreateStore(cg_.checkNotNull(table), cg_.stateSlot(slot_));
  });
}

llvm::Value* HashTableCode::table() { return view().table; }

HashTableCode::FunctionView& HashTableCode::view() {
  if (!created_) throw Error(sqlstate::InternalError, "codegen: hash table used before create()");
  if (view_.fn != cg_.function()) {
    // Only the query's init writes the state slot, before any pipeline runs.
    llvm::IRBuilderBase::InsertPointGuard guard(cg_.b);
    cg_.b.SetInsertPoint(cg_.entryBlock());
    view_.fn = cg_.function();
    view_.table = cg_.loadPtr(cg_.stateSlot(slot_));
    view_.buckets = cg_.local(cg_.ptr(), "ht_buckets");
    view_.shift = cg_.local(cg_.i64(), "ht_shift");
    view_.large = cg_.local(cg_.i1(), "ht_large");
    loadDirectory(view_);
  }
  return view_;
}

void HashTableCode::loadDirectory(FunctionView& v) {
  auto& b = cg_.b;
  b.CreateStore(cg_.loadPtr(cg_.field(v.table, kHashDirectoryLayout, HashDirectoryField::Buckets)), v.buckets);
  b.CreateStore(b.CreateLoad(cg_.i64(), cg_.field(v.table, kHashDirectoryLayout, HashDirectoryField::Shift)), v.shift);
  llvm::Value* large = b.CreateLoad(cg_.i64(), cg_.field(v.table, kHashDirectoryLayout, HashDirectoryField::Large));
  b.CreateStore(b.CreateICmpNE(large, cg_.c64(0)), v.large);
}

llvm::Value* HashTableCode::isLarge() { return cg_.b.CreateLoad(cg_.i1(), view().large); }

HashTableCode::Keys HashTableCode::hashKeys(std::vector<SqlValue> values) {
  auto& b = cg_.b;
  Keys k;
  k.values = std::move(values);
  for (auto& v : k.values) {
    // hash() is for values that are not NULL: a NULL string's payload is never handed to the
    // runtime (it need not be a string), the empty string's is hashed instead.
    SqlValue h = v;
    if (v.null && v.type.isTwoWords()) {
      h.v = b.CreateSelect(v.null, cg_.c64(0), v.v);
      h.hi = b.CreateSelect(v.null, cg_.c64(0), v.hi);
    }
    llvm::Value* kh = q_.expr.hash(h);
    if (v.null) {
      k.anyNull = k.anyNull ? b.CreateOr(k.anyNull, v.null) : v.null;
      kh = b.CreateSelect(v.null, cg_.c64(0x5bd1e995), kh);
    }
    k.hash = k.hash ? q_.expr.combine(k.hash, kh) : kh;
  }
  if (!k.hash) k.hash = cg_.c64(0);  // no keys: one chain (a cross product, or one group)
  return k;
}

HashTableCode::Keys HashTableCode::storedKeys(std::vector<SqlValue> values, llvm::Value* entry) {
  Keys k;
  k.values = std::move(values);
  for (auto& v : k.values)
    if (v.null) k.anyNull = k.anyNull ? cg_.b.CreateOr(k.anyNull, v.null) : v.null;
  k.hash = entryHash(entry);
  return k;
}

llvm::Value* HashTableCode::keysEqual(llvm::Value* entry, const std::vector<uint32_t>& keyFields, const Keys& keys) {
  auto& b = cg_.b;
  llvm::Value* eq = cg_.cTrue();
  for (size_t i = 0; i < keys.values.size(); ++i) {
    SqlValue stored = load(entry, keyFields[i]);
    const SqlValue& k = keys.values[i];
    if (!k.null) {
      SqlValue s = stored;
      s.null = nullptr;
      eq = b.CreateAnd(eq, q_.expr.compare(plan::CmpOp::Eq, s, k));
      continue;
    }
    // Both NULL, or both present and equal (the payloads of NULLs are not compared).
    SqlValue kv = k, sv = stored;
    kv.null = sv.null = nullptr;
    llvm::Value* storedNull = stored.null ? stored.null : cg_.cFalse();
    llvm::Value* bothNull = b.CreateAnd(k.null, storedNull);
    llvm::Value* bothThere = b.CreateAnd(b.CreateNot(k.null), b.CreateNot(storedNull));
    if (kv.type.isTwoWords()) {  // compare() may call the runtime: give it safe halves for NULLs
      kv.v = b.CreateSelect(k.null, cg_.c64(0), kv.v);
      kv.hi = b.CreateSelect(k.null, cg_.c64(0), kv.hi);
      sv.v = b.CreateSelect(storedNull, cg_.c64(0), sv.v);
      sv.hi = b.CreateSelect(storedNull, cg_.c64(0), sv.hi);
    }
    eq = b.CreateAnd(eq, b.CreateOr(bothNull, b.CreateAnd(bothThere, q_.expr.compare(plan::CmpOp::Eq, sv, kv))));
  }
  return eq;
}

bool HashTableCode::cheapKeys(const Keys& keys) {
  return std::none_of(keys.values.begin(), keys.values.end(), [](const SqlValue& v) { return v.type.isTwoWords(); });
}

// A chain walk of its own (not FindInChain): the walk's two ends, a match and the chain's end,
// go straight to the found entry and the insert, instead of meeting in a null check.
llvm::Value* HashTableCode::findOrInsert(const Keys& keys, const std::vector<uint32_t>& keyFields) {
  auto& b = cg_.b;
  bool cheap = cheapKeys(keys);
  auto block = [&](const char* name) { return llvm::BasicBlock::Create(cg_.ctx, name, cg_.function()); };
  auto *tags = block("group_tags"), *loop = block("group_walk"), *test = block("group_test");
  auto *next = block("group_next"), *missing = block("group_new"), *done = block("group_found");
  llvm::Value* bucket = b.CreateLoad(cg_.i64(), bucketAddress(keys.hash));
  llvm::Value* head = chainOf(bucket);
  auto* pre = b.GetInsertBlock();
  b.CreateCondBr(cheap ? isLarge() : cg_.cTrue(), tags, loop);
  b.SetInsertPoint(tags);
  b.CreateCondBr(tagged(bucket, keys.hash), loop, missing);
  b.SetInsertPoint(loop);
  llvm::PHINode* entry = b.CreatePHI(cg_.ptr(), 3, "entry");
  entry->addIncoming(head, pre);
  entry->addIncoming(head, tags);
  b.CreateCondBr(b.CreateIsNull(entry), missing, test);
  b.SetInsertPoint(test);
  llvm::Value* match;
  if (cheap) {
    match = keysEqual(entry, keyFields, keys);
  } else {
    auto* same = cg_.local(cg_.i1(), "match");
    b.CreateStore(cg_.cFalse(), same);
    cg_.If(b.CreateICmpEQ(entryHash(entry), keys.hash), [&] { b.CreateStore(keysEqual(entry, keyFields, keys), same); });
    match = b.CreateLoad(cg_.i1(), same);
  }
  auto* tested = b.GetInsertBlock();
  b.CreateCondBr(match, done, next);
  b.SetInsertPoint(next);
  entry->addIncoming(cg_.loadPtr(cg_.field(entry, kHashEntryLayout, HashEntryField::Next)), next);
  b.CreateBr(loop);
  b.SetInsertPoint(missing);
  llvm::Value* created = insert(keys.hash);
  for (size_t i = 0; i < keys.values.size(); ++i) store(created, keyFields[i], keys.values[i]);
  auto* inserted = b.GetInsertBlock();
  b.CreateBr(done);
  b.SetInsertPoint(done);
  llvm::PHINode* found = b.CreatePHI(cg_.ptr(), 2, "group");
  found->addIncoming(entry, tested);
  found->addIncoming(created, inserted);
  return found;
}

llvm::Value* HashTableCode::holds(llvm::Value* entry, const std::vector<uint32_t>& keyFields, const Keys& keys) {
  auto& b = cg_.b;
  if (cheapKeys(keys)) return keysEqual(entry, keyFields, keys);
  auto* same = cg_.local(cg_.i1(), "holds");
  b.CreateStore(cg_.cFalse(), same);
  cg_.If(b.CreateICmpEQ(entryHash(entry), keys.hash), [&] { b.CreateStore(keysEqual(entry, keyFields, keys), same); });
  return b.CreateLoad(cg_.i1(), same);
}

llvm::Value* HashTableCode::insert(llvm::Value* hash) {
  FunctionView& v = view();
  llvm::Value* entry = cg_.checkNotNull(cg_.call("hyrax_rt_ht_insert", {cg_.queryContext(), v.table, hash}));
  loadDirectory(v);  // the insert may have grown it
  return entry;
}

// The address of the bucket of `hash` in the table's directory (HashTable::bucket's steps).
llvm::Value* HashTableCode::bucketAddress(llvm::Value* hash) {
  auto& b = cg_.b;
  FunctionView& v = view();
  llvm::Value* buckets = cg_.loadPtr(v.buckets);
  llvm::Value* shift = b.CreateLoad(cg_.i64(), v.shift);
  llvm::Value* index = b.CreateLShr(b.CreateMul(hash, cg_.c64(static_cast<int64_t>(kHashBucketMultiplier))), shift);
  return b.CreateGEP(cg_.i64(), buckets, index);
}

// HashTable::lookup's steps: the chain's head, or null when the bucket's tag bit for `hash` is clear.
llvm::Value* HashTableCode::chainHead(llvm::Value* hash) {
  llvm::Value* bucket = cg_.b.CreateLoad(cg_.i64(), bucketAddress(hash));
  return cg_.b.CreateSelect(tagged(bucket, hash), chainOf(bucket), llvm::ConstantPointerNull::get(cg_.ptr()));
}

llvm::Value* HashTableCode::tagged(llvm::Value* bucket, llvm::Value* hash) {
  auto& b = cg_.b;
  llvm::Value* tag = b.CreateShl(cg_.c64(1), b.CreateAdd(b.CreateAnd(hash, cg_.c64(15)), cg_.c64(48)));
  return b.CreateICmpNE(b.CreateAnd(bucket, tag), cg_.c64(0));
}

llvm::Value* HashTableCode::chainOf(llvm::Value* bucket) {
  return cg_.b.CreateIntToPtr(cg_.b.CreateAnd(bucket, cg_.c64(static_cast<int64_t>(kHashEntryMask))), cg_.ptr());
}

llvm::Value* HashTableCode::entryHash(llvm::Value* entry) {
  return cg_.b.CreateLoad(cg_.i64(), cg_.field(entry, kHashEntryLayout, HashEntryField::Hash));
}

void HashTableCode::forEachCandidate(llvm::Value* hash, const std::function<void(llvm::Value*)>& body) {
  cg_.ForChain(chainHead(hash), [&](llvm::Value* entry) {
    cg_.If(cg_.b.CreateICmpEQ(entryHash(entry), hash), [&] { body(entry); });
  });
}

llvm::Value* HashTableCode::findCandidate(llvm::Value* hash, const std::function<llvm::Value*(llvm::Value*)>& matches) {
  auto& b = cg_.b;
  return cg_.FindInChain(chainHead(hash), [&](llvm::Value* entry) {
    auto* match = cg_.local(cg_.i1(), "match");
    b.CreateStore(cg_.cFalse(), match);
    cg_.If(b.CreateICmpEQ(entryHash(entry), hash), [&] { b.CreateStore(matches(entry), match); });
    return b.CreateLoad(cg_.i1(), match);
  });
}

void HashTableCode::prefetch(llvm::Value* hash) { cg_.prefetch(bucketAddress(hash)); }

void HashTableCode::prefetchOnceLarge(const std::function<llvm::Value*()>& hashOf) {
  cg_.If(isLarge(), [&] {
    if (llvm::Value* hash = hashOf()) cg_.prefetch(bucketAddress(hash));
  });
}

llvm::Value* HashTableCode::count() { return cg_.call("hyrax_rt_ht_count", {table()}); }

void HashTableCode::forEachEntry(double rows, const std::function<void(llvm::Value*)>& body) {
  auto& b = cg_.b;
  q_.beginPipeline(rows);
  q_.morselsOver(MorselSource::HashEntries, nullptr, slot_);
  llvm::Value* ht = table();
  llvm::Value* n = count();
  llvm::Value* end = b.CreateSelect(b.CreateICmpULT(cg_.arg(3), n), cg_.arg(3), n);
  forEntries(ht, cg_.arg(2), end, body);
  q_.endPipeline();
}

// Entries begin..end of `table` (this layout's), a block's run of them at a time: one runtime
// call per block, where a call per entry was a tenth of TPC-H Q18 at two threads (the merge of
// 1.5M groups and the pipelines over them).
void HashTableCode::forEntries(llvm::Value* table, llvm::Value* begin, llvm::Value* end,
                               const std::function<void(llvm::Value*)>& body,
                               const std::function<void(llvm::Value*)>& ahead) {
  auto& b = cg_.b;
  llvm::Value* run = cg_.local(llvm::ArrayType::get(cg_.i64(), 2), "entry_run");
  auto* pre = b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(cg_.ctx, "runs", cg_.function());
  auto* inRun = llvm::BasicBlock::Create(cg_.ctx, "run", cg_.function());
  auto* exit = llvm::BasicBlock::Create(cg_.ctx, "runs_exit", cg_.function());
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(cg_.i64(), 2, "run_first");
  i->addIncoming(begin, pre);
  b.CreateCondBr(b.CreateICmpULT(i, end), inRun, exit);
  b.SetInsertPoint(inRun);
  llvm::Value* first = cg_.call("hyrax_rt_ht_entry_run", {table, i, run});
  llvm::Value* rows = b.CreateLoad(cg_.i64(), run);
  llvm::Value* stride = b.CreateLoad(cg_.i64(), b.CreateConstGEP1_64(cg_.i64(), run, 1));
  llvm::Value* left = b.CreateSub(end, i);
  llvm::Value* k = b.CreateSelect(b.CreateICmpULT(rows, left), rows, left);
  cg_.ForRange(cg_.c64(0), k, [&](llvm::Value* j) {
    cg_.cancelPoint();
    if (ahead) {
      llvm::Value* later = b.CreateAdd(j, cg_.c64(kEntriesAhead));
      cg_.If(b.CreateICmpULT(later, k), [&] { ahead(b.CreateGEP(cg_.i8(), first, b.CreateMul(later, stride))); });
    }
    body(b.CreateGEP(cg_.i8(), first, b.CreateMul(j, stride)));
  });
  i->addIncoming(b.CreateAdd(i, k), b.GetInsertBlock());
  b.CreateBr(loop);
  b.SetInsertPoint(exit);
}

void HashTableCode::ensureOneEntry() {
  q_.beginPipeline();
  cg_.If(cg_.b.CreateICmpEQ(count(), cg_.c64(0)), [&] { insert(cg_.c64(0)); });
  q_.endPipeline();
}

}  // namespace hyrax::codegen
