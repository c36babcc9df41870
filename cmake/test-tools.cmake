# test-tools.cmake - what the optional parts of the build need, looked up once, and what
# configure will build: ACTQ_BUILD_TESTS and ACTQ_BUILD_BENCH are AUTO (built when their
# tool is found), ON (a missing tool is an error) or OFF. The library itself needs only a
# C compiler.

# Criterion, for tests/ and tests/cuda.
set(ACTQ_WITH_TESTS OFF)
if(NOT ACTQ_BUILD_TESTS STREQUAL "OFF")
  find_library(ACTQ_CRITERION_LIBRARY criterion)
  find_path(ACTQ_CRITERION_INCLUDE_DIR criterion/criterion.h)
  if(ACTQ_CRITERION_LIBRARY AND ACTQ_CRITERION_INCLUDE_DIR)
    set(ACTQ_WITH_TESTS ON)
    message(STATUS "actq: tests: built (Criterion: ${ACTQ_CRITERION_LIBRARY})")
  elseif(ACTQ_BUILD_TESTS STREQUAL "AUTO")
    message(STATUS "actq: tests: not built (Criterion not found; install libcriterion-dev, "
                   "or -DACTQ_BUILD_TESTS=OFF to silence this)")
  else()
    message(FATAL_ERROR "actq: ACTQ_BUILD_TESTS=ON, but Criterion (library and "
                        "criterion/criterion.h) was not found: install libcriterion-dev")
  endif()
else()
  message(STATUS "actq: tests: not built (ACTQ_BUILD_TESTS=OFF)")
endif()

# Google Benchmark, for the CUDA benchmarks (the CPU benchmarks in bench/ are a project of
# their own, built against the installed library).
set(ACTQ_WITH_BENCH OFF)
if(NOT ACTQ_BUILD_BENCH STREQUAL "OFF" AND ACTQ_WITH_CUDA)
  find_package(benchmark QUIET)
  if(benchmark_FOUND)
    set(ACTQ_WITH_BENCH ON)
    message(STATUS "actq: CUDA benchmarks: built")
  elseif(ACTQ_BUILD_BENCH STREQUAL "AUTO")
    message(STATUS "actq: CUDA benchmarks: not built (Google Benchmark not found)")
  else()
    message(FATAL_ERROR "actq: ACTQ_BUILD_BENCH=ON, but Google Benchmark was not found: "
                        "install libbenchmark-dev")
  endif()
elseif(NOT ACTQ_WITH_CUDA)
  message(STATUS "actq: CUDA benchmarks: not built (no CUDA backend)")
endif()
