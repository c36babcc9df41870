//! The raw C ABI of `include/actq.h` and `include/fewbit.h`, declaration for declaration.
//!
//! C enums are `int`-sized on every platform libactq supports; they are plain `c_int`
//! aliases here so that any value the C side returns is representable (a Rust enum holding
//! an unlisted value would be undefined behaviour). `size_t` is `usize`. The struct layouts
//! are checked against the C compiler by `tests/abi.rs`.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

pub type actq_status = c_int;
pub const ACTQ_OK: actq_status = 0;
pub const ACTQ_ERR_INVALID_ARGUMENT: actq_status = 1;
pub const ACTQ_ERR_UNSUPPORTED: actq_status = 2;
pub const ACTQ_ERR_OUT_OF_MEMORY: actq_status = 3;
pub const ACTQ_ERR_SIZE_OVERFLOW: actq_status = 4;
pub const ACTQ_ERR_NONFINITE: actq_status = 5;
pub const ACTQ_ERR_DEVICE: actq_status = 6;
pub const ACTQ_ERR_INTERNAL: actq_status = 7;

pub const ACTQ_VERSION_MAJOR: c_int = 0;
pub const ACTQ_VERSION_MINOR: c_int = 1;
pub const ACTQ_VERSION_PATCH: c_int = 0;
pub const ACTQ_VERSION_NUMBER: c_int =
    ACTQ_VERSION_MAJOR * 10000 + ACTQ_VERSION_MINOR * 100 + ACTQ_VERSION_PATCH;
pub const ACTQ_FORMAT_VERSION: c_int = 1;

pub type actq_backend = c_int;
pub const ACTQ_BACKEND_CPU_REFERENCE: actq_backend = 0;
pub const ACTQ_BACKEND_CPU: actq_backend = 1;
pub const ACTQ_BACKEND_CUDA: actq_backend = 2;

pub type actq_dtype = c_int;
pub const ACTQ_F32: actq_dtype = 0;
pub const ACTQ_F16: actq_dtype = 1;
pub const ACTQ_BF16: actq_dtype = 2;

pub type actq_rounding = c_int;
pub const ACTQ_ROUND_STOCHASTIC: actq_rounding = 0;
pub const ACTQ_ROUND_NEAREST: actq_rounding = 1;

pub type actq_alloc_method = c_int;
pub const ACTQ_ALLOC_GREEDY: actq_alloc_method = 0;
pub const ACTQ_ALLOC_EXACT: actq_alloc_method = 1;

pub type fewbit_activation = c_int;
pub const FEWBIT_GELU: fewbit_activation = 1;
pub const FEWBIT_GELU_TANH: fewbit_activation = 2;
pub const FEWBIT_SILU: fewbit_activation = 3;
pub const FEWBIT_SIGMOID: fewbit_activation = 4;
pub const FEWBIT_TANH: fewbit_activation = 5;
pub const FEWBIT_SOFTPLUS: fewbit_activation = 6;
pub const FEWBIT_ELU: fewbit_activation = 7;
pub const FEWBIT_SELU: fewbit_activation = 8;
pub const FEWBIT_CELU: fewbit_activation = 9;
pub const FEWBIT_MISH: fewbit_activation = 10;
pub const FEWBIT_HARDSWISH: fewbit_activation = 11;
pub const FEWBIT_HARDSIGMOID: fewbit_activation = 12;
pub const FEWBIT_HARDTANH: fewbit_activation = 13;
pub const FEWBIT_SOFTSIGN: fewbit_activation = 14;
pub const FEWBIT_LOGSIGMOID: fewbit_activation = 15;
pub const FEWBIT_TANHSHRINK: fewbit_activation = 16;
pub const FEWBIT_RELU: fewbit_activation = 17;
pub const FEWBIT_RELU6: fewbit_activation = 18;
pub const FEWBIT_LEAKY_RELU: fewbit_activation = 19;
pub const FEWBIT_CUSTOM: fewbit_activation = 20;

pub type fewbit_weight = c_int;
pub const FEWBIT_WEIGHT_NORMAL: fewbit_weight = 0;
pub const FEWBIT_WEIGHT_UNIFORM: fewbit_weight = 1;

/// Opaque; only ever behind a pointer.
#[repr(C)]
pub struct actq_context {
    _private: [u8; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct actq_layout {
    pub rows: usize,
    pub cols: usize,
    pub group_size: u32,
    pub bits: u32,
    pub row_bits: *const u8,
    pub meta_dtype: actq_dtype,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct fewbit_options {
    pub weight: fewbit_weight,
    pub mean: f64,
    pub std: f64,
    pub lo: f64,
    pub hi: f64,
    pub grid: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct fewbit_table {
    pub bits: u32,
    pub activation: u32,
    pub param: f32,
    pub bounds: [f32; 255],
    pub levels: [f32; 256],
    pub error: f64,
}

// Linked as build.rs says (pkg-config).
extern "C" {
    pub fn actq_version() -> c_int;
    pub fn actq_status_string(s: actq_status) -> *const c_char;

    pub fn actq_context_create(backend: actq_backend, ctx: *mut *mut actq_context) -> actq_status;
    pub fn actq_context_destroy(ctx: *mut actq_context);
    pub fn actq_context_describe(ctx: *const actq_context) -> *const c_char;
    pub fn actq_context_set_threads(ctx: *mut actq_context, threads: c_int) -> actq_status;
    pub fn actq_context_set_stream(ctx: *mut actq_context, cuda_stream: *mut c_void) -> actq_status;
    pub fn actq_context_synchronize(ctx: *mut actq_context) -> actq_status;

    pub fn actq_layout_sizes(
        layout: *const actq_layout,
        packed_bytes: *mut usize,
        groups: *mut usize,
    ) -> actq_status;
    pub fn actq_quantize(
        ctx: *mut actq_context,
        layout: *const actq_layout,
        x_dtype: actq_dtype,
        x: *const c_void,
        rounding: actq_rounding,
        seed: u64,
        offset: u64,
        packed: *mut c_void,
        group_min: *mut c_void,
        group_scale: *mut c_void,
    ) -> actq_status;
    pub fn actq_dequantize(
        ctx: *mut actq_context,
        layout: *const actq_layout,
        packed: *const c_void,
        group_min: *const c_void,
        group_scale: *const c_void,
        y_dtype: actq_dtype,
        y: *mut c_void,
    ) -> actq_status;
    pub fn actq_pack(
        ctx: *mut actq_context,
        bits: u32,
        n: usize,
        codes: *const u8,
        packed: *mut c_void,
    ) -> actq_status;
    pub fn actq_unpack(
        ctx: *mut actq_context,
        bits: u32,
        n: usize,
        packed: *const c_void,
        codes: *mut u8,
    ) -> actq_status;

    pub fn actq_allocate_bits(
        m: usize,
        sensitivity: *const f64,
        numel: *const u64,
        average_bits: f64,
        allowed_bits: u32,
        method: actq_alloc_method,
        bits: *mut u8,
        objective: *mut f64,
    ) -> actq_status;

    pub fn fewbit_table_build(
        act: fewbit_activation,
        param: f32,
        bits: u32,
        opt: *const fewbit_options,
        table: *mut fewbit_table,
    ) -> actq_status;
    pub fn fewbit_table_build_custom(
        n: usize,
        x: *const f64,
        dydx: *const f64,
        weight: *const f64,
        bits: u32,
        table: *mut fewbit_table,
    ) -> actq_status;
    pub fn fewbit_encode(
        ctx: *mut actq_context,
        table: *const fewbit_table,
        n: usize,
        dtype: actq_dtype,
        x: *const c_void,
        y: *mut c_void,
        codes: *mut c_void,
    ) -> actq_status;
    pub fn fewbit_backward(
        ctx: *mut actq_context,
        table: *const fewbit_table,
        n: usize,
        codes: *const c_void,
        dtype: actq_dtype,
        grad_out: *const c_void,
        grad_in: *mut c_void,
    ) -> actq_status;
}
