#include "codegen/jit/jit.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <shared_mutex>

#include <pthread.h>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/ExecutionEngine/JITEventListener.h>
#include <llvm/ExecutionEngine/RTDyldMemoryManager.h>
#include <llvm/ExecutionEngine/RuntimeDyld.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCContext.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/Memory.h>
#include <llvm/Support/Process.h>
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
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "codegen/jit/background.hpp"
#include "codegen/jit/jit_internal.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/util/error.hpp"

namespace hyrax::jit {

// LLVM and fork(). A forked child keeps only the thread that forked, and every lock another
// thread held at that moment stays locked in the child for good. LLVM has process-wide locks
// (its symbol table, managed statics, pass registry), and LLVM is used outside the executor's
// turn: the background compile thread, and any thread that drops the last reference to compiled
// code (a server session closing a statement or ending). A snapshot forked while one of them was
// inside LLVM hung in its first compile (found by kv_smoke under load: the worker waited on a
// mutex whose owner was a session thread of the parent that had since ended). So all LLVM work
// holds this lock shared, and fork() takes it exclusively: no thread is inside LLVM at a fork.
// Shared holders may nest (a failed compile destroys its module): glibc's rwlock prefers readers.
namespace {
alignas(std::shared_mutex) unsigned char guardStorage[sizeof(std::shared_mutex)];
}  // namespace

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

namespace {

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

// Where a module's machine code goes, and how its calls are resolved: runtime functions first,
// then the process (memcpy, fmod). All of a module's sections share one mapping (RuntimeDyld
// tells the sizes before it loads the object: reserveAllocationSpace), so that code reaches its
// constants and the stubs of its calls with 32-bit offsets: the small code model, which FastISel
// handles. With the large one (MCJIT's default on x86-64, since its sections may lie anywhere)
// FastISel gave up on every call and SelectionDAG selected each one: a fifth of a cheap compile.
class MemoryManager : public llvm::RTDyldMemoryManager {
 public:
  ~MemoryManager() override {
    if (block_.base()) llvm::sys::Memory::releaseMappedMemory(block_);
  }
  uint64_t getSymbolAddress(const std::string& name) override {
    if (base)
      if (uint64_t a = base->symbolAddress(name)) return a;
    if (void* p = resolve(name)) return reinterpret_cast<uint64_t>(p);
    uint64_t a = llvm::RTDyldMemoryManager::getSymbolAddressInProcess(name);
    if (!a) missing = name;
    return a;
  }
  bool needsToReserveAllocationSpace() override { return true; }
  void reserveAllocationSpace(uintptr_t codeSize, llvm::Align codeAlign, uintptr_t roSize, llvm::Align roAlign,
                              uintptr_t rwSize, llvm::Align rwAlign) override {
    const uint64_t page = llvm::sys::Process::getPageSizeEstimate();
    const uint64_t codeBytes = llvm::alignTo(codeSize, page), roBytes = llvm::alignTo(roSize, page);
    const uint64_t rwBytes = llvm::alignTo(llvm::alignTo(rwSize, 16) + gotBytes, page);
    std::error_code ec;
    block_ = llvm::sys::Memory::allocateMappedMemory(std::max<uint64_t>(codeBytes + roBytes + rwBytes, page), nullptr,
                                                     llvm::sys::Memory::MF_READ | llvm::sys::Memory::MF_WRITE, ec);
    if (ec) {
      block_ = {};
      return;  // every allocation fails, and the compile reports it
    }
    auto* base = static_cast<uint8_t*>(block_.base());
    code_ = {base, codeBytes, codeAlign.value(), 0};
    ro_ = {base + codeBytes, roBytes, roAlign.value(), 0};
    rw_ = {base + codeBytes + roBytes, rwBytes, rwAlign.value(), 0};
  }
  uint8_t* allocateCodeSection(uintptr_t size, unsigned alignment, unsigned, llvm::StringRef) override {
    uint8_t* p = code_.take(size, alignment);
    if (p) codeSections.push_back({reinterpret_cast<uint64_t>(p), reinterpret_cast<uint64_t>(p) + size});
    return p;
  }
  uint8_t* allocateDataSection(uintptr_t size, unsigned alignment, unsigned, llvm::StringRef, bool readOnly) override {
    return (readOnly ? ro_ : rw_).take(size, alignment);
  }
  bool finalizeMemory(std::string* error) override {
    if (!block_.base()) return true;
    auto protect = [&](const Region& r, unsigned flags) {
      if (!r.bytes) return true;
      llvm::sys::MemoryBlock b(r.base, r.bytes);
      if (std::error_code ec = llvm::sys::Memory::protectMappedMemory(b, flags)) {
        if (error) *error = ec.message();
        return false;
      }
      return true;
    };
    using M = llvm::sys::Memory;
    if (!protect(code_, M::MF_READ | M::MF_EXEC) || !protect(ro_, M::MF_READ)) return true;  // true: failed
    llvm::sys::Memory::InvalidateInstructionCache(code_.base, code_.bytes);
    return false;
  }
  std::string missing;
  const CompiledModule* base = nullptr;  // a split module's part compiled first (compileLater)
  std::vector<std::pair<uint64_t, uint64_t>> codeSections;  // [begin, end) of generated code
  // RuntimeDyld allocates its GOT (the addresses external calls' stubs jump through) after it
  // reserved the rest: room for an entry per relocation of the object, which is more than enough.
  uint64_t gotBytes = 0;

 private:
  // One kind of section's pages in the mapping, handed out in order. RuntimeDyld's sizes pad
  // each section to the kind's largest alignment, so sections handed out at that step fit.
  struct Region {
    uint8_t* base = nullptr;
    uint64_t bytes = 0, step = 1, used = 0;
    uint8_t* take(uintptr_t size, unsigned alignment) {
      const uint64_t at = llvm::alignTo(used, std::max<uint64_t>(alignment, 1));
      if (!base || at + size > bytes) return nullptr;  // never memory elsewhere: it may be out of reach
      used = llvm::alignTo(at + size, step);
      return base + at;
    }
  };
  llvm::sys::MemoryBlock block_;
  Region code_, ro_, rw_;
};

// With HYRAX_PERF_MAP set, each compiled function is listed in /tmp/perf-<pid>.map, the file
// `perf report` reads to name code without symbols: profiles then show pipeline functions
// (hyrax_q<number>_pipeline_<n>) instead of bare addresses.
void writePerfMap(const CompiledModule& code, const llvm::Module& module, const MemoryManager& mm) {
  static const bool enabled = std::getenv("HYRAX_PERF_MAP") != nullptr;
  if (!enabled) return;
  std::vector<std::string> functions;
  for (auto& f : module)
    if (!f.isDeclaration()) functions.push_back(f.getName().str());
  static std::mutex mutex;
  static uint64_t query = 0;
  std::lock_guard lock(mutex);
  ++query;
  std::vector<std::pair<uint64_t, const std::string*>> starts;
  for (auto& f : functions)
    if (uint64_t a = code.address(f)) starts.push_back({a, &f});
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
    for (auto& x : llvm::sys::getHostCPUFeatures()) {
      f += x.second ? '+' : '-';
      f.append(x.first().data(), x.first().size());
      f += ',';
    }
    return f;
  }();
  return features;
}

// On x86-64 the JIT's code is position independent with the small code model: RIP-relative
// constants, calls through stubs RuntimeDyld makes (the MemoryManager keeps a module within
// reach of itself). Elsewhere MCJIT's choices stay: static code, the target's JIT code model.
bool smallCodeModel(const llvm::Triple& t) { return t.getArch() == llvm::Triple::x86_64; }

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
  const bool small = smallCodeModel(llvm::Triple(triple));
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, cpu, features, opts, small ? llvm::Reloc::PIC_ : llvm::Reloc::Static,
      small ? std::optional<llvm::CodeModel::Model>(llvm::CodeModel::Small) : std::nullopt, level, true));
}

// The host's target machines, one per compile running, kept from compile to compile. Making one
// (and its subtarget: the instruction selector's and register allocator's tables, on the first
// function it compiles) took a tenth of a cheap compile, twice, when every compile made its own
// (MCJIT owns the one it compiles with). A machine serves one compile at a time; a compile on
// another thread (the background's, a server session's) takes another. Never freed: LLVM's
// globals may go first at exit.
class TargetMachines {
 public:
  struct Return {
    void operator()(llvm::TargetMachine* tm) const { pool().give(tm); }
  };
  using Lease = std::unique_ptr<llvm::TargetMachine, Return>;
  static TargetMachines& pool() {
    static TargetMachines* machines = new TargetMachines();
    return *machines;
  }
  Lease take(llvm::CodeGenOptLevel level) {
    {
      std::lock_guard lock(mutex_);
      for (size_t i = 0; i < idle_.size(); ++i)
        if (idle_[i]->getOptLevel() == level) {
          llvm::TargetMachine* tm = idle_[i].release();
          idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(i));
          return Lease(tm);
        }
    }
    return Lease(makeTargetMachine("", level).release());
  }

 private:
  void give(llvm::TargetMachine* tm) {
    std::lock_guard lock(mutex_);
    idle_.emplace_back(tm);
  }
  std::mutex mutex_;
  std::vector<std::unique_ptr<llvm::TargetMachine>> idle_;
};

llvm::CodeGenOptLevel codeGenLevel(OptLevel level) {
  // Fast statements get FastISel and the fast register allocator: a few milliseconds instead of
  // tens for SelectionDAG and the greedy allocator, which only pay off over many rows.
  return level == OptLevel::Full ? llvm::CodeGenOptLevel::Default : llvm::CodeGenOptLevel::None;
}

// Cheap code's register allocation. At O0 LLVM takes its fast allocator, which gives no value a
// register beyond its block: every value a later block uses is stored to the stack and loaded
// again, per row. The allocator of optimized code (liveness, coalescing, the greedy allocator)
// behind FastISel makes cheap code run 1.5x faster (TPC-H SF 1, execution geometric mean, cheap
// code only: 41.4 -> 28.3 ms at two threads, optimized code 23.3), but its compile takes three
// times as long (4.8 -> 14.2 ms), and adaptive queries, which start in the interpreter and
// usually end on optimized code, ended no sooner with it (`SET cheap_regalloc`, 2026-11-27,
// bench/README.md): the fast one stays the default. Huge modules always get the fast one, which
// is linear in their size. LLVM offers the choice only as a command-line option read while a
// compile's pass pipeline is built, so the pipelines are built under a lock, the option set for
// each.
constexpr size_t kHugeForAllocator = 20000;  // instructions in one function, or blocks in the module

bool wantsGreedyAllocator(const llvm::Module& m, OptLevel level, const CompileOptions& options) {
  if (level == OptLevel::Full || !options.greedyRegisterAllocator) return false;  // (Full has it anyway)
  size_t blocks = 0;
  for (const llvm::Function& f : m) {
    if (f.getInstructionCount() > kHugeForAllocator) return false;
    blocks += f.size();
  }
  return blocks <= kHugeForAllocator;
}

// Builds a compile's code generation passes (`add`; true: the target cannot) with the register
// allocator of optimized code at O0 when `greedyAllocator`.
template <typename Add>
bool buildCodegenPipeline(bool greedyAllocator, const Add& add) {
  static std::mutex building;
  static auto* option = []() -> llvm::cl::opt<llvm::cl::boolOrDefault>* {
    auto& options = llvm::cl::getRegisteredOptions();
    auto it = options.find("optimize-regalloc");  // TargetPassConfig.cpp's OptimizeRegAlloc
    return it == options.end() ? nullptr : static_cast<llvm::cl::opt<llvm::cl::boolOrDefault>*>(it->second);
  }();
  std::lock_guard lock(building);
  if (option) option->setValue(greedyAllocator ? llvm::cl::BOU_TRUE : llvm::cl::BOU_UNSET);
  return add();
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
    // The process's own symbols (memcpy, fmod) for calls the runtime's table does not name.
    llvm::sys::DynamicLibrary::LoadLibraryPermanently(nullptr);
    // HYRAX_LLVM_ARGS: options for LLVM, to look into compiles (codegen/README.md), e.g.
    // "-pass-remarks-missed=sdagisel" prints what FastISel left to SelectionDAG. An option LLVM
    // does not know is reported and ignored (with no stream given, LLVM would exit).
    if (std::getenv("HYRAX_LLVM_ARGS")) {
      const char* argv[] = {"hyrax"};
      llvm::cl::ParseCommandLineOptions(1, argv, "", &llvm::errs(), "HYRAX_LLVM_ARGS");
    }
    llvm::install_fatal_error_handler([](void*, const char* reason, bool) {
      // LLVM cannot continue after this; say why before it aborts.
      llvm::errs() << "hyrax: LLVM fatal error: " << reason << "\n";
    });
  });
}

namespace {
// Release builds check generated IR only before the full pipeline (off the way to the first row
// when adaptive); debug builds, and processes with HYRAX_VERIFY_IR set (the TPC-H answer test),
// before every compile. The verifier took 0.15-0.2 ms of a 4 ms cheap compile.
#ifdef NDEBUG
constexpr bool kVerifyByDefault = false;
#else
constexpr bool kVerifyByDefault = true;
#endif
std::atomic<bool>& verifySwitch() {
  static std::atomic<bool> on{kVerifyByDefault || std::getenv("HYRAX_VERIFY_IR") != nullptr};
  return on;
}
}  // namespace

bool verifyingGeneratedCode() { return verifySwitch().load(std::memory_order_relaxed); }
void verifyGeneratedCode(bool always) { verifySwitch().store(always || kVerifyByDefault || std::getenv("HYRAX_VERIFY_IR")); }

void setSymbolResolver(SymbolResolver r) {
  std::lock_guard<std::mutex> lock(resolverMutex);
  resolver = std::move(r);
}

void configureModule(llvm::Module& m, const std::string& triple) {
  initialize();
  if (triple.empty()) {  // every query: a machine of the pool, not a new one
    std::shared_lock inLlvm(llvmGuard());  // no fork while the pool's lock is held
    TargetMachines::Lease tm = TargetMachines::pool().take(llvm::CodeGenOptLevel::None);
    m.setTargetTriple(tm->getTargetTriple().str());
    m.setDataLayout(tm->createDataLayout());
    return;
  }
  auto tm = makeTargetMachine(triple, llvm::CodeGenOptLevel::Default);
  m.setTargetTriple(tm->getTargetTriple().str());
  m.setDataLayout(tm->createDataLayout());
}

// Hand-picked function pipelines instead of LLVM's O1/O2: generated query code has no calls to
// inline (runtime functions are external) and few loops, and the default pipelines spend most of
// their time in the inliner, loop passes and repeated InstCombine runs that gain nothing here.
// Fast: registers instead of allocas and the control flow cleaned up (blocks merged, empty ones
// gone), for statements that touch few rows and for adaptive compilation's cheap code. Nothing
// more: EarlyCSE and InstCombine took a third of a cheap compile (TPC-H SF 1, median 6.2 -> 4.1
// ms with both gone) and the code they left ran no faster at O0 (cheap code only, best of 6,
// execution geometric mean 29.7 ms with them, 29.9 without); InstCombine also made intrinsics
// (umin, fshl) that FastISel cannot select, so SelectionDAG did those blocks.
// Full: adds redundancy elimination, instruction combining, loop-invariant code motion and
// value numbering, for scans.
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
  if (level == OptLevel::Full) {
    // Functions marked optnone (expected to see few rows: QueryTranslator::markColdIf) get the
    // fast pipeline only: the full one's passes on them were a quarter of its time (TPC-H SF 1,
    // the 22 queries' optimized compiles: 204-245 ms of IR passes in all, 159-170 without).
    llvm::FunctionPassManager cold;
    cold.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
    cold.addPass(llvm::SimplifyCFGPass());
    fpm.addPass(llvm::EarlyCSEPass());
    fpm.addPass(llvm::InstCombinePass());
    fpm.addPass(llvm::SimplifyCFGPass());
    fpm.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::LICMPass(llvm::LICMOptions()), /*UseMemorySSA=*/true));
    fpm.addPass(llvm::GVNPass());
    fpm.addPass(llvm::InstCombinePass());
    fpm.addPass(llvm::SimplifyCFGPass());
    for (llvm::Function& f : m)
      if (!f.isDeclaration()) (f.hasOptNone() ? cold : fpm).run(f, fam);
    return;
  }
  fpm.addPass(llvm::SimplifyCFGPass());
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

std::unique_ptr<CompiledModule> compileAgain(CompiledModule& from, OptLevel level, CompileTimes* times) {
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> m;
  {
    std::shared_lock inLlvm(llvmGuard());
    if (!from.module_) throw Error(sqlstate::InternalError, "a module's IR was compiled again twice");
    ctx = std::move(from.context_);
    m = std::move(from.module_);
  }
  // A split module's IR as generated: the fast pipeline first, as the IR a whole cheap compile
  // leaves had had (the full pipeline alone on raw IR made slower code: TPC-H Q1 at SF 1,
  // best execute 64-68 ms against 75-94).
  if (from.rawIR_) {
    std::shared_lock inLlvm(llvmGuard());
    TargetMachines::Lease tm = TargetMachines::pool().take(codeGenLevel(OptLevel::Fast));
    optimize(*m, OptLevel::Fast, tm.get());
  }
  return compile(std::move(ctx), std::move(m), level, times);
}

void discard(std::unique_ptr<llvm::LLVMContext> ctx, std::unique_ptr<llvm::Module> m) {
  if (!ctx && !m) return;
  std::shared_lock inLlvm(llvmGuard());
  m.reset();  // before the context that owns its types
  ctx.reset();
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
  if (buildCodegenPipeline(false, [&] { return tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile); }))
    throw Error(sqlstate::InternalError, "LLVM cannot emit assembly for " + (triple.empty() ? hostTriple() : triple));
  pm.run(*clone);
  return std::string(buf.str());
}

CompiledModule::~CompiledModule() {
  std::shared_lock inLlvm(llvmGuard());
  if (loader_) {
    if (llvm::JITEventListener* dump = perfJitDump()) dump->notifyFreeingObject(reinterpret_cast<uint64_t>(this));
    loader_->deregisterEHFrames();
  }
  loader_.reset();
  memory_.reset();  // the machine code
  module_.reset();  // before the context that owns its types
  context_.reset();
}

uint64_t CompiledModule::symbolAddress(const std::string& objectName) const {
  return loader_ ? loader_->getSymbol(objectName).getAddress() : 0;
}

uint64_t CompiledModule::address(const std::string& name) const {
  const uint64_t a = globalPrefix_ ? loader_->getSymbol(std::string(1, globalPrefix_) + name).getAddress()
                                   : loader_->getSymbol(name).getAddress();
  return a || !base_ ? a : base_->address(name);
}

void* CompiledModule::function(const std::string& name) const {
  uint64_t a = address(name);
  if (!a) throw Error(sqlstate::InternalError, "generated function " + name + " not found");
  return reinterpret_cast<void*>(a);
}

std::unique_ptr<CompiledModule> compile(std::unique_ptr<llvm::LLVMContext> ctxArg, std::unique_ptr<llvm::Module> mArg,
                                        OptLevel level, CompileTimes* times, const CompileOptions& options) {
  std::shared_lock inLlvm(llvmGuard());
  // Held by the result from the start, so that on an error the module dies before its context.
  auto result = std::unique_ptr<CompiledModule>(new CompiledModule());
  result->context_ = std::move(ctxArg);
  result->module_ = std::move(mArg);
  emitAndLoad(*result, *result->module_, level, times, options, {});
  return result;
}

// Machine code as an object file in memory: instruction selection, register allocation, emission.
static llvm::SmallVector<char, 0> emitObject(llvm::Module& module, llvm::TargetMachine& tm, bool greedyAllocator) {
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager pm;
  llvm::MCContext* mc = nullptr;
  if (buildCodegenPipeline(greedyAllocator, [&] { return tm.addPassesToEmitMC(pm, mc, os, /*DisableVerify=*/true); }))
    throw Error(sqlstate::InternalError, "LLVM cannot emit machine code for " + tm.getTargetTriple().str());
  pm.run(module);
  return object;
}

// The object loaded into `result`: sections placed, relocations and calls resolved (what MCJIT
// does). `base`: the module whose functions this one's code calls (compileLater's first part,
// compileApart's), or null.
void loadObject(CompiledModule& result, llvm::StringRef object, const llvm::Module& module, const CompiledModule* base) {
  auto file = llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(object, "query"));
  if (!file) throw Error(sqlstate::InternalError, "cannot read generated machine code: " + llvm::toString(file.takeError()));
  result.memory_ = std::make_unique<MemoryManager>();
  auto* mm = static_cast<MemoryManager*>(result.memory_.get());
  mm->base = base;
  result.loader_ = std::make_unique<llvm::RuntimeDyld>(*mm, *mm);
  llvm::RuntimeDyld& loader = *result.loader_;
  for (const llvm::object::SectionRef& section : (*file)->sections())
    mm->gotBytes += 8 * static_cast<uint64_t>(std::distance(section.relocation_begin(), section.relocation_end()));
  std::unique_ptr<llvm::RuntimeDyld::LoadedObjectInfo> loaded = loader.loadObject(**file);
  if (!loader.hasError()) loader.resolveRelocations();
  if (!mm->missing.empty())
    throw Error(sqlstate::InternalError, "generated code calls unknown function " + mm->missing);
  if (loader.hasError()) throw Error(sqlstate::InternalError, "JIT error: " + loader.getErrorString().str());
  loader.registerEHFrames();
  std::string protectError;
  if (mm->finalizeMemory(&protectError)) throw Error(sqlstate::InternalError, "JIT error: " + protectError);
  if (llvm::JITEventListener* dump = perfJitDump()) dump->notifyObjectLoaded(reinterpret_cast<uint64_t>(&result), **file, *loaded);
  writePerfMap(result, module, *mm);
}

// A full compile's functions marked optnone (QueryTranslator::markColdIf: expected to see few
// rows) get O0's code generator (FastISel and the fast register allocator), the others O2's. At
// O2, LLVM selects an optnone function's instructions quickly but still gives it the greedy
// allocator and the passes around it: TPC-H Q1's five small functions (init, merge, sort
// comparator, output) took 10 ms of llc's 21, and 3.3 ms at O0 (the 22 queries: 190 ms against 68).
// LLVM's code generator takes one level per module, so the part with the functions the other
// part calls is cloned out of `module`, compiled first and returned (loaded; its IR freed), and
// `module` keeps the rest; null when the module is compiled whole (one kind of function only,
// global variables, which two objects could not share, or calls both ways).
std::shared_ptr<CompiledModule> compileApart(CompiledModule& result, llvm::Module& module) {
  auto isCold = [](const llvm::Function& f) { return f.hasOptNone(); };
  bool hot = false, cold = false, coldUsesHot = false, hotUsesCold = false;
  for (const llvm::GlobalVariable& g : module.globals())
    if (!g.isDeclaration()) return nullptr;
  for (const llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    (isCold(f) ? cold : hot) = true;
    for (const llvm::User* user : f.users()) {
      const auto* inst = llvm::dyn_cast<llvm::Instruction>(user);
      if (!inst) return nullptr;  // a use in a constant: not followed
      const bool fromCold = isCold(*inst->getFunction());
      if (fromCold != isCold(f)) (fromCold ? coldUsesHot : hotUsesCold) = true;
    }
  }
  if (!hot || !cold || (coldUsesHot && hotUsesCold)) return nullptr;
  const bool firstIsCold = !coldUsesHot;  // the part called by the other comes first
  std::shared_ptr<CompiledModule> first(new CompiledModule());
  first->coldPart_ = firstIsCold;
  first->globalPrefix_ = result.globalPrefix_;
  first->module_ = llvm::CloneModule(module);
  for (llvm::Function& f : *first->module_)
    if (!f.isDeclaration() && isCold(f) != firstIsCold) f.deleteBody();
  for (llvm::Function& f : module)
    if (!f.isDeclaration() && isCold(f) == firstIsCold) f.deleteBody();
  llvm::SmallVector<char, 0> object;
  {
    TargetMachines::Lease tm = TargetMachines::pool().take(codeGenLevel(firstIsCold ? OptLevel::None : OptLevel::Full));
    object = emitObject(*first->module_, *tm, false);
  }
  loadObject(*first, llvm::StringRef(object.data(), object.size()), *first->module_, nullptr);
  first->module_.reset();  // (its context is the result's)
  return first;
}

void emitAndLoad(CompiledModule& resultRef, llvm::Module& module, OptLevel level, CompileTimes* times,
                 const CompileOptions& options, const std::function<const CompiledModule*()>& base) {
  CompiledModule* result = &resultRef;
  initialize();
  auto start = std::chrono::steady_clock::now();
  if (level == OptLevel::Full || verifyingGeneratedCode()) {
    std::string verifyErrors;
    llvm::raw_string_ostream vs(verifyErrors);
    if (llvm::verifyModule(module, &vs))
      throw Error(sqlstate::InternalError, "generated code is invalid (a code generation bug): " + vs.str());
  }
  TargetMachines::Lease tm = TargetMachines::pool().take(codeGenLevel(level));
  module.setDataLayout(tm->createDataLayout());
  if (char prefix = module.getDataLayout().getGlobalPrefix()) result->globalPrefix_ = prefix;
  optimize(module, level, tm.get());
  const bool greedyAllocator = wantsGreedyAllocator(module, level, options);
  if (times) times->greedyRegisters = greedyAllocator;
  if (times) times->optimizeMs = msSince(start);
  if (options.keepIR) result->ir_ = printIR(module);
  if (options.keepAssembly) result->assembly_ = emitAssembly(module);

  start = std::chrono::steady_clock::now();
  const bool apart = level == OptLevel::Full && !base;
  size_t coldFunctions = 0;  // (counted before compileApart takes their bodies from one part)
  if (apart && times)
    for (const llvm::Function& f : module) coldFunctions += !f.isDeclaration() && f.hasOptNone();
  std::shared_ptr<CompiledModule> first = apart ? compileApart(*result, module) : nullptr;
  if (times) times->coldApart = first ? coldFunctions : 0;
  if (first) {
    result->base_ = first;
    // The rest is the hot part (O2's code generator, as the whole would have had) or the cold one.
    if (!first->coldPart_) tm = TargetMachines::pool().take(codeGenLevel(OptLevel::None));
  }
  llvm::SmallVector<char, 0> object = emitObject(module, *tm, greedyAllocator);
  tm.reset();  // back to the pool
  const CompiledModule* baseModule = first ? first.get() : base ? base() : nullptr;  // (base() may wait for it)
  loadObject(*result, llvm::StringRef(object.data(), object.size()), module, baseModule);
  if (times) times->machineCodeMs = msSince(start);
}

}  // namespace hyrax::jit
