//! Contexts, group quantization and packing through the safe API: golden bytes of the
//! format, round-trip error bounds at every width and rounding, per-row widths, 16-bit
//! metadata, NaN handling, and refused calls that must not touch their buffers.
mod common;

use actq::{Backend, Bf16, Context, Dtype, ErrorKind, Layout, Rounding, F16};
use common::{golden, Rng};

const HOST_BACKENDS: [Backend; 2] = [Backend::CpuReference, Backend::Cpu];

#[test]
fn contexts() {
    let mut ctx = Context::new(Backend::Cpu).unwrap();
    assert!(ctx.describe().starts_with("cpu"), "{}", ctx.describe());
    ctx.set_threads(2).unwrap();
    ctx.set_threads(0).unwrap();
    assert_eq!(ctx.set_threads(u32::MAX).unwrap_err().kind(), ErrorKind::InvalidArgument);
    // SAFETY: null is the legacy default stream; a CPU context refuses any stream.
    let e = unsafe { ctx.set_stream(std::ptr::null_mut()) }.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    ctx.synchronize().unwrap();
    // C's own check of a negative thread count
    assert_eq!(unsafe { actq::sys::actq_context_set_threads(ctx.as_ptr(), -1) },
               actq::sys::ACTQ_ERR_INVALID_ARGUMENT);
    let mut raw = 1 as *mut actq::sys::actq_context;
    assert_eq!(unsafe { actq::sys::actq_context_create(99, &mut raw) },
               actq::sys::ACTQ_ERR_INVALID_ARGUMENT);
    assert!(raw.is_null(), "a failed create sets the context to NULL");
    match Context::new(Backend::Cuda) {
        Ok(cuda) => {
            // the safe slice calls refuse device contexts
            let e = cuda.pack(2, &[1, 2], &mut [0u8; 1]).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Unsupported);
        }
        Err(e) => assert_eq!(e.kind(), ErrorKind::Unsupported),
    }
}

#[test]
fn golden_bytes() {
    let x: Vec<f32> = golden::X.iter().map(|b| f32::from_bits(*b)).collect();
    let layout = Layout::new(golden::ROWS, golden::COLS, golden::GROUP, golden::BITS);
    let sizes = layout.sizes().unwrap();
    assert_eq!((sizes.packed_bytes, sizes.groups), (12, 6));
    for backend in HOST_BACKENDS {
        let ctx = Context::new(backend).unwrap();
        let (mut packed, mut min, mut scale) = ([0u8; 12], [0f32; 6], [0f32; 6]);
        ctx.quantize(&layout, &x, Rounding::Stochastic, golden::SEED, golden::OFFSET, &mut packed,
                     &mut min, &mut scale).unwrap();
        assert_eq!(packed, golden::PACKED, "{:?}", backend);
        assert_eq!(min.map(f32::to_bits), golden::MIN, "{:?}", backend);
        assert_eq!(scale.map(f32::to_bits), golden::SCALE, "{:?}", backend);
        let mut y = [0f32; 42];
        ctx.dequantize(&layout, &golden::PACKED, &golden::MIN.map(f32::from_bits),
                       &golden::SCALE.map(f32::from_bits), &mut y).unwrap();
        assert_eq!(y.map(f32::to_bits), golden::Y, "{:?}", backend);
    }
}

#[test]
fn round_trip_error_bounds() {
    let (rows, cols, group) = (5usize, 1000usize, 64u32);
    let x = Rng(1).vec(rows * cols, -3.0, 5.0);
    for backend in HOST_BACKENDS {
        let ctx = Context::new(backend).unwrap();
        for bits in 1..=8u32 {
            for rounding in [Rounding::Stochastic, Rounding::Nearest] {
                let layout = Layout::new(rows, cols, group, bits);
                let sizes = layout.sizes().unwrap();
                assert_eq!(sizes.packed_bytes, rows * ((cols * bits as usize + 7) / 8));
                let mut packed = vec![0u8; sizes.packed_bytes];
                let (mut min, mut scale) = (vec![0f32; sizes.groups], vec![0f32; sizes.groups]);
                ctx.quantize(&layout, &x, rounding, 7, 0, &mut packed, &mut min, &mut scale).unwrap();
                let mut y = vec![0f32; x.len()];
                ctx.dequantize(&layout, &packed, &min, &scale, &mut y).unwrap();
                let levels = ((1u32 << bits) - 1) as f64;
                let groups_per_row = (cols + group as usize - 1) / group as usize;
                for (i, (xi, yi)) in x.iter().zip(&y).enumerate() {
                    let g = (i / cols) * groups_per_row + (i % cols) / group as usize;
                    let (m, s) = (min[g] as f64, scale[g] as f64);
                    let (xi, err) = (*xi as f64, (*yi as f64 - *xi as f64).abs());
                    assert!(m <= xi && xi <= m + levels * s, "{} bits: group {} does not bracket x", bits, g);
                    let bound = if rounding == Rounding::Nearest { 0.5 * s } else { s };
                    assert!(err <= bound + 1e-6, "{:?} {} bits {:?}: error {} > {}", backend, bits, rounding, err, bound);
                }
            }
        }
    }
}

#[test]
fn stochastic_rounding_is_unbiased_and_seeded() {
    // a group of 0, 1 and 4094 values a third of the way between the two 1-bit levels:
    // their mean comes back
    let x = [0.0f32, 1.0].iter().cloned().chain(vec![1.0f32 / 3.0; 4094]).collect::<Vec<f32>>();
    let ctx = Context::new(Backend::Cpu).unwrap();
    let layout = Layout::new(1, x.len(), 4096, 1);
    let sizes = layout.sizes().unwrap();
    let (mut packed, mut min, mut scale) = (vec![0u8; sizes.packed_bytes], [0f32; 1], [0f32; 1]);
    ctx.quantize(&layout, &x, Rounding::Stochastic, 11, 0, &mut packed, &mut min, &mut scale).unwrap();
    let mut y = vec![0f32; x.len()];
    ctx.dequantize(&layout, &packed, &min, &scale, &mut y).unwrap();
    assert_eq!((min[0], scale[0]), (0.0, 1.0));
    let mean = y[2..].iter().map(|v| *v as f64).sum::<f64>() / 4094.0;
    // standard deviation of the mean: sqrt(p (1 - p) / n) = 0.0074
    assert!((mean - 1.0 / 3.0).abs() < 0.03, "mean {}", mean);
    let mut other = vec![0u8; packed.len()];
    ctx.quantize(&layout, &x, Rounding::Stochastic, 12, 0, &mut other, &mut min, &mut scale).unwrap();
    assert_ne!(packed, other, "another seed, other noise");
    ctx.quantize(&layout, &x, Rounding::Stochastic, 11, 0, &mut other, &mut min, &mut scale).unwrap();
    assert_eq!(packed, other, "the same seed, the same bytes");
}

#[test]
fn row_bits_and_half_metadata() {
    let (rows, cols) = (5usize, 100usize);
    let widths = [1u8, 2, 4, 8, 3];
    let x = Rng(2).vec(rows * cols, -3.0, 5.0);
    let ctx = Context::new(Backend::Cpu).unwrap();
    let layout = Layout::new(rows, cols, 64, 0).with_row_bits(&widths);
    let sizes = layout.sizes().unwrap();
    assert_eq!(sizes.packed_bytes, widths.iter().map(|b| (cols * *b as usize + 7) / 8).sum::<usize>());
    let mut packed = vec![0u8; sizes.packed_bytes];
    let (mut min, mut scale) = (vec![0f32; sizes.groups], vec![0f32; sizes.groups]);
    ctx.quantize(&layout, &x, Rounding::Nearest, 0, 0, &mut packed, &mut min, &mut scale).unwrap();
    let mut y = vec![0f32; x.len()];
    ctx.dequantize(&layout, &packed, &min, &scale, &mut y).unwrap();
    let worst = |r: usize| (0..cols).map(|c| (y[r * cols + c] - x[r * cols + c]).abs()).fold(0f32, f32::max);
    assert!(worst(3) < 0.02 * worst(0), "8-bit row {} vs 1-bit row {}", worst(3), worst(0));

    // f16 and bf16 metadata: the error stays near the f32 one
    let layout = Layout::new(rows, cols, 64, 4);
    let sizes = layout.sizes().unwrap();
    let mut packed = vec![0u8; sizes.packed_bytes];
    let (mut min, mut scale) = (vec![0f32; sizes.groups], vec![0f32; sizes.groups]);
    ctx.quantize(&layout, &x, Rounding::Nearest, 0, 0, &mut packed, &mut min, &mut scale).unwrap();
    ctx.dequantize(&layout, &packed, &min, &scale, &mut y).unwrap();
    let err_f32 = y.iter().zip(&x).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    let half = layout.with_meta_dtype(Dtype::F16);
    let (mut hmin, mut hscale) = (vec![F16(0); sizes.groups], vec![F16(0); sizes.groups]);
    ctx.quantize(&half, &x, Rounding::Nearest, 0, 0, &mut packed, &mut hmin, &mut hscale).unwrap();
    ctx.dequantize(&half, &packed, &hmin, &hscale, &mut y).unwrap();
    let err_f16 = y.iter().zip(&x).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    assert!(err_f16 <= 1.05 * err_f32 + 0.02, "f16 metadata {} vs f32 {}", err_f16, err_f32);
    let brain = layout.with_meta_dtype(Dtype::Bf16);
    let (mut bmin, mut bscale) = (vec![Bf16(0); sizes.groups], vec![Bf16(0); sizes.groups]);
    ctx.quantize(&brain, &x, Rounding::Nearest, 0, 0, &mut packed, &mut bmin, &mut bscale).unwrap();
    for (g, (m, s)) in bmin.iter().zip(&bscale).enumerate() {
        // the stored bf16 minimum is at or below the group's values
        let lo = x[g / 2 * cols + (g % 2) * 64..g / 2 * cols + ((g % 2) * 64 + 64).min(cols)]
            .iter().cloned().fold(f32::INFINITY, f32::min);
        assert!(m.to_f32() <= lo && s.to_f32() > 0.0, "group {}", g);
    }
    // metadata slices of the wrong element type are refused
    let e = ctx.quantize(&half, &x, Rounding::Nearest, 0, 0, &mut packed, &mut min, &mut scale).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

#[test]
fn nonfinite_groups() {
    let ctx = Context::new(Backend::Cpu).unwrap();
    let mut x = Rng(3).vec(32, -1.0, 1.0);
    x[10] = f32::NAN;
    let layout = Layout::new(2, 16, 8, 2);
    let (mut packed, mut min, mut scale) = ([0u8; 8], [0f32; 4], [0f32; 4]);
    let e = ctx.quantize(&layout, &x, Rounding::Stochastic, 1, 2, &mut packed, &mut min, &mut scale).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NonFinite);
    assert!(min[1].is_nan() && scale[1].is_nan());
    assert!(!min[0].is_nan() && !min[2].is_nan() && !min[3].is_nan(), "other groups are processed");
    let mut y = [0f32; 32];
    ctx.dequantize(&layout, &packed, &min, &scale, &mut y).unwrap();
    assert!(y[8..16].iter().all(|v| v.is_nan()) && !y[..8].iter().any(|v| v.is_nan()));
}

#[test]
fn refused_calls_leave_buffers_alone() {
    let ctx = Context::new(Backend::Cpu).unwrap();
    let x = Rng(4).vec(32, -1.0, 1.0);
    let layout = Layout::new(2, 16, 8, 2);
    let (mut min, mut scale) = ([0f32; 4], [0f32; 4]);
    let mut short = [77u8; 7];
    let e = ctx.quantize(&layout, &x, Rounding::Nearest, 0, 0, &mut short, &mut min, &mut scale).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.detail().unwrap().contains("packed"), "{}", e);
    assert_eq!(short, [77u8; 7]);
    let mut packed = [0u8; 8];
    let e = ctx.quantize(&layout, &x[..31], Rounding::Nearest, 0, 0, &mut packed, &mut min, &mut scale).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    let e = ctx.quantize(&layout, &x, Rounding::Nearest, 0, 0, &mut packed, &mut min[..3], &mut scale).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    let mut y = [0f32; 33];
    let e = ctx.dequantize(&layout, &packed, &min, &scale, &mut y).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    // the layout's rules are the binding's now; C still refuses the same layout itself
    let e = ctx.quantize(&Layout::new(2, 16, 12, 2), &x, Rounding::Nearest, 0, 0, &mut packed, &mut min, &mut scale)
        .unwrap_err();
    assert_eq!((e.kind(), e.argument()), (ErrorKind::InvalidArgument, Some("group_size")));
    let raw = actq::sys::actq_layout { group_size: 12, ..Layout::new(2, 16, 8, 2).to_raw().unwrap() };
    let status = unsafe { actq::sys::actq_layout_sizes(&raw, std::ptr::null_mut(), std::ptr::null_mut()) };
    assert_eq!(status, actq::sys::ACTQ_ERR_INVALID_ARGUMENT);
    // empty work is valid
    let empty = Layout::new(0, 16, 8, 2);
    ctx.quantize::<f32, f32>(&empty, &[], Rounding::Nearest, 0, 0, &mut [], &mut [], &mut []).unwrap();
}

#[test]
fn pack_and_unpack() {
    let ctx = Context::new(Backend::CpuReference).unwrap();
    let mut packed = [0u8; 2];
    ctx.pack(2, &[1, 2, 3, 0, 3], &mut packed).unwrap();
    // LSB first: 1 | 2 << 2 | 3 << 4 | 0 << 6 = 0x39, then 3 with zero high bits
    assert_eq!(packed, [0x39, 0x03]);
    let mut codes = [0u8; 5];
    ctx.unpack(2, &packed, &mut codes).unwrap();
    assert_eq!(codes, [1, 2, 3, 0, 3]);
    let mut rng = Rng(5);
    for bits in 1..=8u32 {
        let codes: Vec<u8> = (0..1001).map(|_| (rng.next_u64() >> (64 - bits)) as u8).collect();
        let mut packed = vec![0u8; (1001 * bits as usize + 7) / 8];
        ctx.pack(bits, &codes, &mut packed).unwrap();
        let mut back = vec![0u8; 1001];
        ctx.unpack(bits, &packed, &mut back).unwrap();
        assert_eq!(back, codes, "{} bits", bits);
    }
    assert_eq!(ctx.pack(2, &[1, 4], &mut packed).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(ctx.pack(9, &[1], &mut packed).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(ctx.unpack(2, &[0u8; 1], &mut [0u8; 5]).unwrap_err().kind(), ErrorKind::InvalidArgument);
}
