// checkStackDepth() turns a recursion that would overflow the stack into 54001, on a thread of
// any stack size, and the thread goes on afterwards.
#include <catch2/catch.hpp>

#include <pthread.h>

#include <string>

#include "engine/util/error.hpp"
#include "engine/util/large_stack_thread.hpp"
#include "engine/util/stack_depth.hpp"

using namespace hyrax;

namespace {

// A recursive pass with a frame of about 1 KiB, as deep as asked.
int descend(int levels) {
  checkStackDepth();
  volatile char frame[1024];
  frame[0] = static_cast<char>(levels);
  return levels == 0 ? frame[0] : descend(levels - 1) + frame[0];
}

std::string sqlstateOf(int levels) {
  try {
    descend(levels);
  } catch (const Error& e) {
    return e.sqlstate();
  }
  return "none";
}

}  // namespace

TEST_CASE("a recursion deeper than the stack allows gets 54001 and no crash") {
  for (size_t mib : {4, 16, 64}) {
    INFO(mib << " MiB");
    std::string shallow, deep, again;
    size_t left = 0, stack = 0;
    LargeStackThread t(mib << 20, [&] {
      // The stack the thread got: glibc may hand a new thread a cached stack up to 4x larger.
      pthread_attr_t attr;
      void* base = nullptr;
      if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstack(&attr, &base, &stack);
        pthread_attr_destroy(&attr);
      }
      left = stackDepthLeft();
      shallow = sqlstateOf(100);
      deep = sqlstateOf(1'000'000);  // 1 GiB of frames
      releaseDeepStack();
      again = sqlstateOf(100);
    });
    t.join();
    CHECK(stack >= (mib << 20));
    CHECK(left < stack);
    CHECK(shallow == "none");
    CHECK(deep == "54001");
    CHECK(again == "none");
  }
}
