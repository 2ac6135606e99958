#pragma once
// What one running query owns: its error state, the memory of its hash tables and row buffers,
// an arena for strings made at run time, and its result chunks. Generated code gets a pointer
// to it and never looks inside; it calls engine/runtime functions with it.
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "engine/runtime/memory_budget.hpp"
#include "engine/runtime/result_chunk.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/runtime/value_slot.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

class HashTable;
class RowBuffer;
class UndoLog;

class Arena {
 public:
  explicit Arena(MemoryBudget* budget = nullptr) : budget_(budget) {}
  ~Arena() { clearAll(); }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  // 8-byte aligned; lives until the arena dies or is cleared. Blocks are charged to the budget
  // (Error 53200 past it).
  char* allocate(size_t n);
  // A copy of `s` here, as the string value generated code reads.
  StringRef copy(std::string_view s) {
    char* chars = allocate(s.size() + 1);
    std::memcpy(chars, s.data(), s.size());
    return StringRef::make(chars, static_cast<uint32_t>(s.size()));
  }
  void clear();              // forgets everything allocated; keeps the first block for reuse
 private:
  void clearAll();
  struct Block {
    char* p;
    size_t size;
    bool fromSlab;
  };
  static char* newBlock(size_t size, bool& fromSlab);
  static void freeBlock(const Block& b);
  MemoryBudget* budget_;
  std::vector<Block> blocks_;
  size_t used_ = 0, capacity_ = 0;
};

// One pipeline's run, for EXPLAIN ANALYZE: its time (with the merge of its threads' sinks), where
// its rows went and how the threads shared them.
struct PipelineRun {
  double ms = 0;       // from its first morsel to the end of its merge
  double mergeMs = 0;  // merging the threads' sinks (aggregation groups, a join's entries)
  uint64_t morsels = 0;
  uint32_t threads = 1;
  char source = 'o';   // what it reads: 't' a table's chunks, 'h' hash entries, 'b' buffered rows, 'o' once
  char sink = 'n';     // where its rows go: 'r' result, 'j' a join's table, 'a' an aggregation, 'b' a buffer, 'n' none (marks a join's entries, or nothing)
  // 'p' pre-aggregated and partitioned, 'g' groups merged, 'd' disjoint groups adopted, 'r' the
  // same in morsels aligned to a group key's runs (Table::runStart), ' ' none
  char merge = ' ';
};

// How a run of compiled code went, for EXPLAIN ANALYZE.
struct RunProfile {
  std::vector<PipelineRun> pipelines;  // EXPLAIN ANALYZE's runs only (counted rows): one per pipeline
  uint64_t morsels = 0;           // pipeline calls
  uint64_t optimizedMorsels = 0;  // of them on the optimized code of an adaptive compile
  uint64_t interpretedMorsels = 0;  // of them in the interpreter (an adaptive query's first tier)
  double cheapSwitchedAtMs = -1;  // since the run began, when cheap code took over from the interpreter (0: compiled before)
  double cheapCompileMs = -1;     // that cheap code's compile on the background thread
  double switchedAtMs = -1;       // since the run began, when optimized code took over (-1: never; 0: compiled before)
  double optimizedCompileMs = -1; // the background compile's time, when it was done by the end
  double optimizedStartedAtMs = -1;  // since the run began, when that compile was started (0: before it)
  double optimizedExpectedMs = -1;   // what that compile was expected to cost (its start's threshold)
  double laterCodeCompileMs = -1;  // a split cheap compile's second part (the later pipelines' code)
  double laterCodeWaitMs = 0;      // how long the run waited for it (0: it was ready in time)
  uint32_t parallelPipelines = 0; // pipelines that ran on several threads
  uint32_t threads = 1;           // the most threads one of them ran on
};

class QueryContext {
 public:
  explicit QueryContext(std::vector<SqlType> resultTypes = {}, const std::atomic<bool>* cancel = nullptr);
  ~QueryContext();
  QueryContext(const QueryContext&) = delete;  // it points into itself
  QueryContext& operator=(const QueryContext&) = delete;

  // Error state set by runtime functions; generated code returns a non-zero status after it.
  void setError(const char* sqlstate, std::string message);
  void setError(const Error& e);  // keeps its DETAIL and notices too
  bool failed() const { return !errorState_.empty(); }
  Error error() const { return Error(errorState_, errorMessage_).withDetail(errorDetail_).withNoticesBefore(errorNotices_); }
  void clearError();  // a procedure's EXCEPTION handler caught it
  // What the stored functions the query called raised (RAISE NOTICE ...), in order: the session
  // hands them to the client with the result, or before the error.
  std::vector<Notice>& notices() { return notices_; }
  bool cancelled() const { return cancel_ && cancel_->load(std::memory_order_relaxed); }

  // Makes the context ready for the next statement of a stored procedure: error, hash tables, row
  // buffers and results go; the arena (strings variables may point at) and the parameters stay.
  // `resultTypes` must live unchanged as long as the context (a procedure's statement's types,
  // and the context is that procedure's): the context points at them, and a result chunk made
  // for them is found again by that address.
  void reset(const std::vector<SqlType>& resultTypes) {
    if (dirty_) resetSlow();  // inline for the common case: the statement before left nothing
    resultTypes_ = &resultTypes;
  }
  // Makes a context that finished a procedure call ready for the next call: the arena too is
  // cleared, and the cancel flag is the new caller's.
  void resetForCall(const std::atomic<bool>* cancel);

  Arena& arena() { return arena_; }
  // What this context's hash tables, row buffers, strings and held results may use (its limit
  // is the session's memory_limit when the context was made, or a call began).
  MemoryBudget& budget() { return budget_; }
  HashTable* newHashTable(uint32_t entrySize, uint64_t expectedEntries = 0);
  RowBuffer* newRowBuffer(uint32_t rowSize);

  // Results: the chunk generated code currently writes into, and the full ones before it.
  ResultChunkView* currentResult();
  void flushResult();  // current chunk full: keep it and start a new one
  std::vector<std::unique_ptr<ResultChunk>> takeResults();  // finishes the current chunk too
  // The same into `out` (emptied first), swapping buffers so neither gives up its capacity.
  void takeResults(std::vector<std::unique_ptr<ResultChunk>>& out);
  // Chunks whose rows were consumed: a few are kept and refilled by later statements of the same
  // layout (a procedure's statements run again and again), saving their allocation.
  void recycle(std::vector<std::unique_ptr<ResultChunk>>& chunks);  // leaves `chunks` empty
  const std::vector<SqlType>& resultTypes() const { return *resultTypes_; }

  // The undo log of the transaction a write statement's plan writes rows in (RowWriter), set by
  // whoever runs it; and the rows those writers applied in this context (a statement's count:
  // runStatement makes a context per run).
  void setUndo(UndoLog* undo) { undo_ = undo; }
  UndoLog& undo() const { return *undo_; }
  void countWritten() { ++rowsWritten_; }
  uint64_t rowsWritten() const { return rowsWritten_; }

  // Values of a prepared statement's parameters (or a procedure's variables); strings point at
  // characters the caller keeps alive for the run.
  std::vector<ValueSlot>& parameters() { return parameters_; }

  // The start of the transaction the statement runs in (microseconds since 1970, UTC): what
  // CURRENT_TIMESTAMP, now() and CURRENT_DATE return, the same for every row and statement of
  // the transaction, as in PostgreSQL. Whoever runs a statement sets it; a context nobody set it
  // on has the time it was made (the statement's start). A run-time value, never a compile-time
  // constant: compiled plans (prepared statements, procedures) run again later.
  void setTransactionTime(int64_t micros) { transactionTime_ = micros; }
  int64_t transactionTime() const { return transactionTime_; }

  // Parallel runs (codegen's driver): a context for one helper thread, with its own error state,
  // arena, hash tables, buffers and results, and this one's result types, cancel flag,
  // parameters, transaction time, undo log and memory limit.
  std::unique_ptr<QueryContext> makeWorker();
  // After a parallel pipeline: the worker's result rows go after this context's, and the worker
  // lives as long as this context does (rows and entries may point at its strings).
  void adoptWorker(std::unique_ptr<QueryContext> worker);
  // A parallel pipeline whose rows keep their order (a sort's output, run by morsels on several
  // threads): the rows so far are put in full chunks, so that the next morsel's begin a chunk of
  // their own; returns the chunks held. The driver then orders the workers' chunks by morsel and
  // appends them (appendResults) before adopting the workers.
  size_t sealResults();
  // `rows` go after this context's results, in their order; leaves `rows` empty.
  void appendResults(std::vector<std::unique_ptr<ResultChunk>>& rows);

  // Actual row counts per operator id, filled by generated code for EXPLAIN ANALYZE.
  std::vector<uint64_t>& operatorCounters() { return counters_; }
  RunProfile& runProfile() { return profile_; }
  // Threads the run may use (SET threads, set by codegen's driver): sorts split their work by it.
  void setThreads(uint32_t n) { threads_ = n; }
  uint32_t threads() const { return threads_; }

 private:
  void resetSlow();

  std::string errorState_, errorMessage_, errorDetail_;
  std::vector<Notice> errorNotices_;  // raised before the error (a stored function's)
  std::vector<Notice> notices_;
  UndoLog* undo_ = nullptr;
  uint64_t rowsWritten_ = 0;
  int64_t transactionTime_;
  std::vector<ValueSlot> parameters_ = std::vector<ValueSlot>(1);
  const std::atomic<bool>* cancel_;
  MemoryBudget budget_{MemoryBudget::currentLimit()};  // before what it is charged for: they release into it
  uint64_t resultsCharged_ = 0;                        // the full chunks in results_
  Arena arena_{&budget_};
  std::vector<std::unique_ptr<HashTable>> hashTables_;
  std::vector<std::unique_ptr<RowBuffer>> rowBuffers_;
  std::vector<SqlType> ownTypes_;  // the constructor's
  const std::vector<SqlType>* resultTypes_ = &ownTypes_;
  std::vector<std::unique_ptr<ResultChunk>> results_;
  std::unique_ptr<ResultChunk> current_;
  std::vector<std::unique_ptr<ResultChunk>> spares_;  // recycled small chunks
  std::vector<uint64_t> counters_;
  RunProfile profile_;
  uint32_t threads_ = 1;
  std::vector<std::unique_ptr<QueryContext>> workers_;  // adopted
  bool dirty_ = true;  // something for reset() to clear
};

}  // namespace hyrax
