#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
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
