"""actq_jax: libactq for JAX through XLA's FFI (CPU, and CUDA where JAX has it). Differentiable layers that save
compressed activations (gelu / fewbit_activation with few-bit codes, dense with an
actq-quantized input) and the raw operations they are made of. docs/jax.md explains the
build (`pip install bindings/jax` bundles the handler library libactq_jax_ffi.so here;
ACTQ_JAX_FFI names another)."""
from ._ffi import HandlerLibraryNotFound, ensure_registered
from .rules import ArgumentError, ArgumentTypeError
from .functional import dense, fewbit_activation, gelu
from .ops import (ACTIVATIONS, Quantized, as_noise, code_bytes, dequantize, fewbit_backward,
                  fewbit_codes, fewbit_encode, noise_counter, noise_from_key, quantize,
                  rows_cols)
