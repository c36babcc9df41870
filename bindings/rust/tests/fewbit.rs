//! Few-bit tables, encode and backward, and bit allocation through the safe API.
mod common;

use actq::{allocate_bits, allowed_widths, Activation, AllocMethod, Backend, Context, ErrorKind,
           Options, Table, Weight};
use common::Rng;

/// GELU in f64, the reference for the library's f32 forward.
fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

/// Rust's std has no erf, and short approximations are too coarse for 4 f32 ulp: composite
/// Simpson on [0, |z|] with 4096 panels (error far below f32 resolution for |z| <= 3).
fn erf(z: f64) -> f64 {
    let n = 4096;
    let h = z.abs() / n as f64;
    let f = |t: f64| (-t * t).exp();
    let mut s = f(0.0) + f(z.abs());
    for i in 1..n {
        s += if i % 2 == 1 { 4.0 } else { 2.0 } * f(i as f64 * h);
    }
    let value = s * h / 3.0 * 2.0 / std::f64::consts::PI.sqrt();
    if z < 0.0 { -value } else { value }
}

#[test]
fn gelu_table_encode_backward() {
    let table = Table::build(Activation::Gelu, 0.0, 2, None).unwrap();
    assert_eq!((table.bits(), table.activation()), (2, Some(Activation::Gelu)));
    assert_eq!((table.bounds().len(), table.levels().len()), (3, 4));
    assert!(table.bounds().windows(2).all(|w| w[0] < w[1]));
    assert!(table.error() > 0.0 && table.error() < 0.05);

    let ctx = Context::new(Backend::Cpu).unwrap();
    let mut x = Rng(6).vec(1003, -4.0, 4.0);
    x[0] = f32::INFINITY;
    x[1] = f32::NEG_INFINITY;
    x[2] = table.bounds()[1]; // on a border: the lower code
    let mut y = vec![0f32; x.len()];
    let mut codes = vec![0u8; (x.len() * 2 + 7) / 8];
    ctx.fewbit_encode(&table, &x, Some(&mut y), &mut codes).unwrap();
    let mut unpacked = vec![0u8; x.len()];
    ctx.unpack(2, &codes, &mut unpacked).unwrap();
    for (i, xi) in x.iter().enumerate() {
        assert_eq!(unpacked[i], table.code_of(*xi), "x = {}", xi);
    }
    assert_eq!(unpacked[2], 1);
    assert_eq!((y[0], y[1]), (f32::INFINITY, 0.0));
    for i in 3..x.len() {
        let exact = gelu(x[i] as f64);
        let ulp = {
            let e = exact as f32;
            (f32::from_bits(e.abs().to_bits() + 1) - e.abs()) as f64
        };
        assert!((y[i] as f64 - exact).abs() <= 4.0 * ulp, "GELU({}) = {}, exact {}", x[i], y[i], exact);
    }

    let grad_out = Rng(7).vec(x.len(), -1.0, 1.0);
    let mut grad_in = vec![0f32; x.len()];
    ctx.fewbit_backward(&table, &codes, &grad_out, &mut grad_in).unwrap();
    for i in 0..x.len() {
        assert_eq!(grad_in[i], grad_out[i] * table.levels()[unpacked[i] as usize]);
    }

    x[7] = f32::NAN;
    let e = ctx.fewbit_encode(&table, &x, Some(&mut y), &mut codes).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NonFinite);
    ctx.unpack(2, &codes, &mut unpacked).unwrap();
    assert!(unpacked[7] == 0 && y[7].is_nan());
    assert_eq!(unpacked[8], table.code_of(x[8]), "values after the NaN are encoded");

    let e = ctx.fewbit_encode::<f32>(&table, &x, None, &mut codes[..10]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    let e = ctx.fewbit_backward(&table, &codes, &grad_out, &mut grad_in[1..]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

#[test]
fn tables_and_options() {
    let relu = Table::build(Activation::Relu, 0.0, 1, None).unwrap();
    assert_eq!((relu.error(), relu.levels()), (0.0, &[0.0f32, 1.0][..]));
    let leaky = Table::build(Activation::LeakyRelu, 0.1, 1, None).unwrap();
    assert_eq!(leaky.error(), 0.0);
    assert!((leaky.levels()[0] - 0.1).abs() < 1e-7);

    let centered = Table::build(Activation::Gelu, 0.0, 2, Some(&Options::default())).unwrap();
    assert!(centered.bounds()[1].abs() < 1e-3);
    assert!((centered.bounds()[0] + centered.bounds()[2]).abs() < 1e-3, "symmetric about 0");
    let shifted = Options { weight: Weight::Normal { mean: 2.0, std: 1.0 }, grid: 0 };
    let shifted = Table::build(Activation::Gelu, 0.0, 2, Some(&shifted)).unwrap();
    assert!(shifted.bounds()[1] > 0.5, "{:?}", shifted);
    let uniform = Options { weight: Weight::Uniform { lo: -4.0, hi: 4.0 }, grid: 0 };
    let silu = Table::build(Activation::Silu, 0.0, 3, Some(&uniform)).unwrap();
    assert!(silu.bounds()[0] > -4.0 && silu.bounds()[6] < 4.0);
    // every activation builds (Custom excepted), with its parameter where it has one
    for act in Activation::all().filter(|a| *a != Activation::Custom) {
        let t = Table::build(act, 1.0, 2, None).unwrap_or_else(|e| panic!("{:?}: {}", act, e));
        assert_eq!(t.activation(), Some(act));
    }

    let bad = Options { weight: Weight::Normal { mean: 0.0, std: -1.0 }, grid: 0 };
    let kind = |r: actq::Result<Table>| r.unwrap_err().kind();
    assert_eq!(kind(Table::build(Activation::Gelu, 0.0, 2, Some(&bad))), ErrorKind::InvalidArgument);
    assert_eq!(kind(Table::build(Activation::Custom, 0.0, 2, None)), ErrorKind::InvalidArgument);
    assert_eq!(kind(Table::build(Activation::Gelu, 0.0, 9, None)), ErrorKind::InvalidArgument);
    assert_eq!(kind(Table::build(Activation::Elu, -1.0, 2, None)), ErrorKind::InvalidArgument);
    let coarse = Options { grid: 8, ..Options::default() };
    assert_eq!(kind(Table::build(Activation::Gelu, 0.0, 2, Some(&coarse))), ErrorKind::InvalidArgument);
}

#[test]
fn custom_tables() {
    let x: Vec<f64> = (0..601).map(|i| -3.0 + 6.0 * i as f64 / 600.0).collect();
    let dydx: Vec<f64> = x.iter().map(|v| if *v > 0.0 { 1.0 } else { 0.1 }).collect();
    let w: Vec<f64> = x.iter().map(|v| (-v * v / 2.0).exp()).collect();
    let t = Table::build_custom(&x, &dydx, Some(&w), 1).unwrap();
    assert_eq!(t.activation(), Some(Activation::Custom));
    assert!(t.bounds()[0] > 0.0 && t.bounds()[0] < 0.01, "{:?}", t);
    assert!((t.levels()[0] - 0.1).abs() < 1e-6 && (t.levels()[1] - 1.0).abs() < 1e-6);
    assert!(t.error() < 1e-12);
    let t = Table::build_custom(&x, &dydx, None, 1).unwrap();

    let ctx = Context::new(Backend::CpuReference).unwrap();
    let xs = [-1.0f32, -0.001, 0.5, 2.0];
    let mut codes = [0u8; 1];
    ctx.fewbit_encode(&t, &xs, None, &mut codes).unwrap();
    assert_eq!(codes[0], 0b1100);
    let mut ys = [0f32; 4];
    let e = ctx.fewbit_encode(&t, &xs, Some(&mut ys), &mut codes).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);

    let e = Table::build_custom(&x, &dydx[1..], None, 1).unwrap_err();
    assert!(e.kind() == ErrorKind::InvalidArgument && e.detail().is_some());
    let mut x2 = x.clone();
    x2[10] = x2[9];
    let e = Table::build_custom(&x2, &dydx, None, 1).unwrap_err();
    assert!(e.kind() == ErrorKind::InvalidArgument && e.argument() == Some("x"), "{}", e);
    assert!(e.detail().unwrap().contains("x[10]"), "{}", e);
}

#[test]
fn bit_allocation() {
    let sens = [1.0, 10.0, 100.0, 1000.0];
    let numel = [100u64; 4];
    let all = allowed_widths(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let exact = allocate_bits(&sens, &numel, 3.0, all, AllocMethod::Exact).unwrap();
    let used: u64 = exact.bits.iter().zip(&numel).map(|(b, n)| *b as u64 * n).sum();
    assert!(used <= 3 * 400);
    assert!(exact.bits.windows(2).all(|w| w[0] <= w[1]), "{:?}", exact.bits);
    let objective: f64 = sens.iter().zip(&exact.bits).map(|(s, b)| s / ((1u32 << b) - 1).pow(2) as f64).sum();
    assert!((objective - exact.objective).abs() <= 1e-12 * objective);
    let greedy = allocate_bits(&sens, &numel, 3.0, all, AllocMethod::Greedy).unwrap();
    assert!((greedy.objective - exact.objective).abs() <= 1e-12 * exact.objective,
            "greedy is optimal for equal sizes and consecutive widths");

    let kind = |r: actq::Result<actq::Allocation>| r.unwrap_err().kind();
    assert_eq!(kind(allocate_bits(&sens, &numel, 0.5, all, AllocMethod::Greedy)), ErrorKind::InvalidArgument);
    assert_eq!(kind(allocate_bits(&sens, &numel, 3.0, 0, AllocMethod::Greedy)), ErrorKind::InvalidArgument);
    assert_eq!(kind(allocate_bits(&sens, &numel, 3.0, allowed_widths(&[0, 2]), AllocMethod::Greedy)),
               ErrorKind::InvalidArgument);
    assert_eq!(kind(allocate_bits(&[1.0, f64::NAN], &[1, 1], 3.0, all, AllocMethod::Exact)),
               ErrorKind::InvalidArgument);
    assert_eq!(kind(allocate_bits(&sens[..3], &numel, 3.0, all, AllocMethod::Exact)), ErrorKind::InvalidArgument);
    let none = allocate_bits(&[], &[], 3.0, all, AllocMethod::Exact).unwrap();
    assert_eq!((none.bits.len(), none.objective), (0, 0.0));
}
