#pragma once
// One hash table as generated code uses it: the runtime HashTable (engine/runtime/hash_table.hpp:
// directory, entries, growth) plus the IR that hashes keys, inserts, walks chains, compares keys
// and visits every entry. The hash join and the aggregation each own one and go through this
// interface only, so the table's layout and its walking are written once.
//
// Shaped for morsel parallelism: everything a pipeline does to the table is one of create (in the
// query's init), insert / find (in the pipeline that builds it), probe (chain walks in pipelines
// that read it) and forEachEntry (a pipeline over the entries, a morsel of them per call). A
// parallel build changes what insert calls and adds a merge between the build pipeline and the
// readers; probes and entry visits stay as they are.
#include <functional>
#include <vector>

#include "codegen/translate/row_layout.hpp"
#include "codegen/translate/translator.hpp"

namespace hyrax::codegen {

class HashTableCode {
 public:
  explicit HashTableCode(QueryTranslator& q);

  // Entry fields after the entry header (keys first, then what the operator keeps). Fields may
  // be added until the query's init function is generated (it creates the table with its size).
  uint32_t addField(const SqlType& t) { return layout_.add(t); }
  SqlValue load(llvm::Value* entry, uint32_t field) const { return layout_.load(cg_, entry, field); }
  void store(llvm::Value* entry, uint32_t field, const SqlValue& v) const { layout_.store(cg_, entry, field, v); }
  llvm::Value* fieldAddress(llvm::Value* entry, uint32_t field) const { return cg_.gep(entry, layout_.offset(field)); }

  // Takes a state slot and has the query's init create the table, its directory sized for
  // `expectedEntries` (the optimizer's estimate).
  void create(double expectedEntries);
  llvm::Value* table();  // the HashTable* in the current function
  uint32_t slot() const { return slot_; }  // the state slot that holds it

  // A row's key values, whether any is NULL, and their combined hash. A NULL key hashes as a
  // constant (GROUP BY puts NULLs in one group; a join keeps NULL keys out by anyNull).
  struct Keys {
    std::vector<SqlValue> values;
    llvm::Value* anyNull = nullptr;  // i1, or nullptr when no key can be NULL
    llvm::Value* hash = nullptr;
  };
  Keys hashKeys(std::vector<SqlValue> values);
  // Keys read from an entry of this layout, with the hash stored in it (what hashKeys would give
  // them): a merge of groups hashes no string again.
  Keys storedKeys(std::vector<SqlValue> values, llvm::Value* entry);
  // Whether the entry's key fields equal `keys` (field keyFields[i] against keys.values[i]): i1.
  // A key with a NULL flag compares NULL = NULL as equal (grouping); callers that have ruled NULL
  // keys out clear the flag and get a plain comparison.
  llvm::Value* keysEqual(llvm::Value* entry, const std::vector<uint32_t>& keyFields, const Keys& keys);
  // The same for any entry: hashes first, keys only when they are equal (i1); keys that are
  // one word each are compared directly (see find()).
  llvm::Value* holds(llvm::Value* entry, const std::vector<uint32_t>& keyFields, const Keys& keys);
  // The entry whose key fields equal `keys`, inserted (with the keys stored) when there is none:
  // aggregation's lookup, which expects to find one (a row's group exists for all but its first
  // row). Keys of one word each are compared directly, without the stored hash first (it filters
  // only what the keys would, at one more load and branch); the bucket's tags are tested only in
  // a large table, by a branch (they spare a new group's lookup the cache misses of a walk, TPC-H
  // Q18; in a small table that is cheap, and a tag test on the way to the chain's head cost a
  // quarter of the time of GROUP BY over 16 groups).
  llvm::Value* findOrInsert(const Keys& keys, const std::vector<uint32_t>& keyFields);

  // A new entry of `hash`, chained in, its fields zeroed.
  llvm::Value* insert(llvm::Value* hash);
  // Probing: the entries of hash `hash`'s chain whose stored hash equals it (a candidate, its
  // keys still to compare). forEachCandidate visits all of them; findCandidate stops at the first
  // for which `matches` (which may branch) yields true and returns it, or null.
  void forEachCandidate(llvm::Value* hash, const std::function<void(llvm::Value* entry)>& body);
  llvm::Value* findCandidate(llvm::Value* hash, const std::function<llvm::Value*(llvm::Value* entry)>& matches);
  // Starts loading the bucket of `hash` into the cache (no effect on results). For probes, which
  // read buckets at random whatever the table holds: a directory sized for a big estimate is a
  // cache miss per probe even when few entries came (TPC-H Q18's joins).
  void prefetch(llvm::Value* hash);
  // The same for lookups of the table's own entries (aggregation), once it is large
  // (HashDirectory::large); `hashOf` generates the hash only then (null: no prefetch).
  void prefetchOnceLarge(const std::function<llvm::Value*()>& hashOf);
  // Whether the table is large (i1): more entries than the caches keep.
  llvm::Value* isLarge();
  // A pipeline over all entries (a morsel of them per call), `body` generating what happens to each.
  void forEachEntry(double rows, const std::function<void(llvm::Value* entry)>& body);
  // Entries begin..end (i64) of `table`, a table of this layout (this one's, or a thread's or a
  // partition's of it), in order: body(entry) for each; ahead(entry), when given, first for the
  // entry kEntriesAhead further on in the same run, if there is one (to start loading what the
  // body will read for it).
  static constexpr uint64_t kEntriesAhead = 8;
  void forEntries(llvm::Value* table, llvm::Value* begin, llvm::Value* end,
                  const std::function<void(llvm::Value* entry)>& body,
                  const std::function<void(llvm::Value* entry)>& ahead = {});
  llvm::Value* count();
  // Adds an entry of hash 0 when the table is empty (aggregation without GROUP BY: one group
  // even for empty input); a pipeline of its own, after the build.
  void ensureOneEntry();

 private:
  // The table and its directory as the current function sees them, read once on its entry into
  // locals (registers after mem2reg) and the directory again after each insert (which may grow
  // it). Read where they are used, they were loaded again for every row: a row's stores into its
  // entry might, as far as LLVM can tell, have changed the state slot or the directory.
  struct FunctionView {
    llvm::Function* fn = nullptr;
    llvm::Value* table = nullptr;
    llvm::AllocaInst* buckets = nullptr;  // HashDirectory::buckets
    llvm::AllocaInst* shift = nullptr;    // HashDirectory::shift
    llvm::AllocaInst* large = nullptr;    // HashDirectory::large != 0
  };
  FunctionView& view();
  void loadDirectory(FunctionView& v);
  llvm::Value* chainHead(llvm::Value* hash);
  // Whether `bucket`'s tag bit for `hash` is set (i1): its chain may hold an entry of `hash`.
  llvm::Value* tagged(llvm::Value* bucket, llvm::Value* hash);
  llvm::Value* chainOf(llvm::Value* bucket);
  static bool cheapKeys(const Keys& keys);
  llvm::Value* bucketAddress(llvm::Value* hash);
  llvm::Value* entryHash(llvm::Value* entry);
  QueryTranslator& q_;
  CodeGen& cg_;
  RowLayout layout_;
  uint32_t slot_ = 0;
  bool created_ = false;
  FunctionView view_;
};

}  // namespace hyrax::codegen
