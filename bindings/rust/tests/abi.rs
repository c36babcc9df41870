//! The `sys` structs and constants against what the C compiler reports: compiles
//! bindings/abi_values.c (the same program the Fortran test links) against the headers that
//! pkg-config named at build time, runs it, and compares every size, field offset, enum
//! value and version macro.
use std::collections::HashMap;
use std::mem::{size_of, MaybeUninit};
use std::path::PathBuf;
use std::process::Command;
use std::ptr::addr_of;
use std::sync::atomic::{AtomicUsize, Ordering};

use actq::sys;

static BUILDS: AtomicUsize = AtomicUsize::new(0);

fn c_values() -> HashMap<String, i64> {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../abi_values.c");
    // one program per call: the tests run in parallel
    let build = BUILDS.fetch_add(1, Ordering::SeqCst);
    let exe = std::env::temp_dir().join(format!("actq-abi-values-{}-{}", std::process::id(), build));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut compile = Command::new(&cc);
    compile.arg("-std=c99").arg("-DACTQ_ABI_MAIN").arg("-o").arg(&exe).arg(&source);
    for dir in env!("ACTQ_INCLUDE_DIRS").split(':').filter(|d| !d.is_empty()) {
        compile.arg(format!("-I{}", dir));
    }
    let status = compile.status().unwrap_or_else(|e| panic!("cannot run {}: {}", cc, e));
    assert!(status.success(), "compiling {} failed", source.display());
    let output = Command::new(&exe).output().expect("running the ABI program");
    let _ = std::fs::remove_file(&exe);
    assert!(output.status.success());
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let mut parts = line.split(' ');
            let name = parts.next().unwrap().to_string();
            (name, parts.next().unwrap().parse().unwrap())
        })
        .collect()
}

// Offsets without offset_of! (Rust 1.77), which Debian 12's rustc 1.63 lacks.
macro_rules! offset {
    ($t:ty, $field:ident) => {{
        let v = MaybeUninit::<$t>::uninit();
        let base = v.as_ptr();
        // SAFETY: addr_of! computes the address without reading the uninitialized value.
        let field = unsafe { addr_of!((*base).$field) };
        field as usize - base as usize
    }};
}

#[test]
fn structs_match_the_c_compiler() {
    let c = c_values();
    let fields: Vec<(&str, usize)> = vec![
        ("actq_layout.size", size_of::<sys::actq_layout>()),
        ("actq_layout.rows", offset!(sys::actq_layout, rows)),
        ("actq_layout.cols", offset!(sys::actq_layout, cols)),
        ("actq_layout.group_size", offset!(sys::actq_layout, group_size)),
        ("actq_layout.bits", offset!(sys::actq_layout, bits)),
        ("actq_layout.row_bits", offset!(sys::actq_layout, row_bits)),
        ("actq_layout.meta_dtype", offset!(sys::actq_layout, meta_dtype)),
        ("actq_layout.align", std::mem::align_of::<sys::actq_layout>()),
        ("fewbit_options.size", size_of::<sys::fewbit_options>()),
        ("fewbit_options.weight", offset!(sys::fewbit_options, weight)),
        ("fewbit_options.mean", offset!(sys::fewbit_options, mean)),
        ("fewbit_options.std", offset!(sys::fewbit_options, std)),
        ("fewbit_options.lo", offset!(sys::fewbit_options, lo)),
        ("fewbit_options.hi", offset!(sys::fewbit_options, hi)),
        ("fewbit_options.grid", offset!(sys::fewbit_options, grid)),
        ("fewbit_options.align", std::mem::align_of::<sys::fewbit_options>()),
        ("fewbit_table.size", size_of::<sys::fewbit_table>()),
        ("fewbit_table.bits", offset!(sys::fewbit_table, bits)),
        ("fewbit_table.activation", offset!(sys::fewbit_table, activation)),
        ("fewbit_table.param", offset!(sys::fewbit_table, param)),
        ("fewbit_table.bounds", offset!(sys::fewbit_table, bounds)),
        ("fewbit_table.levels", offset!(sys::fewbit_table, levels)),
        ("fewbit_table.error", offset!(sys::fewbit_table, error)),
        ("fewbit_table.align", std::mem::align_of::<sys::fewbit_table>()),
    ];
    let mut rust: Vec<(String, usize)> = fields.into_iter().map(|(n, v)| (n.to_string(), v)).collect();
    for e in ["actq_status", "actq_backend", "actq_dtype", "actq_rounding", "actq_alloc_method",
              "fewbit_activation", "fewbit_weight"] {
        // every C enum is passed as a c_int alias
        rust.push((format!("{}.size", e), size_of::<std::os::raw::c_int>()));
    }
    for (name, value) in rust {
        assert_eq!(c.get(&name).copied(), Some(value as i64), "{}", name);
    }
}

#[test]
fn constants_match_the_headers() {
    let c = c_values();
    let rust: &[(&str, i32)] = &[
        ("ACTQ_VERSION_MAJOR", sys::ACTQ_VERSION_MAJOR),
        ("ACTQ_VERSION_MINOR", sys::ACTQ_VERSION_MINOR),
        ("ACTQ_VERSION_PATCH", sys::ACTQ_VERSION_PATCH),
        ("ACTQ_VERSION_NUMBER", sys::ACTQ_VERSION_NUMBER),
        ("ACTQ_FORMAT_VERSION", sys::ACTQ_FORMAT_VERSION),
        ("ACTQ_OK", sys::ACTQ_OK),
        ("ACTQ_ERR_INVALID_ARGUMENT", sys::ACTQ_ERR_INVALID_ARGUMENT),
        ("ACTQ_ERR_UNSUPPORTED", sys::ACTQ_ERR_UNSUPPORTED),
        ("ACTQ_ERR_OUT_OF_MEMORY", sys::ACTQ_ERR_OUT_OF_MEMORY),
        ("ACTQ_ERR_SIZE_OVERFLOW", sys::ACTQ_ERR_SIZE_OVERFLOW),
        ("ACTQ_ERR_NONFINITE", sys::ACTQ_ERR_NONFINITE),
        ("ACTQ_ERR_DEVICE", sys::ACTQ_ERR_DEVICE),
        ("ACTQ_ERR_INTERNAL", sys::ACTQ_ERR_INTERNAL),
        ("ACTQ_BACKEND_CPU_REFERENCE", sys::ACTQ_BACKEND_CPU_REFERENCE),
        ("ACTQ_BACKEND_CPU", sys::ACTQ_BACKEND_CPU),
        ("ACTQ_BACKEND_CUDA", sys::ACTQ_BACKEND_CUDA),
        ("ACTQ_F32", sys::ACTQ_F32),
        ("ACTQ_F16", sys::ACTQ_F16),
        ("ACTQ_BF16", sys::ACTQ_BF16),
        ("ACTQ_ROUND_STOCHASTIC", sys::ACTQ_ROUND_STOCHASTIC),
        ("ACTQ_ROUND_NEAREST", sys::ACTQ_ROUND_NEAREST),
        ("ACTQ_ALLOC_GREEDY", sys::ACTQ_ALLOC_GREEDY),
        ("ACTQ_ALLOC_EXACT", sys::ACTQ_ALLOC_EXACT),
        ("FEWBIT_GELU", sys::FEWBIT_GELU),
        ("FEWBIT_GELU_TANH", sys::FEWBIT_GELU_TANH),
        ("FEWBIT_SILU", sys::FEWBIT_SILU),
        ("FEWBIT_SIGMOID", sys::FEWBIT_SIGMOID),
        ("FEWBIT_TANH", sys::FEWBIT_TANH),
        ("FEWBIT_SOFTPLUS", sys::FEWBIT_SOFTPLUS),
        ("FEWBIT_ELU", sys::FEWBIT_ELU),
        ("FEWBIT_SELU", sys::FEWBIT_SELU),
        ("FEWBIT_CELU", sys::FEWBIT_CELU),
        ("FEWBIT_MISH", sys::FEWBIT_MISH),
        ("FEWBIT_HARDSWISH", sys::FEWBIT_HARDSWISH),
        ("FEWBIT_HARDSIGMOID", sys::FEWBIT_HARDSIGMOID),
        ("FEWBIT_HARDTANH", sys::FEWBIT_HARDTANH),
        ("FEWBIT_SOFTSIGN", sys::FEWBIT_SOFTSIGN),
        ("FEWBIT_LOGSIGMOID", sys::FEWBIT_LOGSIGMOID),
        ("FEWBIT_TANHSHRINK", sys::FEWBIT_TANHSHRINK),
        ("FEWBIT_RELU", sys::FEWBIT_RELU),
        ("FEWBIT_RELU6", sys::FEWBIT_RELU6),
        ("FEWBIT_LEAKY_RELU", sys::FEWBIT_LEAKY_RELU),
        ("FEWBIT_CUSTOM", sys::FEWBIT_CUSTOM),
        ("FEWBIT_WEIGHT_NORMAL", sys::FEWBIT_WEIGHT_NORMAL),
        ("FEWBIT_WEIGHT_UNIFORM", sys::FEWBIT_WEIGHT_UNIFORM),
    ];
    for (name, value) in rust {
        assert_eq!(c.get(*name).copied(), Some(*value as i64), "{}", name);
    }
    // every name the C side knows is checked by one of the two tests
    assert_eq!(c.len(), rust.len() + 31, "abi_values.c has names this test does not check");
}
