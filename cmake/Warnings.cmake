# Warnings for the project's own targets (call hyrax_warnings(target)).
function(hyrax_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
endfunction()
