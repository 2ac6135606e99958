#include "codegen/translate/query_compiler.hpp"

#include <chrono>

#include "codegen/jit/jit.hpp"
#include "codegen/translate/program_compiler.hpp"
#include "codegen/translate/operator_translators.hpp"
#include "engine/runtime/query_context.hpp"

namespace hyrax::codegen {

// State slots kept on the stack when a query runs: the few a transaction's statements need
// (thousands of runs a second, no allocation); more go to the heap.
constexpr uint32_t kStackStateSlots = 16;
// A procedure body with more plans than this compiles on the fast tier (compileProgram says why).
constexpr size_t kHugeProgramPlans = 256;
// The same for one huge expression (a sum of 10,000 terms is 10,000 blocks, one per overflow
// check): a stored function returning one took 9.5 s on the full tier.
constexpr size_t kHugeModuleBlocks = 8'000;

struct CompiledQuery::Impl {
  using PipelineFn = int32_t (*)(QueryContext*, void**, uint64_t, uint64_t);
  CodeConstants constants;  // long string constants and stored functions the code points at
  std::shared_ptr<jit::CompiledModule> module;  // shared by the plans compiled together
  PipelineFn init = nullptr;
  bool hasInit = true;     // false: the init function does nothing (no hash tables or buffers)
  bool countRows = false;
  std::vector<PipelineFn> pipelines;
  uint32_t stateSlots = 0;
};

CompiledQuery::~CompiledQuery() = default;

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
    if (status != 0) {
      if (ctx.failed()) throw ctx.error();
      throw Error(sqlstate::InternalError, "generated code failed without an error");
    }
  };
  if (impl_->hasInit) check(impl_->init(&ctx, state, 0, UINT64_MAX));
  // One thread runs each pipeline over its whole input; a parallel scheduler would hand out
  // morsels [begin, end) of the same functions instead.
  for (auto* p : impl_->pipelines) check(p(&ctx, state, 0, UINT64_MAX));
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
    for (auto& p : q.pipelines()) pipelines.back().push_back(p.function);
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
  jit::CompileOptions jopts;
  jopts.keepAssembly = options.keepAssembly;
  jopts.keepIR = options.keepIR;
  std::shared_ptr<jit::CompiledModule> compiled = jit::compile(std::move(llctx), std::move(module), level, &times, jopts);
  stats.optimizeMs = times.optimizeMs;
  stats.machineCodeMs = times.machineCodeMs;

  auto fn = [&](const std::string& name) { return reinterpret_cast<CompiledQuery::Impl::PipelineFn>(compiled->function(name)); };
  for (size_t i = 0; i < results.size(); ++i) {
    auto& r = *results[i];
    r.stats_ = stats;
    if (options.keepIR) r.ir_ = compiled->ir();
    if (options.keepAssembly) r.assembly_ = compiled->assembly();
    r.impl_->module = compiled;
    r.impl_->init = fn(inits[i]);
    for (auto& p : pipelines[i]) r.impl_->pipelines.push_back(fn(p));
  }
  CompiledProgram out;
  if (program) {
    out.body = fn(body);
    out.module = compiled;
  }
  out.plans = std::move(results);
  return out;
}

}  // namespace hyrax::codegen
