#include "codegen/translate/query_compiler.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "codegen/jit/background.hpp"
#include "codegen/translate/code_tiers.hpp"
#include "codegen/translate/operator_translators.hpp"
#include "codegen/translate/program_compiler.hpp"
#include "engine/runtime/thread_scope.hpp"
#include "engine/util/machine_cores.hpp"

namespace hyrax::codegen {

// A procedure body with more plans than this compiles on the fast tier (compileProgram says why).
constexpr size_t kHugeProgramPlans = 256;
// The same for one huge expression (a sum of 10,000 terms is 10,000 blocks, one per overflow
// check): a stored function returning one took 9.5 s on the full tier.
constexpr size_t kHugeModuleBlocks = 8'000;

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
  // Values without names (blocks, instructions, arguments): names cost a string each when made,
  // and are read only in IR text (EXPLAIN (LLVM) keeps them).
  llctx->setDiscardValueNames(!options.keepIR);
  auto module = std::make_unique<llvm::Module>("query", *llctx);
  jit::configureModule(*module);

  CodeGen cg(*llctx, *module);
  std::vector<std::unique_ptr<CompiledQuery>> results;
  std::vector<std::string> inits;
  std::vector<std::vector<std::string>> pipelines;
  std::vector<std::string> selections;
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
    q.flushRowCounters();
    selections.insert(selections.end(), q.selections.begin(), q.selections.end());
    result->impl_->constants = std::move(q.constants);
    result->impl_->stateSlots = q.stateSlots();
    result->impl_->threadTagSlot = q.threadTagSlotIfAny();
    result->impl_->hasInit = q.hasInitCode();
    result->impl_->countRows = options.countRows;
    pipelines.emplace_back();
    for (auto& p : q.pipelines()) pipelines.back().push_back(p.function);
    result->impl_->pipelines = q.pipelines();
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
  stats.selections = std::move(selections);
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
  // Adaptive: the cheap code gets the fast pipeline (registers for locals, a cleanup, fast
  // instruction selection): as cheap to compile as no IR passes at all (FastISel then has less
  // IR to translate), and its code runs a little faster (2M-row GROUP BY: 2.8 ms compile, 17 ms
  // against 19 ms). The background thread compiles the IR it leaves on the full pipeline. (It
  // used to compile a copy written as bitcode before the cheap compile: 0.4 ms of a 6 ms cheap
  // compile, on the way to the first row, for a compile that most queries never start.)
  if (adaptive || options.cheapOnly) level = jit::OptLevel::Fast;
  const auto* policy = ThreadScope<const ExecutionPolicy>::current();
  // The interpreter first (adaptive, SET first_tier) or throughout (compile_tier interpreted): the
  // module as bytecode now (a fraction of a millisecond), and for an adaptive query the same IR's
  // cheap compile on the background thread, which takes over when it is ready.
  const bool interpretable = !program && plans.size() == 1 && !options.keepIR && !options.keepAssembly;
  // compile_tier auto's small statements too (options.adaptive, but not expected to read many rows).
  // A snapshot's worker process too: its background compile thread is started there, after the
  // fork, as its parallel workers are (jit/background.cpp's fork handler gives it fresh queues).
  const bool interpretFirst = options.adaptive && policy && policy->interpretFirst;
  if (interpretable && (options.interpretOnly || interpretFirst)) {
    std::string why;
    std::shared_ptr<interp::InterpretedModule> bytecode = interp::translate(*module, &why);
    if (std::getenv("HYRAX_INTERP_DUMP"))
      std::fprintf(stderr, "%s", bytecode ? bytecode->disassemble().c_str() : ("not interpreted: " + why + "\n").c_str());
    if (bytecode) {
      auto& r = *results[0];
      stats.translateMs = std::chrono::duration<double, std::milli>(clock::now() - start).count() - stats.codegenMs;
      stats.codegenMs += stats.translateMs;
      stats.interpreted = true;
      stats.bytecodeInstructions = bytecode->instructions();
      stats.adaptive = adaptive;
      r.stats_ = stats;
      r.impl_->code.resolve(bytecode, inits[0], r.impl_->pipelines);
      r.impl_->waitForOptimizedAfter = options.waitForOptimizedAfter;
      if (options.interpretOnly) {
        jit::discard(std::move(llctx), std::move(module));
      } else {
        auto cheap = std::make_shared<CheapTier>();
        cheap->init = inits[0];
        cheap->infos = r.impl_->pipelines;
        cheap->context = std::move(llctx);
        cheap->module = std::move(module);
        cheap->jitOptions.greedyRegisterAllocator = policy && policy->greedyRegisterAllocator;
        cheap->expectedCompileMs = expectedCheapCompileMs(bytecode->instructions(), cheap->jitOptions.greedyRegisterAllocator);
        r.impl_->cheap = cheap;
        if (adaptive) {  // a big query: its cheap code at once, the optimized code when worth it
          auto optimized = std::make_shared<OptimizedTier>();
          optimized->init = inits[0];
          optimized->infos = r.impl_->pipelines;
          cheap->optimized = optimized;
          cheap->optimizeAtOnce = !options.optimizeWhenWorthIt || options.waitForOptimizedAfter;
          r.impl_->optimized = optimized;
          CheapTier::submit(cheap);
        }
      }
      CompiledProgram out;
      out.plans = std::move(results);
      return out;
    }
  }
  jit::CompileOptions jopts;
  jopts.keepAssembly = options.keepAssembly;
  jopts.keepIR = options.keepIR;
  jopts.greedyRegisterAllocator = policy && policy->greedyRegisterAllocator;
  // Cheap code for one query of several pipelines, with SET compile_parts = 'two': query_init and
  // the first pipeline before the first row, the rest on the background thread meanwhile
  // (LaterCode), where a core is left to compile on (the query runs on fewer threads than there
  // are cores) and the first part is not most of the module (jit::compileFirst, which fills it
  // up to half). Not the default: TPC-H SF 1 at one thread, alternating in one process, ends
  // about as soon (95.0 ms against 95.9 whole) with the first morsel at a median 7.9 ms instead
  // of 9.9 (bench/README.md).
  std::shared_ptr<jit::CompiledModule> compiled;
  std::shared_ptr<LaterCode> later;
  const bool coreToSpare = (policy ? std::max(1u, policy->threads) : 1u) < machineCores();
  if ((adaptive || options.cheapOnly) && policy && policy->twoParts && coreToSpare && !program && plans.size() == 1 &&
      results[0]->impl_->pipelines.size() > 1 && !options.keepIR && !options.keepAssembly) {
    const std::vector<PipelineInfo>& infos0 = results[0]->impl_->pipelines;
    std::vector<std::string> first{inits[0], infos0[0].function};
    if (!infos0[0].merge.empty()) first.push_back(infos0[0].merge);
    auto rest = std::make_shared<LaterCode>();
    // The later part starts compiling as soon as it is written, beside the first part's compile.
    std::shared_ptr<jit::CompiledModule> part;
    try {
      part = jit::compileFirst(llctx, module, first, rest->bitcode, level, &times, [rest] {
        jit::runInBackground([rest] { rest->compileIfWaiting(); });
      });
    } catch (...) {
      rest->firstReady(nullptr);  // a later part already queued must not wait for it
      throw;
    }
    if (part) {
      compiled = part;
      later = rest;
      later->firstReady(compiled);
    }
  }
  if (!compiled) compiled = jit::compile(std::move(llctx), std::move(module), level, &times, jopts);
  stats.optimizeMs = times.optimizeMs;
  stats.machineCodeMs = times.machineCodeMs;
  stats.adaptive = adaptive;
  stats.split = later != nullptr;
  stats.optimized = level == jit::OptLevel::Full;
  stats.greedyRegisters = times.greedyRegisters;

  for (size_t i = 0; i < results.size(); ++i) {
    auto& r = *results[i];
    r.stats_ = stats;
    if (options.keepIR) r.ir_ = compiled->ir();
    if (options.keepAssembly) r.assembly_ = compiled->assembly();
    r.impl_->code.resolve(compiled, inits[i], r.impl_->pipelines, later);
    r.impl_->waitForOptimizedAfter = options.waitForOptimizedAfter;
  }
  if (adaptive) {
    auto optimized = std::make_shared<OptimizedTier>();
    results[0]->impl_->optimized = optimized;
    optimized->cheap = compiled;
    optimized->init = inits[0];
    optimized->infos = results[0]->impl_->pipelines;
    // (A split compile's times are its first part's: scaled to the whole module.)
    optimized->firstPartMs = stats.optimizeMs + stats.machineCodeMs;
    optimized->perCheap = optimizedCompilePerCheap(times.greedyRegisters);
    optimized->expectedCompileMs = optimized->perCheap * optimized->firstPartMs / std::max(times.share, 0.05);
    // Tests that force a switch, and `compile_tier = adaptive`, compile at once.
    if (!options.optimizeWhenWorthIt || options.waitForOptimizedAfter) OptimizedTier::submit(optimized);
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
