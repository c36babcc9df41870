//! Bad arguments, one per argument of every public entry point: each is refused by the
//! binding before C runs, as `ErrorKind::InvalidArgument` whose `argument()` names it and
//! whose message holds the name and the bad value, and no output buffer is touched.
//!
//! Arguments without a bad value are left out on purpose: `Context::new`'s backend, the
//! rounding, seed and offset of quantize, the element types, and `AllocMethod` are Rust
//! enums or full-range integers, so every value the type allows is valid.
mod common;

use actq::{
    allocate_bits, allowed_widths, try_allowed_widths, Activation, AllocMethod, Backend, Context, Dtype, Error,
    ErrorKind, Layout, Options, Rounding, Table, Weight, F16,
};
use common::Rng;

/// The error of a refused argument: its kind, its name, and a message with both the name
/// and the bad value, shown after the status string.
fn refused<T: std::fmt::Debug>(r: actq::Result<T>, name: &str, value: &str) -> Error {
    let e = r.expect_err(name);
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{}: {}", name, e);
    assert_eq!(e.argument(), Some(name), "{}", e);
    let detail = e.detail().unwrap_or_else(|| panic!("{}: no detail in {}", name, e));
    assert!(detail.starts_with(name), "{:?} does not start with {:?}", detail, name);
    assert!(detail.contains(value), "{:?} does not hold the value {:?}", detail, value);
    assert_eq!(e.to_string(), format!("actq: invalid argument: {}", detail));
    e
}

const SENTINEL: u8 = 0xa5;
const FSENTINEL: f32 = -7.25;

fn untouched_u8(buf: &[u8]) {
    assert!(buf.iter().all(|&b| b == SENTINEL), "an output was written: {:?}", buf);
}

fn untouched_f32(buf: &[f32]) {
    assert!(buf.iter().all(|&v| v.to_bits() == FSENTINEL.to_bits()), "an output was written: {:?}", buf);
}

#[test]
fn the_issue_examples_word_for_word() {
    let e = refused(Layout::new(2, 16, 8, 9).sizes(), "bits", "9");
    assert_eq!(e.to_string(), "actq: invalid argument: bits must be 1..8, got 9");
    let e = refused(Layout::new(2, 16, 7, 2).sizes(), "group_size", "7");
    assert_eq!(e.detail(), Some("group_size must be a multiple of 8 in 8..65536, got 7"));
    let widths = [2u8, 2, 2];
    let e = refused(Layout::new(4, 16, 8, 2).with_row_bits(&widths).sizes(), "row_bits", "3");
    assert_eq!(e.detail(), Some("row_bits has 3 entries for 4 rows"));
    let widths = [2u8, 2, 0, 2];
    let e = refused(Layout::new(4, 16, 8, 2).with_row_bits(&widths).sizes(), "row_bits", "0");
    assert_eq!(e.detail(), Some("row_bits[2] must be 1..8, got 0"));
    let ctx = Context::new(Backend::CpuReference).unwrap();
    let (mut packed, mut min, mut scale) = ([0u8; 1], [0f32; 1], [0f32; 1]);
    let e = refused(
        ctx.quantize(&Layout::new(2, 3, 8, 2), &[0f32; 5], Rounding::Nearest, 0, 0, &mut packed, &mut min, &mut scale),
        "x",
        "5",
    );
    assert_eq!(e.detail(), Some("x has 5 elements, the layout needs 6"));
}

#[test]
fn context() {
    let mut ctx = Context::new(Backend::Cpu).unwrap();
    refused(ctx.set_threads(u32::MAX), "threads", "4294967295");
    refused(ctx.set_threads(i32::MAX as u32 + 1), "threads", "2147483648");
    ctx.set_threads(1).unwrap();
    assert!(ctx.describe().contains("1 thread"), "the refused counts changed nothing: {}", ctx.describe());
}

#[test]
fn layout() {
    for l in [Layout::new(2, 16, 0, 2), Layout::new(2, 16, 12, 2), Layout::new(2, 16, 65544, 2)] {
        refused(l.to_raw(), "group_size", &l.group_size.to_string());
        refused(l.sizes(), "group_size", &l.group_size.to_string());
    }
    refused(Layout::new(2, 16, 8, 0).to_raw(), "bits", "0");
    refused(Layout::new(2, 16, 8, 9).sizes(), "bits", "9");
    let long = [1u8; 5];
    refused(Layout::new(4, 16, 8, 2).with_row_bits(&long).to_raw(), "row_bits", "5");
    let wide = [1u8, 9];
    let e = refused(Layout::new(2, 16, 8, 2).with_row_bits(&wide).sizes(), "row_bits", "9");
    assert!(e.detail().unwrap().contains("row_bits[1]"), "{}", e);
    // with per-row widths, `bits` is ignored, as in C
    let ok = [1u8, 8];
    Layout::new(2, 16, 8, 0).with_row_bits(&ok).sizes().unwrap();
}

#[test]
fn quantize() {
    let ctx = Context::new(Backend::Cpu).unwrap();
    let x = Rng(1).vec(32, -1.0, 1.0);
    let layout = Layout::new(2, 16, 8, 2); // 8 packed bytes, 4 groups
    let (mut packed, mut min, mut scale) = ([SENTINEL; 8], [FSENTINEL; 4], [FSENTINEL; 4]);
    let mut check = |layout: &Layout, x: &[f32], p: usize, m: usize, s: usize, name: &str, value: &str| {
        let r = ctx.quantize(layout, x, Rounding::Stochastic, 1, 2, &mut packed[..p], &mut min[..m], &mut scale[..s]);
        refused(r, name, value);
        untouched_u8(&packed);
        untouched_f32(&min);
        untouched_f32(&scale);
    };
    check(&Layout::new(2, 16, 7, 2), &x, 8, 4, 4, "group_size", "7");
    check(&Layout::new(2, 16, 8, 9), &x, 8, 4, 4, "bits", "9");
    let widths = [2u8, 0];
    check(&layout.with_row_bits(&widths), &x, 8, 4, 4, "row_bits", "0");
    check(&layout, &x[..31], 8, 4, 4, "x", "31");
    check(&layout, &x, 7, 4, 4, "packed", "7");
    check(&layout, &x, 8, 3, 4, "group_min", "3");
    check(&layout, &x, 8, 4, 2, "group_scale", "2");
    // metadata slices of another element type than the layout's meta_dtype
    let (mut hmin, mut hscale) = ([F16(0xa5a5); 4], [F16(0xa5a5); 4]);
    let r = ctx.quantize(&layout.with_meta_dtype(Dtype::Bf16), &x, Rounding::Nearest, 0, 0, &mut packed,
                         &mut hmin, &mut hscale);
    refused(r, "meta_dtype", "F16");
    untouched_u8(&packed);
    assert!(hmin.iter().chain(&hscale).all(|v| *v == F16(0xa5a5)));
    // a good call after all of that still works
    ctx.quantize(&layout, &x, Rounding::Nearest, 0, 0, &mut packed, &mut min, &mut scale).unwrap();
}

#[test]
fn dequantize() {
    let ctx = Context::new(Backend::CpuReference).unwrap();
    let layout = Layout::new(2, 16, 8, 2);
    let (packed, min, scale) = ([0u8; 8], [0f32; 4], [1f32; 4]);
    let mut y = [FSENTINEL; 32];
    refused(ctx.dequantize(&Layout::new(2, 16, 8, 9), &packed, &min, &scale, &mut y), "bits", "9");
    refused(ctx.dequantize(&Layout::new(2, 16, 9, 2), &packed, &min, &scale, &mut y), "group_size", "9");
    refused(ctx.dequantize(&layout, &packed[..7], &min, &scale, &mut y), "packed", "7");
    refused(ctx.dequantize(&layout, &packed, &min[..1], &scale, &mut y), "group_min", "1");
    refused(ctx.dequantize(&layout, &packed, &min, &scale[..0], &mut y), "group_scale", "0");
    refused(ctx.dequantize(&layout, &packed, &min, &scale, &mut y[..30]), "y", "30");
    let mut long = [FSENTINEL; 33];
    refused(ctx.dequantize(&layout, &packed, &min, &scale, &mut long), "y", "33");
    untouched_f32(&y);
    untouched_f32(&long);
}

#[test]
fn pack_and_unpack() {
    let ctx = Context::new(Backend::Cpu).unwrap();
    let mut packed = [SENTINEL; 2];
    refused(ctx.pack(0, &[0, 0], &mut packed), "bits", "0");
    refused(ctx.pack(9, &[0, 0], &mut packed), "bits", "9");
    refused(ctx.pack(2, &[1; 5], &mut packed[..1]), "packed", "1");
    // C would refuse this code only after writing part of `packed`
    let e = refused(ctx.pack(2, &[1, 2, 3, 0, 4], &mut packed), "codes", "4");
    assert!(e.detail().unwrap().contains("codes[4]"), "{}", e);
    untouched_u8(&packed);

    let mut codes = [SENTINEL; 5];
    refused(ctx.unpack(0, &[0u8; 2], &mut codes), "bits", "0");
    refused(ctx.unpack(2, &[0u8; 1], &mut codes), "packed", "1");
    untouched_u8(&codes);
}

#[test]
fn table_build() {
    refused(Table::build(Activation::Custom, 0.0, 2, None), "act", "Custom");
    refused(Table::build(Activation::Gelu, 0.0, 0, None), "bits", "0");
    refused(Table::build(Activation::Gelu, 0.0, 9, None), "bits", "9");
    refused(Table::build(Activation::Elu, -1.0, 2, None), "param", "-1");
    refused(Table::build(Activation::Celu, 0.0, 2, None), "param", "0");
    refused(Table::build(Activation::Softplus, f32::NAN, 2, None), "param", "NaN");
    refused(Table::build(Activation::LeakyRelu, f32::INFINITY, 2, None), "param", "inf");
    // a parameter is ignored by the activations without one
    Table::build(Activation::Gelu, f32::NAN, 2, None).unwrap();

    let normal = |mean, std| Options { weight: Weight::Normal { mean, std }, grid: 0 };
    let uniform = |lo, hi| Options { weight: Weight::Uniform { lo, hi }, grid: 0 };
    let build = |o: Options, bits| Table::build(Activation::Gelu, 0.0, bits, Some(&o));
    refused(build(normal(f64::NAN, 1.0), 2), "mean", "NaN");
    refused(build(normal(0.0, 0.0), 2), "std", "0");
    refused(build(normal(0.0, -1.0), 2), "std", "-1");
    refused(build(normal(0.0, f64::INFINITY), 2), "std", "inf");
    refused(build(normal(f64::MAX, f64::MAX / 4.0), 2), "std", &(f64::MAX / 4.0).to_string());
    refused(build(uniform(f64::NEG_INFINITY, 1.0), 2), "lo", "-inf");
    refused(build(uniform(0.0, f64::NAN), 2), "hi", "NaN");
    refused(build(uniform(1.0, 1.0), 2), "hi", "1");
    refused(build(uniform(-f64::MAX, f64::MAX), 2), "hi", &f64::MAX.to_string());
    refused(build(Options { grid: 8, ..Options::default() }, 2), "grid", "8");
    refused(build(Options { grid: (1 << 20) + 1, ..Options::default() }, 2), "grid", "1048577");
    refused(build(Options { grid: 16, ..Options::default() }, 5), "grid", "16");
    build(Options { grid: 32, ..Options::default() }, 5).unwrap();
}

#[test]
fn table_build_custom() {
    let x: Vec<f64> = (0..8).map(|i| i as f64).collect();
    let dydx = vec![1.0; 8];
    refused(Table::build_custom(&x, &dydx, None, 0), "bits", "0");
    refused(Table::build_custom(&x[..1], &dydx[..1], None, 1), "x", "1");
    let mut bad = x.clone();
    bad[3] = f64::NAN;
    let e = refused(Table::build_custom(&bad, &dydx, None, 1), "x", "NaN");
    assert!(e.detail().unwrap().contains("x[3]"), "{}", e);
    bad[3] = 1.5; // below x[2] = 2
    let e = refused(Table::build_custom(&bad, &dydx, None, 1), "x", "1.5");
    assert!(e.detail().unwrap().contains("x[3]"), "{}", e);
    refused(Table::build_custom(&x, &dydx[..7], None, 1), "dydx", "7");
    let mut bad = dydx.clone();
    bad[5] = f64::INFINITY;
    let e = refused(Table::build_custom(&x, &bad, None, 1), "dydx", "inf");
    assert!(e.detail().unwrap().contains("dydx[5]"), "{}", e);
    refused(Table::build_custom(&x, &dydx, Some(&[1.0; 9]), 1), "weight", "9");
    let mut w = vec![1.0; 8];
    w[6] = -0.5;
    let e = refused(Table::build_custom(&x, &dydx, Some(&w), 1), "weight", "-0.5");
    assert!(e.detail().unwrap().contains("weight[6]"), "{}", e);
}

#[test]
fn fewbit_encode_and_backward() {
    let ctx = Context::new(Backend::Cpu).unwrap();
    let table = Table::build(Activation::Gelu, 0.0, 2, None).unwrap();
    let x = Rng(2).vec(10, -3.0, 3.0); // 10 codes of 2 bits: 3 bytes
    let (mut codes, mut y) = ([SENTINEL; 3], [FSENTINEL; 10]);
    refused(ctx.fewbit_encode(&table, &x, Some(&mut y), &mut codes[..2]), "codes", "2");
    refused(ctx.fewbit_encode(&table, &x, Some(&mut y[..9]), &mut codes), "y", "9");
    untouched_u8(&codes);
    untouched_f32(&y);
    // y with a Custom table: unsupported (not an argument error), still named and refused first
    let custom = Table::build_custom(&[-1.0, 0.0, 1.0], &[0.0, 0.5, 1.0], None, 1).unwrap();
    let e = ctx.fewbit_encode(&custom, &x, Some(&mut y), &mut codes).unwrap_err();
    assert_eq!((e.kind(), e.argument()), (ErrorKind::Unsupported, Some("y")));
    untouched_u8(&codes);
    untouched_f32(&y);

    let codes = [0u8; 3];
    let grad_out = [1f32; 10];
    let mut grad_in = [FSENTINEL; 11];
    refused(ctx.fewbit_backward(&table, &codes, &grad_out, &mut grad_in), "grad_in", "11");
    refused(ctx.fewbit_backward(&table, &codes[..2], &grad_out, &mut grad_in[..10]), "codes", "2");
    untouched_f32(&grad_in);
}

#[test]
fn bit_allocation() {
    let all = allowed_widths(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let (sens, numel) = ([1.0, 10.0, 100.0], [10u64; 3]);
    let alloc = |s: &[f64], n: &[u64], avg: f64, mask: u32| allocate_bits(s, n, avg, mask, AllocMethod::Exact);
    refused(alloc(&sens, &numel[..2], 3.0, all), "numel", "2");
    refused(alloc(&sens, &numel, 3.0, 0), "allowed_bits", "0x0");
    refused(alloc(&sens, &numel, 3.0, allowed_widths(&[0, 2])), "allowed_bits", "0x5");
    refused(alloc(&sens, &numel, 3.0, allowed_widths(&[2, 9])), "allowed_bits", "0x204");
    refused(alloc(&sens, &numel, f64::NAN, all), "average_bits", "NaN");
    refused(alloc(&sens, &numel, -1.0, all), "average_bits", "-1");
    for bad in [f64::NAN, -2.0, f64::INFINITY] {
        let e = refused(alloc(&[1.0, bad, 3.0], &numel, 3.0, all), "sensitivity", &bad.to_string());
        assert!(e.detail().unwrap().contains("sensitivity[1]"), "{}", e);
    }
    // infeasible: below the smallest allowed width (2 of {2, 4})
    let e = refused(alloc(&sens, &numel, 1.5, allowed_widths(&[2, 4])), "average_bits", "1.5");
    assert!(e.detail().unwrap().contains("(2)"), "{}", e);
    alloc(&sens, &numel, 2.0, allowed_widths(&[2, 4])).unwrap();
    alloc(&sens, &[0; 3], 1.5, allowed_widths(&[2, 4])).unwrap(); // nothing to store fits any budget

    refused(try_allowed_widths(&[]), "widths", "none");
    let e = refused(try_allowed_widths(&[1, 0]), "widths", "0");
    assert!(e.detail().unwrap().contains("widths[1]"), "{}", e);
    refused(try_allowed_widths(&[9]), "widths", "9");
    assert_eq!(try_allowed_widths(&[2, 4]).unwrap(), allowed_widths(&[2, 4]));
}

#[test]
fn errors_from_c_name_no_argument() {
    let ctx = Context::new(Backend::Cpu).unwrap();
    let mut x = Rng(3).vec(16, -1.0, 1.0);
    x[3] = f32::NAN;
    let (mut packed, mut min, mut scale) = ([0u8; 4], [0f32; 2], [0f32; 2]);
    let e = ctx.quantize(&Layout::new(2, 8, 8, 2), &x, Rounding::Nearest, 0, 0, &mut packed, &mut min, &mut scale)
        .unwrap_err();
    assert_eq!((e.kind(), e.argument(), e.detail()), (ErrorKind::NonFinite, None, None));
}
