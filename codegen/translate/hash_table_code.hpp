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
  llvm::Value* table() const;  // the HashTable* in the current function
  uint32_t slot() const { return slot_; }  // the state slot that holds it

  // A row's key values, whether any is NULL, and their combined hash. A NULL key hashes as a
  // constant (GROUP BY puts NULLs in one group; a join keeps NULL keys out by anyNull).
  struct Keys {
    std::vector<SqlValue> values;
    llvm::Value* anyNull = nullptr;  // i1, or nullptr when no key can be NULL
    llvm::Value* hash = nullptr;
  };
  Keys hashKeys(std::vector<SqlValue> values);
  // Whether the entry's key fields equal `keys` (field keyFields[i] against keys.values[i]): i1.
  // A key with a NULL flag compares NULL = NULL as equal (grouping); callers that have ruled NULL
  // keys out clear the flag and get a plain comparison.
  llvm::Value* keysEqual(llvm::Value* entry, const std::vector<uint32_t>& keyFields, const Keys& keys);
  // The same for any entry: hashes first, keys only when they are equal (i1).
  llvm::Value* holds(llvm::Value* entry, const std::vector<uint32_t>& keyFields, const Keys& keys);

  // A new entry of `hash`, chained in, its fields zeroed.
  llvm::Value* insert(llvm::Value* hash);
  // Probing: the entries of hash `hash`'s chain whose stored hash equals it (a candidate, its
  // keys still to compare). forEachCandidate visits all of them; findCandidate stops at the first
  // for which `matches` (which may branch) yields true and returns it, or null.
  void forEachCandidate(llvm::Value* hash, const std::function<void(llvm::Value* entry)>& body);
  llvm::Value* findCandidate(llvm::Value* hash, const std::function<llvm::Value*(llvm::Value* entry)>& matches);
  // Starts loading the bucket of `hash` into the cache (no effect on results).
  void prefetch(llvm::Value* hash);
  // A pipeline over all entries (a morsel of them per call), `body` generating what happens to each.
  void forEachEntry(double rows, const std::function<void(llvm::Value* entry)>& body);
  llvm::Value* count();
  // Adds an entry of hash 0 when the table is empty (aggregation without GROUP BY: one group
  // even for empty input); a pipeline of its own, after the build.
  void ensureOneEntry();

 private:
  llvm::Value* chainHead(llvm::Value* hash);
  llvm::Value* bucketAddress(llvm::Value* hash);
  llvm::Value* entryHash(llvm::Value* entry);
  QueryTranslator& q_;
  CodeGen& cg_;
  RowLayout layout_;
  uint32_t slot_ = 0;
  bool created_ = false;
};

}  // namespace hyrax::codegen
