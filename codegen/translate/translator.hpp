#pragma once
// Producer/consumer code generation (Neumann, VLDB 2011). Each physical operator has a
// translator: produce() asks it to generate code that yields its rows, consume() is called by a
// child whose current row is in registers (the IU -> SqlValue map) and generates what this
// operator does with it. A pipeline runs from a source (scan, VALUES, the output side of a
// breaker) up to the next breaker; each pipeline becomes one generated function
// `i32 (ctx, state, begin, end)` over a morsel [begin, end) of its input.
#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "codegen/ir/codegen.hpp"
#include "codegen/plan/operator.hpp"
#include "codegen/translate/expression_compiler.hpp"
#include "codegen/translate/row_layout.hpp"

namespace hyrax::codegen {

class QueryTranslator;

class Translator {
 public:
  Translator(const plan::Operator& op, QueryTranslator& q);
  virtual ~Translator() = default;

  virtual void produce() = 0;
  virtual void consume(Translator& from) = 0;

  const plan::Operator& op() const { return op_; }
  Translator* parent = nullptr;
  std::vector<std::unique_ptr<Translator>> children;

 protected:
  // Hands the current row to the parent, counting it for EXPLAIN ANALYZE when asked (and when
  // `countIf`, an i1, is true, if given).
  void emit(llvm::Value* countIf = nullptr);
  // Adds `n` (i64) to this operator's EXPLAIN ANALYZE row count, when counting.
  void countRows(llvm::Value* n);
  QueryTranslator& q_;
  CodeGen& cg_;
  const plan::Operator& op_;
};

// Of `candidates`, the IUs that t's operator or one above it reads (expressions, the result,
// outer-join and UNION columns): what a breaker under them must keep of its input's rows.
std::vector<const plan::IU*> readFrom(const Translator& t, const std::vector<const plan::IU*>& candidates);

// What a pipeline's [begin, end) counts, so that the driver can hand it out in morsels: table
// chunks, hash-table entries or row-buffer rows (the breaker's in state slot `slot`). A pipeline
// without one (VALUES, an index lookup, a sort) runs once over everything.
// A table scan's range counts rows; the driver hands out a morsel of 16,384 of them and fewer
// where rows cost much (query_driver.cpp, MorselSizer): TPC-H Q13's 16,384 customers each
// probing their orders took 60 ms, and optimized code took over only at a morsel's end. Morsels
// smaller than a chunk also give the threads several morsels of a table of a few chunks: TPC-H's
// customer (3 chunks) and part (4) probing big joins left one thread with twice the other's work.
// Rows, not blocks of them, so that a morsel can begin where a run of equal values does
// (Table::runStart, PipelineInfo::groupColumns).
// Series: the elements of a generate_series over a VALUES of one row (`FROM generate_series(1,
// n)`), whose count query_init stores in state slot `slot`: a series of millions of rows ran as
// one call, so it could never switch from the interpreter to machine code (30M rows: 1.15 s
// interpreted, 0.2 s on cheap code).
enum class MorselSource : uint8_t { Once, TableChunks, HashEntries, BufferRows, Series };

// Where a pipeline's rows end, as far as running it on several threads goes: each helper thread
// gets a sink of its own (result chunks, a hash table, a row buffer in its state slot), merged
// into the query's when the pipeline is done; an aggregate's groups through a generated merge
// function that combines their states.
enum class PipelineSink : uint8_t { None, Result, JoinBuild, Aggregate, Buffer };

// One pipeline function as the driver sees it.
struct PipelineInfo {
  std::string function;
  double rows = -1;  // rows it reads, when known when the query compiles (-1: unknown)
  MorselSource source = MorselSource::Once;
  const void* table = nullptr;  // TableChunks: the hyrax::Table (the range: its rows)
  uint32_t slot = 0;            // HashEntries, BufferRows: the state slot of the table / buffer; Series: of the count
  PipelineSink sink = PipelineSink::None;
  uint32_t sinkSlot = 0;        // JoinBuild, Aggregate: the HashTable*; Buffer: RowBuffer*; Result: the view
  std::string merge;            // Aggregate: `i32 merge(ctx, state, begin, end)` over entries of the
  uint32_t mergeSlot = 0;       //   table in state slot mergeSlot whose hash is in partition
                                //   (part | parts << 32) in slot mergeSlot + 1
  bool serial = false;          // something in it must run on the session's thread (a LIMIT's count, ...)
  // Its rows' order is the point (a sort's output): on several threads only into the result,
  // whose chunks the driver puts in the order of their morsels.
  bool ordered = false;
  // Aggregate: join entries below point at their groups (AggregateTranslator::consume), so a
  // thread's groups must stay where they are until the pipeline ends: no pre-aggregation, whose
  // small tables spill and reuse their entries.
  bool pinsGroups = false;
  // The IUs of the scanned table's primary key (all of it; empty when the scan does not read it):
  // the rows of one key value come from one row, and so from one morsel and one thread.
  std::vector<const plan::IU*> rowKey;
  // Aggregate: its group keys include rowKey, so no two threads make the same group and their
  // tables need no merge, only adopting (the driver's disjoint way).
  bool disjointGroups = false;
  // TableChunks: the scanned table's columns as the scan reads them into IUs.
  std::vector<std::pair<const plan::IU*, uint32_t>> scanned;
  // Aggregate over a table scan: the scanned columns among its group keys. When the table holds
  // one of them in ascending order (Table::ascends: TPC-H's lineitem by l_orderkey), the driver
  // begins each morsel where a run of its values begins, so each group's rows go to one thread:
  // the disjoint way too, decided when the query runs (the rows may have changed since).
  std::vector<uint32_t> groupColumns;
  double sinkRows = -1;         // Aggregate: the groups expected (-1: unknown)
  // JoinBuild: a scan below the join skips rows by the table's key filter, which the driver
  // builds when the pipeline is done (HashTable::absorb).
  bool keyFilter = false;
};

// Per query: the code generator, the IU values in registers, the state slots breakers keep their
// hash tables and buffers in, and the pipelines in execution order.
class QueryTranslator {
 public:
  QueryTranslator(CodeGen& cg, bool countRows);

  CodeGen& cg;
  IUValues values;
  CodeConstants constants;  // kept alive with the code
  ExprCompiler expr{cg, values, constants};
  bool countRows;

  // State slot 0 holds the operator row counters (uint64_t*), the rest belong to breakers. A
  // function counts in locals (rowCounter), added to the array at each of its returns
  // (flushRowCounters, once every function is generated).
  llvm::AllocaInst* rowCounter(uint32_t op);
  void flushRowCounters();
  uint32_t newStateSlot() { return stateSlots_++; }
  uint32_t stateSlots() const { return stateSlots_; }

  // The init function runs first and creates every breaker's hash table or buffer.
  void atInit(const std::function<void()>& gen) { initCode_.push_back(gen); }
  void generateInit(const std::string& name);
  bool hasInitCode() const { return !initCode_.empty(); }

  // While a table scan hands a row up: the value of one of its NOT NULL columns `distance` rows
  // further in the chunk (its last row's near the end), so that an operator can prefetch the hash
  // bucket a later row will need while this one is processed; nullopt for other IUs.
  std::function<std::optional<SqlValue>(const plan::IU*, int64_t distance)> lookahead;
  // Rows ahead worth prefetching for, and the hash table size (entries) from which it pays: a
  // smaller directory stays in the caches anyway.
  static constexpr int64_t kPrefetchDistance = 16;
  static constexpr double kPrefetchMinEntries = 100'000;

  // A pipeline function reading `rows` rows (-1: unknown), generated between the two calls.
  void beginPipeline(double rows = -1);
  void endPipeline();
  // Says where the current pipeline's rows end (the sink its last operator fills).
  void sinkInto(PipelineSink sink, uint32_t slot, std::string merge = {}, uint32_t mergeSlot = 0, double sinkRows = -1) {
    pipelines_.back().sinkRows = sinkRows;
    pipelines_.back().sink = sink;
    pipelines_.back().sinkSlot = slot;
    pipelines_.back().merge = std::move(merge);
    pipelines_.back().mergeSlot = mergeSlot;
  }
  // The pipeline that builds the join table in state slot `slot` also builds its key filter.
  void useKeyFilter(uint32_t slot) {
    for (PipelineInfo& p : pipelines_)
      if (p.sink == PipelineSink::JoinBuild && p.sinkSlot == slot) p.keyFilter = true;
  }
  // The current pipeline must run on one thread, in order.
  void serialOnly() { pipelines_.back().serial = true; }
  // The current pipeline's rows must come out in its source's order (PipelineInfo::ordered).
  void keepOrder() { pipelines_.back().ordered = true; }
  // Its aggregate keeps pointers to its groups (PipelineInfo::pinsGroups).
  void pinGroups() { pipelines_.back().pinsGroups = true; }
  // The current pipeline's source rows are unique by these IUs (PipelineInfo::rowKey).
  void rowsUniqueBy(std::vector<const plan::IU*> key) { pipelines_.back().rowKey = std::move(key); }
  // The current pipeline scans a table's columns into these IUs (PipelineInfo::scanned).
  void scansColumns(std::vector<std::pair<const plan::IU*, uint32_t>> columns) { pipelines_.back().scanned = std::move(columns); }
  // Its aggregate groups by these IUs (among others): its groups are disjoint between threads when
  // they include the source's row key (PipelineInfo::disjointGroups).
  void groupsBy(const std::vector<const plan::IU*>& groupIUs) {
    PipelineInfo& p = pipelines_.back();
    p.disjointGroups = !p.rowKey.empty() && std::all_of(p.rowKey.begin(), p.rowKey.end(), [&](const plan::IU* k) {
      return std::find(groupIUs.begin(), groupIUs.end(), k) != groupIUs.end();
    });
    p.groupColumns.clear();
    for (const auto& [iu, column] : p.scanned)
      if (std::find(groupIUs.begin(), groupIUs.end(), iu) != groupIUs.end()) p.groupColumns.push_back(column);
  }
  // A state slot that holds, in each thread a pipeline runs on, a number of its own (the query's
  // own state: 0; the driver's helper w: w + 1), for code that caches a thread's pointers in
  // structures all threads share. Allocated when first asked for.
  uint32_t threadTagSlot() {
    if (!threadTagSlot_) threadTagSlot_ = newStateSlot();
    return threadTagSlot_;
  }
  uint32_t threadTagSlotIfAny() const { return threadTagSlot_; }  // 0: none
  // Says what the current pipeline's range counts (default: it runs once).
  void morselsOver(MorselSource source, const void* table, uint32_t slot) {
    pipelines_.back().source = source;
    pipelines_.back().table = table;
    pipelines_.back().slot = slot;
  }
  // The current pipeline as one over the rows of the RowBuffer in state slot `slot`, a morsel of
  // them per call: `body` gets each row's address (a sort's output, a WITH query's reads).
  void forEachBufferRow(uint32_t slot, const std::function<void(llvm::Value* row)>& body);
  // Compile-time tiering (set for fully optimized queries): functions expected to see fewer
  // than kColdRows rows get the fast path (CodeGen::markCold); the hot loops get everything.
  static constexpr double kColdRows = 10'000;
  bool tiered = false;
  void markColdIf(double rows) {
    if (tiered && rows >= 0 && rows < kColdRows) cg.markCold();
  }
  const std::vector<PipelineInfo>& pipelines() const { return pipelines_; }

  // The buffers of WITH queries computed once (WithTranslator fills them, CteScanTranslator reads
  // them), by plan::CommonTable id.
  struct CommonTableBuffer {
    uint32_t slot = 0;  // the RowBuffer*
    RowLayout layout{0};
    std::vector<const plan::IU*> columns;
    std::vector<uint32_t> fields;
  };
  std::unordered_map<uint32_t, CommonTableBuffer> commonTables;
  // The scans narrowed by selection vectors, "table (column, ...)" (CompileStats::selections).
  std::vector<std::string> selections;

  // The translator tree for an operator tree.
  std::unique_ptr<Translator> build(const plan::Operator& op);

 private:
  std::unique_ptr<Translator> make(const plan::Operator& op);
  uint32_t stateSlots_ = 1;
  struct FunctionCounters {
    llvm::Value* array = nullptr;  // the state's counters, loaded on entry
    std::map<uint32_t, llvm::AllocaInst*> locals;
  };
  std::unordered_map<llvm::Function*, FunctionCounters> rowCounters_;
  uint32_t threadTagSlot_ = 0;
  std::vector<std::function<void()>> initCode_;
  std::vector<PipelineInfo> pipelines_;
};

}  // namespace hyrax::codegen
