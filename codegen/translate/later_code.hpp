#pragma once
// The second part of a query's cheap code compiled in two parts (SET compile_parts = 'two'):
// query_compiler.cpp's and query_driver.cpp's state between the query's thread and the background thread.
// Only codegen/translate includes this header.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "codegen/jit/jit.hpp"

namespace hyrax::codegen {

// A query's cheap code in two parts (jit::compileFirst): query_init and the first pipeline are
// compiled before the first row; the other functions here (jit::compileLater), on the background
// thread at the same time and while the first pipeline runs, or on the query's thread if it needs
// them before that thread got to them. TPC-H at SF 1 (bench/README.md): the first morsel waited
// for every pipeline's code before.
struct LaterCode {
  std::string bitcode;                          // the later functions' IR
  std::shared_ptr<jit::CompiledModule> module;  // their machine code, once compiled
  std::atomic<bool> wanted{true};                // false once the query is gone: not compiled
  std::mutex mutex;
  std::condition_variable changed;
  enum class State { Waiting, Compiling, Done } state = State::Waiting;
  std::shared_ptr<jit::CompiledModule> first;  // the first part, once loaded
  bool firstFailed = false;
  std::exception_ptr error;
  double compileMs = 0;
  double codeMs = 0;  // of compileMs, LLVM's passes and machine code (not reading the bitcode back)

  // The query's thread: the first part is loaded (null: its compile failed).
  void firstReady(std::shared_ptr<jit::CompiledModule> m) {
    std::lock_guard lock(mutex);
    first = std::move(m);
    firstFailed = !first;
    changed.notify_all();
  }
  // Compiles it here unless another thread is compiling it or did; returns once it is done.
  // Rethrows the compile's error.
  void finish() {
    if (claim()) compile();
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return state == State::Done; });
    if (error) std::rethrow_exception(error);
  }
  // The background thread's job: compiles it if nobody has begun, and it is still wanted.
  void compileIfWaiting() {
    if (wanted.load() && claim()) compile();
  }

 private:
  bool claim() {
    std::lock_guard lock(mutex);
    if (state != State::Waiting) return false;
    state = State::Compiling;
    return true;
  }
  void compile() {
    std::shared_ptr<jit::CompiledModule> m;
    std::exception_ptr failed;
    const auto t = std::chrono::steady_clock::now();
    jit::CompileTimes times;
    try {
      m = jit::compileLater(bitcode, [&] {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return first || firstFailed; });
        return first;
      }, jit::OptLevel::Fast, &times);
    } catch (...) {
      failed = std::current_exception();
    }
    std::lock_guard lock(mutex);
    module = std::move(m);
    error = failed;
    bitcode = std::string();
    compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    codeMs = times.optimizeMs + times.machineCodeMs;
    state = State::Done;
    changed.notify_all();
  }
};

}  // namespace hyrax::codegen
