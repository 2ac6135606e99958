# HYRAX_SANITIZE=ON builds everything with AddressSanitizer and UndefinedBehaviorSanitizer.
# What to know about a run (ctest --preset asan; measured 2026-11-26 on 2 cores, about 25 min):
# - GCC 12's ASan runtime does not lock its allocator around fork() (compiler-rt does since
#   LLVM 18): a snapshot process forked while another thread held an allocator lock hangs its
#   worker in malloc, so a test on snapshots now and then waits forever (run with --timeout).
# - sql_long_chains fails: ASan cannot unwind the executor's 224 MiB stack ("ignoring
#   __asan_handle_no_return", then a CHECK failure); ch_w1 and server_wirefuzz_short may pass
#   their time limits (ASan is 3-10x slower).
option(HYRAX_SANITIZE "Build with ASan and UBSan" OFF)
if(HYRAX_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# HYRAX_TSAN=ON builds everything with ThreadSanitizer (the `tsan` preset: the parallel operators',
# the executor's and the server's tests; server/README.md says how the server's were run).
# Generated code is not instrumented; what it calls (hash tables, buffers, results, strings,
# errors, the merges and the worker pool) is.
option(HYRAX_TSAN "Build with ThreadSanitizer" OFF)
if(HYRAX_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
