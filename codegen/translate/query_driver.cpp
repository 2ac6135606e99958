// One run of a compiled query: each pipeline over its morsels, on the code tier of the moment
// (switching at a morsel when a background compile is ready), on one thread or several.
#include <algorithm>
#include <chrono>

#include "codegen/translate/code_tiers.hpp"
#include "codegen/translate/operator_translators.hpp"
#include "engine/runtime/hash_table.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/runtime/row_buffer.hpp"
#include "engine/runtime/runtime_guard.hpp"
#include "engine/runtime/thread_scope.hpp"
#include "engine/storage/table.hpp"
#include "engine/util/machine_cores.hpp"
#include "engine/util/worker_pool.hpp"

namespace hyrax::codegen {

// State slots kept on the stack when a query runs: the few a transaction's statements need
// (thousands of runs a second, no allocation); more go to the heap.
constexpr uint32_t kStackStateSlots = 16;

namespace {

// Morsels: this many rows of a table scan, entries or rows of a breaker. Small enough that
// optimized code takes over soon after it is ready, big enough that a call per morsel costs
// nothing measurable. Rows that cost much get smaller ones (MorselSizer).
constexpr uint64_t kMorselEntries = 16'384;
constexpr uint64_t kLeastMorselEntries = 1'024;
constexpr size_t kCounterPad = 8;  // 64 bytes of uint64_t: a helper's row counters' padding
// What a morsel should take at most: the wait for a tier switch after the code is ready, and the
// threads' difference at a pipeline's end. TPC-H Q13's 16,384 customers (each probing its
// orders) took 60 ms a morsel, and its optimized code waited that long to take over.
constexpr double kMorselTargetMs = 2;
// A pipeline without morsels (an index range scan, a VALUES) is one call on the code of the
// moment: it cannot switch tiers in its middle. Estimated to read this many rows, it waits for
// the cheap code instead of running in the interpreter (about 40 ns a row there against 6-7 on
// cheap code, and a cheap compile takes 2-6 ms): an index range scan of 300,000 rows took 32 ms
// interpreted.
constexpr double kWaitForCodeRows = 100'000;

// A pipeline's range in units (table scans: rows; breakers: entries or rows), its usual morsel and
// its least.
struct MorselRange {
  uint64_t total = UINT64_MAX, usual = UINT64_MAX, least = UINT64_MAX;
};

MorselRange morselRange(const PipelineInfo& p, void** state) {
  switch (p.source) {
    case MorselSource::TableChunks:  // rows fill chunks in order
      return {static_cast<const Table*>(p.table)->rowCount(), kMorselEntries, kLeastMorselEntries};
    case MorselSource::HashEntries:
      return {static_cast<const HashTable*>(state[p.slot])->count(), kMorselEntries, kLeastMorselEntries};
    case MorselSource::BufferRows:
      return {static_cast<const RowBuffer*>(state[p.slot])->count(), kMorselEntries, kLeastMorselEntries};
    case MorselSource::Series:  // query_init's count of the elements
      return {reinterpret_cast<uint64_t>(state[p.slot]), kMorselEntries, kLeastMorselEntries};
    case MorselSource::Once: break;
  }
  return {};
}

// The size of a thread's next morsel: the usual, or less while its morsels take longer than
// kMorselTargetMs (shrunk in proportion, down to the least), growing back by doubling once they
// take under a quarter of it (an interpreted morsel before machine code, a preempted one). Tests
// that fix the morsel of each tier switch keep the usual size.
class MorselSizer {
 public:
  MorselSizer(const MorselRange& range, bool adapt) : range_(range), step_(range.usual), adapt_(adapt) {}
  uint64_t step() const { return step_; }
  void took(double ms) {
    if (!adapt_) return;
    if (ms > 2 * kMorselTargetMs && step_ > range_.least)
      step_ = std::max(range_.least, static_cast<uint64_t>(static_cast<double>(step_) * kMorselTargetMs / ms));
    else if (ms < kMorselTargetMs / 4 && step_ < range_.usual)
      step_ = std::min(range_.usual, step_ * 2);
  }

 private:
  MorselRange range_;
  uint64_t step_;
  bool adapt_;
};

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// One run's driver: calls each pipeline over its morsels, on the code tier of the moment, on one
// thread or several.
class Driver {
 public:
  Driver(const CompiledQuery::Impl& impl, QueryContext& ctx, void** state, uint32_t operators)
      : impl_(impl), ctx_(ctx), state_(state), operators_(operators), profile_(ctx.runProfile()) {
    profile_ = {};
    if (auto* policy = ThreadScope<const ExecutionPolicy>::current()) threads_ = std::max(1u, policy->threads);
    ctx.setThreads(threads_);
    cheap_ = impl.cheap.get();
    // A tier ready before the run runs from its start, except in tests that fix the morsel of
    // each switch (waitForOptimizedAfter): a fast background compile must not skip the tier before.
    const bool takeReady = !impl.waitForOptimizedAfter;
    if (cheap_ && takeReady)
      if (const CodeTier* t = cheap_->ready.load(std::memory_order_acquire)) {
        code_ = t;  // compiled before the run began (an earlier run's, or inline under TSan)
        profile_.cheapSwitchedAtMs = 0;
        cheap_ = nullptr;
      }
    optimized_ = impl.optimized.get();
    if (optimized_) {
      const CodeTier* t = takeReady ? optimized_->ready.load(std::memory_order_acquire) : nullptr;
      if (t) {
        code_ = t;  // ready before the run began
        profile_.switchedAtMs = 0;
        optimized_ = nullptr;
        cheap_ = nullptr;
      } else if (optimized_->submitted.load()) {
        profile_.optimizedStartedAtMs = 0;  // by an earlier run
      }
    }
  }

  void run() {
    if (impl_.hasInit) check(ctx_, next()->init(&ctx_, state_, 0, UINT64_MAX));
    for (size_t i = 0; i < impl_.pipelines.size(); ++i) {
      if (!impl_.countRows) {
        runPipeline(i);
        continue;
      }
      // EXPLAIN ANALYZE: each pipeline's time, threads and merge (runParallel fills the last two).
      const auto t = std::chrono::steady_clock::now();
      const uint64_t morselsBefore = profile_.morsels;
      const PipelineInfo& p = impl_.pipelines[i];
      PipelineRun& run = profile_.pipelines.emplace_back();
      run.source = "othbs"[static_cast<int>(p.source)];  // in MorselSource's order
      run.sink = "nrjab"[static_cast<int>(p.sink)];     // in PipelineSink's order
      static_assert(static_cast<int>(MorselSource::Series) == 4 && static_cast<int>(PipelineSink::Buffer) == 4);
      runPipeline(i);
      profile_.pipelines.back().ms = msSince(t);
      profile_.pipelines.back().morsels = std::max<uint64_t>(1, profile_.morsels - morselsBefore);
    }
    if (impl_.optimized && impl_.optimized->ready.load(std::memory_order_acquire))
      profile_.optimizedCompileMs = impl_.optimized->compileMs;
    // Not worth a compile yet: the next run of this statement counts this one's time.
    if (impl_.optimized && !impl_.optimized->submitted.load())
      impl_.optimized->cheapMicros.fetch_add(static_cast<uint64_t>(msSince(start_) * 1000));
    if (impl_.optimized) profile_.optimizedExpectedMs = impl_.optimized->expectedCompileMs * compileFactor();
    if (impl_.cheap) {
      profile_.cheapCompileMs = impl_.cheap->compileMs;
      if (!impl_.cheap->submitted.load())
        impl_.cheap->interpretedMicros.fetch_add(static_cast<uint64_t>(msSince(start_) * 1000));
    }
  }

 private:
  static int32_t check(QueryContext& ctx, int32_t status) {
    if (status != CodeGen::kPipelineOk && status != CodeGen::kPipelineStop) {
      if (ctx.failed()) throw ctx.error();
      throw Error(sqlstate::InternalError, "generated code failed without an error");
    }
    return status;
  }

  // What the optimized compile costs this run, in its expected time: more when the query runs on
  // every core and the compile takes one from it.
  double compileFactor() const { return threads_ >= cores_ ? kCompileOnBusyCores : 1; }

  double pipelineRows(size_t i) const { return i < impl_.pipelines.size() ? impl_.pipelines[i].rows : -1; }
  // The rows the pipelines after pipeline i read, as far as known when the query compiled (table
  // scans: the table's rows; breakers' outputs: their estimates).
  double laterRows(size_t i) const {
    double rows = 0;
    for (size_t j = i + 1; j < impl_.pipelines.size(); ++j) rows += std::max(0.0, impl_.pipelines[j].rows);
    return rows;
  }

  // Starts the optimized compile once it is worth it (OptimizedTier); any thread. True when
  // this call started it.
  bool considerCompiling(std::chrono::steady_clock::time_point pipelineStart, uint64_t done, uint64_t total) {
    if (!optimized_ || optimized_->submitted.load(std::memory_order_relaxed)) return false;
    // The optimized compile starts from the cheap compile's IR, and its cost is judged by that compile's.
    if (impl_.cheap && !impl_.cheap->ready.load(std::memory_order_acquire)) return false;
    const double pipelineMs = msSince(pipelineStart);
    // The later pipelines count only while a core is idle for the compile: on every core, an
    // early compile takes one from the query on an extrapolation across pipelines whose rows
    // cost differently (TPC-H SF 1 at 2 threads, medians of 3 first runs: end to end geomean
    // 49.4 ms counting them against 48.0 without; Q1 76 / 61 ms, Q9 174 / 146).
    const double laterMs = threads_ >= cores_ ? 0
                           : laterPipelinesMs(pipelineMs, done, total, pipelineRows(pipeline_), laterRows(pipeline_));
    if (!optimized_->worthCompiling(msSince(start_), pipelineMs, done, total, laterMs, compileFactor())) return false;
    OptimizedTier::submit(impl_.optimized);
    return true;
  }

  // Starts the cheap compile of a statement that began in the interpreter once it is worth it
  // (the optimized tier's rule, against the cheap compile's expected time); any thread.
  void considerCheapCompile(std::chrono::steady_clock::time_point pipelineStart, uint64_t done, uint64_t total) {
    if (!cheap_ || cheap_->submitted.load(std::memory_order_relaxed)) return;
    const double spent = msSince(start_) + static_cast<double>(cheap_->interpretedMicros.load(std::memory_order_relaxed)) / 1000;
    if (worthOptimizedCompile(spent, msSince(pipelineStart), done, total, cheap_->expectedCompileMs))
      CheapTier::submit(impl_.cheap);
  }

  // The code of the moment (the session's thread): optimized code once it has come.
  const CodeTier* tier() {
    if (optimized_) {
      if (considerCompiling(pipelineStart_, pipelineDone_, pipelineTotal_)) profile_.optimizedStartedAtMs = msSince(start_);
      if (impl_.waitForOptimizedAfter && profile_.morsels >= optimizedWaitAfter()) optimized_->waitUntilDone();
      if (!tooSoon(profile_.morsels, optimizedWaitAfter()))
        if (const CodeTier* t = optimized_->ready.load(std::memory_order_acquire)) {
          code_ = t;
          if (profile_.switchedAtMs < 0) profile_.switchedAtMs = msSince(start_);  // (else a worker's, earlier)
          optimized_ = nullptr;
          cheap_ = nullptr;
        }
    }
    if (cheap_) {
      considerCheapCompile(pipelineStart_, pipelineDone_, pipelineTotal_);
      if (impl_.waitForOptimizedAfter && profile_.morsels >= impl_.waitForOptimizedAfter) CheapTier::waitUntilDone(impl_.cheap);
      if (!tooSoon(profile_.morsels, impl_.waitForOptimizedAfter))
        if (const CodeTier* t = cheap_->ready.load(std::memory_order_acquire)) {
          code_ = t;
          if (profile_.cheapSwitchedAtMs < 0) profile_.cheapSwitchedAtMs = msSince(start_);
          cheap_ = nullptr;
        }
    }
    return code_;
  }
  // Tests: after waitForOptimizedAfter morsels the run waits for the next tier: the optimized
  // code, or after the interpreter the cheap code, and the optimized code as many morsels later.
  uint64_t optimizedWaitAfter() const { return impl_.waitForOptimizedAfter * (impl_.cheap ? 2 : 1); }
  // ... and never takes it sooner, so that the switch comes at that morsel every time.
  bool tooSoon(uint64_t morsels, uint64_t after) const { return impl_.waitForOptimizedAfter && morsels < after; }
  // Whether the code may change at a morsel's end: the pipelines then run morsel by morsel.
  bool switchMayCome() const { return optimized_ || cheap_; }
  bool isOptimized(const CodeTier* t) const { return impl_.optimized && t == &impl_.optimized->tier; }
  // The code for the next morsel on the session's thread, counted.
  const CodeTier* next() {
    const CodeTier* t = tier();
    ++profile_.morsels;
    if (isOptimized(t)) ++profile_.optimizedMorsels;
    if (t->interpreted) ++profile_.interpretedMorsels;
    return t;
  }

  void runPipeline(size_t i) {
    const PipelineInfo& p = impl_.pipelines[i];
    if (i > 0 && !impl_.code.complete.load(std::memory_order_acquire)) {  // a split compile's second part
      const auto t = std::chrono::steady_clock::now();
      impl_.code.completeFrom(impl_.pipelines);
      profile_.laterCodeWaitMs += msSince(t);
      profile_.laterCodeCompileMs = impl_.code.later->compileMs;
      if (impl_.optimized) impl_.optimized->refineExpected(impl_.code.later->codeMs);
    }
    // Sorted rows (an ordered pipeline) go on several threads only into the result, whose chunks
    // keep their morsels' order (runParallel); a WITH query's buffer rows (CteScan) are read on
    // every thread. A pre-aggregation of
    // groups beyond the caches goes the parallel way on one thread too. A pipeline without a sink
    // (a probe that only marks the build entries it matches: right semi and anti joins) needs no
    // merge: its marks are atomic stores.
    runsColumn_ = runsColumn(p);
    const bool parallel = (threads_ > 1 || preAggregatesAlone(p)) && p.source != MorselSource::Once && !p.serial &&
                          (!p.ordered || p.sink == PipelineSink::Result) &&
                          (p.source != MorselSource::Series || !inOrder(p)) &&
                          (p.sink != PipelineSink::Aggregate || worthMerging(p) || preAggregates(p) || disjointGroups(p));
    // Without a switch to come or threads to share it, one call over the whole input (a
    // transaction's statements).
    pipeline_ = i;
    pipelineStart_ = std::chrono::steady_clock::now();
    pipelineDone_ = 0;
    pipelineTotal_ = UINT64_MAX;  // unknown: only the time spent counts
    if (p.sink == PipelineSink::JoinBuild && state_[p.sinkSlot]) static_cast<HashTable*>(state_[p.sinkSlot])->collectOnly();
    if ((!switchMayCome() && !parallel) || p.source == MorselSource::Once) {
      if (p.source == MorselSource::Once && p.rows >= kWaitForCodeRows) waitForCheapCode();
      check(ctx_, next()->pipelines[i](&ctx_, state_, 0, UINT64_MAX));
      return finishJoinTable(p);
    }
    const MorselRange range = morselRange(p, state_);
    if (parallel && range.total > range.usual) return runParallel(i, range);  // its absorb fits the table
    pipelineTotal_ = range.total;
    MorselSizer size(range, !impl_.waitForOptimizedAfter);
    for (uint64_t begin = 0; begin < range.total; begin = pipelineDone_) {
      const uint64_t end = switchMayCome() ? std::min(range.total, begin + size.step()) : UINT64_MAX;  // the rest at once
      const auto t = std::chrono::steady_clock::now();
      if (check(ctx_, next()->pipelines[i](&ctx_, state_, begin, end)) == CodeGen::kPipelineStop || end == UINT64_MAX) break;
      size.took(msSince(t));
      pipelineDone_ = end;
    }
    finishJoinTable(p);
  }

  // Whether the order of the pipeline's rows can be seen: rows into the result or a buffer (a
  // WITH query's, a sort's) keep the order of their source on one thread. A series keeps it
  // (SELECT g FROM generate_series(1, n) g, INSERT ... SELECT from one: PostgreSQL's order) and
  // goes parallel only into hash tables.
  static bool inOrder(const PipelineInfo& p) { return p.sink == PipelineSink::Result || p.sink == PipelineSink::Buffer; }

  // Before a long pipeline that is one call: the cheap code, compiled now if it was not coming
  // (kWaitForCodeRows). Tests that fix the morsel of each switch keep their switches.
  void waitForCheapCode() {
    if (!cheap_ || impl_.waitForOptimizedAfter) return;
    CheapTier::submit(impl_.cheap);
    cheap_->waitWhileCompiling([] { return false; });
  }

  // A join's build side once built, before any pipeline probes it: the entries a serial build
  // collected linked (HashTable::collectOnly; a parallel build's absorb linked the threads'), and
  // in the same pass its key filter made when a scan below uses it, into a directory fitted to the
  // entries there are.
  void finishJoinTable(const PipelineInfo& p) {
    if (p.sink != PipelineSink::JoinBuild || !state_[p.sinkSlot]) return;
    auto* table = static_cast<HashTable*>(state_[p.sinkSlot]);
    table->absorb({}, 1, true, p.keyFilter);
  }

  // The helpers' aggregation tables into the query's: thread t of n merges the groups in hash
  // partition t of every helper's table (generated merge code: find the group by its keys,
  // combine the states) into a table of its own, with the helper's context for its errors; the
  // query's table then takes the n tables' entries (disjoint groups) where they are.
  template <typename Helpers>
  void mergeGroups(size_t i, const CodeTier* code, Helpers& helpers) {
    const PipelineInfo& p = impl_.pipelines[i];
    auto* mine = static_cast<HashTable*>(state_[p.sinkSlot]);
    if (mine->count()) {
      // Groups already there (another pipeline fed this aggregate before: UNION ALL, an outer
      // join's unmatched rows): each helper's groups must find them, so one thread merges all.
      state_[p.mergeSlot + 1] = reinterpret_cast<void*>(uint64_t{1} << 32);
      for (auto& h : helpers) {
        state_[p.mergeSlot] = h.state[p.sinkSlot];
        check(ctx_, code->merges[i](&ctx_, state_, 0, UINT64_MAX));
      }
      state_[p.mergeSlot] = state_[p.mergeSlot + 1] = nullptr;
      return;
    }
    const auto n = static_cast<uint32_t>(helpers.size());
    // Partition t holds at most every group the helpers made, and about 1/n of the estimate: a
    // wrong estimate (TPC-H Q18's 57 orders estimated at 2M) made directories of 16 MB to zero.
    uint64_t groups = 0;
    for (auto& h : helpers) groups += static_cast<const HashTable*>(h.state[p.sinkSlot])->count();
    std::vector<HashTable*> parts(n);
    std::vector<std::vector<void*>> states(n);
    for (uint32_t t = 0; t < n; ++t) {
      parts[t] = helpers[t].ctx->newHashTable(mine->entrySize(), std::min(groups, mine->expected() / n));
      states[t].assign(state_, state_ + impl_.stateSlots);
      states[t][p.sinkSlot] = parts[t];
      states[t][p.mergeSlot + 1] = reinterpret_cast<void*>(static_cast<uintptr_t>(t) | uint64_t{n} << 32);
    }
    // Partitions are taken in turn (runOnWorkers: a helper may never begin); errors go to the
    // context of the thread that merges.
    std::atomic<uint32_t> nextPart{0};
    runOnWorkers(n, [&](uint32_t w) {
      for (uint32_t t; (t = nextPart.fetch_add(1)) < n;)
        for (auto& h : helpers) {
          states[t][p.mergeSlot] = h.state[p.sinkSlot];
          if (code->merges[i](helpers[w].ctx.get(), states[t].data(), 0, UINT64_MAX) != CodeGen::kPipelineOk) return;
        }
    });
    throwIfFailed(helpers);
    mine->absorb(parts, n, fedAgain(i));
  }

  // Many groups (Leis et al., SIGMOD 2014): each helper aggregated into a small table that moved
  // its groups into partitions of its own whenever it filled (HashTable::spillInto); the groups
  // still in it go there too. Then each partition, all helpers' part of it, is aggregated by one
  // thread (the generated merge over every entry of a source) into a table of its own, the
  // threads taking partitions in turn; the query's table takes the tables' entries (disjoint
  // groups) where they are. A partition's table is a 64th of the groups: it mostly stays in
  // cache, where one table of all the groups missed it on nearly every row.
  template <typename Helpers>
  void mergePartitions(size_t i, const CodeTier* code, Helpers& helpers) {
    const PipelineInfo& p = impl_.pipelines[i];
    auto* mine = static_cast<HashTable*>(state_[p.sinkSlot]);
    for (auto& h : helpers) static_cast<HashTable*>(h.state[p.sinkSlot])->spill();
    const auto n = static_cast<uint32_t>(helpers.size());
    std::vector<HashTable*> parts(kAggregationPartitions);
    std::vector<std::vector<void*>> states(n, std::vector<void*>(state_, state_ + impl_.stateSlots));
    std::atomic<uint32_t> nextPart{0};
    runOnWorkers(n, [&](uint32_t w) {
      QueryContext* ctx = helpers[w].ctx.get();
      std::vector<void*>& state = states[w];
      state[p.mergeSlot + 1] = reinterpret_cast<void*>(uint64_t{1} << 32);  // partition 0 of 1: every entry
      for (uint32_t k; (k = nextPart.fetch_add(1)) < kAggregationPartitions;) {
        // Sized for its groups: at most the entries spilled into it, a 64th of the estimate.
        uint64_t spilled = 0;
        for (auto& h : helpers) spilled += h.partitions[k]->count();
        parts[k] = hyrax_rt_ht_create(ctx, mine->entrySize(), std::min(spilled, mine->expected() / kAggregationPartitions));
        if (!parts[k]) return;
        parts[k]->markLarge();  // its groups are mostly new to it: the tag test spares their walks
        state[p.sinkSlot] = parts[k];
        for (auto& h : helpers) {
          state[p.mergeSlot] = h.partitions[k];
          if (code->merges[i](ctx, state.data(), 0, UINT64_MAX) != CodeGen::kPipelineOk) return;
        }
      }
    });
    throwIfFailed(helpers);
    if (std::find(parts.begin(), parts.end(), nullptr) != parts.end())
      throw Error(sqlstate::InternalError, "generated code failed without an error");
    mine->absorb(parts, n, fedAgain(i));
  }

  // Whether a pipeline after pipeline i feeds i's aggregation table too (UNION ALL, an outer
  // join's unmatched rows): its rows look their groups up by key, so the merged groups must be
  // in the table's directory. Otherwise only the pipeline over the groups reads them, by index.
  bool fedAgain(size_t i) const {
    const PipelineInfo& p = impl_.pipelines[i];
    return std::any_of(impl_.pipelines.begin() + static_cast<std::ptrdiff_t>(i) + 1, impl_.pipelines.end(),
                       [&](const PipelineInfo& later) { return later.sink == PipelineSink::Aggregate && later.sinkSlot == p.sinkSlot; });
  }

  // A helper's failure (its context's error) is the query's.
  template <typename Helpers>
  void throwIfFailed(const Helpers& helpers) {
    for (auto& h : helpers)
      if (h.ctx->failed()) {
        ctx_.setError(h.ctx->error());
        throw ctx_.error();
      }
  }

  // Each thread's aggregation table is merged into the query's, a group at a time, on all
  // threads; a merged group costs some 16 rows' aggregation (a random insert into a cold table,
  // where the rows mostly hit the group before theirs or a cached one). So only while the groups
  // of all threads are far fewer than the rows: TPC-H Q1 (4 groups of 6M rows) merges so; Q18
  // (1.5M groups of 6M clustered rows) took 490 ms so against 107 on one thread, and now
  // pre-aggregates (preAggregates). Unknown estimates are taken to be worth it.
  // A pipeline whose rows find their groups through join entries (PipelineInfo::pinsGroups) has
  // paid a hash probe per row already, and its aggregation skips the lookup that the merge costs
  // per group: a merged group there costs some 4 rows. (TPC-H Q13: 1.5M orders probing 150,000
  // customers, each a group; Q3: 6M lineitem rows, 11,620 groups of an estimated 313,536.)
  static constexpr double kMergeRowsPerGroup = 16, kMergeRowsPerPinnedGroup = 4;
  bool worthMerging(const PipelineInfo& p) const {
    if (p.merge.empty()) return false;
    const double rowsPerGroup = p.pinsGroups ? kMergeRowsPerPinnedGroup : kMergeRowsPerGroup;
    return p.sinkRows < 0 || p.rows < 0 || p.sinkRows * threads_ * rowsPerGroup <= p.rows;
  }
  // More groups than that: the threads pre-aggregate and partition (mergePartitions), unless
  // the query's table has groups already (another pipeline fed it: every group must find them)
  // or join entries point at the groups (pre-aggregation moves them).
  bool preAggregates(const PipelineInfo& p) const {
    return !p.merge.empty() && !p.pinsGroups && !worthMerging(p) && static_cast<const HashTable*>(state_[p.sinkSlot])->count() == 0;
  }
  // Groups no two threads make (PipelineInfo::disjointGroups: grouped by the scanned table's
  // primary key, TPC-H Q10's customers; or by a column the table holds in ascending order, in
  // morsels aligned to its runs: runsColumn), into a table that had none: the query's table
  // adopts the threads' tables as they are, without finding a group.
  bool disjointGroups(const PipelineInfo& p) const {
    return (p.disjointGroups || runsColumn_ >= 0) && threads_ > 1 && static_cast<const HashTable*>(state_[p.sinkSlot])->count() == 0;
  }
  // A group key of an aggregation over a table scan that the table holds in ascending order
  // (PipelineInfo::groupColumns; asked when the query runs: the rows may have changed since it
  // compiled), -1 when none: on several threads each morsel then begins where a run of its values
  // begins (Table::runStart), so that each group's rows are one thread's. TPC-H Q18's 1.5M
  // groups of lineitem by l_orderkey: no merge (it took as long as the threads saved). Only for
  // groups too many to merge (worthMerging): few groups have long runs, and a run of a table's
  // every other row (a boolean) would be one thread's while the other idles.
  int64_t runsColumn(const PipelineInfo& p) const {
    if (threads_ <= 1 || p.sink != PipelineSink::Aggregate || p.source != MorselSource::TableChunks || worthMerging(p)) return -1;
    const auto* table = static_cast<const Table*>(p.table);
    for (uint32_t c : p.groupColumns)
      if (table->ascends(c)) return c;
    return -1;
  }
  // A helper's pre-aggregation table: its entries and directory near the core (16,384 entries of
  // 48 bytes are 768 KiB, their directory 128 KiB).
  static constexpr uint64_t kPreAggregationEntries = 16'384;
  // A thread's table of groups to be merged: its directory at the start (it doubles as groups come).
  static constexpr uint64_t kMergedGroupsAtStart = 65'536;
  // Partitions of a pre-aggregating pipeline's groups, each merged by one thread: a few per
  // thread so that the threads finish together, and small enough that a partition of 10M
  // groups stays near the caches.
  static constexpr uint32_t kAggregationPartitions = 64;
  // On one thread too, once the groups' table would be far larger than the caches (8 times the
  // last level of the machines measured): 10M random groups of 30M rows (560 MB) took 1.4 s so,
  // 3.7 s in one table. Nearer the caches one table wins while the input is clustered by the
  // keys, which estimates do not say: TPC-H Q18's 1.5M groups (84 MB) took 90 ms so, 120 ms
  // pre-aggregated (on two threads both ways take 90-97 ms).
  static constexpr double kPreAggregateAloneBytes = 256 << 20;
  bool preAggregatesAlone(const PipelineInfo& p) const {
    if (p.sink != PipelineSink::Aggregate || !preAggregates(p)) return false;
    return p.sinkRows * (static_cast<const HashTable*>(state_[p.sinkSlot])->entrySize() + sizeof(uint64_t)) >= kPreAggregateAloneBytes;
  }

  // Morsel-driven (Leis et al., SIGMOD 2014): each thread takes the next morsel (16,384 rows of a
  // table or hash entries, fewer where rows cost much: MorselSizer) until none is left, into a sink of its own (its own context:
  // strings, errors, results); then the sinks are merged into the query's on this thread, and the
  // helpers' contexts live on in the query's.
  void runParallel(size_t i, const MorselRange& range) {
    const PipelineInfo& p = impl_.pipelines[i];
    const uint64_t total = range.total;
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(threads_, (total + range.usual - 1) / range.usual));
    struct Helper {
      std::unique_ptr<QueryContext> ctx;
      std::vector<void*> state;
      // EXPLAIN ANALYZE's row counters, one per operator, bumped for every row: on cache lines
      // of this thread's own, padded on both sides. Two threads' small vectors, allocated one
      // after the other, shared a line, and every row moved it between the cores (GROUP BY over
      // 10M rows at 2 threads: 26 ms under EXPLAIN ANALYZE, 13 ms without it).
      std::vector<uint64_t> counters;
      uint64_t* rowCounters() {
        auto at = reinterpret_cast<uintptr_t>(counters.data() + kCounterPad);
        return reinterpret_cast<uint64_t*>(at & ~uintptr_t{63});
      }
      std::vector<HashTable*> partitions;  // pre-aggregation: where its table's groups go
      // An ordered pipeline: each morsel's start and the result chunks held before it.
      std::vector<std::pair<uint64_t, size_t>> parts;
    };
    const bool disjoint = p.sink == PipelineSink::Aggregate && disjointGroups(p);
    const Table* runs = disjoint && runsColumn_ >= 0 ? static_cast<const Table*>(p.table) : nullptr;
    const bool preAggregate = p.sink == PipelineSink::Aggregate && !disjoint && preAggregates(p);
    std::vector<Helper> helpers(n);
    for (Helper& h : helpers) {
      h.ctx = ctx_.makeWorker();
      h.state.assign(state_, state_ + impl_.stateSlots);
      if (impl_.threadTagSlot) h.state[impl_.threadTagSlot] = reinterpret_cast<void*>(static_cast<uintptr_t>(&h - helpers.data() + 1));
      if (impl_.countRows) {
        h.counters.assign(operators_ + 2 * kCounterPad, 0);
        h.state[0] = h.rowCounters();
      }
      void*& sink = h.state[p.sinkSlot];
      switch (p.sink) {
        case PipelineSink::Result: sink = h.ctx->currentResult(); break;
        case PipelineSink::JoinBuild:
        case PipelineSink::Aggregate: {
          auto* mine = static_cast<HashTable*>(state_[p.sinkSlot]);
          // A thread builds about 1/n of the join's entries; they are linked once, into the
          // query's table's directory when it absorbs them (HashTable::collectOnly).
          if (p.sink == PipelineSink::JoinBuild) {
            auto* table = h.ctx->newHashTable(mine->entrySize());
            table->collectOnly();
            sink = table;
            break;
          }
          if (preAggregate) {
            auto* table = h.ctx->newHashTable(mine->entrySize(), kPreAggregationEntries);
            for (uint32_t k = 0; k < kAggregationPartitions; ++k) h.partitions.push_back(h.ctx->newHashTable(mine->entrySize()));
            table->spillInto(h.partitions);
            sink = table;
            break;
          }
          // Merged groups are few against the rows (worthMerging), or their estimate is not to
          // be trusted (join entries pinning groups): a thread's table starts small and grows,
          // instead of each zeroing a directory of the estimate. A thread's groups of a disjoint
          // aggregation are about 1/n of them.
          const uint64_t expected = disjoint ? mine->expected() / n : std::min(mine->expected(), kMergedGroupsAtStart);
          sink = h.ctx->newHashTable(mine->entrySize(), expected);
          break;
        }
        case PipelineSink::Buffer: {
          auto* mine = static_cast<RowBuffer*>(state_[p.sinkSlot]);
          auto* theirs = h.ctx->newRowBuffer(mine->rowSize());
          mine->keepFirstLike(*theirs);
          sink = theirs;
          break;
        }
        case PipelineSink::None: break;
      }
    }
    std::atomic<uint64_t> nextUnit{0}, unitsDone{0}, morsels{0}, optimizedMorsels{0}, interpretedMorsels{0};
    // When a worker first ran the next tier's code (us since the run began; -1: none did), for
    // EXPLAIN ANALYZE: the session's thread sees the switch only when the pipeline has ended.
    std::atomic<int64_t> optimizedAtUs{-1}, cheapAtUs{-1};
    auto noteSwitch = [&](std::atomic<int64_t>& at) {
      int64_t none = -1;
      if (at.load(std::memory_order_relaxed) < 0) at.compare_exchange_strong(none, static_cast<int64_t>(msSince(start_) * 1000));
    };
    std::atomic<bool> stop{false}, silentFailure{false}, compileStarted{false};
    const CodeTier* first = tier();
    OptimizedTier* optimized = optimized_;
    CheapTier* cheap = cheap_;
    const auto pipelineStart = std::chrono::steady_clock::now();
    // While a query on every core waits for its cheap code, its last worker steps aside for the
    // compile: interpreted morsels on all cores would only slow the compile that makes the rest
    // five times faster.
    const bool yieldToCompile = cheap && n > 1 && n >= cores_ && cheap->submitted.load() && !impl_.waitForOptimizedAfter;
    // So too while its optimized code compiles: the compile, once judged worth it, shared the
    // cores with every worker and ended late (TPC-H Q1 at 2 threads: 55 ms against 22 alone,
    // the query slower on two threads than on one).
    const bool yieldToOptimized = optimized && n > 1 && n >= cores_ && !impl_.waitForOptimizedAfter;
    auto noMorselLeft = [&] { return nextUnit.load(std::memory_order_relaxed) >= total || stop.load(); };
    runOnWorkers(n, [&](uint32_t w) {
      Helper& h = helpers[w];
      if (yieldToCompile && w + 1 == n) cheap->waitWhileCompiling(noMorselLeft);
      MorselSizer size(range, !impl_.waitForOptimizedAfter);
      for (;;) {
        if (yieldToOptimized && w + 1 == n && optimized->submitted.load(std::memory_order_relaxed) &&
            !optimized->ready.load(std::memory_order_acquire))
          optimized->waitWhileCompiling(noMorselLeft);
        const uint64_t step = size.step();
        const uint64_t m = nextUnit.fetch_add(step, std::memory_order_relaxed);
        if (m >= total || stop.load(std::memory_order_relaxed)) return;
        const uint64_t end = std::min(total, m + step);
        // Aligned to the runs of a group key: a run that began before m is the morsel's before.
        const uint64_t from = runs ? runs->runStart(static_cast<uint32_t>(runsColumn_), m) : m;
        const uint64_t to = runs ? runs->runStart(static_cast<uint32_t>(runsColumn_), end) : end;
        if (p.ordered) {  // this morsel's rows begin a chunk, which goes where the morsel does
          void* view = guarded(h.ctx.get(), static_cast<void*>(nullptr), [&]() -> void* {
            h.parts.emplace_back(m, h.ctx->sealResults());  // (charges the chunk: may pass memory_limit)
            return h.ctx->currentResult();
          });
          if (!view) {
            stop = true;  // its context says why
            return;
          }
          h.state[p.sinkSlot] = view;
        }
        const CodeTier* code = first;
        if (optimized) {
          if (considerCompiling(pipelineStart, unitsDone.load(std::memory_order_relaxed), total)) compileStarted = true;
          if (impl_.waitForOptimizedAfter && profile_.morsels + morsels.load() >= optimizedWaitAfter())
            optimized->waitUntilDone();  // tests: the switch comes here every time
          if (!tooSoon(profile_.morsels + morsels.load(), optimizedWaitAfter()))
            if (const CodeTier* t = optimized->ready.load(std::memory_order_acquire)) code = t;
        }
        if (cheap && code == first) {
          considerCheapCompile(pipelineStart, unitsDone.load(std::memory_order_relaxed), total);
          if (impl_.waitForOptimizedAfter && profile_.morsels + morsels.load() >= impl_.waitForOptimizedAfter)
            CheapTier::waitUntilDone(impl_.cheap);
          if (!tooSoon(profile_.morsels + morsels.load(), impl_.waitForOptimizedAfter))
            if (const CodeTier* t = cheap->ready.load(std::memory_order_acquire)) code = t;
        }
        morsels.fetch_add(1, std::memory_order_relaxed);
        if (isOptimized(code)) optimizedMorsels.fetch_add(1, std::memory_order_relaxed);
        if (code->interpreted) interpretedMorsels.fetch_add(1, std::memory_order_relaxed);
        if (code != first) noteSwitch(isOptimized(code) ? optimizedAtUs : cheapAtUs);
        const auto t = std::chrono::steady_clock::now();
        const int32_t status = from < to ? code->pipelines[i](h.ctx.get(), h.state.data(), from, to) : CodeGen::kPipelineOk;
        if (status != CodeGen::kPipelineOk) {
          stop = true;  // failed (its context says why); kPipelineStop is for serial pipelines only
          if (!h.ctx->failed()) silentFailure = true;
          return;
        }
        size.took(msSince(t));
        unitsDone.fetch_add(end - m, std::memory_order_relaxed);
      }
    });
    if (optimizedAtUs >= 0 && profile_.switchedAtMs < 0) profile_.switchedAtMs = static_cast<double>(optimizedAtUs) / 1000;
    if (cheapAtUs >= 0 && profile_.cheapSwitchedAtMs < 0) profile_.cheapSwitchedAtMs = static_cast<double>(cheapAtUs) / 1000;
    profile_.morsels += morsels;
    profile_.optimizedMorsels += optimizedMorsels;
    profile_.interpretedMorsels += interpretedMorsels;
    if (compileStarted) profile_.optimizedStartedAtMs = msSince(start_);  // about: when the pipeline ended
    if (n > 1) profile_.parallelPipelines++;
    profile_.threads = std::max(profile_.threads, n);
    throwIfFailed(helpers);
    if (silentFailure) throw Error(sqlstate::InternalError, "generated code failed without an error");
    const CodeTier* code = tier();
    const auto mergeStart = std::chrono::steady_clock::now();
    if (preAggregate)
      mergePartitions(i, code, helpers);
    else if (p.sink == PipelineSink::Aggregate && !disjoint)
      mergeGroups(i, code, helpers);
    std::vector<HashTable*> tables;
    for (Helper& h : helpers) {
      if (p.sink == PipelineSink::JoinBuild || disjoint) tables.push_back(static_cast<HashTable*>(h.state[p.sinkSlot]));
      if (p.sink == PipelineSink::Buffer)  // in the helpers' order; the sort comes after
        static_cast<RowBuffer*>(state_[p.sinkSlot])->absorb(*static_cast<RowBuffer*>(h.state[p.sinkSlot]));
      if (!h.counters.empty())
        for (size_t c = 0; c < operators_; ++c) ctx_.operatorCounters()[c] += h.rowCounters()[c];
    }
    if (!tables.empty())
      static_cast<HashTable*>(state_[p.sinkSlot])->absorb(tables, n, !disjoint || fedAgain(i), p.sink == PipelineSink::JoinBuild && p.keyFilter);
    if (impl_.countRows && !profile_.pipelines.empty()) {
      PipelineRun& run = profile_.pipelines.back();
      run.threads = n;
      run.mergeMs = msSince(mergeStart);
      run.merge = preAggregate ? 'p' : runs ? 'r' : disjoint ? 'd' : p.sink == PipelineSink::Aggregate ? 'g' : ' ';
    }
    if (p.ordered) appendInMorselOrder(helpers);
    for (Helper& h : helpers) ctx_.adoptWorker(std::move(h.ctx));  // results after ours, in order
    if (p.sink == PipelineSink::Result) state_[p.sinkSlot] = ctx_.currentResult();  // the old one may be full
  }

  // An ordered pipeline's result: the helpers' chunks, a morsel's run of them at a time, in the
  // order of the morsels' starts (each morsel is one thread's, its rows in their order).
  template <typename Helpers>
  void appendInMorselOrder(Helpers& helpers) {
    struct Run {
      uint64_t start;
      size_t helper, from, to;
    };
    std::vector<Run> runs;
    std::vector<std::vector<std::unique_ptr<ResultChunk>>> chunks(helpers.size());
    for (size_t w = 0; w < helpers.size(); ++w) {
      helpers[w].ctx->takeResults(chunks[w]);
      const auto& parts = helpers[w].parts;
      for (size_t k = 0; k < parts.size(); ++k)
        runs.push_back({parts[k].first, w, parts[k].second, k + 1 < parts.size() ? parts[k + 1].second : chunks[w].size()});
    }
    std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.start < b.start; });
    std::vector<std::unique_ptr<ResultChunk>> ordered;
    for (const Run& r : runs)
      for (size_t c = r.from; c < r.to; ++c) ordered.push_back(std::move(chunks[r.helper][c]));
    ctx_.appendResults(ordered);
  }

  const CompiledQuery::Impl& impl_;
  QueryContext& ctx_;
  void** state_;
  uint32_t operators_;
  RunProfile& profile_;
  uint32_t threads_ = 1;
  int64_t runsColumn_ = -1;  // the running pipeline's (runsColumn)
  const uint32_t cores_ = machineCores();
  const CodeTier* code_ = &impl_.code;
  OptimizedTier* optimized_ = nullptr;  // non-null while a switch may come
  CheapTier* cheap_ = nullptr;  // non-null while the switch from the interpreter may come
  // The pipeline running on this thread: its start, units done and their number (UINT64_MAX:
  // unknown), for the optimized compile's decision.
  std::chrono::steady_clock::time_point pipelineStart_ = std::chrono::steady_clock::now();
  uint64_t pipelineDone_ = 0, pipelineTotal_ = UINT64_MAX;
  size_t pipeline_ = 0;  // the pipeline running now
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

void CompiledQuery::run(QueryContext& ctx) const {
  // On the stack for the usual few slots: a transaction's statements run thousands of times a second.
  void* small[kStackStateSlots] = {};  // zeroed by a few vector stores, no memset call
  std::unique_ptr<void*[]> large;
  void** state = small;
  if (impl_->stateSlots > kStackStateSlots) {
    large = std::make_unique<void*[]>(impl_->stateSlots);  // zeroed
    state = large.get();
  }
  // Row counters only for EXPLAIN ANALYZE (code compiled without them never touches slot 0).
  state[0] = nullptr;
  if (impl_->countRows) {
    auto& counters = ctx.operatorCounters();
    counters.assign(operatorCount_, 0);
    state[0] = counters.data();
  }
  Driver(*impl_, ctx, state, operatorCount_).run();
}

}  // namespace hyrax::codegen
