#include "codegen/translate/query_compiler.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "codegen/jit/background.hpp"
#include "codegen/jit/jit.hpp"
#include "codegen/translate/program_compiler.hpp"
#include "codegen/translate/operator_translators.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/runtime/runtime.hpp"

namespace hyrax::codegen {

// State slots kept on the stack when a query runs: the few a transaction's statements need
// (thousands of runs a second, no allocation); more go to the heap.
constexpr uint32_t kStackStateSlots = 16;
// A procedure body with more plans than this compiles on the fast tier (compileProgram says why).
constexpr size_t kHugeProgramPlans = 256;
// The same for one huge expression (a sum of 10,000 terms is 10,000 blocks, one per overflow
// check): a stored function returning one took 9.5 s on the full tier.
constexpr size_t kHugeModuleBlocks = 8'000;

using PipelineFn = int32_t (*)(QueryContext*, void**, uint64_t, uint64_t);

// One compile's machine code for a plan: its init function and pipelines.
struct CodeTier {
  std::shared_ptr<jit::CompiledModule> module;  // shared by the plans compiled together
  PipelineFn init = nullptr;
  std::vector<PipelineFn> pipelines;

  void resolve(const std::shared_ptr<jit::CompiledModule>& m, const std::string& initName,
               const std::vector<std::string>& pipelineNames) {
    module = m;
    init = reinterpret_cast<PipelineFn>(m->function(initName));
    pipelines.clear();
    for (auto& p : pipelineNames) pipelines.push_back(reinterpret_cast<PipelineFn>(m->function(p)));
  }
};

// The optimized tier of an adaptive query: the background thread fills `tier` and then
// publishes it through `ready`; runs switch at their next morsel.
struct OptimizedTier {
  std::atomic<const CodeTier*> ready{nullptr};
  std::atomic<bool> wanted{true};  // false once the query is gone: the compile is skipped
  CodeTier tier;
  double compileMs = 0;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;  // compiled, failed or skipped

  void waitUntilDone() {
    std::unique_lock lock(mutex);
    finished.wait(lock, [&] { return done; });
  }
};

struct PipelineSource {
  MorselSource kind = MorselSource::Once;
  const Table* table = nullptr;
  uint32_t slot = 0;
};

struct CompiledQuery::Impl {
  CodeConstants constants;  // long string constants and stored functions the code points at
  CodeTier code;            // what runs first (the only code unless adaptive)
  std::shared_ptr<OptimizedTier> optimized;  // adaptive: the code compiled in the background
  bool hasInit = true;     // false: the init function does nothing (no hash tables or buffers)
  bool countRows = false;
  uint32_t waitForOptimizedAfter = 0;
  std::vector<PipelineSource> sources;  // per pipeline
  uint32_t stateSlots = 0;

  ~Impl() {
    if (optimized) optimized->wanted = false;
  }
};

CompiledQuery::~CompiledQuery() = default;

namespace {

// Morsels: a table chunk (65,536 rows) of a scan, this many entries or rows of a breaker. Small
// enough that optimized code takes over soon after it is ready, big enough that a call per
// morsel costs nothing measurable.
constexpr uint64_t kMorselEntries = 16'384;

uint64_t morselCount(const PipelineSource& s, void** state, uint64_t& step) {
  switch (s.kind) {
    case MorselSource::TableChunks:
      step = 1;
      return hyrax_rt_table_chunks(const_cast<Table*>(s.table));
    case MorselSource::HashEntries:
      step = kMorselEntries;
      return hyrax_rt_ht_count(static_cast<HashTable*>(state[s.slot]));
    case MorselSource::BufferRows:
      step = kMorselEntries;
      return hyrax_rt_buf_count(static_cast<RowBuffer*>(state[s.slot]));
    case MorselSource::Once: break;
  }
  step = UINT64_MAX;
  return UINT64_MAX;
}

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

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
  auto check = [&](int32_t status) {
    if (status != CodeGen::kPipelineOk && status != CodeGen::kPipelineStop) {
      if (ctx.failed()) throw ctx.error();
      throw Error(sqlstate::InternalError, "generated code failed without an error");
    }
    return status;
  };
  RunProfile& profile = ctx.runProfile();
  profile = {};
  OptimizedTier* optimized = impl_->optimized.get();  // non-null while a switch may come
  const CodeTier* code = &impl_->code;
  if (optimized) {
    if (const CodeTier* t = optimized->ready.load(std::memory_order_acquire)) {
      code = t;  // ready before the run began
      optimized = nullptr;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  // Before each morsel: whether the optimized code has come (one atomic load).
  auto current = [&]() -> const CodeTier* {
    if (optimized) {
      if (impl_->waitForOptimizedAfter && profile.morsels >= impl_->waitForOptimizedAfter) optimized->waitUntilDone();
      if (const CodeTier* t = optimized->ready.load(std::memory_order_acquire)) {
        code = t;
        profile.switchedAtMs = msSince(start);
        optimized = nullptr;
      }
    }
    ++profile.morsels;
    if (code != &impl_->code) ++profile.optimizedMorsels;
    return code;
  };
  if (impl_->hasInit) check(current()->init(&ctx, state, 0, UINT64_MAX));
  for (size_t i = 0; i < impl_->sources.size(); ++i) {
    // Without a switch to come, one call over the whole input (a transaction's statements).
    if (!optimized || impl_->sources[i].kind == MorselSource::Once) {
      check(current()->pipelines[i](&ctx, state, 0, UINT64_MAX));
      continue;
    }
    uint64_t step = 1;
    const uint64_t total = morselCount(impl_->sources[i], state, step);
    for (uint64_t begin = 0; begin < total; begin += step) {
      const uint64_t end = optimized ? std::min(total, begin + step) : UINT64_MAX;  // the rest at once
      if (check(current()->pipelines[i](&ctx, state, begin, end)) == CodeGen::kPipelineStop || end == UINT64_MAX) break;
    }
  }
  if (impl_->optimized && impl_->optimized->ready.load(std::memory_order_acquire))
    profile.optimizedCompileMs = impl_->optimized->compileMs;
}

std::unique_ptr<CompiledQuery> compile(const plan::QueryPlan& plan, const CompileOptions& options) {
  return std::move(compileAll({&plan}, options)[0]);
}

std::vector<std::unique_ptr<CompiledQuery>> compileAll(const std::vector<const plan::QueryPlan*>& plans,
                                                       const CompileOptions& options) {
  return compileProgram(plans, nullptr, options).plans;
}

CompiledProgram compileProgram(const std::vector<const plan::QueryPlan*>& plans, const plan::Program* program,
                               const CompileOptions& options) {
  using clock = std::chrono::steady_clock;
  auto start = clock::now();
  jit::initialize();
  auto llctx = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("query", *llctx);
  jit::configureModule(*module);

  CodeGen cg(*llctx, *module);
  std::vector<std::unique_ptr<CompiledQuery>> results;
  std::vector<std::string> inits;
  std::vector<std::vector<std::string>> pipelines;
  for (const plan::QueryPlan* plan : plans) {
    auto result = std::unique_ptr<CompiledQuery>(new CompiledQuery());
    result->impl_ = std::make_unique<CompiledQuery::Impl>();
    result->operatorCount_ = plan->operatorCount;
    QueryTranslator q(cg, options.countRows);
    q.tiered = options.fullOptimization;
    ResultSinkTranslator sink(*plan, q);
    sink.children.push_back(q.build(*plan->root));
    sink.children[0]->parent = &sink;
    sink.produce();
    inits.push_back(cg.uniqueName("query_init"));
    q.generateInit(inits.back());
    result->impl_->constants = std::move(q.constants);
    result->impl_->stateSlots = q.stateSlots();
    result->impl_->hasInit = q.hasInitCode();
    result->impl_->countRows = options.countRows;
    pipelines.emplace_back();
    for (auto& p : q.pipelines()) {
      pipelines.back().push_back(p.function);
      result->impl_->sources.push_back({p.source, static_cast<const Table*>(p.table), p.slot});
    }
    results.push_back(std::move(result));
  }
  std::string body;
  if (program) {
    std::vector<PlanFunctions> functions;
    for (size_t i = 0; i < results.size(); ++i)
      functions.push_back({results[i]->impl_->hasInit ? inits[i] : std::string(), pipelines[i], results[i]->impl_->stateSlots});
    body = cg.uniqueName("procedure_body");
    generateProgram(cg, *program, functions, body);
  }
  CompileStats stats;
  stats.codegenMs = std::chrono::duration<double, std::milli>(clock::now() - start).count();

  jit::CompileTimes times;
  // A procedure of thousands of statements: each plan costs about a millisecond of machine code
  // on the full tier, and MachineCSE and block placement grow quadratically with the body's
  // blocks (8,000 statements took 46 s). The fast tier (FastISel, the fast register allocator)
  // is linear and five times cheaper; a body that long is compiled far more than it runs.
  size_t blocks = 0;
  for (const llvm::Function& f : *module) blocks += f.size();
  bool hugeProgram = (program && plans.size() > kHugeProgramPlans) || blocks > kHugeModuleBlocks;
  auto level = options.fullOptimization && !hugeProgram ? jit::OptLevel::Full : jit::OptLevel::Fast;
  const bool adaptive = options.adaptive && level == jit::OptLevel::Full && !program && plans.size() == 1 &&
                        !options.keepIR && !options.keepAssembly;
  // Adaptive: the module as it is now is what the background thread optimizes; the cheap code
  // gets the fast pipeline (registers for locals, a cleanup, fast instruction selection): as
  // cheap to compile as no IR passes at all (FastISel then has less IR to translate), and its
  // code runs a little faster (2M-row GROUP BY: 2.8 ms compile, 17 ms against 19 ms).
  std::string bitcode;
  if (adaptive) bitcode = jit::toBitcode(*module);
  if (adaptive || options.cheapOnly) level = jit::OptLevel::Fast;
  jit::CompileOptions jopts;
  jopts.keepAssembly = options.keepAssembly;
  jopts.keepIR = options.keepIR;
  std::shared_ptr<jit::CompiledModule> compiled = jit::compile(std::move(llctx), std::move(module), level, &times, jopts);
  stats.optimizeMs = times.optimizeMs;
  stats.machineCodeMs = times.machineCodeMs;
  stats.adaptive = adaptive;
  stats.optimized = level == jit::OptLevel::Full;

  for (size_t i = 0; i < results.size(); ++i) {
    auto& r = *results[i];
    r.stats_ = stats;
    if (options.keepIR) r.ir_ = compiled->ir();
    if (options.keepAssembly) r.assembly_ = compiled->assembly();
    r.impl_->code.resolve(compiled, inits[i], pipelines[i]);
    r.impl_->waitForOptimizedAfter = options.waitForOptimizedAfter;
  }
  if (adaptive) {
    auto optimized = std::make_shared<OptimizedTier>();
    results[0]->impl_->optimized = optimized;
    jit::runInBackground([optimized, bitcode = std::move(bitcode), init = inits[0], names = pipelines[0]] {
      if (optimized->wanted) {
        try {
          auto t = clock::now();
          std::shared_ptr<jit::CompiledModule> m = jit::compileBitcode(bitcode, jit::OptLevel::Full);
          optimized->tier.resolve(m, init, names);
          optimized->compileMs = std::chrono::duration<double, std::milli>(clock::now() - t).count();
          optimized->ready.store(&optimized->tier, std::memory_order_release);
        } catch (...) {
          // The cheap code is correct and goes on to the end; only speed is lost.
        }
      }
      std::lock_guard lock(optimized->mutex);
      optimized->done = true;
      optimized->finished.notify_all();
    });
  }
  CompiledProgram out;
  if (program) {
    out.body = reinterpret_cast<PipelineFn>(compiled->function(body));
    out.module = compiled;
  }
  out.plans = std::move(results);
  return out;
}

}  // namespace hyrax::codegen
