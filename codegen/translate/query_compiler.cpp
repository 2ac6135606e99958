#include "codegen/translate/query_compiler.hpp"

#include <chrono>

#include "codegen/jit/jit.hpp"
#include "codegen/translate/operator_translators.hpp"
#include "engine/runtime/query_context.hpp"

namespace hyrax::codegen {

struct CompiledQuery::Impl {
  using PipelineFn = int32_t (*)(QueryContext*, void**, uint64_t, uint64_t);
  std::deque<std::string> strings;  // long string constants the code points at
  std::unique_ptr<jit::CompiledModule> module;
  PipelineFn init = nullptr;
  std::vector<PipelineFn> pipelines;
  uint32_t stateSlots = 0;
};

CompiledQuery::~CompiledQuery() = default;

void CompiledQuery::run(QueryContext& ctx) const {
  std::vector<void*> state(impl_->stateSlots, nullptr);
  auto& counters = ctx.operatorCounters();
  counters.assign(operatorCount_, 0);
  state[0] = counters.data();
  auto check = [&](int32_t status) {
    if (status != 0) {
      if (ctx.failed()) throw ctx.error();
      throw Error(sqlstate::InternalError, "generated code failed without an error");
    }
  };
  check(impl_->init(&ctx, state.data(), 0, UINT64_MAX));
  // One thread runs each pipeline over its whole input; a parallel scheduler would hand out
  // morsels [begin, end) of the same functions instead.
  for (auto* p : impl_->pipelines) check(p(&ctx, state.data(), 0, UINT64_MAX));
}

std::unique_ptr<CompiledQuery> compile(const plan::QueryPlan& plan, const CompileOptions& options) {
  using clock = std::chrono::steady_clock;
  auto start = clock::now();
  jit::initialize();
  auto llctx = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("query", *llctx);
  jit::configureModule(*module);

  auto result = std::unique_ptr<CompiledQuery>(new CompiledQuery());
  result->impl_ = std::make_unique<CompiledQuery::Impl>();
  result->operatorCount_ = plan.operatorCount;

  CodeGen cg(*llctx, *module);
  QueryTranslator q(cg, options.countRows);
  ResultSinkTranslator sink(plan, q);
  sink.children.push_back(q.build(*plan.root));
  sink.children[0]->parent = &sink;
  sink.produce();
  q.generateInit("query_init");
  result->impl_->strings = std::move(q.strings);
  result->impl_->stateSlots = q.stateSlots();
  result->stats_.codegenMs = std::chrono::duration<double, std::milli>(clock::now() - start).count();

  jit::CompileTimes times;
  std::string ir;
  auto level = options.fullOptimization ? jit::OptLevel::Full : jit::OptLevel::Fast;
  jit::CompileOptions jopts;
  jopts.keepAssembly = options.keepAssembly;
  jopts.keepIR = options.keepIR;
  result->impl_->module = jit::compile(std::move(llctx), std::move(module), level, &times, jopts);
  result->stats_.optimizeMs = times.optimizeMs;
  result->stats_.machineCodeMs = times.machineCodeMs;
  if (options.keepIR) result->ir_ = result->impl_->module->ir();
  if (options.keepAssembly) result->assembly_ = result->impl_->module->assembly();

  auto fn = [&](const std::string& name) {
    return reinterpret_cast<CompiledQuery::Impl::PipelineFn>(result->impl_->module->function(name));
  };
  result->impl_->init = fn("query_init");
  for (auto& p : q.pipelines()) result->impl_->pipelines.push_back(fn(p.function));
  return result;
}

}  // namespace hyrax::codegen
