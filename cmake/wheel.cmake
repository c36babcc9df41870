# wheel.cmake - what a Python wheel (pyproject.toml, scikit-build-core: SKBUILD) carries,
# in the install component actq_wheel, the only one the wheel build installs:
#   actq/lib/libactq.so.0      the library, one file (a wheel cannot hold symlinks, so the
#                              libactq.so.0.X.Y + links of a system install would be copies)
#   actq/include/actq.h, fewbit.h   for C/C++ and JAX FFI extensions (actq.get_include())
#   actq/lib/libactq_torch.so  the PyTorch C++ operators, where PyTorch >= 2.10 was found
#                              (bindings/torch/CMakeLists.txt)
#   actq/lib/libactq_torch_autograd.<torch version>.so   the few-bit layers' C++ autograd,
#                              for the PyTorch (>= 2.15) it was built against only; other
#                              versions run the layers' Python autograd.Function
#   actq/lib/actq-build.txt    how it was built: `python -m actq` reports it
# The library links only the C runtime (CUDA's runtime is static), so it needs no RPATH;
# the Python binding loads it by its full path.

# One file named by the soname: without VERSION, SOVERSION names the file itself.
set_property(TARGET actq PROPERTY VERSION)
install(TARGETS actq
  LIBRARY DESTINATION actq/lib COMPONENT actq_wheel NAMELINK_SKIP
  PUBLIC_HEADER DESTINATION actq/include COMPONENT actq_wheel)

set(ACTQ_WHEEL_CUDA_ARCHITECTURES "")
if(ACTQ_WITH_CUDA)
  set(ACTQ_WHEEL_CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
endif()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/actq-build.txt
  "version ${PROJECT_VERSION}\n"
  "cuda ${ACTQ_WITH_CUDA}\n"
  "cuda_architectures ${ACTQ_WHEEL_CUDA_ARCHITECTURES}\n"
  "compiler ${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}\n"
  "build_type ${CMAKE_BUILD_TYPE}\n"
  "torch_ops ${ACTQ_TORCH_STATUS}\n"
  "torch_autograd ${ACTQ_TORCH_AUTOGRAD_STATUS}\n")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/actq-build.txt
  DESTINATION actq/lib COMPONENT actq_wheel)

# What the wheel builds (pyproject.toml's build.targets): the library, and the PyTorch
# operators where they are configured.
add_custom_target(actq_wheel ALL DEPENDS actq)
if(TARGET actq_torch)
  add_dependencies(actq_wheel actq_torch)
endif()
if(TARGET actq_torch_autograd)
  add_dependencies(actq_wheel actq_torch_autograd)
endif()
