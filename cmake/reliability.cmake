# reliability.cmake - sanitizer and fuzzing builds (docs/reliability.md).
#
# ACTQ_SANITIZE: a -fsanitize= list ("address,undefined", "thread") applied to every target,
#   the library included, with halt on the first error. Tests run as usual under ctest.
# ACTQ_FUZZ: the libFuzzer harnesses of fuzz/ (clang only). Everything is instrumented for
#   coverage and built with ASan + UBSan; build the `fuzz` target (the shared library
#   cannot link against clang's static sanitizer runtimes, and is not needed).
set(ACTQ_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address,undefined or thread")
option(ACTQ_FUZZ "Build the libFuzzer harnesses in fuzz/ (clang; ASan + UBSan)" OFF)

if(ACTQ_SANITIZE)
  # C only: nvcc takes no -fsanitize (the scripts configure these builds without CUDA)
  add_compile_options("$<$<COMPILE_LANGUAGE:C>:-fsanitize=${ACTQ_SANITIZE};-fno-sanitize-recover=all;-fno-omit-frame-pointer;-g>")
  add_link_options(-fsanitize=${ACTQ_SANITIZE})
endif()

if(ACTQ_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ACTQ_FUZZ needs clang (libFuzzer): configure with CC=clang-14")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -g)
endif()

if(ACTQ_FUZZ)
  # The few-bit solver's exact DP compares doubles in its innermost loop; tracing those
  # compares made a table build 10-20 ms and the fewbit harness ~100 executions/s. Its
  # branches are still covered (edges), only the compare operands are not traced.
  set_source_files_properties(src/fewbit/partition.c src/fewbit/cells.c PROPERTIES
    COMPILE_OPTIONS "-fno-sanitize-coverage=trace-cmp")
endif()
