#pragma once
// The translator of each physical operator (one .cpp each, named after the operator).
#include <cstdint>
#include <optional>

#include "codegen/translate/hash_table_code.hpp"
#include "codegen/translate/translator.hpp"

namespace hyrax::codegen {

// A scan narrows its blocks with selection vectors (scan_selection.cpp) under a filter or a join
// expected to keep at most this share of its rows; above it the narrowing costs more than it saves.
inline constexpr double kSelectiveShare = 0.5;
// ... and under a join whose key filter is beyond the caches (kKeyFilterCachedEntries entries:
// KeyFilter, 2 to 4 bytes an entry, at most 1 MB below), this share.
inline constexpr double kSelectiveShareBeyondCaches = 1.0 / 16;
inline constexpr double kKeyFilterCachedEntries = 1 << 18;

class HashJoinTranslator;

class TableScanTranslator : public Translator {
 public:
  using Translator::Translator;
  void produce() override;
  void consume(Translator&) override {}
  // Emits the rows the scan's index finds, inside the current pipeline (IndexJoin calls it).
  void indexRows();

 private:
  struct KeyPart {
    SqlValue v;
    llvm::Value* below = nullptr;  // i1: an integer under the column's range (clamped), or nullptr
    llvm::Value* above = nullptr;
  };
  KeyPart keyPart(const plan::Expr& e, const SqlType& t);
  void produceIndexLookup();
  // Chunk `chunk`'s (i32) memory, and a column's array and NULL bitmap in it (nullptr: NOT NULL).
  llvm::Value* chunkBase(llvm::Value* chunk);
  llvm::Value* columnData(llvm::Value* base, uint32_t column);
  llvm::Value* columnNulls(llvm::Value* base, uint32_t column);
  // The chunk's column arrays and NULL bitmaps (nullptr for the row number and NOT NULL columns).
  void chunkColumns(llvm::Value* chunk, std::vector<llvm::Value*>& data, std::vector<llvm::Value*>& nulls);
  // Scanned column i of row `row` (of chunk `chunk64`) from the chunk's column array and NULL
  // bitmap (nullptr: NOT NULL).
  SqlValue loadColumn(size_t i, llvm::Value* chunk64, llvm::Value* row, llvm::Value* data, llvm::Value* nulls);
  // Puts row `row` (of chunk `chunk64`) of every scanned column into its IU's value.
  void loadRow(llvm::Value* chunk64, llvm::Value* row, const std::vector<llvm::Value*>& data,
               const std::vector<llvm::Value*>& nulls);
  // A conjunct of the filter right above the scan that a selection vector decides
  // (scan_selection.cpp): scanned column `column` (an integer, DECIMAL, DATE, TIME or TIMESTAMP)
  // within [lo, hi] in its stored form (the conjuncts on one column merged), equal to one of
  // `count` integers, or a string column equal to one of `count` strings (StringRefs) at `values`.
  // Or (Compare) `column` compared with scanned column `other` of the same stored type, by the
  // HyraxCompare in `count`. Or (Joined) the `count` integer columns (`column`, then `other`) the
  // hash join above probes with (right above, or above the filter), which its built table
  // (`table`, the HashTable* in this pipeline's function) may hold.
  struct ColumnTest {
    enum class Kind : uint8_t { Range, Values, Strings, Like, Compare, Joined } kind = Kind::Range;
    size_t column = 0;
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    const void* values = nullptr;  // Like: the prepared pattern
    uint32_t count = 0;            // Like: 1 for NOT LIKE
    llvm::Value* table = nullptr;
    size_t other = 0;  // Compare
  };
  // The tests of the filter above, when it is expected to keep at most kSelectiveShare of the
  // rows, and its LIKE tests whatever it keeps; the filter is told which of its conjuncts they
  // decide. Or the join filter of a hash join right above that drops most of the scan's rows
  // (HashJoinTranslator::filterKeys).
  std::vector<ColumnTest> columnTests();
  std::vector<ColumnTest> joinTests(const std::vector<const plan::Expr*>& keys, HashJoinTranslator* join);
  bool compareTest(const plan::Expr& c, ColumnTest& t) const;  // `c` compares two scanned columns
  // The position in the scan's columns of the column `col` reads (not the row number), or
  // columns.size() when the scan does not read it.
  size_t scannedIndex(const plan::Expr* col) const;
  // The positions in [first, last) that pass every test, into `selection`; their count (i32).
  llvm::Value* selectRows(llvm::Value* first, llvm::Value* last, const std::vector<llvm::Value*>& data,
                          const std::vector<llvm::Value*>& nulls, const std::vector<ColumnTest>& tests, llvm::Value* selection);
  // The rows [first, last) of the chunk whose columns are in `data`/`nulls` handed up one by one,
  // or only those that pass `tests` (their positions in a selection vector).
  void emitRows(llvm::Value* chunk64, llvm::Value* rows, llvm::Value* first, llvm::Value* last,
                const std::vector<llvm::Value*>& data, const std::vector<llvm::Value*>& nulls,
                const std::vector<ColumnTest>& tests, llvm::Value* selection);
  // Sets the lookahead for the row at `row` (`ahead(d)`: the row d rows further), hands it up.
  void emitRow(llvm::Value* chunk64, llvm::Value* row, const std::vector<llvm::Value*>& data,
               const std::function<llvm::Value*(int64_t distance)>& ahead, bool counted);
};

class ValuesTranslator : public Translator {
 public:
  using Translator::Translator;
  void produce() override;
  void consume(Translator&) override {}
};

class FilterTranslator : public Translator {
 public:
  using Translator::Translator;
  void produce() override { children[0]->produce(); }
  void consume(Translator& from) override;
  // Conjuncts of the predicate that the scan below decided already (every row it hands up
  // satisfies them: TableScanTranslator::columnTests).
  std::vector<const plan::Expr*> decidedBelow;
  // The predicate's conjuncts (nested ANDs flattened).
  static void conjuncts(const plan::Expr& e, std::vector<const plan::Expr*>& out);
};

class MapTranslator : public Translator {
 public:
  using Translator::Translator;
  void produce() override { children[0]->produce(); }
  void consume(Translator& from) override;
};

// A set-returning function of each row (plan::Expand): a loop around the parent's code.
// A generate_series of constants or parameters right over a VALUES of one such row is its
// pipeline's morsel source (MorselSource::Series): query_init counts its elements into a state
// slot, and each call of the pipeline makes the elements [begin, end) of them.
class ExpandTranslator : public Translator {
 public:
  using Translator::Translator;
  void produce() override;
  void consume(Translator& from) override;
  bool seriesSource() const { return countSlot_ != 0; }

 private:
  uint32_t countSlot_ = 0;  // the series' element count (MorselSource::Series); 0: not a morsel source
};

// UNION ALL: each child's pipeline continues into the parent with its values as the outputs.
class UnionAllTranslator : public Translator {
 public:
  using Translator::Translator;
  void produce() override {
    for (auto& c : children) c->produce();
  }
  void consume(Translator& from) override;
};

// WITH queries computed once (plan::With): each child but the last fills a row buffer (only the
// columns some reader reads), in order; then the last, the query, runs into the parent.
class WithTranslator : public Translator {
 public:
  using Translator::Translator;
  void produce() override;
  void consume(Translator& from) override;
};

// A read of a WITH query computed once: a pipeline over its buffer's rows, in morsels.
class CteScanTranslator : public Translator {
 public:
  using Translator::Translator;
  void produce() override;
  void consume(Translator&) override {}
};

class LimitTranslator : public Translator {
 public:
  using Translator::Translator;
  void produce() override;
  void consume(Translator& from) override;

 private:
  uint32_t slot_ = 0;  // a uint64_t row counter shared by all morsels
};

class HashJoinTranslator : public Translator {
 public:
  HashJoinTranslator(const plan::Operator& op, QueryTranslator& q);
  void produce() override;
  void consume(Translator& from) override;
  // i1: whether the (built) hash table holds an entry with these probe key values, none NULL.
  llvm::Value* holdsKeys(const std::vector<SqlValue>& values);
  // An aggregate above whose groups are fixed per build entry (build columns, probe keys) keeps
  // a pointer to its group in each entry, so a row finds its group without hashing its keys:
  // whether this join allows it for these group keys; then reserveGroupField() adds the entry
  // field, and groupField() is its address in the entry of the row being emitted (nullptr outside
  // the code that emits one).
  // `slots` fields side by side (a power of two), one per thread as far as they go (the thread's
  // tag modulo slots: aggregate.cpp), so that threads do not find each other's groups pinned.
  bool entryFixes(const std::vector<const plan::Expr*>& groupKeys);
  void reserveGroupField(uint32_t slots);
  llvm::Value* groupField() const;
  uint32_t groupSlots() const { return groupSlots_; }
  // The probe key `probe`, a column of it, when the scan under it may skip the rows whose key
  // its table does not hold (TableScanTranslator::joinTests): one or two integer keys (none: not
  // worth it), a join that drops probe rows without a match, expected to drop at least half of
  // `probeRows`.
  std::vector<const plan::Expr*> filterKeys(const Translator& probe, double probeRows) const;
  // Whether a scan keeping `share` of its rows by this join's table is worth narrowing by it.
  bool worthFiltering(double share) const;
  llvm::Value* table() { return table_.table(); }  // the HashTable* in the current function
  uint32_t tableSlot() const { return table_.slot(); }

 private:
  using Keys = HashTableCode::Keys;
  Keys keys(bool buildSide);
  // Whether a candidate entry's keys equal the probe row's (non-NULL) keys; i1.
  llvm::Value* keysEqual(llvm::Value* entry, const Keys& probeKeys);
  void loadPayload(llvm::Value* entry);  // the build row's IUs from its entry
  // Outer joins: the join's nullable copies of one side's columns, from its values or NULL.
  void setOuterColumns(bool buildSide, bool present);
  llvm::Value* matchedFlag(llvm::Value* entry);  // the entry's i16 match flag (outer/right joins)
  llvm::Value* loadMatched(llvm::Value* entry);  // its value, read while other threads may mark it
  void markMatched(llvm::Value* entry);          // sets it to 1 (matched)
  llvm::Value* keyedEntry(llvm::Value* entry);   // i1: not an entry of a NULL key (they match nothing)
  void build();
  void probe();
  void filterAggregateBelow();
  void layoutEntries();  // keys, payload, flags: once, when first needed (parents are known then)
  bool laidOut_ = false;
  void emitFrom(llvm::Value* entry);  // emit() with currentEntry_ set
  void prefetchAhead();
  llvm::Value* currentEntry_ = nullptr;
  std::optional<uint32_t> groupField_;
  uint32_t groupSlots_ = 1;
  HashTableCode table_{q_};
  std::vector<uint32_t> keyFields_;
  std::vector<const plan::IU*> payload_;
  std::vector<uint32_t> payloadFields_;
  std::optional<uint32_t> matchedField_;  // FullOuter, RightOuter, RightSemi, RightAnti
};

// Index nested-loop join: the outer pipeline goes on through the inner scan's index lookup.
class IndexJoinTranslator : public Translator {
 public:
  using Translator::Translator;
  void produce() override { children[0]->produce(); }
  void consume(Translator& from) override;
};

class AggregateTranslator : public Translator {
 public:
  AggregateTranslator(const plan::Operator& op, QueryTranslator& q);
  void produce() override;
  void consume(Translator& from) override;
  // Set by a join above that drops probe rows without a match: rows whose group has no partner
  // in the join's (already built) hash table are skipped, their group would be computed for
  // nothing. groupOfKey[i]: the group key that equals the join's key i.
  void skipGroupsWithout(HashJoinTranslator* join, std::vector<size_t> groupOfKey);
  // That join and the one group key it tests, when the scan below may skip those rows already
  // (TableScanTranslator::joinTests; HashJoinTranslator::worthFiltering); else {nullptr, nullptr}.
  std::pair<HashJoinTranslator*, const plan::Expr*> groupFilter() const;

 private:
  struct AggState {
    uint32_t value = 0;  // sum / min / max field; a variance's mean
    uint32_t squares = 0;  // a variance's sum of squared deviations from the mean
    uint32_t shift = 0;    // a variance's first value: the others count as their distance from it
    SqlType shiftType;     // BIGINT, the DECIMAL's scaled integer, or DOUBLE
    uint32_t count = 0;  // rows counted (decides NULL results, avg's divisor)
    bool sharedCount = false;  // count is the group's row count (rowCount_)
    SqlType valueType;
  };
  HashTableCode::Keys groupKeys();  // the row's
  void prefetchAhead();
  llvm::Value* findGroup(const HashTableCode::Keys& keys);  // finds or inserts the row's group: its entry
  llvm::Value* findGroupByHash(const HashTableCode::Keys& keys);  // the same through the hash table only
  void accumulate(llvm::Value* group);                      // updates the group's aggregates with the row
  void appendToArray(llvm::Value* group, const AggState& s, const SqlValue& v, llvm::Value* first);  // array_agg's step
  // The current function's locals that carry a row's find of its group to the next rows.
  struct RowLocals {
    llvm::Function* fn = nullptr;
    llvm::AllocaInst* direct = nullptr;  // findGroup's groups by small integer key
    llvm::AllocaInst* last = nullptr;    // findGroupByHash's previous row's group
  };
  RowLocals& acrossRows();
  RowLocals rowLocals_;
  void generateMerge();  // merge_: folds a helper thread's groups into the query's table
  void mergeGroup(llvm::Value* entry);  // one of them
  std::string merge_;
  uint32_t mergeSlot_ = 0;
  HashJoinTranslator* entryGroups_ = nullptr;  // the join below whose entries point at groups
  HashJoinTranslator* groupFilter_ = nullptr;  // skipGroupsWithout's join
  std::vector<size_t> filterGroups_;
  std::optional<uint32_t> rowCount_;
  HashTableCode table_{q_};
  std::vector<uint32_t> groupFields_;
  std::vector<AggState> states_;
};

// avg's value from a group's or a frame's sum and count (`empty`: no values; the result is then
// meaningless, the caller makes it NULL): a double quotient, or a DECIMAL of out's scale.
llvm::Value* averageOf(CodeGen& cg, llvm::Value* sum, const SqlType& sumType, llvm::Value* count, llvm::Value* empty,
                       const SqlType& out);

class SortTranslator : public Translator {
 public:
  SortTranslator(const plan::Operator& op, QueryTranslator& q);
  void produce() override;
  void consume(Translator& from) override;

 private:
  llvm::Function* comparator(size_t keys);  // over the first `keys` sort keys
  llvm::Value* sortKeys();                    // the keys described for the runtime's sort
  size_t fieldOf(const plan::SortKey& key) const;  // the input column a key is
  // Window functions (window.cpp): each call's value into valueFields, in the sort's pipeline.
  // An aggregate's running state: the rows [from, added) it holds, the values counted, the sum or
  // the best value so far.
  struct WindowState {
    llvm::AllocaInst *from = nullptr, *added = nullptr, *count = nullptr, *value = nullptr;
    SqlType type;
    // min/max over a frame whose start moves: a deque of row numbers whose values only get worse
    // from front to back (a RowBuffer of 8-byte rows, reused), its live part [head, tail).
    llvm::Value* deque = nullptr;
    llvm::AllocaInst *head = nullptr, *tail = nullptr;
  };
  // A row's place and the bounds RowBuffer::windowFrames gave it.
  struct RowBounds {
    llvm::Value *i, *partStart, *partEnd, *peerStart, *peerEnd;
  };
  void windowPass(llvm::Function* samePartition, llvm::Function* samePeers, uint32_t boundsField,
                  const std::vector<uint32_t>& valueFields);
  RowBounds rowBounds(llvm::Value* row, llvm::Value* i, uint32_t boundsField);
  llvm::Value* framePosition(const plan::WindowCall& w, const plan::WindowBound& bound, bool end, const RowBounds& r,
                             llvm::Value* atLeast = nullptr);
  void aggregateStep(const plan::WindowCall& w, const WindowState& st, llvm::Value* row, uint32_t out,
                     llvm::Value* first, llvm::Value* frameStart, llvm::Value* frameEnd);
  void suffixAggregatePass(const plan::WindowCall& w, const WindowState& st, uint32_t boundsField, uint32_t out);
  void resetWindowState(const WindowState& st, llvm::Value* from);
  void slidingExtremeStep(const plan::WindowCall& w, const WindowState& st, llvm::Value* row, uint32_t out,
                          llvm::Value* first, llvm::Value* frameStart, llvm::Value* frameEnd);
  void addToWindowState(const plan::WindowCall& w, const WindowState& st, llvm::Value* from, llvm::Value* to, bool remove);
  void storeWindowAggregate(const plan::WindowCall& w, const WindowState& st, llvm::Value* row, uint32_t out);
  uint32_t fieldOf(const plan::Expr& column) const;  // the field of an input column
  llvm::Function* cmp_ = nullptr;
  llvm::Function* keepFirstIn_ = nullptr;  // the pipeline function that hands cmp_ to a top-k buffer (consume)
  uint32_t slot_ = 0;
  RowLayout layout_{0};
  std::vector<const plan::IU*> columns_;
  std::vector<uint32_t> fields_;
};

// The query's root: writes the output IUs into the result chunk generated code fills.
// It sits above the root operator's translator (its only child).
class ResultSinkTranslator : public Translator {
 public:
  ResultSinkTranslator(const plan::QueryPlan& plan, QueryTranslator& q);
  void produce() override { children[0]->produce(); }
  void consume(Translator& from) override;

 private:
  // SELECT ... INTO: the first row goes to parameter slots and the query stops.
  void consumeInto();
  // A write of one row: to the statement's RowWriter (engine/runtime/row_writer.hpp).
  void consumeWrite();
  void setFound();

  std::vector<const plan::IU*> output_;
  std::vector<uint32_t> into_;

 public:
  const std::vector<const plan::IU*>& output() const { return output_; }

 private:
  int32_t foundSlot_ = -1;
  RowWriter* writer_ = nullptr;
  uint32_t slot_ = 0;  // the current ResultChunkView*
};

}  // namespace hyrax::codegen
