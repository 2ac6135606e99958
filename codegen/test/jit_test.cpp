#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <llvm/IR/IRBuilder.h>

#include "codegen/jit/background.hpp"
#include "codegen/jit/jit.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

namespace {
// i64 add(i64, i64) in a fresh module.
std::pair<std::unique_ptr<llvm::LLVMContext>, std::unique_ptr<llvm::Module>> addModule(bool callExternal = false) {
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = std::make_unique<llvm::Module>("test", *ctx);
  jit::configureModule(*m);
  llvm::IRBuilder<> b(*ctx);
  auto* ft = llvm::FunctionType::get(b.getInt64Ty(), {b.getInt64Ty(), b.getInt64Ty()}, false);
  auto* f = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, "add", *m);
  b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", f));
  llvm::Value* sum = b.CreateAdd(f->getArg(0), f->getArg(1));
  if (callExternal) {
    auto callee = m->getOrInsertFunction("external_twice", ft);
    sum = b.CreateCall(callee, {sum, sum});
  }
  b.CreateRet(sum);
  return {std::move(ctx), std::move(m)};
}
int64_t twice(int64_t a, int64_t b) { return a + b; }
}  // namespace

TEST_CASE("modules compile at every level and their functions run") {
  for (auto level : {jit::OptLevel::None, jit::OptLevel::Fast, jit::OptLevel::Full}) {
    auto [ctx, m] = addModule();
    jit::CompileTimes times;
    auto start = std::chrono::steady_clock::now();
    auto compiled = jit::compile(std::move(ctx), std::move(m), level, &times, {true, true});
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    WARN("compiling a trivial function took " << ms << " ms");
    auto add = reinterpret_cast<int64_t (*)(int64_t, int64_t)>(compiled->function("add"));
    CHECK(add(40, 2) == 42);
    CHECK(compiled->ir().find("define") != std::string::npos);
    CHECK(compiled->assembly().find("add") != std::string::npos);
  }
}

TEST_CASE("external calls resolve through the resolver; unknown ones are errors") {
  jit::setSymbolResolver([](const std::string& name) -> void* {
    return name == "external_twice" ? reinterpret_cast<void*>(&twice) : nullptr;
  });
  {
    auto [ctx, m] = addModule(true);
    auto compiled = jit::compile(std::move(ctx), std::move(m), jit::OptLevel::Fast);
    auto add = reinterpret_cast<int64_t (*)(int64_t, int64_t)>(compiled->function("add"));
    CHECK(add(1, 2) == 6);
  }
  jit::setSymbolResolver([](const std::string&) -> void* { return nullptr; });
  {
    auto [ctx, m] = addModule(true);
    CHECK_THROWS_WITH(jit::compile(std::move(ctx), std::move(m), jit::OptLevel::Fast), Catch::Contains("external_twice"));
  }
  jit::setSymbolResolver(nullptr);
}

TEST_CASE("an invalid module is an error, not a crash") {
  auto invalid = [] {
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto m = std::make_unique<llvm::Module>("bad", *ctx);
    jit::configureModule(*m);
    llvm::IRBuilder<> b(*ctx);
    auto* f = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), false), llvm::Function::ExternalLinkage, "f", *m);
    llvm::BasicBlock::Create(*ctx, "entry", f);  // no terminator
    return std::make_pair(std::move(ctx), std::move(m));
  };
  {  // the full pipeline checks always
    auto [ctx, m] = invalid();
    CHECK_THROWS_WITH(jit::compile(std::move(ctx), std::move(m), jit::OptLevel::Full), Catch::Contains("invalid"));
  }
  const bool before = jit::verifyingGeneratedCode();
  jit::verifyGeneratedCode(true);  // the fast one when asked (tests, debug builds)
  {
    auto [ctx, m] = invalid();
    CHECK_THROWS_WITH(jit::compile(std::move(ctx), std::move(m), jit::OptLevel::Fast), Catch::Contains("invalid"));
  }
  jit::verifyGeneratedCode(before);
}

TEST_CASE("assembly for ARMv7 can be printed on any host") {
  auto [ctx, m] = addModule();
  std::string armAsm = jit::emitAssembly(*m, "armv7-unknown-linux-gnueabihf");
  CHECK(armAsm.find("add") != std::string::npos);
  CHECK((armAsm.find("bx\tlr") != std::string::npos || armAsm.find("pop") != std::string::npos));
}

TEST_CASE("bitcode compiles again in a context of its own, on the background thread, and fork waits for it") {
  auto [ctx, m] = addModule();
  std::string bitcode = jit::toBitcode(*m);
  std::atomic<int64_t> result{0};
  std::atomic<bool> finished{false};
  jit::runInBackground([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // still running when fork() comes
    auto compiled = jit::compileBitcode(bitcode, jit::OptLevel::Full);
    auto add = reinterpret_cast<int64_t (*)(int64_t, int64_t)>(compiled->function("add"));
    result = add(40, 2);
    finished = true;
  });
  const pid_t pid = fork();
  if (pid == 0) {
    // The child: the job finished before the fork; a job of its own gets a thread of its own, and
    // LLVM works here.
    std::atomic<int64_t> own{0};
    jit::runInBackground([&] { own = reinterpret_cast<int64_t (*)(int64_t, int64_t)>(
                                         jit::compileBitcode(bitcode, jit::OptLevel::Fast)->function("add"))(1, 2); });
    jit::drainBackground();
    _exit(finished && result == 42 && own == 3 ? 0 : 1);
  }
  REQUIRE(pid > 0);
  CHECK(finished);  // the parent too: fork() waited
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(result == 42);
}

TEST_CASE("a compiled module's IR compiles again at another level; the first code stays") {
  auto [ctx, m] = addModule(true);
  jit::setSymbolResolver([](const std::string& name) -> void* {
    return name == "external_twice" ? reinterpret_cast<void*>(&twice) : nullptr;
  });
  std::shared_ptr<jit::CompiledModule> cheap = jit::compile(std::move(ctx), std::move(m), jit::OptLevel::Fast);
  std::unique_ptr<jit::CompiledModule> optimized;
  // On the background thread, as adaptive compilation does.
  jit::runInBackground([&] { optimized = jit::compileAgain(*cheap, jit::OptLevel::Full); });
  jit::drainBackground();
  jit::setSymbolResolver(nullptr);
  REQUIRE(optimized);
  CHECK(reinterpret_cast<int64_t (*)(int64_t, int64_t)>(optimized->function("add"))(1, 2) == 6);
  CHECK(reinterpret_cast<int64_t (*)(int64_t, int64_t)>(cheap->function("add"))(2, 3) == 10);
  CHECK_THROWS_AS(jit::compileAgain(*cheap, jit::OptLevel::Full), Error);  // its IR is gone
  CHECK(reinterpret_cast<int64_t (*)(int64_t, int64_t)>(cheap->function("add"))(2, 3) == 10);
}

TEST_CASE("bitcode that is not bitcode is an error") {
  CHECK_THROWS_AS(jit::compileBitcode("not bitcode", jit::OptLevel::Fast), Error);
}

namespace {
// `first`: i64 first(i64 x) = x + 1; `sort_key` (referred to by first as a constant pointer it
// returns through an external call, as a sort's compare function is); `rest`: i64 rest(i64 x)
// = first(x) * 2 plus a loop body big enough that first is a small part of the module.
std::pair<std::unique_ptr<llvm::LLVMContext>, std::unique_ptr<llvm::Module>> twoPartModule() {
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = std::make_unique<llvm::Module>("split", *ctx);
  jit::configureModule(*m);
  llvm::IRBuilder<> b(*ctx);
  auto* i64 = b.getInt64Ty();
  auto* unary = llvm::FunctionType::get(i64, {i64}, false);
  auto* key = llvm::Function::Create(unary, llvm::Function::ExternalLinkage, "sort_key", *m);
  b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", key));
  b.CreateRet(b.CreateMul(key->getArg(0), b.getInt64(3)));
  auto* first = llvm::Function::Create(unary, llvm::Function::ExternalLinkage, "first", *m);
  b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", first));
  auto apply = m->getOrInsertFunction("external_apply", llvm::FunctionType::get(i64, {b.getPtrTy(), i64}, false));
  b.CreateRet(b.CreateAdd(b.CreateCall(apply, {key, first->getArg(0)}), b.getInt64(1)));
  auto* rest = llvm::Function::Create(unary, llvm::Function::ExternalLinkage, "rest", *m);
  b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", rest));
  llvm::Value* v = b.CreateCall(first, {rest->getArg(0)});
  for (int i = 0; i < 40; ++i) v = b.CreateSub(b.CreateAdd(v, b.getInt64(i)), b.getInt64(i));  // net: v
  b.CreateRet(b.CreateMul(v, b.getInt64(2)));
  return {std::move(ctx), std::move(m)};
}
int64_t applyKey(int64_t (*f)(int64_t), int64_t x) { return f(x); }
}  // namespace

TEST_CASE("a module compiles in two parts: the named functions first, the rest later, calling into the first") {
  jit::setSymbolResolver([](const std::string& name) -> void* {
    return name == "external_apply" ? reinterpret_cast<void*>(&applyKey) : nullptr;
  });
  auto [ctx, m] = twoPartModule();
  std::string laterBitcode;
  std::shared_ptr<jit::CompiledModule> first;
  std::unique_ptr<jit::CompiledModule> rest;
  std::mutex mutex;
  std::condition_variable ready;
  bool firstDone = false;
  std::thread other;
  // The later part compiles on another thread while the first does, as the background thread
  // does; it waits for the first part only to load.
  first = jit::compileFirst(ctx, m, {"first"}, laterBitcode, jit::OptLevel::Fast, nullptr, [&] {
    other = std::thread([&] {
      rest = jit::compileLater(laterBitcode, [&] {
        std::unique_lock lock(mutex);
        ready.wait(lock, [&] { return firstDone; });
        return first;
      }, jit::OptLevel::Fast);
    });
  });
  REQUIRE(first);
  CHECK(!ctx);  // taken over
  CHECK(first->address("rest") == 0);  // not in the first part
  {
    std::lock_guard lock(mutex);
    firstDone = true;
    ready.notify_all();
  }
  other.join();
  auto firstFn = reinterpret_cast<int64_t (*)(int64_t)>(first->function("first"));
  CHECK(firstFn(4) == 13);  // 4 * 3 + 1, through sort_key, which came with it
  auto restFn = reinterpret_cast<int64_t (*)(int64_t)>(rest->function("rest"));
  CHECK(restFn(4) == 26);
  // The first part's IR is still whole: compiled again as one module, at another level.
  auto again = jit::compileAgain(*first, jit::OptLevel::Full);
  CHECK(reinterpret_cast<int64_t (*)(int64_t)>(again->function("rest"))(5) == 32);
  first.reset();  // the rest keeps the first part's code alive
  CHECK(restFn(1) == 8);
  // A later part whose first part failed fails too, without waiting.
  CHECK_THROWS_AS(jit::compileLater(laterBitcode, [] { return std::shared_ptr<jit::CompiledModule>(); },
                                    jit::OptLevel::Fast),
                  Error);
  jit::setSymbolResolver(nullptr);
}

TEST_CASE("the first part takes later functions while it stays within half the module") {
  // first (tiny), mid (about a third, on its own) and rest (the rest, calling first): the first
  // part is first and mid; rest, which would take it past half, comes later.
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = std::make_unique<llvm::Module>("halves", *ctx);
  jit::configureModule(*m);
  llvm::IRBuilder<> b(*ctx);
  auto* i64 = b.getInt64Ty();
  auto* unary = llvm::FunctionType::get(i64, {i64}, false);
  auto body = [&](const char* name, int adds, llvm::Function* calls) {
    auto* f = llvm::Function::Create(unary, llvm::Function::ExternalLinkage, name, *m);
    b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", f));
    llvm::Value* v = calls ? b.CreateCall(calls, {f->getArg(0)}) : static_cast<llvm::Value*>(f->getArg(0));
    for (int i = 0; i < adds; ++i) v = b.CreateAdd(v, b.getInt64(1));
    b.CreateRet(v);
    return f;
  };
  llvm::Function* first = body("first", 1, nullptr);
  body("mid", 30, nullptr);
  body("rest", 40, first);
  std::string later;
  std::shared_ptr<jit::CompiledModule> part = jit::compileFirst(ctx, m, {"first"}, later, jit::OptLevel::Fast);
  REQUIRE(part);
  CHECK(part->address("first") != 0);
  CHECK(part->address("mid") != 0);
  CHECK(part->address("rest") == 0);
  auto rest = jit::compileLater(later, [&] { return part; }, jit::OptLevel::Fast);
  CHECK(reinterpret_cast<int64_t (*)(int64_t)>(rest->function("rest"))(2) == 43);
  CHECK(reinterpret_cast<int64_t (*)(int64_t)>(part->function("mid"))(2) == 32);
}

TEST_CASE("no split when the named functions are most of the module") {
  jit::setSymbolResolver([](const std::string& name) -> void* {
    return name == "external_apply" ? reinterpret_cast<void*>(&applyKey) : nullptr;
  });
  auto [ctx, m] = twoPartModule();
  std::string later;
  CHECK(jit::compileFirst(ctx, m, {"rest"}, later, jit::OptLevel::Fast) == nullptr);  // rest calls first: everything
  REQUIRE(ctx);
  REQUIRE(m);  // left as it was: compiled whole
  auto whole = jit::compile(std::move(ctx), std::move(m), jit::OptLevel::Fast);
  CHECK(reinterpret_cast<int64_t (*)(int64_t)>(whole->function("rest"))(4) == 26);
  jit::setSymbolResolver(nullptr);
}

namespace {
// A module of `hot` (i64 (i64)) and `cold` (optnone, as QueryTranslator::markColdIf marks
// functions expected to see few rows): hot(x) = cold(x) * 3 when hot calls cold, and cold(x) =
// x + 1 or, when cold takes hot's address (as query_init hands a sort its comparator), stores
// it at address x and returns 7.
std::pair<std::unique_ptr<llvm::LLVMContext>, std::unique_ptr<llvm::Module>> hotColdModule(bool hotCallsCold,
                                                                                            bool coldTakesHot) {
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = std::make_unique<llvm::Module>("test", *ctx);
  jit::configureModule(*m);
  llvm::IRBuilder<> b(*ctx);
  auto* ft = llvm::FunctionType::get(b.getInt64Ty(), {b.getInt64Ty()}, false);
  auto* hot = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, "hot", *m);
  auto* cold = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, "cold", *m);
  cold->addFnAttr(llvm::Attribute::OptimizeNone);
  cold->addFnAttr(llvm::Attribute::NoInline);
  b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", cold));
  if (coldTakesHot) {
    b.CreateStore(hot, b.CreateIntToPtr(cold->getArg(0), b.getPtrTy()));
    b.CreateRet(b.getInt64(7));
  } else {
    b.CreateRet(b.CreateAdd(cold->getArg(0), b.getInt64(1)));
  }
  b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", hot));
  llvm::Value* x = hot->getArg(0);
  if (hotCallsCold) x = b.CreateCall(ft, cold, {x});
  b.CreateRet(b.CreateMul(x, b.getInt64(3)));
  return {std::move(ctx), std::move(m)};
}
}  // namespace

TEST_CASE("a full compile gives functions marked optnone O0's code generator apart, and both parts run") {
  using Fn = int64_t (*)(int64_t);
  jit::CompileTimes times;
  auto compile = [&](bool hotCallsCold, bool coldTakesHot, jit::OptLevel level = jit::OptLevel::Full) {
    auto [ctx, m] = hotColdModule(hotCallsCold, coldTakesHot);
    return jit::compile(std::move(ctx), std::move(m), level, &times);
  };
  SECTION("the hot function calls the cold one: the cold part first") {
    auto compiled = compile(true, false);
    CHECK(times.coldApart == 1);
    CHECK(reinterpret_cast<Fn>(compiled->function("hot"))(13) == 42);
    CHECK(reinterpret_cast<Fn>(compiled->function("cold"))(41) == 42);
  }
  SECTION("the cold function takes the hot one's address: the hot part first") {
    auto compiled = compile(false, true);
    CHECK(times.coldApart == 1);
    auto hot = reinterpret_cast<Fn>(compiled->function("hot"));
    CHECK(hot(14) == 42);
    Fn stored = nullptr;
    CHECK(reinterpret_cast<Fn>(compiled->function("cold"))(static_cast<int64_t>(reinterpret_cast<intptr_t>(&stored))) == 7);
    CHECK(stored == hot);
  }
  SECTION("calls both ways: compiled whole") {
    auto compiled = compile(true, true);
    CHECK(times.coldApart == 0);
    auto hot = reinterpret_cast<Fn>(compiled->function("hot"));
    Fn stored = nullptr;
    CHECK(hot(static_cast<int64_t>(reinterpret_cast<intptr_t>(&stored))) == 21);
    CHECK(stored == hot);
  }
  SECTION("the cheap tier's level compiles whole") {
    auto compiled = compile(true, false, jit::OptLevel::Fast);
    CHECK(times.coldApart == 0);
    CHECK(reinterpret_cast<Fn>(compiled->function("hot"))(13) == 42);
  }
}
