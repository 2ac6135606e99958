#include "codegen/jit/jit.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <shared_mutex>

#include <pthread.h>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/ExecutionEngine/ExecutionEngine.h>
#include <llvm/ExecutionEngine/JITEventListener.h>
#include <llvm/ExecutionEngine/MCJIT.h>
#include <llvm/ExecutionEngine/SectionMemoryManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/GVN.h>
#include <llvm/Transforms/Scalar/LICM.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "codegen/jit/background.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/util/error.hpp"

namespace hyrax::jit {

namespace {

// LLVM and fork(). A forked child keeps only the thread that forked, and every lock another
// thread held at that moment stays locked in the child for good. LLVM has process-wide locks
// (its symbol table, managed statics, pass registry), and LLVM is used outside the executor's
// turn: the background compile thread, and any thread that drops the last reference to compiled
// code (a server session closing a statement or ending). A snapshot forked while one of them was
// inside LLVM hung in its first compile (found by kv_smoke under load: the worker waited on a
// mutex whose owner was a session thread of the parent that had since ended). So all LLVM work
// holds this lock shared, and fork() takes it exclusively: no thread is inside LLVM at a fork.
// Shared holders may nest (a failed compile destroys its module): glibc's rwlock prefers readers.
alignas(std::shared_mutex) unsigned char guardStorage[sizeof(std::shared_mutex)];
std::shared_mutex& llvmGuard() {
  static std::shared_mutex* guard = [] {
    auto* created = new (guardStorage) std::shared_mutex();
    pthread_atfork(
        [] {
          drainBackground();  // its job holds the lock shared until done
          reinterpret_cast<std::shared_mutex*>(guardStorage)->lock();
        },
        [] { reinterpret_cast<std::shared_mutex*>(guardStorage)->unlock(); },
        // The child's copy is held by a thread of the parent's: a fresh one (never destroyed).
        [] { new (guardStorage) std::shared_mutex(); });
    return created;
  }();
  return *guard;
}

std::mutex resolverMutex;
SymbolResolver resolver;

void* resolve(const std::string& name) {
  {
    std::lock_guard<std::mutex> lock(resolverMutex);
    if (resolver) return resolver(name);
  }
  if (const RuntimeFunction* f = findRuntimeFunction(name.c_str())) return f->address;
  return nullptr;
}

// Resolves the generated code's calls: runtime functions first, then the process (memcpy, fmod).
class MemoryManager : public llvm::SectionMemoryManager {
 public:
  uint64_t getSymbolAddress(const std::string& name) override {
    if (void* p = resolve(name)) return reinterpret_cast<uint64_t>(p);
    uint64_t a = llvm::RTDyldMemoryManager::getSymbolAddressInProcess(name);
    if (!a) missing = name;
    return a;
  }
  uint8_t* allocateCodeSection(uintptr_t size, unsigned alignment, unsigned id, llvm::StringRef name) override {
    uint8_t* p = llvm::SectionMemoryManager::allocateCodeSection(size, alignment, id, name);
    codeSections.push_back({reinterpret_cast<uint64_t>(p), reinterpret_cast<uint64_t>(p) + size});
    return p;
  }
  std::string missing;
  std::vector<std::pair<uint64_t, uint64_t>> codeSections;  // [begin, end) of generated code
};

// With HYRAX_PERF_MAP set, each compiled function is listed in /tmp/perf-<pid>.map, the file
// `perf report` reads to name code without symbols: profiles then show pipeline functions
// (hyrax_q<number>_pipeline_<n>) instead of bare addresses.
void writePerfMap(llvm::ExecutionEngine& engine, const std::vector<std::string>& functions, const MemoryManager& mm) {
  static const bool enabled = std::getenv("HYRAX_PERF_MAP") != nullptr;
  if (!enabled) return;
  static std::mutex mutex;
  static uint64_t query = 0;
  std::lock_guard lock(mutex);
  ++query;
  std::vector<std::pair<uint64_t, const std::string*>> starts;
  for (auto& f : functions)
    if (uint64_t a = engine.getFunctionAddress(f)) starts.push_back({a, &f});
  std::sort(starts.begin(), starts.end());
  std::FILE* out = std::fopen(("/tmp/perf-" + std::to_string(getpid()) + ".map").c_str(), "a");
  if (!out) return;
  for (size_t i = 0; i < starts.size(); ++i) {
    uint64_t begin = starts[i].first, end = begin + 4096;
    for (auto& [b, e] : mm.codeSections)
      if (begin >= b && begin < e) end = e;
    if (i + 1 < starts.size()) end = std::min(end, starts[i + 1].first);
    std::fprintf(out, "%llx %llx hyrax_q%llu_%s\n", static_cast<unsigned long long>(begin),
                 static_cast<unsigned long long>(end - begin), static_cast<unsigned long long>(query), starts[i].second->c_str());
  }
  std::fclose(out);
}

// With HYRAX_PERF_JITDUMP set, LLVM writes the generated code itself to a jit-<pid>.dump file
// (in $JITDUMPDIR/.debug/jit, else ~/.debug/jit) that `perf inject --jit` merges into a profile
// recorded with `perf record -k mono`: `perf annotate` then shows which instructions of a
// pipeline take the time. One listener for the process; null when unset.
llvm::JITEventListener* perfJitDump() {
  static llvm::JITEventListener* listener =
      std::getenv("HYRAX_PERF_JITDUMP") ? llvm::JITEventListener::createPerfJITEventListener() : nullptr;
  return listener;
}

std::string hostTriple() { return llvm::sys::getProcessTriple(); }

// The host CPU and its features, asked once: LLVM works them out with cpuid on every call, and
// every compile used to ask twice.
const std::string& hostCPU() {
  static const std::string cpu = llvm::sys::getHostCPUName().str();
  return cpu;
}
const std::string& hostFeatures() {
  static const std::string features = [] {
    std::string f;
    for (auto& x : llvm::sys::getHostCPUFeatures()) f += (x.second ? "+" : "-") + x.first().str() + ",";
    return f;
  }();
  return features;
}

std::unique_ptr<llvm::TargetMachine> makeTargetMachine(const std::string& tripleIn, llvm::CodeGenOptLevel level) {
  std::string triple = tripleIn.empty() ? hostTriple() : tripleIn;
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target) throw Error(sqlstate::InternalError, "no LLVM target for " + triple + ": " + err);
  std::string cpu = tripleIn.empty() ? hostCPU() : "generic";
  std::string features;
  if (tripleIn.empty()) {
    features = hostFeatures();
  }
  llvm::TargetOptions opts;
  return std::unique_ptr<llvm::TargetMachine>(
      target->createTargetMachine(triple, cpu, features, opts, llvm::Reloc::Static, std::nullopt, level, true));
}

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

void initialize() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
    LLVMLinkInMCJIT();
    llvm::install_fatal_error_handler([](void*, const char* reason, bool) {
      // LLVM cannot continue after this; say why before it aborts.
      llvm::errs() << "hyrax: LLVM fatal error: " << reason << "\n";
    });
  });
}

void setSymbolResolver(SymbolResolver r) {
  std::lock_guard<std::mutex> lock(resolverMutex);
  resolver = std::move(r);
}

void configureModule(llvm::Module& m, const std::string& triple) {
  initialize();
  auto tm = makeTargetMachine(triple, llvm::CodeGenOptLevel::Default);
  m.setTargetTriple(tm->getTargetTriple().str());
  m.setDataLayout(tm->createDataLayout());
}

// Hand-picked function pipelines instead of LLVM's O1/O2: generated query code has no calls to
// inline (runtime functions are external) and few loops, and the default pipelines spend most of
// their time in the inliner, loop passes and repeated InstCombine runs that gain nothing here.
// Fast: registers instead of allocas plus a cleanup, for statements that touch few rows.
// Full: adds redundancy elimination, loop-invariant code motion and strength reduction, for scans.
constexpr size_t kHugeFunction = 20000;  // instructions

void optimize(llvm::Module& m, OptLevel level, llvm::TargetMachine* tm) {
  if (level == OptLevel::None) return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  // Some passes grow faster than linearly with a function's size: a statement that generates a
  // huge function (a CASE of thousands of arms) gets registers for its locals and nothing more,
  // so it compiles in seconds, not minutes.
  size_t largest = 0;
  for (auto& f : m) largest = std::max(largest, static_cast<size_t>(f.getInstructionCount()));
  if (largest > kHugeFunction) {
    llvm::ModulePassManager mpm;
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
    mpm.run(m, mam);
    return;
  }
  fpm.addPass(llvm::EarlyCSEPass());
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::SimplifyCFGPass());
  if (level == OptLevel::Full) {
    fpm.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::LICMPass(llvm::LICMOptions()), /*UseMemorySSA=*/true));
    fpm.addPass(llvm::GVNPass());
    fpm.addPass(llvm::InstCombinePass());
    fpm.addPass(llvm::SimplifyCFGPass());
  }
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(m, mam);
}

std::string toBitcode(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::WriteBitcodeToFile(m, os);
  os.flush();
  return s;
}

std::unique_ptr<CompiledModule> compileBitcode(const std::string& bitcode, OptLevel level, CompileTimes* times) {
  initialize();
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto parsed = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "query"), *ctx);
  if (!parsed) {
    std::string message = llvm::toString(parsed.takeError());
    throw Error(sqlstate::InternalError, "cannot read back generated bitcode: " + message);
  }
  return compile(std::move(ctx), std::move(*parsed), level, times);
}

std::string printIR(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return os.str();
}

std::string emitAssembly(llvm::Module& m, const std::string& triple) {
  initialize();
  auto clone = llvm::CloneModule(m);
  auto tm = makeTargetMachine(triple, llvm::CodeGenOptLevel::Default);
  clone->setTargetTriple(tm->getTargetTriple().str());
  clone->setDataLayout(tm->createDataLayout());
  llvm::SmallString<4096> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw Error(sqlstate::InternalError, "LLVM cannot emit assembly for " + (triple.empty() ? hostTriple() : triple));
  pm.run(*clone);
  return std::string(buf.str());
}

CompiledModule::~CompiledModule() {
  std::shared_lock inLlvm(llvmGuard());
  engine_.reset();  // before the context that owns the module's types
  context_.reset();
}

void* CompiledModule::function(const std::string& name) const {
  uint64_t a = engine_->getFunctionAddress(name);
  if (!a) throw Error(sqlstate::InternalError, "generated function " + name + " not found");
  return reinterpret_cast<void*>(a);
}

std::unique_ptr<CompiledModule> compile(std::unique_ptr<llvm::LLVMContext> ctxArg, std::unique_ptr<llvm::Module> mArg,
                                        OptLevel level, CompileTimes* times, const CompileOptions& options) {
  std::shared_lock inLlvm(llvmGuard());
  // Locals, so that on an error the module dies before its context (parameter destruction order
  // is up to the compiler).
  std::unique_ptr<llvm::LLVMContext> ctx = std::move(ctxArg);
  std::unique_ptr<llvm::Module> m = std::move(mArg);
  initialize();
  std::string verifyErrors;
  llvm::raw_string_ostream vs(verifyErrors);
  if (llvm::verifyModule(*m, &vs))
    throw Error(sqlstate::InternalError, "generated code is invalid (a code generation bug): " + vs.str());

  // Fast statements get FastISel and the fast register allocator: a few milliseconds instead of
  // tens for SelectionDAG and the greedy allocator, which only pay off over many rows.
  auto cgLevel = level == OptLevel::Full ? llvm::CodeGenOptLevel::Default : llvm::CodeGenOptLevel::None;
  auto start = std::chrono::steady_clock::now();
  // The engine first: its target machine also serves the IR passes (one target machine and
  // subtarget per compile, not two). It generates code only in finalizeObject, after them.
  auto result = std::unique_ptr<CompiledModule>(new CompiledModule());
  llvm::Module* module = m.get();
  std::vector<std::string> functions;
  for (auto& f : *module)
    if (!f.isDeclaration()) functions.push_back(f.getName().str());
  auto mm = std::make_unique<MemoryManager>();
  MemoryManager* mmRaw = mm.get();
  std::string err;
  std::vector<std::string> attrs;
  for (size_t i = 0, j; i < hostFeatures().size(); i = j + 1) {
    j = hostFeatures().find(',', i);
    if (j == std::string::npos) j = hostFeatures().size();
    if (j > i) attrs.push_back(hostFeatures().substr(i, j - i));
  }
  llvm::EngineBuilder builder(std::move(m));
  builder.setEngineKind(llvm::EngineKind::JIT)
      .setErrorStr(&err)
      .setOptLevel(cgLevel)
      .setMCJITMemoryManager(std::move(mm))
      .setMCPU(hostCPU())
      .setMAttrs(attrs);
  result->engine_.reset(builder.create());
  if (!result->engine_) throw Error(sqlstate::InternalError, "cannot create the JIT: " + err);
  if (llvm::JITEventListener* dump = perfJitDump()) result->engine_->RegisterJITEventListener(dump);
  double engineMs = msSince(start);

  start = std::chrono::steady_clock::now();
  optimize(*module, level, result->engine_->getTargetMachine());
  if (times) times->optimizeMs = msSince(start);
  if (options.keepIR) result->ir_ = printIR(*module);
  if (options.keepAssembly) result->assembly_ = emitAssembly(*module);

  start = std::chrono::steady_clock::now();
  result->engine_->finalizeObject();
  if (!mmRaw->missing.empty())
    throw Error(sqlstate::InternalError, "generated code calls unknown function " + mmRaw->missing);
  if (result->engine_->hasError())
    throw Error(sqlstate::InternalError, "JIT error: " + result->engine_->getErrorMessage());
  writePerfMap(*result->engine_, functions, *mmRaw);
  result->context_ = std::move(ctx);
  if (times) times->machineCodeMs = engineMs + msSince(start);
  return result;
}

}  // namespace hyrax::jit
