# HYRAX_SANITIZE=ON builds everything with AddressSanitizer and UndefinedBehaviorSanitizer.
option(HYRAX_SANITIZE "Build with ASan and UBSan" OFF)
if(HYRAX_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# HYRAX_TSAN=ON builds everything with ThreadSanitizer (the `tsan` preset: the parallel operators'
# tests). Generated code is not instrumented; what it calls (hash tables, buffers, results,
# strings, errors, the merges and the worker pool) is.
option(HYRAX_TSAN "Build with ThreadSanitizer" OFF)
if(HYRAX_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
